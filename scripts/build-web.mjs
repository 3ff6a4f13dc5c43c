// `npm run build:web`: builds web/vendor/ (git-ignored; served with the other static files of web/):
// - leaflet/: Leaflet's dist build for web/map.html (and its CSS/images for the console);
// - console.js: the console (web/src/main.js) bundled with esbuild, with CodeMirror 6, Chart.js and Leaflet from npm;
// - explore.js: the exploration view (web/src/explore/main.js, web/explore.html), bundled the same way;
// - evalscripts/: the repository's data/evalscripts (the request builder's presets) and their index.json;
// - basemap/: Natural Earth's 1:50m country outlines (world-atlas TopoJSON), the console's offline basemap.
// Skipped when every output is newer than every input (web/src, data/evalscripts, package-lock.json for the
// libraries' versions, this script); `--force` rebuilds.
import { build } from "esbuild";
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const vendor = join("web", "vendor");
const INPUTS = [join("web", "src"), join("data", "evalscripts"), "package-lock.json", "scripts/build-web.mjs"];
const OUTPUTS = [
  join(vendor, "console.js"),
  join(vendor, "explore.js"),
  join(vendor, "evalscripts", "index.json"),
  join(vendor, "leaflet", "leaflet.js"),
  join(vendor, "basemap", "countries-50m.json"),
];

/** Modification times (ms) of path and, for a folder, of everything under it; [] when it does not exist. */
function mtimes(path) {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return [];
  return s.isDirectory() ? [s.mtimeMs, ...readdirSync(path).flatMap((n) => mtimes(join(path, n)))] : [s.mtimeMs];
}

const outputs = OUTPUTS.map((o) => mtimes(o)[0] ?? -Infinity);
if (!process.argv.includes("--force") && Math.min(...outputs) > Math.max(...INPUTS.flatMap(mtimes))) process.exit(0);
const leaflet = dirname(require.resolve("leaflet/dist/leaflet.js"));
mkdirSync(join(vendor, "leaflet"), { recursive: true });
for (const f of ["leaflet.js", "leaflet.css"]) cpSync(join(leaflet, f), join(vendor, "leaflet", f));
cpSync(join(leaflet, "images"), join(vendor, "leaflet", "images"), { recursive: true });

mkdirSync(join(vendor, "basemap"), { recursive: true });
cpSync(require.resolve("world-atlas/countries-50m.json"), join(vendor, "basemap", "countries-50m.json"));

const scripts = join("data", "evalscripts");
const names = readdirSync(scripts)
  .filter((n) => n.endsWith(".js"))
  .sort();
mkdirSync(join(vendor, "evalscripts"), { recursive: true });
for (const n of names) cpSync(join(scripts, n), join(vendor, "evalscripts", n));
writeFileSync(join(vendor, "evalscripts", "index.json"), JSON.stringify(names));

for (const [entry, out] of [
  [join("web", "src", "main.js"), "console.js"],
  [join("web", "src", "explore", "main.js"), "explore.js"],
])
  await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    minify: true,
    sourcemap: true,
    target: "es2022",
    outfile: join(vendor, out),
    logLevel: "warning",
  });

// `npm run build:web`: copies the browser libraries the console uses from node_modules into web/vendor/
// (git-ignored; served with the other static files): Leaflet's dist build for web/map.html.
import { cpSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const leaflet = dirname(require.resolve("leaflet/dist/leaflet.js"));
const out = join("web", "vendor", "leaflet");
mkdirSync(out, { recursive: true });
for (const f of ["leaflet.js", "leaflet.css"]) cpSync(join(leaflet, f), join(out, f));
cpSync(join(leaflet, "images"), join(out, "images"), { recursive: true });

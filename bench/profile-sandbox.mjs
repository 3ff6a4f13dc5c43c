// Profiles the evalscript sandbox in node (not a test, not part of `npm run bench`): the sandbox modules of
// src/raster/evalscript/host/sandbox.ts (SANDBOX_MODULES, the same texts the Worker Loader gets) plus each compiled script
// (compile.ts) are written to a temp dir, `cloudflare:workers` is shimmed (WorkerEntrypoint / RpcTarget as plain
// classes), and entry.js's `evaluate(params, block)` runs over one real block of the 29RKH L2A scene (data/, read
// with geotiff.js: 10 m bands as stored, 20 m / 60 m bands repeated 2x / 6x onto the 10 m grid, as nearest
// resampling gives them; reflectance = DN / 10000, CLM from SCL, the item's scene angles, dataMask = B04 != 0).
// Every (variant, script) runs in its own child process (harden.js freezes the whole realm once), 1 warm-up
// evaluation then N timed ones; prints CPU ms per Mpx (median; the process's user + system time, which a loaded
// machine disturbs far less than wall time) per script and variant, and a hash of the outputs
// (NaN bits canonical) so that variants can be checked to give the same values.
//
//   npm run -s profile:sandbox -- [options]      (= npx tsx bench/profile-sandbox.mjs [options])
//   --scripts a,b     scripts of data/evalscripts whose file name contains one of the words (default: all)
//   --file F          (repeatable) an evalscript file of your own instead of those of data/evalscripts
//   --n N             timed evaluations per child (default 5); --rounds R: children per (script, variant) (default 1)
//   --size S          block of S x S pixels (default 1024, at most 1098)
//   --scenes K        ORBIT / TILE scripts get the scene K times (default 1; a script comparing two dates needs 2)
//   --wall            wall-clock ms instead of CPU ms
//   --ref REV         also run the sandbox/*.js of git revision REV ("ref"), interleaved with the worktree's ("cur")
//   --no-harden       also run a variant without harden.js (its exports stubbed): the price of the hardening
//   --plain           also run the script as written, without EO Edge's runtime (bench/lib/plain-eval.mjs: the script's own cost)
//   --no-freeze       also run a variant with harden.js but without its final freeze of the realm (freeze.js freezeAll)
//   --cpu-prof DIR    write a V8 .cpuprofile per child into DIR; --top K prints the K sandbox / script functions of most
//                     self time (time in builtins counts for their JS caller: a guard's wrapper shows the native method)
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { inputBands, plainRun } from "./lib/plain-eval.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const SANDBOX_DIR = join(ROOT, "src/raster/evalscript/sandbox");
const SCENE = join(ROOT, "data/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A");
const ITEM = join(ROOT, "data/items/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A.json");
const RKH_INFO = { id: "S2A_29RKH_20200219_0_L2A", date: "2020-02-19T11:34:25Z", cloudCoverage: 4.05 };
const BANDS = ["AOT", "B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B09", "B11", "B12", "SCL", "WVP"];

/** Node module hooks of the children: the sandbox texts as modules' default export, the shim, the CJS script. */
const HOOKS = `
const SANDBOX = ${JSON.stringify(pathToFileURL(SANDBOX_DIR).href + "/")};
export async function resolve(spec, context, next) {
  if (spec === "cloudflare:workers") return { url: new URL("shim.mjs", import.meta.url).href, format: "module", shortCircuit: true };
  return next(spec, context);
}
export async function load(url, context, next) {
  if (url.startsWith(SANDBOX) && url.endsWith(".js") && !url.slice(SANDBOX.length).includes("/")) {
    const { readFileSync } = await import("node:fs");
    return { format: "module", source: "export default " + JSON.stringify(readFileSync(new URL(url), "utf8")) + ";", shortCircuit: true };
  }
  if (url.endsWith("/evalscript.js")) return { format: "commonjs", shortCircuit: true };
  return next(url, context);
}
`;
const SHIM =
  "export class WorkerEntrypoint { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }\nexport class RpcTarget {}\n";
/** harden.js without the hardening: the exports the other modules import. */
const NO_HARDEN = `export const native = Object.freeze({ Array, ArrayBuffer, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array,
  Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array });
export function enter(inst) {}\n`;

/** @param {string[]} argv */
function options(argv) {
  const o = {
    scripts: [],
    files: [],
    n: 5,
    rounds: 1,
    size: 1024,
    scenes: 1,
    wall: false,
    ref: "",
    noHarden: false,
    noFreeze: false,
    plain: false,
    cpuProf: "",
    top: 0,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i],
      next = () => argv[++i];
    if (a === "--scripts") o.scripts = next().split(",");
    else if (a === "--file") o.files.push(resolve(next()));
    else if (a === "--n") o.n = Number(next());
    else if (a === "--rounds") o.rounds = Number(next());
    else if (a === "--size") o.size = Math.min(1098, Number(next()));
    else if (a === "--scenes") o.scenes = Number(next());
    else if (a === "--wall") o.wall = true;
    else if (a === "--ref") o.ref = next();
    else if (a === "--no-harden") o.noHarden = true;
    else if (a === "--no-freeze") o.noFreeze = true;
    else if (a === "--plain") o.plain = true;
    else if (a === "--cpu-prof") o.cpuProf = resolve(next());
    else if (a === "--top") o.top = Number(next());
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

/** Band rasters of the 29RKH scene on the 10 m grid (size x size from the top left): DN as Float32, plus CLM, angles, dataMask. */
async function sceneBands(size) {
  const { fromArrayBuffer } = await import("geotiff");
  const { clmFromScl, sceneAngles } = await import("../src/pipeline/bands.ts");
  const out = {};
  for (const b of BANDS) {
    const buf = readFileSync(join(SCENE, `${b}.tif`));
    const img = await (
      await fromArrayBuffer(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength))
    ).getImage(0);
    const [r] = await img.readRasters();
    const f = 1098 / img.getWidth(),
      w = img.getWidth(),
      v = new Float32Array(size * size);
    for (let y = 0; y < size; y++)
      for (let x = 0; x < size; x++) v[y * size + x] = r[Math.floor(y / f) * w + Math.floor(x / f)];
    out[b] = v;
  }
  const dataMask = Uint8Array.from(out.B04, (v) => (v === 0 ? 0 : 1));
  out.CLM = clmFromScl(out.SCL, dataMask);
  for (const [k, v] of Object.entries(sceneAngles(JSON.parse(readFileSync(ITEM, "utf8")))))
    out[k] = new Float32Array(size * size).fill(v);
  return { bands: out, dataMask };
}

/** The sandbox modules of a variant: SANDBOX_MODULES, with sandbox/*.js of git revision `rev` and the harden.js edits. */
async function variantModules(kind, rev) {
  const { SANDBOX_MODULES } = await import("../src/raster/evalscript/host/sandbox.ts");
  const mods = { ...SANDBOX_MODULES };
  if (kind === "ref") {
    for (const f of Object.keys(mods)) {
      const r = spawnSync("git", ["show", `${rev}:src/raster/evalscript/sandbox/${f}`], {
        cwd: ROOT,
        encoding: "utf8",
        maxBuffer: 1 << 26,
      });
      if (r.status === 0) mods[f] = r.stdout;
    }
  }
  if (kind === "noharden") mods["harden.js"] = NO_HARDEN;
  if (kind === "nofreeze") mods["freeze.js"] = mods["freeze.js"].replace(/\n {2}freezeAll\(roots\(\)\);\n.*\n/, "\n");
  return mods;
}

/** Self time per function of the sandbox and the script in a .cpuprofile (and GC), the k largest: [ms, share of all, "name file:line"]. */
function topFunctions(path, k) {
  const p = JSON.parse(readFileSync(path, "utf8"));
  const dt = new Map();
  for (let i = 0; i < p.samples.length; i++)
    dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  const by = new Map();
  let total = 0;
  for (const n of p.nodes) {
    const ms = dt.get(n.id) ?? 0,
      c = n.callFrame;
    total += ms;
    if (!c.url.includes("/profile-sandbox-") && c.functionName !== "(garbage collector)") continue; // node's and the harness's own
    const key = `${c.functionName || "(anonymous)"} ${c.url.split("/").slice(-1)[0]}:${c.lineNumber + 1}`;
    by.set(key, (by.get(key) ?? 0) + ms);
  }
  return [...by]
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([key, ms]) => [ms, ms / total, key]);
}

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

/** The temp dir of a run: hooks, shim, package.json and the band files; the hooks registered here too. */
async function prepare(o) {
  const tmp = mkdtempSync(join(tmpdir(), "profile-sandbox-"));
  writeFileSync(join(tmp, "hooks.mjs"), HOOKS);
  writeFileSync(join(tmp, "shim.mjs"), SHIM);
  writeFileSync(join(tmp, "package.json"), '{ "type": "module" }\n');
  (await import("node:module")).register(pathToFileURL(join(tmp, "hooks.mjs")).href);
  const { bands, dataMask } = await sceneBands(o.size);
  mkdirSync(join(tmp, "bands"));
  for (const [b, v] of Object.entries(bands)) writeFileSync(join(tmp, "bands", `${b}.f32`), v);
  writeFileSync(join(tmp, "bands", "dataMask.u8"), dataMask);
  return tmp;
}

/** Runs one child; its { ms, hash } or { error }. */
function runChild(o, tmp, dir, prof) {
  const flags = prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : [];
  const args = [
    ...flags,
    "--import",
    "tsx",
    import.meta.filename,
    "--child",
    dir,
    join(tmp, "bands"),
    String(o.size),
    String(o.n),
    String(o.scenes),
    o.wall ? "1" : "0",
  ];
  const c = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 24 });
  const line = c.stdout.split("\n").find((l) => l.startsWith("{"));
  return line ? JSON.parse(line) : { error: (c.stderr || c.stdout).slice(-400) };
}

/** The K functions of most self time in the main thread's profile under dir (the hooks thread writes its own). */
function printTop(log, dir, k, label) {
  const f = readdirSync(dir)
    .map((x) => join(dir, x))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0];
  for (const [t, share, key] of topFunctions(f, k))
    log(`    ${label} ${t.toFixed(0).padStart(6)} ms ${(100 * share).toFixed(1).padStart(5)}%  ${key}`);
}

/** Measures one script in every variant, rounds interleaved (variant order reversed every other round); prints its row. */
function measure(o, tmp, mods, variants, name, compiled, log) {
  const base = basename(name).replace(/\.js$/, ""),
    ms = Object.fromEntries(variants.map((v) => [v, []])),
    hashes = {},
    errors = {};
  for (const v of variants) {
    mkdirSync(join(tmp, v, base), { recursive: true });
    const extra = v === "plain" ? { "raw.js": compiled.source } : { "evalscript.js": compiled.code };
    for (const [f, text] of Object.entries({ ...mods[v], ...extra })) writeFileSync(join(tmp, v, base, f), text);
  }
  for (let r = 0; r < o.rounds; r++) {
    for (const v of r % 2 ? [...variants].reverse() : variants) {
      const res = runChild(o, tmp, join(tmp, v, base), o.cpuProf && join(o.cpuProf, `${base}.${v}.${r}`));
      if (res.error) errors[v] = res.error;
      else {
        ms[v].push(...res.ms);
        hashes[v] = res.hash;
      }
    }
  }
  const px = (o.size * o.size) / 1e6;
  const cell = (v) =>
    errors[v]
      ? `ERROR ${String(errors[v]).replace(/\s+/g, " ").slice(0, 160)}`
      : `${(median(ms[v]) / px).toFixed(1)} (${hashes[v]})`;
  log(`${name} | ${variants.map(cell).join(" | ")}`);
  if (o.cpuProf && o.top)
    for (const v of variants) if (!errors[v]) printTop(log, join(o.cpuProf, `${base}.${v}.0`), o.top, v);
}

async function driver(o) {
  const tmp = await prepare(o);
  const { compileEvalscript } = await import("../src/raster/evalscript/compile/compile.ts");
  const variants = [
    "cur",
    ...(o.ref ? ["ref"] : []),
    ...(o.noHarden ? ["noharden"] : []),
    ...(o.noFreeze ? ["nofreeze"] : []),
    ...(o.plain ? ["plain"] : []),
  ];
  const mods = Object.fromEntries(await Promise.all(variants.map(async (v) => [v, await variantModules(v, o.ref)])));
  const names = o.files.length
    ? o.files
    : readdirSync(join(ROOT, "data/evalscripts"))
        .filter((f) => f.endsWith(".js") && (!o.scripts.length || o.scripts.some((s) => f.includes(s))))
        .sort();
  const log = (s) => process.stdout.write(s + "\n");
  log(
    `${o.size}x${o.size} block of 29RKH, ${o.n} timed evaluations x ${o.rounds} round(s); ${o.wall ? "wall" : "CPU"} ms per Mpx, median (output hash)`,
  );
  log(`script | ${variants.join(" | ")}`);
  for (const name of names) {
    let compiled;
    try {
      compiled = compileEvalscript(readFileSync(resolve(ROOT, "data/evalscripts", name), "utf8"));
    } catch (e) {
      log(`${name} | does not compile: ${String(e.message).slice(0, 80)}`);
      continue;
    }
    measure(
      o,
      tmp,
      mods,
      variants,
      name,
      { ...compiled, source: readFileSync(resolve(ROOT, "data/evalscripts", name), "utf8") },
      log,
    );
  }
  rmSync(tmp, { recursive: true, force: true });
}

/** FNV-1a over the output values (Float32 NaNs as one canonical NaN), hex. */
function hashOf(values) {
  let h = 0x811c9dc5;
  for (const id of Object.keys(values).sort()) {
    const a = values[id],
      f = a instanceof Float32Array;
    const words = f ? new Uint32Array(a.buffer, a.byteOffset, a.length) : a;
    for (let i = 0; i < words.length; i++)
      h = Math.imul(h ^ (f && a[i] !== a[i] ? 0x7fc00000 : words[i]), 16777619) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** One child: setup, 1 warm-up and n timed evaluations of the script in `dir`; prints one JSON line. */
async function child([dir, bandDir, sizeArg, nArg, scenesArg, wallArg]) {
  const proc = process,
    now = performance.now.bind(performance),
    clone = structuredClone;
  // CPU time (user + system, all threads of the process, ms) unless wall time is asked for: on a shared machine
  // the wall time of a run also counts the time other processes had the cores
  const cpu = () => {
      const u = proc.cpuUsage();
      return (u.user + u.system) / 1000;
    },
    wall = wallArg === "1";
  const { register } = await import("node:module");
  register(pathToFileURL(join(dir, "../../hooks.mjs")).href);
  const { normalizeSetup } = await import("../src/raster/evalscript/host/setup.ts");
  const { HOST_LIMITS } = await import("../src/raster/evalscript/limits.ts");
  const size = Number(sizeArg),
    n = Number(nArg),
    px = size * size;
  // every band as DN and as reflectance, made before harden.js guards typed array methods (and charges nobody)
  const dn = {},
    refl = {};
  for (const f of readdirSync(bandDir).filter((x) => x.endsWith(".f32"))) {
    const b = f.slice(0, -4),
      raw = new Float32Array(readFileSync(join(bandDir, f)).buffer.slice(0));
    dn[b] = raw;
    refl[b] = /^B\d/.test(b) ? raw.map((v) => v * (1 / 10000)) : raw;
  }
  if (existsSync(join(dir, "raw.js"))) {
    const bandsFor = (names, units) => ({
      bands: Object.fromEntries(
        names.filter((b) => b !== "dataMask").map((b) => [b, units[b] === "DN" ? dn[b] : refl[b]]),
      ),
      dataMask: new Uint8Array(readFileSync(join(bandDir, "dataMask.u8"))),
    });
    const res = await plainRun(
      dir,
      (await import("../src/raster/evalscript/host/setup.ts")).normalizeSetup,
      bandsFor,
      Number(sizeArg),
      Number(nArg),
      wall ? now : cpu,
    );
    proc.stdout.write(JSON.stringify(res) + "\n");
    return;
  }
  // node's lazy globals (fetch, WebSocket, ...) load on first read and need Buffer, which harden.js deletes
  for (const k of Reflect.ownKeys(globalThis))
    try {
      void globalThis[k];
    } catch {}
  const { default: Entry } = await import(pathToFileURL(join(dir, "entry.js")).href);
  const api = new Entry({}, {});
  const budget = { perCall: 20_000_000, total: 1e9 + 2000 * px };
  const s = api.setup(budget);
  if (!s.ok) throw new Error(`setup: ${JSON.stringify(s.error)}`);
  const setup = normalizeSetup(s.value);
  const { bandsBy, units } = inputBands(setup);
  const names = bandsBy[""] ?? Object.values(bandsBy)[0] ?? [];
  const k = setup.mosaicking === "SIMPLE" ? 1 : Number(scenesArg) || 1;
  const bands = {};
  for (const b of names) if (b !== "dataMask") bands[b] = units[b] === "DN" ? dn[b] : refl[b];
  const dataMask = new Uint8Array(readFileSync(join(bandDir, "dataMask.u8")));
  const params = {
    width: size,
    height: size,
    mosaicking: setup.mosaicking,
    bandsBy,
    outputs: setup.outputs,
    scenes: Array.from({ length: k }, () => ({ info: RKH_INFO })),
    customData: {},
    inputMetadata: { serviceVersion: "1.0.0", normalizationFactor: 0.0001 },
    convert: true,
    budget,
    limits: { outputBands: HOST_LIMITS.outputBands, outputBytes: HOST_LIMITS.outputBytes },
  };
  const block = {
    rowStart: 0,
    rows: size,
    scenes: Array.from({ length: k }, () => (names.includes("dataMask") ? { bands, dataMask } : { bands })),
  };
  const ms = [];
  let hash = "";
  for (let i = 0; i <= n; i++) {
    const [p, b] = clone([params, block]); // as RPC delivers them: fresh objects and arrays per call
    const t0 = wall ? now() : cpu();
    const r = api.evaluate(p, b);
    const t = (wall ? now() : cpu()) - t0;
    if (!r.ok) throw new Error(`evaluate: ${JSON.stringify(r.error).slice(0, 300)}`);
    if (i > 0) ms.push(t);
    else hash = hashOf(r.values);
  }
  proc.stdout.write(JSON.stringify({ ms, hash }) + "\n");
}

const argv = process.argv.slice(2);
if (argv[0] === "--child") {
  const proc = process;
  await child(argv.slice(1)).catch((e) => {
    proc.stdout.write(JSON.stringify({ error: String((e && e.stack) || e) }) + "\n");
  });
  proc.exit(0);
} else {
  await driver(options(argv));
}

// The Statistical API's engine stages in-process, no server: the bench's 29RKH request (test/fixtures/statistics/
// ndvi_scl.js over the tile at 100 m: B04, B08, SCL at 1098x1098, 3 strips) through the host path's evaluateRows (into
// the reducers' sink when src has one, as the server runs it: the first pass then falls under eval) and the rest of
// the reduction, timed apart. Run: `npx tsx --import ./scripts/lib/wasm-register.mjs bench/bench-stats-engine.mjs`
// (the reducers import WebAssembly). Not a test.
// Times are this process's CPU time (process.cpuUsage), so that other processes' load counts less.
// Before/after: SRC_DIRS=.ab/main,src (copies of src) times each in the same process, alternating run by run.
import { readFileSync } from "node:fs";
import { fromArrayBuffer } from "geotiff";
import { stripInput } from "./lib/stats-strips.mjs";

const DIR = "data/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A";
const N = Number(process.env.BENCH_N ?? 21);
const DIRS = (process.env.SRC_DIRS ?? "src").split(",");
const SCRIPT = readFileSync("test/fixtures/statistics/ndvi_scl.js", "utf8");
const CALC = {
  ndvi: { statistics: { default: { percentiles: { k: [1, 50, 99] } } }, histograms: { default: { nBins: 20 } } },
};

async function band(name) {
  const buf = readFileSync(`${DIR}/${name}.tif`);
  const tiff = await fromArrayBuffer(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const [data] = await (await tiff.getImage()).readRasters();
  return data;
}
const W = 1098;
const [b04, b08, scl549] = await Promise.all([band("B04"), band("B08"), band("SCL")]);
const px = W * W;
const B04 = Float32Array.from(b04, (v) => v / 10000);
const B08 = Float32Array.from(b08, (v) => v / 10000);
const SCL = new Float32Array(px);
for (let y = 0; y < W; y++) for (let x = 0; x < W; x++) SCL[y * W + x] = scl549[(y >> 1) * 549 + (x >> 1)];
const MASK = Uint8Array.from(b04, (v, i) => (v !== 0 && b08[i] !== 0 ? 1 : 0));

/** src/raster/evalscript/host/runtime.ts DEFAULT_LIMITS (that module imports the sandbox's sources as text). */
const LIMITS = { perCall: 2e7, totalBase: 1e9, totalPerSample: 2000, outputBands: 1e6, outputBytes: 1e12 };
/** CPU time of this process in ms (user + system): on a shared machine it counts only this process's work. */
const now = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const engines = await Promise.all(
  DIRS.map(async (d) => {
    const { compileEvalscript } = await import(`../${d}/raster/evalscript/compile/compile.ts`);
    const { HostPathRuntime } = await import(`../${d}/raster/evalscript/hostpath/runtime.ts`);
    const { SANDBOX_BLOCK_BYTES } = await import(`../${d}/raster/memory.ts`);
    const { reduceEvaluation, reducingSink } = await import(`../${d}/stats/reduce.ts`);
    const rt = new HostPathRuntime({ compiled: compileEvalscript(SCRIPT) }, `bench-${d}`, LIMITS);
    const setup = await rt.setup();
    if ((await rt.hostPath()) !== true) throw new Error(`${d}: not host path: ${await rt.hostPath()}`);
    const { input, load } = stripInput(W, SANDBOX_BLOCK_BYTES, { mask: MASK, b04: B04, b08: B08, scl: SCL });
    // as the server runs it: into the reducers' sink when the version has one (the first pass then falls under eval)
    return async () => {
      const t0 = now();
      const reducing = reducingSink?.(setup, null, CALC, px);
      const result = await rt.evaluateRows(input, load, reducing?.sink);
      const t1 = now();
      const outputs = result.sunk ? reducing.finish() : reduceEvaluation(setup, result, null, CALC, true);
      const t2 = now();
      return { ev: t1 - t0, red: t2 - t1, outputs };
    };
  }),
);
const times = DIRS.map(() => ({ ev: [], red: [] }));
let last = [];
for (let i = 0; i < N + 3; i++)
  for (let m = 0; m < engines.length; m++) {
    const r = await engines[m]();
    last[m] = r.outputs;
    if (i >= 3) times[m].ev.push(r.ev), times[m].red.push(r.red);
  }
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const rate = (ms) => (px / ms / 1e3).toFixed(1);
console.log(`29RKH ndvi_scl ${W}x${W} (${(px / 1e6).toFixed(3)} Mpx), ${N} runs, medians`);
DIRS.forEach((d, m) => {
  const ev = med(times[m].ev),
    red = med(times[m].red),
    both = med(times[m].ev.map((e, i) => e + times[m].red[i]));
  console.log(
    `${d.padEnd(12)} eval ${ev.toFixed(2)} ms (${rate(ev)} Mpx/s)  reduce ${red.toFixed(2)} ms (${rate(red)} Mpx/s)  eval+reduce ${both.toFixed(2)} ms ${rate(both)} Mpx/s`,
  );
});
const same = last.every((o) => JSON.stringify(o) === JSON.stringify(last[0]));
console.log(`outputs identical across dirs: ${same}`);
if (process.env.SHOW) console.log(JSON.stringify(last[0]).slice(0, 600));

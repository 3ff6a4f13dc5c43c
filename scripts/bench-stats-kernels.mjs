// Statistical API reducer kernels alone (src/raster/stats reduceBand), no server, no evalscript: NDVI of the
// 29RKH sample (B04, B08, 1098x1098, decoded with geotiff.js), mask = both bands non-zero (nodata 0).
// Run: `npm run -s bench:stats-kernels` (tsx, so the TypeScript sources import directly). Not a test.
// Prints the median time of N runs and Mpx/s (pixels of the sample matrix per second) for three calculations:
// mean/stDev only; + 3 percentiles; + a 100-bin histogram.
import { readFileSync } from "node:fs";
import { fromArrayBuffer } from "geotiff";
import { reduceBand, planarBand } from "../src/raster/stats/index.ts";

const DIR = "data/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A";
const N = Number(process.env.BENCH_N ?? 15);

async function band(name) {
  const buf = readFileSync(`${DIR}/${name}.tif`);
  const tiff = await fromArrayBuffer(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const [data] = await (await tiff.getImage()).readRasters();
  return data;
}

const [red, nir] = await Promise.all([band("B04"), band("B08")]);
const px = red.length;
const ndvi = new Float32Array(px);
const mask = new Uint8Array(px);
for (let i = 0; i < px; i++) {
  const r = red[i];
  const n = nir[i];
  mask[i] = r !== 0 && n !== 0 ? 1 : 0;
  ndvi[i] = (n - r) / (n + r);
}
const view = planarBand(ndvi, px, 0);

const CASES = {
  "mean/stDev": {},
  "+ 3 percentiles": { percentiles: [10, 50, 90] },
  "+ histogram 100 bins": { percentiles: [10, 50, 90], histogram: { nBins: 100 } },
};

console.log(`NDVI 29RKH ${Math.sqrt(px)}² (${(px / 1e6).toFixed(2)} Mpx), median of ${N} runs`);
for (const [name, calc] of Object.entries(CASES)) {
  const times = [];
  let r;
  for (let i = 0; i < N + 2; i++) {
    const t0 = performance.now();
    r = reduceBand(view, mask, calc);
    if (i >= 2) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const ms = times[times.length >> 1];
  const extra = r.percentiles ? ` p=${r.percentiles.map((v) => v.toFixed(4)).join(",")}` : "";
  console.log(`${name.padEnd(22)} ${ms.toFixed(2).padStart(7)} ms  ${(px / ms / 1e3).toFixed(1).padStart(6)} Mpx/s  mean=${r.summary.mean.toFixed(6)}${extra}`);
}

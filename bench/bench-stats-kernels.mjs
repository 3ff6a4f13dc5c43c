// Statistical API reducer kernels alone (src/raster/stats reduceBand), no server, no evalscript: NDVI of the
// 29RKH sample (B04, B08, 1098x1098, decoded with geotiff.js), mask = both bands non-zero (nodata 0).
// Run: `npm run -s bench:stats-kernels` (tsx, so the TypeScript sources import directly). Not a test.
// Prints, for three calculations (mean/stDev only; + 3 percentiles; + a 100-bin histogram), the median and the
// best time of N runs and the Mpx/s (pixels of the sample matrix per second) at each.
// Before/after: STATS_DIRS=stats_old,stats (folders under src/raster, e.g. a copy of main's src/raster/stats)
// times each in the same process, alternating run by run, so that a shared machine's load hits both alike.
import { readFileSync } from "node:fs";
import { fromArrayBuffer } from "geotiff";

const DIR = "data/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A";
const N = Number(process.env.BENCH_N ?? 31);
const DIRS = (process.env.STATS_DIRS ?? "stats").split(",");
const kernels = await Promise.all(DIRS.map((d) => import(`../src/raster/${d}/index.ts`)));

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

const CASES = {
  "mean/stDev": {},
  "+ 3 percentiles": { percentiles: [10, 50, 90] },
  "+ histogram 100 bins": { percentiles: [10, 50, 90], histogram: { nBins: 100 } },
};

const rate = (ms) => `${(px / ms / 1e3).toFixed(1).padStart(6)} Mpx/s`;
console.log(
  `NDVI 29RKH ${Math.sqrt(px)}² (${(px / 1e6).toFixed(2)} Mpx, ${mask.reduce((a, b) => a + b, 0)} valid), ${N} runs`,
);
for (const [name, calc] of Object.entries(CASES)) {
  const times = DIRS.map(() => []);
  const last = [];
  for (let i = 0; i < N + 2; i++) {
    kernels.forEach((k, m) => {
      const t0 = performance.now();
      last[m] = k.reduceBand(k.planarBand(ndvi, px, 0), mask, calc);
      if (i >= 2) times[m].push(performance.now() - t0);
    });
  }
  DIRS.forEach((dir, m) => {
    const t = times[m].sort((a, b) => a - b);
    const [med, best] = [t[t.length >> 1], t[0]];
    const p = last[m].percentiles ? ` p=${last[m].percentiles.map((v) => v.toFixed(4)).join(",")}` : "";
    const label = `${name} [${dir}]`.padEnd(34);
    console.log(
      `${label} median ${med.toFixed(2).padStart(6)} ms ${rate(med)}  best ${best.toFixed(2).padStart(6)} ms ${rate(best)}  mean=${last[m].summary.mean.toFixed(6)}${p}`,
    );
  });
}

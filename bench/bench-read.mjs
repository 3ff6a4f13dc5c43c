// The read stage alone (src/raster/warp readWarped over the real COGs, no server, no R2): the warm NDVI requests of
// the bench (B04 + B08 of 29RKH onto EPSG:4326 [-12, 24.3, -10.8, 25.3] at 512² and 1024²) and the statistics
// request (the whole tile at 100 m in UTM 29N, 1098²), NEAREST. Caches are warmed first, as in a warm isolate.
// Run: `npm run -s bench:read` (tsx). Not a test. Prints the median and best ms of N rounds per case, and with
// BENCH_CASES=512,stat only the cases whose names contain one of the words; RESAMPLING=BILINEAR other kernels.
import { register } from "node:module";
import { readFileSync } from "node:fs";

register("../scripts/lib/wasm-hooks.mjs", import.meta.url);
const { openCog } = await import("../src/raster/cog/index.ts");
// Before/after: WARP_DIRS=warp_main,warp (folders under src/raster, e.g. a copy of main's src/raster/warp) times
// each in the same process, alternating round by round, so that a shared machine's load hits both alike.
const DIRS = (process.env.WARP_DIRS ?? "warp").split(",");
const warps = await Promise.all(DIRS.map((d) => import(`../src/raster/${d}/index.ts`)));
const { crsFromEpsg } = await import("../src/raster/crs/index.ts");

const N = Number(process.env.BENCH_N ?? 41);
const DIR = "data/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A";

/** A ByteSource over a local file. */
function fileSource(path) {
  const buf = readFileSync(path);
  return {
    id: `${path}#local`,
    size: buf.byteLength,
    read: async (ranges) =>
      ranges.map(({ offset, length }) => buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + length)),
  };
}

const cogs = await Promise.all(["B04", "B08"].map((b) => openCog(fileSource(`${DIR}/${b}.tif`))));
const wgs = { crs: crsFromEpsg(4326), bbox: [-12, 24.3, -10.8, 25.3] };
const CASES = {
  "NDVI 512² (EPSG:4326)": { ...wgs, width: 512, height: 512 },
  "NDVI 1024² (EPSG:4326)": { ...wgs, width: 1024, height: 1024 },
  "statistics 1098² (UTM, whole tile)": { crs: cogs[0].crs, bbox: cogs[0].bbox, width: 1098, height: 1098 },
};

const median = (t) => [...t].sort((a, b) => a - b)[t.length >> 1];
const RESAMPLING = process.env.RESAMPLING ?? "NEAREST";
const readBoth = (warp, grid) =>
  Promise.all(cogs.map((c) => warp.readWarped(c, [0], grid, { resampling: RESAMPLING, nodata: 0 })));
const sum = (out) =>
  out.reduce((a, [b]) => a + b.data.reduce((s, v) => s + v, 0) + b.valid.reduce((s, v) => s + v, 0), 0);

console.log(`read stage (B04 + B08, ${RESAMPLING}), ${N} rounds, warm caches`);
const only = process.env.BENCH_CASES?.split(",");
for (const [name, grid] of Object.entries(CASES).filter(([n]) => !only || only.some((o) => n.includes(o)))) {
  const times = DIRS.map(() => []);
  const checksums = await Promise.all(warps.map(async (w) => sum(await readBoth(w, grid))));
  for (let i = 0; i < N; i++)
    for (const [m, w] of warps.entries()) {
      const t0 = performance.now();
      await readBoth(w, grid);
      times[m].push(performance.now() - t0);
    }
  for (const [m, d] of DIRS.entries())
    console.log(
      `${name.padEnd(36)} ${d.padEnd(10)} median ${median(times[m]).toFixed(2).padStart(7)} ms  best ${Math.min(
        ...times[m],
      )
        .toFixed(2)
        .padStart(7)} ms  checksum ${checksums[m]}`,
    );
}

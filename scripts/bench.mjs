// `npm run bench`: Processing API latency, evalscript throughput and worker memory, against the GDAL baseline
// measured in the same run. Starts wrangler dev on a scratch state (.state-bench, seeded like `npm start`).
// Figures: first request and warm p50/p95 over N requests per scenario; ratio ours/GDAL for the NDVI PNG.
// Then, once that server has stopped, runs the other sections (PARTS: statistics, catalog, batch, byoc, limiter; each
// starts and stops its own server); exits 1 when one of them fails. `BENCH_ONLY=batch,limiter npm run bench` runs
// only the sections named.
import { spawnSync, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { NDVI_SCRIPT, RKH_BBOX, env, fmt, getToken, metric, pct, prepareState, processBody, scenario, startServer, workerdPeakMiB } from "./lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const PORT = process.env.BENCH_PORT ?? "8798";
const STATE = resolve(".state-bench");
/**
 * The other sections of `npm run bench` by name, each run after the processing server has stopped, each with its own
 * server. BENCH_ONLY (comma-separated section names, e.g. `BENCH_ONLY=batch,limiter`; `processing` is this file's
 * own) runs only those; unset, every section runs.
 */
const PARTS = {
  statistics: "scripts/bench-statistics.mjs",
  catalog: "scripts/bench-catalog.mjs",
  batch: "scripts/bench-batch.mjs",
  byoc: "scripts/bench-byoc.mjs",
  limiter: "scripts/bench-limiter.mjs",
};
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim()).filter(Boolean);
const unknown = ONLY?.filter((name) => name !== "processing" && !(name in PARTS)) ?? [];
if (unknown.length) {
  console.error(`BENCH_ONLY: unknown section(s) ${unknown.join(", ")}; sections: processing, ${Object.keys(PARTS).join(", ")}`);
  process.exit(2);
}
const wanted = (name) => !ONLY || ONLY.includes(name);

const TRUE_COLOR = `//VERSION=3
function setup(){return {input:["B02","B03","B04","dataMask"],output:{bands:4}}}
function evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02,s.dataMask]}`;
const FLOAT_SCRIPT = `//VERSION=3
function setup(){return {input:["B04","B08"],output:{bands:1,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [(s.B08-s.B04)/(s.B08+s.B04)]}`;

function gdalBaseline() {
  try {
    execFileSync("/usr/bin/python3", ["-c", "from osgeo import gdal"], { stdio: "ignore" });
  } catch {
    console.log("notice: GDAL (python3-gdal) not found; the GDAL baseline is skipped (apt-get install gdal-bin python3-gdal)");
    return null;
  }
  return JSON.parse(execFileSync("/usr/bin/python3", ["scripts/bench_gdal.py", RKH_BBOX.join(","), String(N)], { encoding: "utf8" }));
}

/** Runs the processing scenarios on their own server and prints their table; the server is stopped on return. */
async function processing() {
  prepareState(STATE);
  const server = await startServer({ stateDir: STATE, port: PORT });
  try {
    const token = await getToken(server.base, join(STATE, "demo-client.json"));
    const results = [
      await scenario(server.base, token, N, "NDVI PNG 512x512 EPSG:4326 (29RKH)", processBody(NDVI_SCRIPT, 512, 512, "image/png")),
      await scenario(server.base, token, N, "true colour PNG 512x512 EPSG:4326", processBody(TRUE_COLOR, 512, 512, "image/png")),
    ];
    const peakSmall = workerdPeakMiB(server.pgid);
    results.push(await scenario(server.base, token, N, "NDVI FLOAT32 GeoTIFF 2500x2500", processBody(FLOAT_SCRIPT, 2500, 2500, "image/tiff")));
    const peak = workerdPeakMiB(server.pgid);
    const gdal = gdalBaseline();
    console.log(`\nEO Edge bench (N=${N} warm runs per scenario, wall time over HTTP on 127.0.0.1)`);
    console.log("scenario | first ms | p50 ms | p95 ms | bytes");
    for (const r of results) console.log(`${r.name} | ${fmt(r.first)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${r.bytes}`);
    const evalMs = results[2].runs.map((r) => metric(r.timing, "eval")).filter(Number.isFinite);
    if (evalMs.length) console.log(`evalscript throughput (2500x2500 NDVI, p50 of eval stage ${fmt(pct(evalMs, 50))} ms): ${fmt(6.25 / (pct(evalMs, 50) / 1000))} Mpx/s`);
    const eval512 = results[0].runs.map((r) => metric(r.timing, "eval")).filter(Number.isFinite);
    if (eval512.length) console.log(`evalscript throughput (512x512 NDVI PNG script): ${fmt(0.262144 / (pct(eval512, 50) / 1000))} Mpx/s`);
    console.log(`worker peak memory (workerd VmHWM): ${fmt(peakSmall)} MiB after the 512x512 scenarios, ${fmt(peak)} MiB after ${N + 1} 2500x2500 requests`);
    if (gdal) {
      console.log(`GDAL in-process NDVI PNG 512x512: first ${fmt(gdal.first_ms)} ms, p50 ${fmt(gdal.p50_ms)} ms, p95 ${fmt(gdal.p95_ms)} ms`);
      console.log(`ratio ours/GDAL (p50, NDVI PNG): ${(results[0].p50 / gdal.p50_ms).toFixed(2)} (target <= 1.0)`);
    }
  } finally {
    await server.stop();
  }
}

if (wanted("processing")) await processing();
let failed = false;
for (const part of Object.entries(PARTS).filter(([name, p]) => wanted(name) && existsSync(p)).map(([, p]) => p)) {
  const r = spawnSync("npx", ["node", part], { stdio: "inherit", env });
  if (r.status !== 0) {
    console.log(`${part} failed (exit ${r.status ?? r.signal})`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);

// `npm run bench` section `processing` (BENCH_ONLY=processing; alone: `npx node bench/bench-processing.mjs`):
// Processing API latency, evalscript throughput, concurrency and worker memory against in-process GDAL baselines
// measured in the same run (bench/bench_gdal.py). Starts wrangler dev (port BENCH_PORT, default 8798) on a scratch
// state (.state-bench, seeded like `npm start`), then in order:
//  1. the first requests after start: the token (with its check) and the first Process request (NDVI 512x512 PNG,
//     cold caches: script, sandbox, scene search, COG headers) with its Server-Timing;
//  2. warm NDVI and true colour 512x512 PNG (1 cold + N warm each): the small-request p50 "before";
//  3. NDVI 512x512 PNG from 1 client and from 8 concurrent clients (CONC_TOTAL requests each way, CONC_ROUNDS rounds in
//     turn; the median round's ratio) with the busiest workerd thread's share of a core: requests/s;
//  4. 1024x1024 NDVI and true colour, UINT8 PNG and FLOAT32 GeoTIFF: eval stage Mpx/s, the FLOAT32 GeoTIFF's encode
//     stage; and the eval stage of a script doing no band maths over B04 + B08 (the stage's floor);
//  5. ours / GDAL: NDVI 512x512 PNG and NDVI 1024x1024 FLOAT32 GeoTIFF (gdal.Warp + numpy + GTiff DEFLATE in
//     /vsimem), RATIO_ROUNDS rounds in turn (GDAL's runs then ours), the median round's ratio;
//  6. HEAVY_N 2500x2500 FLOAT32 GeoTIFF requests, then the small requests again and workerd's RSS (does memory return?).
// Figures: wall time over HTTP on 127.0.0.1 (p50 of N warm runs, nearest rank); Server-Timing stages per request,
// the eval and encode figures the mean of the middle half of their runs (scripts/lib/bench.mjs midMean: whole ms).
// The transport floor (a hello-world Worker under wrangler dev, bench/lib/floor.mjs, port BENCH_PROC_FLOOR_PORT,
// default BENCH_PORT + 1) is measured in the same run, next to each group of rows and in each ratio round, and every
// wall time is printed also net of it: the edge has no dev proxy.
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { floorP50, startFloor } from "./lib/floor.mjs";
import {
  NDVI_SCRIPT,
  RKH_BBOX,
  fmt,
  getToken,
  metric,
  midMean,
  prepareState,
  processBody,
  scenario,
  startServer,
  summaryRow,
  concurrencyRounds,
  timed,
  workerdMiB,
} from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const HEAVY_N = Number(process.env.BENCH_HEAVY_N ?? N);
const CONC_TOTAL = Number(process.env.BENCH_CONC_TOTAL ?? Math.max(16, 2 * N));
/** Rounds of 1 then 8 clients (the median round is the figure; BENCH_CONC_ROUNDS). */
const CONC_ROUNDS = Number(process.env.BENCH_CONC_ROUNDS ?? 3);
/** Rounds of GDAL then ours for the ratio rows (the median round is the figure; BENCH_RATIO_ROUNDS). */
const RATIO_ROUNDS = Number(process.env.BENCH_RATIO_ROUNDS ?? 3);
const PORT = process.env.BENCH_PORT ?? "8798";
const FLOOR_PORT = process.env.BENCH_PROC_FLOOR_PORT ?? String(Number(PORT) + 1);
/** GETs of the hello-world Worker per floor measurement. */
const FLOOR_N = Number(process.env.BENCH_FLOOR_N ?? 50);
/** The hello-world Worker (started in main). */
let floorServer;
/** The transport floor now: p50 ms of FLOOR_N GETs. */
const floorNow = () => floorP50(floorServer.base, FLOOR_N);
const STATE = resolve(".state-bench");

const TRUE_COLOR = `//VERSION=3
function setup(){return {input:["B02","B03","B04","dataMask"],output:{bands:4}}}
function evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02,s.dataMask]}`;
const TRUE_COLOR_F32 = `//VERSION=3
function setup(){return {input:["B02","B03","B04"],output:{bands:3,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02]}`;
/** NDVI as users write it: the two bands, a plain return of the number. */
const FLOAT_SCRIPT = `//VERSION=3
function setup(){return {input:["B04","B08"],output:{bands:1,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return (s.B08-s.B04)/(s.B08+s.B04)}`;
/** A script doing no band maths, over the NDVI's bands: its eval stage is the floor of the stage (RPC, loop, output). */
const CONSTANT_F32 = `//VERSION=3
function setup(){return {input:["B04","B08"],output:{bands:1,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [0]}`;
const NDVI512 = processBody(NDVI_SCRIPT, 512, 512, "image/png");
const NDVI1024F = processBody(FLOAT_SCRIPT, 1024, 1024, "image/tiff");
const THROUGHPUT = [
  ["NDVI UINT8 PNG 1024x1024", processBody(NDVI_SCRIPT, 1024, 1024, "image/png")],
  ["true colour UINT8 PNG 1024x1024", processBody(TRUE_COLOR, 1024, 1024, "image/png")],
  ["NDVI FLOAT32 GeoTIFF 1024x1024", NDVI1024F],
  ["true colour FLOAT32 GeoTIFF 1024x1024", processBody(TRUE_COLOR_F32, 1024, 1024, "image/tiff")],
];

/**
 * ms of the Server-Timing stage `name` over a scenario's warm runs: the mean of their middle half (midMean: the
 * stage is read in whole ms); NaN when the stage is never reported.
 */
const stageMs = (result, name) => midMean(result.runs.map((r) => metric(r.timing, name)).filter(Number.isFinite));

/** Mpx/s of `px` pixels in `ms` milliseconds. */
const mpxs = (px, ms) => px / 1e6 / (ms / 1000);

/** GDAL's figures for MODE ("png" 512x512 or "tiff" 1024x1024), n warm runs; null (with a notice) without python3-gdal. */
function gdalBaseline(mode, n = N) {
  try {
    return JSON.parse(
      execFileSync("/usr/bin/python3", ["bench/bench_gdal.py", RKH_BBOX.join(","), String(n), mode], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
  } catch (e) {
    console.log(
      `notice: GDAL baseline ${mode} failed or python3-gdal missing (apt-get install gdal-bin python3-gdal): ${e.message.split("\n")[0]}`,
    );
    return null;
  }
}

/**
 * A ratio row, ours / GDAL: RATIO_ROUNDS rounds in turn, each GDAL's p50 of N / RATIO_ROUNDS warm runs then ours of
 * as many (so that a drift of the shared machine's load reaches both alike); the median round's ratio, met when
 * at most `max`. Returns that round's { ours, gdal } p50s (ms), or null without GDAL.
 */
async function ratioRow(server, token, figure, body, mode, max, maxNet) {
  const n = Math.ceil(N / RATIO_ROUNDS);
  const rounds = [];
  for (let k = 0; k < RATIO_ROUNDS; k++) {
    const gdal = gdalBaseline(mode, n);
    if (!gdal) break;
    const ours = await scenario(server.base, token, n, figure, body);
    const floor = await floorNow();
    rounds.push({
      ours: ours.p50,
      gdal: gdal.p50_ms,
      floor,
      ratio: ours.p50 / gdal.p50_ms,
      net: (ours.p50 - floor) / gdal.p50_ms,
    });
  }
  const median = (key) =>
    rounds.length ? [...rounds].sort((a, b) => a[key] - b[key])[Math.floor(rounds.length / 2)] : null;
  const mid = median("ratio"),
    midNet = median("net");
  console.log(
    `${figure}: rounds ${rounds.map((r) => `${fmt(r.ours)} / ${fmt(r.gdal)} ms = ${fmt(r.ratio, 2)} (floor ${fmt(r.floor)} ms, net ${fmt(r.net, 2)})`).join("; ")}; median ${fmt(mid?.ratio, 2)} (target <= ${max}), net of the floor ${fmt(midNet?.net, 2)}${maxNet ? ` (target <= ${maxNet})` : ""}`,
  );
  summaryRow(
    figure,
    mid
      ? `${fmt(mid.ratio, 2)} (${fmt(mid.ours)} / ${fmt(mid.gdal)} ms, median of ${rounds.length} rounds)`
      : "not measured (no GDAL)",
    `<= ${max}`,
    mid ? mid.ratio <= max : null,
  );
  summaryRow(
    `${figure}, net of the transport floor`,
    midNet
      ? `${fmt(midNet.net, 2)} ((${fmt(midNet.ours)} - ${fmt(midNet.floor)}) / ${fmt(midNet.gdal)} ms)`
      : "not measured (no GDAL)",
    maxNet ? `<= ${maxNet}` : "-",
    midNet && maxNet ? midNet.net <= maxNet : null,
  );
  return mid;
}

const printRows = async (title, rows) => {
  const floor = await floorNow();
  console.log(
    `\n${title}; transport floor now ${fmt(floor)} ms (p50 of ${FLOOR_N} GETs of a hello-world Worker)\nscenario | first ms | p50 ms | p50 net of the floor | p95 ms | bytes | Server-Timing of the last run`,
  );
  for (const r of rows)
    console.log(
      `${r.name} | ${fmt(r.first)} | ${fmt(r.p50)} | ${fmt(r.p50 - floor)} | ${fmt(r.p95)} | ${r.bytes} | ${r.runs.at(-1)?.timing ?? ""}`,
    );
};

/** Steps 1-3: the cold request, the small warm requests and the concurrency figures. */
async function small(server, token) {
  const cold = await timed(server.base, token, NDVI512);
  console.log(
    `server ready ${fmt(server.readyMs / 1000, 1)} s after spawn; first Process request (NDVI PNG 512x512, cold caches): ${fmt(cold.ms)} ms; Server-Timing: ${cold.timing}`,
  );
  summaryRow(
    "first Process request after start (NDVI 512 PNG, cold)",
    `${fmt(cold.ms)} ms`,
    "<= 150 ms",
    cold.ms <= 150,
  );
  const rows = [
    await scenario(server.base, token, N, "NDVI PNG 512x512 EPSG:4326 (29RKH)", NDVI512),
    await scenario(server.base, token, N, "true colour PNG 512x512", processBody(TRUE_COLOR, 512, 512, "image/png")),
  ];
  await printRows(`Small requests (N=${N} warm runs each)`, rows);
  const rounds = await concurrencyRounds(server, token, NDVI512, 8, CONC_TOTAL, CONC_ROUNDS);
  console.log(
    `NDVI PNG 512x512, 1 client then 8 concurrent clients, ${CONC_TOTAL} requests each, ${CONC_ROUNDS} rounds (busiest workerd thread, share of a core):`,
  );
  for (const r of rounds)
    console.log(
      `  1 client ${fmt(r.one)} req/s (${fmt(r.cores[0], 2)}), 8 clients ${fmt(r.many)} req/s (${fmt(r.cores[1], 2)}), ratio ${fmt(r.ratio, 2)}`,
    );
  const mid = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
  console.log(`median round: ratio ${fmt(mid.ratio, 2)} (target >= 1.8 where one workerd thread does not bound it)`);
  summaryRow(
    "8 concurrent clients / 1, NDVI 512 PNG req/s (median round)",
    `${fmt(mid.ratio, 2)} (${fmt(mid.many)} / ${fmt(mid.one)} req/s; one workerd thread at ${fmt(mid.cores[1], 2)} cores)`,
    ">= 1.8 (bound: one workerd thread runs all the JavaScript; see the core share)",
    mid.ratio >= 1.8,
  );
  return rows[0];
}

/** Step 4: evalscript throughput (eval stage) at 1024x1024 and the FLOAT32 GeoTIFF encode stage. */
async function large(server, token) {
  const rows = [];
  for (const [name, body] of THROUGHPUT) rows.push(await scenario(server.base, token, N, name, body));
  await printRows(`1024x1024 requests (N=${N} warm runs each)`, rows);
  console.log("evalscript throughput (the eval stage, mean of the middle half of its runs in whole ms, 1.048576 Mpx):");
  for (const r of rows) {
    const ev = stageMs(r, "eval");
    console.log(`  ${r.name}: eval ${fmt(ev)} ms = ${fmt(mpxs(1048576, ev))} Mpx/s`);
    summaryRow(`evalscript Mpx/s, ${r.name}`, fmt(mpxs(1048576, ev)), ">= 150", mpxs(1048576, ev) >= 150);
  }
  const floor = await scenario(
    server.base,
    token,
    N,
    "constant [0] FLOAT32 GeoTIFF 1024x1024 over B04 + B08",
    processBody(CONSTANT_F32, 1024, 1024, "image/tiff"),
  );
  const floorEval = stageMs(floor, "eval");
  console.log(
    `  the stage's floor, a script returning [0] over B04 + B08 (on the host path a constant program: the output written, no band read): eval ${fmt(floorEval)} ms = ${fmt(mpxs(1048576, floorEval))} Mpx/s`,
  );
  summaryRow(
    "evalscript stage floor: [0] over B04 + B08, FLOAT32 1024x1024 (host path: the output write alone)",
    `${fmt(mpxs(1048576, floorEval))} Mpx/s (${fmt(floorEval)} ms)`,
    "-",
    null,
  );
  const enc = stageMs(rows[2], "encode");
  console.log(
    `GeoTIFF encode of 1 Mpx FLOAT32 (encode stage of the NDVI FLOAT32 GeoTIFF 1024x1024, middle-half mean): ${fmt(enc)} ms (target <= 30)`,
  );
  summaryRow("GeoTIFF encode, 1 Mpx FLOAT32 (encode stage)", `${fmt(enc)} ms`, "<= 30 ms", enc <= 30);
  return rows[2];
}

/**
 * Step 6: heavy requests, then the small ones again; memory before and after.
 *
 * What bounds the RSS row (2026-11-27; two wrangler dev servers on copies of one state given the same
 * requests alternately, 3 runs of 20-30 heavy ones: one as here, one with EDGE_V8_ENV of scripts/lib/bench.mjs, the
 * edge's 128 MB per isolate; JS = V8 heap + ArrayBuffers per isolate, workerd's inspector, bench/lib/isolates.mjs):
 * - at start RSS 205-210 MiB, JS 44 (the Worker 21, miniflare's D1/R2/queue simulators and helpers the rest);
 * - after the heavy and then small requests, as here: RSS 895-939 MiB (before 592-620, row 1.44-1.56), JS 290-414
 *   (sandbox isolates 150-277, the Worker 88; 224 right after the heavy ones); with the limit: RSS 726-810 (before
 *   574-622, row 1.19-1.34), JS 264-352 (sandboxes 152-243, each up to its limit before SANDBOX_RECYCLE_BYTES
 *   recycles it; the Worker 61); the simulators stay under 50 MiB either way;
 * - the rest, 370-600 MiB either way (165 at start), is in no isolate: memory V8 has freed that workerd's allocator
 *   (tcmalloc, linked into workerd) keeps mapped. Idle for 10 s, RSS does not fall.
 * The limit lowers the row by ~0.2 but slows the heavy requests (GC under the limit): 2500 x 2500 FLOAT32 GeoTIFF
 * wall p50 336 -> 595, 370 -> 556, 298 -> 430 ms (eval stage 102-112 -> 148-180 ms), true-colour PNG 2500 x 2500
 * 474 -> 603, 491 -> 665 ms, Statistical API 29RKH 2500 x 2500 807-1000 -> 1190-1263 ms; the 512 PNG and 1024
 * FLOAT32 requests within the noise. Nothing legitimate failed under it (those requests, an async 10000 x 10000,
 * batch:restart-check, test:browser). So this server keeps workerd's default (no limit), and the row stays bound
 * by the memory workerd keeps.
 */
async function afterHeavy(server, token, before512, before1024, gdal1024) {
  const rssBefore = workerdMiB(server.pgid, "VmRSS");
  const heavy = await scenario(
    server.base,
    token,
    HEAVY_N,
    "NDVI FLOAT32 GeoTIFF 2500x2500",
    processBody(FLOAT_SCRIPT, 2500, 2500, "image/tiff"),
  );
  const [peak, rssHeavy] = [workerdMiB(server.pgid, "VmHWM"), workerdMiB(server.pgid, "VmRSS")];
  const after512 = await scenario(server.base, token, N, "NDVI PNG 512x512 after the heavy requests", NDVI512);
  const after1024 = await scenario(
    server.base,
    token,
    N,
    "NDVI FLOAT32 GeoTIFF 1024x1024 after the heavy requests",
    NDVI1024F,
  );
  const rssAfter = workerdMiB(server.pgid, "VmRSS");
  await printRows(`Heavy requests (${HEAVY_N} warm) and the small ones after them (N=${N})`, [
    heavy,
    after512,
    after1024,
  ]);
  console.log(
    `evalscript throughput 2500x2500 NDVI FLOAT32 (eval ${fmt(stageMs(heavy, "eval"))} ms): ${fmt(mpxs(6.25e6, stageMs(heavy, "eval")))} Mpx/s`,
  );
  const slow512 = after512.p50 / before512.p50;
  const slow1024 = after1024.p50 / before1024.p50;
  console.log(
    `p50 after / before the heavy requests: NDVI PNG 512 ${fmt(after512.p50)} / ${fmt(before512.p50)} ms = ${fmt(slow512, 2)}; NDVI FLOAT32 1024 ${fmt(after1024.p50)} / ${fmt(before1024.p50)} ms = ${fmt(slow1024, 2)}`,
  );
  if (gdal1024)
    console.log(
      `ratio ours/GDAL NDVI FLOAT32 GeoTIFF 1024 after the heavy requests: ${fmt(after1024.p50 / gdal1024.p50_ms, 2)}`,
    );
  console.log(
    `workerd RSS: ${fmt(rssBefore)} MiB before the heavy requests, ${fmt(rssHeavy)} MiB right after them (peak VmHWM ${fmt(peak)} MiB), ${fmt(rssAfter)} MiB after the ${2 * N + 2} small requests that followed`,
  );
  const worst = Math.max(slow512, slow1024);
  summaryRow(
    "small requests after heavy ones, p50 after / before (512 PNG; 1024 FLOAT32)",
    `${fmt(slow512, 2)}; ${fmt(slow1024, 2)}`,
    "<= 1.1 (no slowdown)",
    worst <= 1.1,
  );
  summaryRow(
    "workerd RSS after the heavy requests (memory returns?)",
    `${fmt(rssAfter)} MiB (before ${fmt(rssBefore)}, peak ${fmt(peak)})`,
    `<= 1.5 x before`,
    rssAfter <= 1.5 * rssBefore,
  );
}

async function main() {
  prepareState(STATE);
  const server = await startServer({ stateDir: STATE, port: PORT });
  floorServer = await startFloor(FLOOR_PORT);
  try {
    const t0 = performance.now();
    const token = await getToken(server.base, join(STATE, "demo-client.json"));
    console.log(
      `\nfirst token after start (token endpoint, JWKS and one authenticated GET: signing key from D1, rate limiter object): ${fmt(performance.now() - t0)} ms`,
    );
    const before512 = await small(server, token);
    const before1024 = await large(server, token);
    console.log(
      "\nours / GDAL in-process (bench/bench_gdal.py: gdal.Warp + numpy + PNG / GTiff DEFLATE level 1 in /vsimem), p50s:",
    );
    await ratioRow(server, token, "NDVI 512 PNG warm p50, ours / GDAL", NDVI512, "png", 0.45, 0.35);
    const gdal1024 = await ratioRow(
      server,
      token,
      "NDVI 1024 FLOAT32 GeoTIFF warm p50, ours / GDAL",
      NDVI1024F,
      "tiff",
      0.5,
    );
    await afterHeavy(server, token, before512, before1024, gdal1024 && { p50_ms: gdal1024.gdal });
  } finally {
    await server.stop();
    await floorServer.stop();
  }
}

await main();
process.exit(0);

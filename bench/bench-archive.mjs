// `npm run bench` section `archive` (BENCH_ONLY=archive; alone: `npx node bench/bench-archive.mjs`):
// reads from an upstream archive against GDAL's /vsicurl/ over the same URLs, in the same run. An archive twin
// (scripts/archive-twin.mjs) in this process answers every request after BENCH_ARCHIVE_LATENCY_MS (default 40 ms,
// a cloud round trip); wrangler dev (port BENCH_ARCHIVE_PORT, default 8797) reads `sentinel-2-l2a` through it
// (EO_EDGE_ARCHIVE=twin, ARCHIVE_STAC_URL, ARCHIVE_URL_MAP). Two requests over 29RKH (scripts/lib/bench.mjs):
// NDVI 512x512 PNG and NDVI 1024x1024 FLOAT32 GeoTIFF. Per request and round (BENCH_ARCHIVE_ROUNDS, default 3):
// - ours: a fresh server on a fresh copy of the seeded state (empty Cache API, R2 and isolate caches) from which the
//   bundled 29RKH item is removed (a deployment without the samples: the scene can only come from the archive, as
//   src/pipeline reads the local store first): the token, one cold request, then N warm ones (BENCH_N, default 30);
// - GDAL: a fresh python3 process (bench/bench_gdal.py with BENCH_RKH=/vsicurl/<twin>/objects/sentinel-cogs/...):
//   one cold run, then N warm ones, with the cloud settings GDAL recommends (GDAL_DISABLE_READDIR_ON_OPEN=EMPTY_DIR,
//   GDAL_HTTP_MERGE_CONSECUTIVE_RANGES=YES, GDAL_HTTP_MULTIPLEX=YES, VSI_CACHE=TRUE).
// - the same request on the local store (BENCH_ARCHIVE_LOCAL, default 1; 0 leaves it out), in service: ours on a
//   fresh server that keeps the bundled 29RKH item (the same COG bytes, read from R2), and GDAL on the files in
//   data/, so that the archive's own cost (ours archive / ours local) and the baselines' (GDAL /vsicurl/ / GDAL
//   local) show apart from the ratios of the processing section.
// Two isolate ages, each side in the same state (both figures printed; the targets are checked on the first):
// - in service (the targets): before its cold request, ours serves BENCH_ARCHIVE_PREWARM (default 20) of each of the
//   two requests over another scene of the local store (West Flanders 31UDS, 2018-04-11: other files, another UTM
//   zone, so no cache of 29RKH's is touched; its hedged STAC search finds nothing upstream), and GDAL's process runs
//   the same request 3 times on that scene's files in data/ (BENCH_PREWARM of bench_gdal.py): compiled code and
//   initialised libraries on both sides, empty data caches (no 29RKH header, block, index map or scene search;
//   GDAL: no /vsicurl/ or VSI_CACHE entry), as an edge isolate in service meets a new scene;
// - young: no warm-up: the isolate's first requests pay V8's compilation of every path they run (measured 2026-12-02,
//   NDVI 512 PNG through the twin: warm p50 36 ms over requests 1-10 of a fresh server, 19 ms over 51-60, 16 ms
//   over 1-10 after the warm-up), GDAL's first run its libraries' lazy initialisation (PROJ's database).
// Figures: wall times (ours over HTTP on 127.0.0.1, GDAL in process), the medians over rounds of cold and warm p50,
// ours' request floor (the p50 of N authenticated GETs of /api/v1/metadata/location on the same warm server: HTTP
// through wrangler dev, authentication, routing; what every warm request pays before the pipeline),
// the stages of ours (Server-Timing: the cold request's, and the warm requests' p50 per stage, of the last round),
// when each warm response's headers arrived and how long its body took to read after them (the body's trip through
// wrangler dev and the client, which no stage covers and the edge has no proxy for; GDAL writes to /vsimem), what
// the stages and the request floor leave of the time to headers, and the bytes each side's file holds (GDAL's
// GeoTIFF is DEFLATE level 1; ours stores FLOAT32 above 1 MiB of samples, see src/raster/encode/tiff.ts),
// the ratios ours / GDAL (targets: cold <= 0.7, warm <= 0.5) and the upstream requests of each (the twin's object
// counts; ours must not exceed GDAL's). When the Worker makes no object request, it did not read through the
// archive (the bundled sample answered): the section says so and marks the targets unmeasured.
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startArchiveTwin } from "../scripts/archive-twin.mjs";
import {
  NDVI_SCRIPT,
  fmt,
  getToken,
  metric,
  pct,
  prepareState,
  processBody,
  RKH_BBOX,
  startServer,
  summaryRow,
  timed,
} from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const ROUNDS = Number(process.env.BENCH_ARCHIVE_ROUNDS ?? 3);
const LATENCY_MS = Number(process.env.BENCH_ARCHIVE_LATENCY_MS ?? 40);
const PORT = process.env.BENCH_ARCHIVE_PORT ?? "8797";
const LOCAL = process.env.BENCH_ARCHIVE_LOCAL !== "0";
const PREWARM = Number(process.env.BENCH_ARCHIVE_PREWARM ?? 20);
/** The other scene the servers and GDAL warm up on: a local-store item of West Flanders (31UDS), its files in data/. */
const OTHER = {
  bbox: [3.0193042, 50.8130854, 3.028392, 50.8188427],
  timeRange: { from: "2018-04-11T00:00:00Z", to: "2018-04-12T00:00:00Z" },
  folder: "data/sentinel-2-l2a/westflanders/2018-04-11",
};
const STATE = resolve(".state-bench");
const RKH_KEY = "sentinel-s2-l2a-cogs/29/R/KH/2020/2/S2A_29RKH_20200219_0_L2A";
/** The NDVI as FLOAT32 (bench/bench-processing.mjs's FLOAT_SCRIPT; GDAL's "tiff" mode computes the same). */
const FLOAT_SCRIPT = `//VERSION=3
function setup(){return {input:["B04","B08"],output:{bands:1,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [(s.B08-s.B04)/(s.B08+s.B04)]}`;
const CASES = [
  { name: "NDVI 512x512 PNG", mode: "png", body: processBody(NDVI_SCRIPT, 512, 512, "image/png") },
  { name: "NDVI 1024x1024 FLOAT32 GeoTIFF", mode: "tiff", body: processBody(FLOAT_SCRIPT, 1024, 1024, "image/tiff") },
];
/** The warm-up bodies: each case's request over OTHER. */
const WARMUP = CASES.map(({ body }) => ({
  ...body,
  input: {
    ...body.input,
    bounds: { bbox: OTHER.bbox },
    data: [{ ...body.input.data[0], dataFilter: { timeRange: OTHER.timeRange } }],
  },
}));
const GDAL_CLOUD = {
  GDAL_DISABLE_READDIR_ON_OPEN: "EMPTY_DIR",
  GDAL_HTTP_MERGE_CONSECUTIVE_RANGES: "YES",
  GDAL_HTTP_MULTIPLEX: "YES",
  VSI_CACHE: "TRUE",
};
const median = (xs) => pct(xs, 50);
/** The median of member `k` of the figures `xs` (rounds). */
const m = (xs, k) => median(xs.map((x) => x[k]));

/**
 * One GDAL round in a fresh python3: { cold, warm (p50 ms), coldRequests, warmRequests (per run) }, or null without
 * GDAL. `twin` null: GDAL reads the bundled files in data/ (no request counts). `prewarm`: the process first runs
 * the request on OTHER's files (in service, see the module docs).
 */
async function gdalRound(twin, mode, prewarm) {
  const warmup = prewarm ? { BENCH_PREWARM: `${OTHER.folder};${OTHER.bbox.join(",")}`, BENCH_PREWARM_N: "3" } : {};
  const env = twin
    ? {
        ...process.env,
        ...GDAL_CLOUD,
        ...warmup,
        BENCH_RKH: `/vsicurl/${twin.url}/objects/sentinel-cogs/${RKH_KEY}`,
        BENCH_TWIN_URL: twin.url,
      }
    : { ...process.env, ...GDAL_CLOUD, ...warmup };
  try {
    const { stdout } = await promisify(execFile)(
      "/usr/bin/python3",
      ["bench/bench_gdal.py", RKH_BBOX.join(","), String(N), mode],
      { env, maxBuffer: 1 << 20 },
    );
    const r = JSON.parse(stdout);
    return {
      cold: r.first_ms,
      warm: r.p50_ms,
      coldRequests: r.first_requests,
      warmRequests: r.warm_requests / N,
      bytes: r.bytes,
    };
  } catch (e) {
    console.log(`notice: GDAL baseline unavailable (${String(e.message).split("\n")[0]})`);
    return null;
  }
}

/**
 * Removes the bundled 29RKH item from the local D1 of the wrangler state `dir` (Debian's python3 sqlite3 on
 * miniflare's D1 file), so that the Worker finds the scene only in the archive. Returns the rows removed.
 */
function dropLocalScene(dir) {
  const d1 = join(dir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = readdirSync(d1)
    .filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")
    .map((f) => join(d1, f));
  const sql =
    "import sqlite3,sys\nn=0\nfor f in sys.argv[1:]:\n c=sqlite3.connect(f)\n try: n+=c.execute(\"delete from items where collection='sentinel-2-l2a' and id='S2A_29RKH_20200219_0_L2A'\").rowcount; c.commit()\n except sqlite3.OperationalError: pass\n c.close()\nprint(n)";
  return Number(execFileSync("/usr/bin/python3", ["-c", sql, ...files], { encoding: "utf8" }).trim());
}

/** Wall time (ms) of one authenticated GET of /api/v1/metadata/location: the request path without the pipeline. */
async function requestFloor(base, token) {
  const t0 = performance.now();
  const r = await fetch(`${base}/api/v1/metadata/location`, { headers: { authorization: `Bearer ${token}` } });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`GET /api/v1/metadata/location: ${r.status}`);
  return performance.now() - t0;
}

/** The Server-Timing stages of the pipeline, as "stage p50 ms" over the timings of several requests. */
const STAGES = ["script", "sources", "admission", "scenes", "read", "eval", "encode", "ratelimit"];
const stageMedians = (timings) =>
  STAGES.map((s) => `${s} ${fmt(median(timings.map((t) => metric(t, s))), 0)}`).join(", ");
/** The sum (ms) of all durations of a Server-Timing header. */
const stageSum = (timing) => [...timing.matchAll(/;dur=([\d.]+)/g)].reduce((a, m) => a + Number(m[1]), 0);

/**
 * One round of ours: a fresh server on a fresh copy of the seeded state; { cold, warm, coldRequests, warmRequests,
 * headers and bodyRead (p50 ms of the warm responses' time to headers and of their body's read after them), outside
 * (p50 over warm requests of the time to headers minus the stages, less the request floor: ms), bytes, ... }.
 */
async function oursRound(twin, body, { local = false, prewarm = false } = {}) {
  const state = mkdtempSync(join(tmpdir(), "eo-edge-bench-archive-"));
  cpSync(STATE, state, { recursive: true });
  if (!local && dropLocalScene(state) !== 1)
    throw new Error("the seeded state holds no sentinel-2-l2a item S2A_29RKH_20200219_0_L2A to remove");
  const vars = {
    EO_EDGE_ARCHIVE: "twin",
    ARCHIVE_STAC_URL: twin.stacUrl["earth-search"],
    ARCHIVE_URL_MAP: JSON.stringify(twin.urlMap),
  };
  const server = await startServer({
    stateDir: state,
    port: PORT,
    args: Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  });
  try {
    const token = await getToken(server.base, join(state, "demo-client.json"));
    for (let i = 0; prewarm && i < PREWARM; i++) for (const w of WARMUP) await timed(server.base, token, w);
    twin.resetStats();
    const cold = await timed(server.base, token, body);
    const { object: coldRequests, stac: coldStac, peakInFlight } = twin.stats();
    twin.resetStats();
    const warm = [],
      warmTimings = [],
      heads = [];
    let bytes = 0;
    for (let i = 0; i < N; i++) {
      const r = await timed(server.base, token, body);
      warm.push(r.ms);
      warmTimings.push(r.timing);
      heads.push(r.headers);
      bytes = r.bytes;
    }
    const floor = [];
    for (let i = 0; i < N; i++) floor.push(await requestFloor(server.base, token));
    return {
      floor: median(floor),
      cold: cold.ms,
      warm: median(warm),
      coldRequests,
      coldStac,
      peakInFlight,
      warmRequests: twin.stats().object / N,
      timing: cold.timing,
      warmStages: stageMedians(warmTimings),
      headers: median(heads),
      bodyRead: median(warm.map((w, i) => w - heads[i])),
      outside: median(heads.map((h, i) => h - stageSum(warmTimings[i]))) - median(floor),
      bytes,
    };
  } finally {
    await server.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

/** One round of a case in both isolate ages: { young: { ours, gdal }, service: { ours, gdal }, local }. */
async function caseRound(twin, c) {
  const young = { gdal: await gdalRound(twin, c.mode, false), ours: await oursRound(twin, c.body) };
  const service = {
    gdal: await gdalRound(twin, c.mode, true),
    ours: await oursRound(twin, c.body, { prewarm: true }),
  };
  const local = LOCAL
    ? {
        gdal: await gdalRound(null, c.mode, true),
        ours: await oursRound(twin, c.body, { local: true, prewarm: true }),
      }
    : null;
  return { young, service, local };
}

/** One line of a round's figures, ours `o` against GDAL `g`. */
const roundLine = (o, g) =>
  `ours cold ${fmt(o.cold)} ms (${o.coldRequests} object + ${o.coldStac} STAC req, at most ${o.peakInFlight} at once), warm p50 ${fmt(o.warm)} ms (${fmt(o.warmRequests, 2)} req/run); GDAL cold ${fmt(g?.cold)} ms (${g?.coldRequests ?? "-"} req), warm p50 ${fmt(g?.warm)} ms (${fmt(g?.warmRequests, 2)} req/run)`;

async function main() {
  prepareState(STATE);
  const twin = await startArchiveTwin({ latencyMs: LATENCY_MS });
  console.log(
    `archive twin ${twin.url}, ${LATENCY_MS} ms per request; ${ROUNDS} rounds of (fresh server: 1 cold + ${N} warm) per request and isolate age (in service: ${PREWARM} warm-up requests of each kind on another scene first; young: none), GDAL in a fresh process each round (in service: 3 warm-up runs on that scene's files)`,
  );
  try {
    for (const c of CASES) {
      const rounds = [];
      for (let r = 0; r < ROUNDS; r++) {
        const x = await caseRound(twin, c);
        rounds.push(x);
        console.log(`  ${c.name} round ${r + 1}, in service: ${roundLine(x.service.ours, x.service.gdal)}`);
        console.log(`  ${c.name} round ${r + 1}, young: ${roundLine(x.young.ours, x.young.gdal)}`);
      }
      const side = (age, who) => rounds.map((x) => x[age][who]).filter(Boolean);
      for (const age of ["service", "young"]) {
        const ours = side(age, "ours");
        report(c.name, age, ours, side(age, "gdal"));
        console.log(`  cold Server-Timing (last round): ${ours.at(-1).timing}`);
        console.log(`  warm Server-Timing p50 per stage (last round), ms: ${ours.at(-1).warmStages}`);
        console.log(
          `  request floor (authenticated GET, same servers, median of rounds): ${fmt(median(ours.map((o) => o.floor)))} ms; warm p50 minus floor ${fmt(median(ours.map((o) => o.warm - o.floor)))} ms`,
        );
        reportBody(c.name, age, ours, side(age, "gdal"));
      }
      if (LOCAL)
        reportLocal(c.name, {
          ours: side("service", "ours"),
          gdal: side("service", "gdal"),
          oursLocal: rounds.map((x) => x.local.ours),
          gdalLocal: rounds.map((x) => x.local.gdal).filter(Boolean),
        });
    }
  } finally {
    await twin.close();
  }
}

/**
 * Prints where ours' warm time goes beyond the stages, for one request and age (medians of rounds): the time to the
 * response's headers, the body's read after them (its bytes' trip through wrangler dev and the client), what is left
 * of the time to headers beyond the stages and the request floor, and both files' bytes; (service) a summary row of
 * ours' warm p50 less its body read against GDAL (shown, not a target: GDAL writes to memory).
 */
function reportBody(name, age, ours, gdal) {
  const net = m(ours, "warm") - m(ours, "bodyRead");
  const g = gdal.length ? m(gdal, "warm") : NaN;
  const bytes = `${m(ours, "bytes")} vs ${gdal.length ? m(gdal, "bytes") : "-"} bytes`;
  console.log(
    `  warm response: headers after ${fmt(m(ours, "headers"))} ms, body read ${fmt(m(ours, "bodyRead"))} ms after them (p50s); time to headers beyond the stages and the request floor ${fmt(m(ours, "outside"))} ms; file ${bytes} (ours vs GDAL); warm p50 less the body read ${fmt(net)} ms (/ GDAL ${fmt(net / g, 2)})`,
  );
  if (age === "service")
    summaryRow(
      `archive ${name} warm p50 less its body's read, ours / GDAL`,
      `${fmt(net / g, 2)} (${fmt(net)} / ${fmt(g)} ms; ${bytes})`,
      "(shown)",
      null,
    );
}

/**
 * Prints the local store's figures of one request next to the archive's (medians of rounds): ours and GDAL on the
 * bundled files, and what reading through the archive costs each (archive / local, warm and cold).
 */
function reportLocal(name, { ours, gdal, oursLocal, gdalLocal }) {
  const ol = { cold: m(oursLocal, "cold"), warm: m(oursLocal, "warm") };
  const gl = gdalLocal.length ? { cold: m(gdalLocal, "cold"), warm: m(gdalLocal, "warm") } : null;
  const r = (a, b) => fmt(a / b, 2);
  console.log(
    `${name}, local store (the bundled sample, same request): ours cold ${fmt(ol.cold)} ms, warm p50 ${fmt(ol.warm)} ms; GDAL on data/ cold ${fmt(gl?.cold)} ms, warm p50 ${fmt(gl?.warm)} ms; ours / GDAL cold ${r(ol.cold, gl?.cold)}, warm ${r(ol.warm, gl?.warm)}`,
  );
  console.log(
    `${name}, archive / local store: ours cold ${r(m(ours, "cold"), ol.cold)}, warm ${r(m(ours, "warm"), ol.warm)}; GDAL /vsicurl/ / GDAL local cold ${r(m(gdal, "cold"), gl?.cold)}, warm ${r(m(gdal, "warm"), gl?.warm)}`,
  );
  console.log(
    `  local store warm Server-Timing p50 per stage (last round), ms: ${oursLocal.at(-1).warmStages}; request floor ${fmt(m(oursLocal, "floor"))} ms`,
  );
}

/**
 * Prints the medians and ratios of one request in one isolate age (`service`: the targets; `young`: shown beside
 * them) and writes its summary rows.
 */
function report(name, age, ours, gdal) {
  const targets = age === "service";
  name = `${name}${targets ? "" : " (young isolate, GDAL not warmed up)"}`;
  const o = {
    cold: m(ours, "cold"),
    warm: m(ours, "warm"),
    coldRequests: m(ours, "coldRequests"),
    warmRequests: m(ours, "warmRequests"),
  };
  const g = gdal.length
    ? {
        cold: m(gdal, "cold"),
        warm: m(gdal, "warm"),
        coldRequests: m(gdal, "coldRequests"),
        warmRequests: m(gdal, "warmRequests"),
      }
    : null;
  const viaArchive = o.coldRequests > 0;
  console.log(
    `${name}: ours cold ${fmt(o.cold)} ms, warm p50 ${fmt(o.warm)} ms; GDAL cold ${fmt(g?.cold)} ms, warm p50 ${fmt(g?.warm)} ms (medians of rounds)`,
  );
  console.log(
    `${name}: upstream requests ours cold ${o.coldRequests}, warm ${fmt(o.warmRequests, 2)}/run; GDAL cold ${g?.coldRequests ?? "-"}, warm ${fmt(g?.warmRequests, 2)}/run`,
  );
  if (!viaArchive) {
    console.log(
      `notice: the Worker made no request to the archive twin for ${name}: it answered from the bundled sample, not through the archive read path (EO_EDGE_ARCHIVE=twin); the ratios below are not archive figures`,
    );
  }
  const ok = (ratio, target) => (targets && viaArchive && g ? ratio <= target : null);
  const cold = g ? o.cold / g.cold : NaN,
    warm = g ? o.warm / g.warm : NaN;
  console.log(`${name}: ours / GDAL cold ${fmt(cold, 2)} (target <= 0.7), warm ${fmt(warm, 2)} (target <= 0.5)`);
  summaryRow(
    `archive ${name} cold, ours / GDAL /vsicurl/ (${LATENCY_MS} ms per request)`,
    `${fmt(cold, 2)} (${fmt(o.cold)} / ${fmt(g?.cold)} ms)`,
    targets ? "<= 0.7" : "(shown)",
    ok(cold, 0.7),
  );
  summaryRow(
    `archive ${name} warm p50, ours / GDAL /vsicurl/`,
    `${fmt(warm, 2)} (${fmt(o.warm)} / ${fmt(g?.warm)} ms)`,
    targets ? "<= 0.5" : "(shown)",
    ok(warm, 0.5),
  );
  summaryRow(
    `archive ${name} upstream requests cold, ours vs GDAL`,
    `${o.coldRequests} vs ${g?.coldRequests ?? "-"}`,
    targets ? "ours <= GDAL" : "(shown)",
    targets && viaArchive && g ? o.coldRequests <= g.coldRequests : null,
  );
}

await main();
process.exit(0);

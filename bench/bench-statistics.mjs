// Statistical API benchmark (part of `npm run bench`; alone: `npx node bench/bench-statistics.mjs`).
// Starts wrangler dev on a scratch state (.state-bench, seeded like `npm start`) unless BENCH_BASE points at a
// running server (then BENCH_CLIENT names a demo-client.json). Scenarios: NDVI with SCL cloud masking
// (test/fixtures/statistics/ndvi_scl.js) over the whole 29RKH tile at 100 m, one interval, with percentiles
// and a histogram; the 19 West Flanders acquisitions with P1D and with P1M.
// Figures: first request and warm p50 over N runs after BENCH_WARMUP (3) unmeasured ones (HTTP wall time); pixels per second end to end and through
// the evalscript + reducers (Server-Timing stages `eval` + `reduce`, summed over intervals). Target >= 60 Mpx/s.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  fmt,
  getToken,
  metric,
  midMean,
  pct,
  prepareState,
  startServer,
  summaryRow,
  waitReady,
} from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
/**
 * Requests after the first one and before the N measured ones: a server that has answered a few requests of a kind
 * (its code optimised by V8, its caches filled) is what users' repeated requests meet; the first one is reported apart.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const PORT = process.env.BENCH_STATS_PORT ?? "8799";
const STATE = resolve(".state-bench");
const NDVI_SCL = readFileSync("test/fixtures/statistics/ndvi_scl.js", "utf8");
const REFS = JSON.parse(readFileSync("test/fixtures/statistics/references.json", "utf8"));
const CRS = (epsg) => `http://www.opengis.net/def/crs/EPSG/0/${epsg}`;

/** A statistical request on a reference grid with a reference calculation. */
function body(grid, timeRange, of, calc) {
  const calculations = {
    ndvi: { statistics: { default: { percentiles: calc.percentiles } }, histograms: { default: calc.histogram } },
  };
  return {
    input: { bounds: { bbox: grid.bbox, properties: { crs: CRS(grid.epsg) } }, data: [{ type: "sentinel-2-l2a" }] },
    aggregation: {
      timeRange,
      aggregationInterval: { of },
      width: grid.width,
      height: grid.height,
      evalscript: NDVI_SCL,
    },
    calculations,
  };
}

/** POSTs a statistical request with api = { base: server URL, token }; returns wall time (ms), Server-Timing, intervals, PU. */
async function timed(api, b) {
  const t0 = performance.now();
  const r = await fetch(`${api.base}/api/v1/statistics`, {
    method: "POST",
    headers: { authorization: `Bearer ${api.token}`, "content-type": "application/json" },
    body: JSON.stringify(b),
  });
  const text = await r.text();
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`status ${r.status}: ${text.slice(0, 300)}`);
  const res = JSON.parse(text);
  const intervals = res.data.filter((d) => d.outputs).length;
  return {
    ms,
    timing: r.headers.get("server-timing") ?? "",
    intervals,
    pu: Number(r.headers.get("x-processingunits-spent")),
  };
}

async function scenario(api, name, b) {
  const first = await timed(api, b);
  for (let i = 0; i < WARMUP; i++) await timed(api, b);
  const runs = [];
  for (let i = 0; i < N; i++) runs.push(await timed(api, b));
  const px = b.aggregation.width * b.aggregation.height * first.intervals;
  const p50 = pct(
    runs.map((r) => r.ms),
    50,
  );
  // stages in whole ms (workerd's clock): the mean of the middle half of the runs, not one rounded reading
  const stage = (f) => midMean(runs.map((r) => f(r.timing)));
  const ev = stage((t) => metric(t, "eval"));
  const red = stage((t) => metric(t, "reduce"));
  const engine = stage((t) => metric(t, "eval") + metric(t, "reduce"));
  const rate = (ms) => px / 1e6 / (Math.max(ms, 0.5) / 1000);
  return {
    name,
    first: first.ms,
    p50,
    intervals: first.intervals,
    px,
    pu: first.pu,
    mpxs: rate(p50),
    ev,
    red,
    engine,
    evMpxs: rate(ev),
    redMpxs: rate(red),
    engineMpxs: rate(engine),
  };
}

async function main() {
  let server = null;
  if (process.env.BENCH_BASE) await waitReady(process.env.BENCH_BASE);
  else {
    prepareState(STATE);
    server = await startServer({ stateDir: STATE, port: PORT });
  }
  try {
    const base = process.env.BENCH_BASE ?? server.base;
    const api = { base, token: await getToken(base, process.env.BENCH_CLIENT ?? join(STATE, "demo-client.json")) };
    const rkh = REFS.rkh_tile;
    const wf = REFS.wf_grid;
    const series = REFS.wf_p1m_series.timeRange;
    const results = [
      await scenario(
        api,
        "29RKH tile NDVI 1098x1098 @100 m, 1 interval, percentiles + histogram",
        body(rkh.grid, rkh.timeRange, "P1D", rkh.calc),
      ),
      await scenario(
        api,
        "West Flanders 64x64, P1D over 2017-08..2018-11 (487 intervals)",
        body(wf, series, "P1D", REFS.calcs.A),
      ),
      await scenario(
        api,
        "West Flanders 64x64, P1M over 2017-08..2018-11 (16 intervals)",
        body(wf, series, "P1M", REFS.calcs.B),
      ),
    ];
    console.log(
      `\nEO Edge statistical bench (N=${N} warm runs after the first request and ${WARMUP} warm-up ones, wall time over HTTP on 127.0.0.1)`,
    );
    console.log(
      "scenario | intervals with data | Mpx | first ms | p50 ms | Mpx/s end to end | eval ms / Mpx/s | reduce ms / Mpx/s | eval+reduce Mpx/s | PU",
    );
    for (const r of results)
      console.log(
        `${r.name} | ${r.intervals} | ${fmt(r.px / 1e6, 3)} | ${fmt(r.first)} | ${fmt(r.p50)} | ${fmt(r.mpxs, 2)} | ${fmt(r.ev)} / ${fmt(r.evMpxs)} | ${fmt(r.red)} / ${fmt(r.redMpxs)} | ${fmt(r.engineMpxs)} | ${r.pu}`,
      );
    console.log(
      `target: >= 60 Mpx/s through the evalscript and reducers (29RKH: ${fmt(results[0].engineMpxs, 1)} Mpx/s)`,
    );
    summaryRow(
      "Statistical API, NDVI 1098x1098 + percentiles + histogram (eval + reduce)",
      `${fmt(results[0].engineMpxs)} Mpx/s`,
      ">= 60 Mpx/s",
      results[0].engineMpxs >= 60,
    );
  } finally {
    await server?.stop();
  }
}

await main();
process.exit(0);

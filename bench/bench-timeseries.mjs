// `npm run bench` section `timeseries` (BENCH_ONLY=timeseries; alone: `npx node bench/bench-timeseries.mjs`): a time
// series of one field against numpy + GDAL on the same files, in the same run. Starts wrangler dev (port
// BENCH_TIMESERIES_PORT, default 8799) on a scratch state (.state-bench, seeded like `npm start`), then:
//  - ours: a Statistical API request, NDVI with SCL cloud masking (test/fixtures/statistics/ndvi_scl.js) over the
//    West Flanders field polygon (test/fixtures/statistics/references.json wf_polygon, EPSG:32631, resx/resy 10 m:
//    50 x 50 px), P1D from 2017-08-01 to 2018-12-01 (487 intervals, 19 with an acquisition), percentiles and a
//    histogram; HTTP wall time;
//  - numpy + GDAL: bench/bench_timeseries.py, the same statistics of the 19 dates from the same COGs
//    (gdal.Warp + numpy, in process, after its own cold run);
//  - both in ROUNDS rounds in turn (N / ROUNDS warm runs each way per round); checks that both give the same mean
//    per date (1e-5) and prints the median round's ratio of the p50s (target <= 0.5).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fmt, getToken, metric, pct, prepareState, startServer, summaryRow } from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const PORT = process.env.BENCH_TIMESERIES_PORT ?? "8799";
const STATE = resolve(".state-bench");
const NDVI_SCL = readFileSync("test/fixtures/statistics/ndvi_scl.js", "utf8");
const REFS = JSON.parse(readFileSync("test/fixtures/statistics/references.json", "utf8"));
const TARGET = 0.5;
/** Rounds of numpy + GDAL then ours (the median round's ratio is the figure; BENCH_TS_ROUNDS). */
const ROUNDS = Number(process.env.BENCH_TS_ROUNDS ?? 3);

/** The field's P1D statistical request (see the header). */
function body() {
  const { polygon, grid } = REFS.wf_polygon;
  return {
    input: {
      bounds: {
        geometry: { type: "Polygon", coordinates: [polygon] },
        properties: { crs: `http://www.opengis.net/def/crs/EPSG/0/${grid.epsg}` },
      },
      data: [{ type: "sentinel-2-l2a" }],
    },
    aggregation: {
      timeRange: { from: "2017-08-01T00:00:00Z", to: "2018-12-01T00:00:00Z" },
      aggregationInterval: { of: "P1D" },
      resx: 10,
      resy: 10,
      evalscript: NDVI_SCL,
    },
    calculations: {
      ndvi: {
        statistics: { default: { percentiles: REFS.calcs.A.percentiles } },
        histograms: { default: REFS.calcs.A.histogram },
      },
    },
  };
}

/** One request: { ms, timing, means: {date: mean} }; throws on a non-200. */
async function timed(base, token, b) {
  const t0 = performance.now();
  const r = await fetch(`${base}/api/v1/statistics`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(b),
  });
  const text = await r.text();
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`status ${r.status}: ${text.slice(0, 300)}`);
  const means = Object.fromEntries(
    JSON.parse(text)
      .data.filter((d) => d.outputs)
      .map((d) => [d.interval.from.slice(0, 10), d.outputs.ndvi.bands.B0.stats.mean]),
  );
  return { ms, timing: r.headers.get("server-timing") ?? "", means };
}

/** Dates whose means differ (numbers by more than 1e-5, or NaN against a number) or that only one side has. */
function mismatches(ours, ref) {
  const dates = new Set([...Object.keys(ours), ...Object.keys(ref)]);
  const num = (v) => (v === "NaN" ? NaN : v);
  return [...dates].filter((d) => {
    const [a, b] = [num(ours[d]), num(ref[d])];
    return !(Number.isNaN(a) && Number.isNaN(b)) && !(Math.abs(a - b) <= 1e-5);
  });
}

/** numpy + GDAL's figures for n warm runs (bench/bench_timeseries.py). */
const reference = (n) =>
  JSON.parse(
    execFileSync("/usr/bin/python3", ["bench/bench_timeseries.py", String(n)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );

async function main() {
  prepareState(STATE);
  const server = await startServer({ stateDir: STATE, port: PORT });
  try {
    const token = await getToken(server.base, join(STATE, "demo-client.json"));
    const b = body();
    const first = await timed(server.base, token, b);
    // rounds in turn (numpy + GDAL, then ours), so that a drift of the machine's load reaches both alike
    const rounds = [];
    let ref;
    for (let k = 0; k < ROUNDS; k++) {
      ref = reference(Math.ceil(N / ROUNDS));
      const runs = [];
      for (let i = 0; i < Math.ceil(N / ROUNDS); i++) runs.push(await timed(server.base, token, b));
      rounds.push({
        ref,
        runs,
        ratio:
          pct(
            runs.map((r) => r.ms),
            50,
          ) / ref.p50_ms,
      });
    }
    const mid = [...rounds].sort((x, y) => x.ratio - y.ratio)[Math.floor(ROUNDS / 2)];
    const runs = rounds.flatMap((r) => r.runs);
    const stage = (name) => pct(runs.map((r) => metric(r.timing, name)).filter(Number.isFinite), 50);
    const bad = mismatches(first.means, ref.means);
    console.log(
      `\nWest Flanders field (50 x 50 px), P1D NDVI statistics 2017-08..2018-11, ${Object.keys(first.means).length} intervals with data (${ROUNDS} rounds of ${Math.ceil(N / ROUNDS)} warm runs each way)`,
    );
    for (const r of rounds)
      console.log(
        `  round: ours p50 ${fmt(
          pct(
            r.runs.map((x) => x.ms),
            50,
          ),
        )} ms, numpy + GDAL p50 ${fmt(r.ref.p50_ms)} ms, ratio ${fmt(r.ratio, 2)}`,
      );
    console.log(
      `ours: first ${fmt(first.ms)} ms; stage p50s (summed over intervals, which overlap): eval ${fmt(stage("eval"))} ms, reduce ${fmt(stage("reduce"))} ms, read ${fmt(stage("read"))} ms, scenes ${fmt(stage("scenes"))} ms`,
    );
    if (bad.length)
      console.log(
        `MISMATCH of the means on ${bad.join(", ")}: ours ${JSON.stringify(first.means)} reference ${JSON.stringify(ref.means)}`,
      );
    const p50 = pct(
      mid.runs.map((r) => r.ms),
      50,
    );
    console.log(`median round: ratio ours / numpy+GDAL ${fmt(mid.ratio, 2)} (target <= ${TARGET})`);
    summaryRow(
      "time series: West Flanders field, 19 dates, P1D NDVI statistics, ours / numpy+GDAL (median round)",
      `${fmt(mid.ratio, 2)} (${fmt(p50)} / ${fmt(mid.ref.p50_ms)} ms)${bad.length ? "; means differ" : ""}`,
      `<= ${TARGET}`,
      !bad.length && mid.ratio <= TARGET,
    );
    if (bad.length) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

await main();
process.exit(process.exitCode ?? 0);

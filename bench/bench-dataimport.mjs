// `npm run bench` section `dataimport` (BENCH_ONLY=dataimport): third-party import, time from an order's confirm to a
// processable collection for one product. On the seeded scratch state (.state-bench: the seed loads the
// sample scenes, which the built-in SAMPLE provider offers as products) it starts wrangler dev (port
// BENCH_DATAIMPORT_PORT, default 8797) and, BENCH_DATAIMPORT_N times (default 5): creates an order of one West
// Flanders product (4 band COGs of 64x64 px), confirms it, and polls until the order is DONE and a Process request on
// the new BYOC collection answers exactly what the built-in collection answers for the same scene. Reported: confirm latency, confirm -> order
// DONE, confirm -> first Process 200 with pixels (p50 and max, seconds). The path is two queue hops (the delivery
// unit: provider files -> bucket -> BYOC tile; then the tile's ingestion), each waiting for its batch (wrangler.toml
// max_batch_timeout = 1 s).
import { resolve, join } from "node:path";
import { call, fmt, getToken, pct, prepareState, sleep, startServer, summaryRow } from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_DATAIMPORT_N ?? 5);
const PORT = process.env.BENCH_DATAIMPORT_PORT ?? "8797";
const STATE = resolve(".state-bench");
const ITEM = "S2_L2A_31UDS_20170926T105809_wc00002806639B424A";
const TIMEOUT_MS = 120_000;

const order = () => ({
  name: `bench ${Date.now()}`,
  input: {
    provider: "SAMPLE",
    bounds: { bbox: [3.02, 50.814, 3.028, 50.818] },
    data: [{ type: "catalog", itemType: "sentinel-2-l2a", productBundle: "analytic_10m", itemIds: [ITEM] }],
  },
});

const processBody = (type) => ({
  input: {
    bounds: {
      bbox: [501360, 5629040, 502000, 5629680],
      properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/32631" },
    },
    data: [{ type, dataFilter: { timeRange: { from: "2017-09-26T00:00:00Z", to: "2017-09-26T23:59:59Z" } } }],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript:
    '//VERSION=3\nfunction setup(){return {input:[{bands:["B04"],units:"DN"}],output:{bands:1,sampleType:"UINT8"}}}\nfunction evaluatePixel(s){return [s.B04 / 16]}',
});

/** The Process answer (GeoTIFF bytes) on collection `type`, or null for another status. */
async function processed(base, token, type) {
  const r = await fetch(`${base}/api/v1/process`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(processBody(type)),
  });
  return r.status === 200 ? Buffer.from(await r.arrayBuffer()) : null;
}

/** The built-in collection's answer: an imported collection is processable once it answers the same bytes. */
let reference;

/** One run: { confirmS, doneS, processS }. */
async function run(base, token) {
  const quote = (await call(base, token, "POST", "/api/v1/dataimport/orders", order(), 200)).json;
  const t0 = performance.now();
  const confirmed = (await call(base, token, "POST", `/api/v1/dataimport/orders/${quote.id}/confirm`, undefined, 200))
    .json;
  const confirmS = (performance.now() - t0) / 1000;
  let doneS, processS;
  while (doneS === undefined || processS === undefined) {
    if (performance.now() - t0 > TIMEOUT_MS)
      throw new Error(`order ${quote.id} not processable after ${TIMEOUT_MS / 1000} s`);
    if (doneS === undefined) {
      const o = (await call(base, token, "GET", `/api/v1/dataimport/orders/${quote.id}`, undefined, 200)).json;
      if (o.status === "DONE") doneS = (performance.now() - t0) / 1000;
      else if (o.status !== "RUNNING") throw new Error(`order ${quote.id} ended ${o.status}`);
    }
    if (processS === undefined && (await processed(base, token, `byoc-${confirmed.collectionId}`))?.equals(reference))
      processS = (performance.now() - t0) / 1000;
    await sleep(50);
  }
  return { confirmS, doneS, processS };
}

prepareState(STATE);
const server = await startServer({ stateDir: STATE, port: PORT });
try {
  const token = await getToken(server.base, join(STATE, "demo-client.json"));
  reference = await processed(server.base, token, "sentinel-2-l2a");
  if (!reference) throw new Error("Process on sentinel-2-l2a failed: is the state seeded?");
  const runs = [];
  for (let i = 0; i < N; i++) runs.push(await run(server.base, token));
  console.log(
    `\nThird-party import, SAMPLE provider, one product (4 band COGs 64x64 px): ${N} orders, seconds from the confirm request`,
  );
  console.log("measure | p50 s | max s");
  for (const [name, key] of [
    ["confirm answered", "confirmS"],
    ["order DONE", "doneS"],
    ["Process answers the product's pixels", "processS"],
  ])
    console.log(
      `${name} | ${fmt(
        pct(
          runs.map((r) => r[key]),
          50,
        ),
        2,
      )} | ${fmt(Math.max(...runs.map((r) => r[key])), 2)}`,
    );
  summaryRow(
    "third-party import: confirm -> processable collection (1 SAMPLE product)",
    `${fmt(
      pct(
        runs.map((r) => r.processS),
        50,
      ),
      2,
    )} s p50`,
    "none set (the figure is reported)",
    null,
  );
} finally {
  await server.stop();
}

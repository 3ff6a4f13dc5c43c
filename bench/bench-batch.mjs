// `npm run bench` section `batch` (BENCH_ONLY=batch): Batch Processing v2 throughput and its PU estimate against the
// charge. On the seeded scratch state (.state-bench), for each consumer max_concurrency in CONCURRENCY
// (1, 2, 4) it writes a temporary copy of wrangler.toml with `max_concurrency = <c>` on the eo-edge-heavy consumer (batch tiles)
// (.wrangler-bench.toml, removed afterwards; the committed wrangler.toml is untouched), starts wrangler dev on it
// (port BENCH_BATCH_PORT, default 8797) with S3 keys for the local S3 endpoint, then runs one batch task over the
// tiles of the UTM 20 km grid (id 0, RESOLUTION m) that cut BBOX (all of 29RKH): create, analyse (costPU = the
// estimate), start, poll until DONE (costPU = the charge). Time is START to DONE as the client sees it (poll every 200 ms);
// tiles and pixels are counted from the GeoTIFFs written (listed and read back through the S3 endpoint).
// Note: wrangler dev's local queue (miniflare's queue broker) has one batch in flight per queue and does not read
// max_concurrency (node_modules/miniflare/dist/src/workers/queues/broker.worker.js, #flush), and src/tasks/queue.ts
// handles a batch's messages one after the other, so locally the three rows measure the same single consumer; on
// Cloudflare the setting scales the number of consumer invocations.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { AwsClient } from "aws4fetch";
import { fromArrayBuffer } from "geotiff";
import { call, fmt, getToken, prepareState, sleep, startServer } from "../scripts/lib/bench.mjs";

const PORT = process.env.BENCH_BATCH_PORT ?? "8797";
const STATE = resolve(".state-bench");
const CONFIG = resolve(".wrangler-bench.toml");
/** The consumer max_concurrency values, in run order (BENCH_BATCH_CONCURRENCY="4,2,1" overrides). */
const CONCURRENCY = (process.env.BENCH_BATCH_CONCURRENCY ?? "1,2,4").split(",").map(Number);
/** Output resolution (m) on the grid: 10, 20 or 60 (BENCH_BATCH_RES overrides). */
const RESOLUTION = Number(process.env.BENCH_BATCH_RES ?? 20);
const BUCKET = "eo-edge-bench";
/** EPSG:32629 box just inside 29RKH (x 199980..309780, y 2690220..2800020); BENCH_BATCH_BBOX="minX,minY,maxX,maxY" overrides. */
const BBOX = (process.env.BENCH_BATCH_BBOX ?? "200500,2691000,309000,2799500").split(",").map(Number);
const TIMEOUT_MS = 15 * 60_000;
/** The demo account's S3 keys (seeded by prepareState into the state folder): the demo account's batch writes BUCKET. */
const demoKeys = () => JSON.parse(readFileSync(join(STATE, "demo-s3-keys.json"), "utf8"));

const SCRIPT = `//VERSION=3
function setup(){return {input:[{bands:["B04","B08"],units:"DN"}],output:{bands:2,sampleType:"UINT16"}}}
function evaluatePixel(s){return [s.B04,s.B08]}`;

/** A batch request over BBOX (tiling grid 0 at 60 m) delivered as GeoTIFFs under s3://BUCKET/<prefix>. */
const batchBody = (prefix) => ({
  processRequest: {
    input: {
      bounds: { bbox: BBOX, properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/32629" } },
      data: [
        {
          type: "sentinel-2-l2a",
          dataFilter: { timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" } },
        },
      ],
    },
    output: { responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
    evalscript: SCRIPT,
  },
  input: { type: "tiling-grid", id: 0, resolution: RESOLUTION },
  output: { type: "raster", delivery: { s3: { url: `s3://${BUCKET}/${prefix}` } } },
  description: `bench ${prefix}`,
});

/** wrangler.toml with `max_concurrency = c` on the eo-edge-heavy consumer. @throws Error when that block is not found. */
function configWith(c) {
  const toml = readFileSync("wrangler.toml", "utf8");
  const block = /(\[\[queues\.consumers\]\]\nqueue = "eo-edge-heavy"\n(?:\w+ = .*\n)*?)max_concurrency = \d+\n/;
  if (!block.test(toml))
    throw new Error("wrangler.toml: no [[queues.consumers]] block with max_concurrency for eo-edge-heavy");
  return toml.replace(block, `$1max_concurrency = ${c}\n`);
}

/** Polls the task until its status is one of `statuses`; the task. @throws Error on FAILED or after TIMEOUT_MS. */
async function until(base, token, id, statuses) {
  for (const t0 = Date.now(); Date.now() - t0 < TIMEOUT_MS; await sleep(200)) {
    const { json } = await call(base, token, "GET", `/api/v2/batch/process/${id}`, undefined, 200);
    if (statuses.includes(json.status)) return json;
    if (json.status === "FAILED") throw new Error(`batch ${id} FAILED: ${JSON.stringify(json.error)}`);
  }
  throw new Error(`batch ${id} not ${statuses.join("/")} after ${TIMEOUT_MS / 1000} s`);
}

/** The GeoTIFFs under s3://BUCKET/<prefix>/ (through the S3 endpoint): { tiles, pixels (sum of width x height) }. */
async function outputs(base, prefix) {
  const s3 = new AwsClient({ ...demoKeys(), service: "s3", region: "us-east-1" });
  const keys = [];
  let token = "";
  do {
    const r = await s3.fetch(
      `${base}/s3/${BUCKET}?list-type=2&prefix=${encodeURIComponent(prefix + "/")}${token && `&continuation-token=${encodeURIComponent(token)}`}`,
    );
    const xml = await r.text();
    if (r.status !== 200) throw new Error(`ListObjectsV2: ${r.status} ${xml.slice(0, 300)}`);
    keys.push(...[...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]).filter((k) => /\.tiff?$/.test(k)));
    token = /<NextContinuationToken>([^<]+)</.exec(xml)?.[1] ?? "";
  } while (token);
  let pixels = 0;
  for (const key of keys) {
    const image = await (
      await fromArrayBuffer(await (await s3.fetch(`${base}/s3/${BUCKET}/${key}`)).arrayBuffer())
    ).getImage();
    pixels += image.getWidth() * image.getHeight();
  }
  return { tiles: keys.length, pixels };
}

/** One batch task on a server whose consumer has max_concurrency c; the row of the table. */
async function measure(c) {
  writeFileSync(CONFIG, configWith(c));
  const server = await startServer({ stateDir: STATE, port: PORT, args: ["--config", CONFIG] });
  try {
    const token = await getToken(server.base, join(STATE, "demo-client.json"));
    const prefix = `c${c}-${Date.now()}`;
    const { id } = (await call(server.base, token, "POST", "/api/v2/batch/process", batchBody(prefix), 201)).json;
    await call(server.base, token, "POST", `/api/v2/batch/process/${id}/analyse`, undefined, 204);
    const estimate = (await until(server.base, token, id, ["ANALYSIS_DONE"])).costPU;
    const t0 = performance.now();
    await call(server.base, token, "POST", `/api/v2/batch/process/${id}/start`, undefined, 204);
    const done = await until(server.base, token, id, ["DONE"]);
    const s = (performance.now() - t0) / 1000;
    return { c, s, estimate, charged: done.costPU, ...(await outputs(server.base, prefix)) };
  } finally {
    await server.stop();
    rmSync(CONFIG, { force: true });
  }
}

prepareState(STATE);
const rows = [];
for (const c of CONCURRENCY) rows.push(await measure(c));
console.log(
  `\nBatch Processing v2 over 29RKH (grid 0 = UTM 20 km at ${RESOLUTION} m, EPSG:32629 bbox ${BBOX.join(",")}; B04+B08 UINT16 GeoTIFF per tile)`,
);
console.log(
  "max_concurrency | tiles | Mpx | START->DONE s | tiles/min | Mpx/s | costPU estimate | costPU charged | charged/estimate",
);
for (const r of rows)
  console.log(
    `${r.c} | ${r.tiles} | ${fmt(r.pixels / 1e6, 2)} | ${fmt(r.s, 2)} | ${fmt((60 * r.tiles) / r.s)} | ${fmt(r.pixels / 1e6 / r.s, 3)} | ${fmt(r.estimate, 3)} | ${fmt(r.charged, 3)} | ${fmt(r.charged / r.estimate, 3)}`,
  );
console.log(
  "note: wrangler dev's local queue broker (miniflare) keeps one batch in flight per queue and ignores max_concurrency: locally the rows measure the same single consumer",
);

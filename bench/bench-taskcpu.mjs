// `npm run bench` section `taskcpu` (BENCH_ONLY=taskcpu): the largest CPU time of one queue message at the largest
// sizes the task APIs allow (target <= 10 s, a third of a consumer invocation's default 30 s). On the seeded
// scratch state (.state-bench), one wrangler dev (port BENCH_TASKCPU_PORT, default 8798) runs, one after the other:
// - async: a 10000 x 10000 FLOAT32 NDVI GeoTIFF over 29RKH (the async size limit): its strip units and assembly;
// - batch: one tile of tiling grid 1 (10 km) at 1 m, 10000 x 10000 px (MAX_BATCH_TILE_SIZE), NDVI as UINT8 (a
//   FLOAT32 tile that large is refused: 400 MB of outputs, over the 256 MiB per evaluation);
// - statbatch: the 20 West Flanders fields, daily NDVI + SCL statistics over 17 months at 10 m (one feature = one
//   message; the restart check's request).
// Nothing else runs in that workerd meanwhile. CPU is workerd's own, utime + stime of its processes from
// /proc/<pid>/stat (ticks of 10 ms, evalscript sandboxes included), read when wrangler dev prints that a consumer
// invocation ended (its local queue's `QUEUE <queue> <acked>/<total> (<ms>ms)` line): the CPU since the previous
// invocation ended is that invocation's (the heavy queue takes one message per invocation, the light one up to 10:
// a feature is then the invocation's CPU over its messages, printed beside it). Between invocations the client polls
// the task every POLL_MS (its CPU, measured idle first, is included: the figures are upper bounds).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { AwsClient } from "aws4fetch";
import {
  call,
  fmt,
  getToken,
  prepareState,
  sleep,
  startServer,
  summaryRow,
  workerdPids,
} from "../scripts/lib/bench.mjs";

const PORT = process.env.BENCH_TASKCPU_PORT ?? "8798";
const STATE = resolve(".state-bench");
const BUCKET = "eo-edge-bench-taskcpu";
const POLL_MS = 100;
const TARGET_S = 10;
const RKH = { crs: "http://www.opengis.net/def/crs/EPSG/0/32629" };
const TIME = { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } };
const NDVI = `//VERSION=3
function setup(){return {input:["B04","B08"],output:{bands:1,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [(s.B08-s.B04)/(s.B08+s.B04)]}`;
const NDVI8 = NDVI.replace('sampleType:"FLOAT32"', 'sampleType:"UINT8"').replace(
  "return [(s.B08-s.B04)/(s.B08+s.B04)]",
  "return [127.5*(1+(s.B08-s.B04)/(s.B08+s.B04))]",
);
const input = (bbox) => ({ bounds: { bbox, properties: RKH }, data: [{ type: "sentinel-2-l2a", dataFilter: TIME }] });
const tiff = [{ identifier: "default", format: { type: "image/tiff" } }];

/** CPU seconds (utime + stime) of the server's workerd processes. */
function cpuSeconds(pgid) {
  let ticks = 0;
  for (const pid of workerdPids(pgid)) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* ended */
    }
  }
  return ticks / 100;
}

/** Invocations ended since the last `take()`: {queue, messages, cpu (s since the previous one ended)}. */
const invocations = [];
let mark = 0;
let server;
const onLine = (line) => {
  // eslint-disable-next-line no-control-regex
  const m = /QUEUE (\S+) (\d+)\/(\d+)/.exec(line.replace(/\u001b\[[0-9;]*m/g, ""));
  if (!m || !server || m[1].endsWith("-dlq")) return;
  const cpu = cpuSeconds(server.pgid);
  invocations.push({ queue: m[1], messages: Number(m[3]), cpu: cpu - mark });
  mark = cpu;
};

/** Polls every POLL_MS until `done()`; the invocations that ended meanwhile. */
async function until(done) {
  invocations.length = 0;
  mark = cpuSeconds(server.pgid);
  for (const t0 = Date.now(); Date.now() - t0 < 3_600_000; await sleep(POLL_MS))
    if (await done()) return (await sleep(1000), invocations.splice(0));
  throw new Error("not finished after an hour");
}

/** The polls' own CPU per second (idle server, 3 s of polling the account). */
async function pollCost(token) {
  const c0 = cpuSeconds(server.pgid);
  const t0 = Date.now();
  while (Date.now() - t0 < 3000)
    await call(server.base, token, "GET", "/api/v1/accounts/me", undefined, 200).then(() => sleep(POLL_MS));
  return (cpuSeconds(server.pgid) - c0) / ((Date.now() - t0) / 1000);
}

/** A line and a summary row for `name`'s invocations (per message: an invocation's CPU over its messages). */
function report(name, list) {
  const per = list.map((i) => i.cpu / i.messages);
  const most = Math.max(...per);
  const text = list.map((i) => `${fmt(i.cpu, 2)}${i.messages > 1 ? `/${i.messages}` : ""}`).join(" ");
  console.log(
    `${name}: ${list.length} invocations (${list
      .map((i) => i.queue.replace(/^eo-edge-/, ""))
      .filter((q, k, a) => a.indexOf(q) === k)
      .join(", ")}), CPU s each (/messages) ${text}`,
  );
  console.log(
    `  largest per message ${fmt(most, 2)} s (target <= ${TARGET_S} s: ${most <= TARGET_S ? "met" : "NOT met"}); largest invocation ${fmt(Math.max(...list.map((i) => i.cpu)), 2)} s (limit 30 s)`,
  );
  summaryRow(`largest CPU of one queue message: ${name}`, `${fmt(most, 2)} s`, `<= ${TARGET_S} s`, most <= TARGET_S);
}

prepareState(STATE);
server = await startServer({ stateDir: STATE, port: PORT, onLine });
try {
  const token = await getToken(server.base, join(STATE, "demo-client.json"));
  const base = server.base;
  console.log(
    `taskcpu: workerd CPU per queue message (polls every ${POLL_MS} ms cost ${fmt((await pollCost(token)) * 100, 1)}% of a core, included)`,
  );

  const asyncId = (
    await call(
      base,
      token,
      "POST",
      "/api/v1/async/process",
      {
        input: input([199980, 2690220, 309780, 2800020]),
        output: { width: 10000, height: 10000, responses: tiff, delivery: { s3: { url: `s3://${BUCKET}/async` } } },
        evalscript: NDVI,
      },
      200,
    )
  ).json.id;
  const asyncDone = async () =>
    (await fetch(`${base}/api/v1/async/process/${asyncId}`, { headers: { authorization: `Bearer ${token}` } }))
      .status === 404;
  report("async 10000 x 10000 FLOAT32 NDVI (strip units, then the assembly)", await until(asyncDone));

  const batch = {
    processRequest: {
      input: input([205000, 2705000, 205100, 2705100]),
      output: { responses: tiff },
      evalscript: NDVI8,
    },
    input: { type: "tiling-grid", id: 1, resolution: 1 },
    output: { type: "raster", delivery: { s3: { url: `s3://${BUCKET}/batch` } } },
  };
  const batchId = (await call(base, token, "POST", "/api/v2/batch/process", batch, 201)).json.id;
  await call(base, token, "POST", `/api/v2/batch/process/${batchId}/start`, undefined);
  const batchDone = async () => {
    const t = (await call(base, token, "GET", `/api/v2/batch/process/${batchId}`, undefined, 200)).json;
    if (t.status === "FAILED") throw new Error(`batch FAILED: ${t.error}`);
    return t.status === "DONE";
  };
  report("batch tile 10000 x 10000 UINT8 NDVI (grid 1 at 1 m)", await until(batchDone));

  const keys = JSON.parse(readFileSync(join(STATE, "demo-s3-keys.json"), "utf8"));
  const s3 = new AwsClient({ ...keys, service: "s3", region: "us-east-1" });
  await s3.fetch(`${base}/s3/${BUCKET}`, { method: "PUT" });
  const put = await s3.fetch(`${base}/s3/${BUCKET}/in/fields.gpkg`, {
    method: "PUT",
    body: readFileSync("test/fixtures/vector/westflanders_fields.gpkg"),
  });
  if (put.status !== 200) throw new Error(`PUT fields.gpkg: ${put.status} ${await put.text()}`);
  const stat = {
    input: { features: { s3: { url: `s3://${BUCKET}/in/fields.gpkg` } }, data: [{ type: "sentinel-2-l2a" }] },
    aggregation: {
      timeRange: { from: "2017-08-01T00:00:00Z", to: "2018-12-31T00:00:00Z" },
      aggregationInterval: { of: "P1D" },
      resx: 10,
      resy: 10,
      evalscript: readFileSync("test/fixtures/statistics/ndvi_scl.js", "utf8"),
    },
    output: { s3: { url: `s3://${BUCKET}/statbatch` } },
  };
  const statId = (await call(base, token, "POST", "/api/v1/statistics/batch", stat, 201)).json.id;
  await call(base, token, "POST", `/api/v1/statistics/batch/${statId}/start`, undefined);
  const statDone = async () =>
    ["DONE", "FAILED", "PARTIAL"].includes(
      (await call(base, token, "GET", `/api/v1/statistics/batch/${statId}/status`, undefined, 200)).json.status,
    );
  report("statistical batch feature (West Flanders field, P1D over 17 months)", await until(statDone));
} finally {
  await server.stop();
}

// The restart check: nothing in flight is lost when the server is killed. `npm start` (own port and --persist-to
// state dir), then a batch task over 5 x 5 tiles of 29RKH, a statistical batch task over the 20 West Flanders fields
// (daily NDVI over 17 months), an async request (8000 x 8000 px of 12 bands) and a third-party order of every West
// Flanders product of the SAMPLE provider (its deliveries units of the same engine). The server's process group is
// killed with kill -9 twice, each time restarted on the same state: while the async request renders with the rest
// queued behind it; then, after a BYOC collection with one tile per West Flanders date was added, once the batch is
// under way again. Then it waits until each work ends (lost messages and killed units are sent again by the leases'
// watchdog alarms, src/tasks/lease.ts), lists the delivery buckets through the
// R2 binding of the persisted state (wrangler's platform proxy) and checks that every output is there exactly once,
// that a request finished before a kill wrote nothing again (outputs written before a kill and again after it are
// listed: a unit in flight at the kill runs again, same keys), and that the account's processing units grew by
// exactly the works' costs (each charged once); and that the order ended DONE with each delivery DONE and one BYOC
// tile per delivery in its collection (a delivery run again makes no second tile).
// Usage: npm run batch:restart-check  (PORT default 8795, PORT2 = PORT + 1; EO_EDGE_STATE default a fresh temp
// dir, removed at the end; KILL_AFTER_MS, the longest wait for a kill's moment, default 120000)
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPlatformProxy } from "wrangler";

const PORT = process.env.PORT ?? "8795";
const BASE = `http://127.0.0.1:${PORT}`;
const state = process.env.EO_EDGE_STATE ?? (await mkdtemp(join(tmpdir(), "eo-edge-restart-")));
const BUCKET = "restart-check";
const GPKG = "test/fixtures/vector/westflanders_fields.gpkg";
const FIELDS = 20; // features of GPKG
const WF = "data/sentinel-2-l2a/westflanders";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** `npm start` in its own process group; resolves when its banner says it is running (scripts/start.mjs). */
function startServer() {
  const child = spawn("npm", ["start"], {
    env: { ...process.env, PORT, EO_EDGE_STATE: state },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server not ready after 180 s")), 180_000);
    child.stdout.on("data", (b) => /EO Edge is running/.test(String(b)) && (clearTimeout(timer), resolve()));
    child.on("exit", (code) => reject(new Error(`npm start exited with ${code}`)));
  });
  child.stderr.on("data", () => {});
  return { child, ready };
}

/** SIGKILL (or `signal`) to the server's whole process group, then waits until it is gone. */
async function stopServer(child, signal = "SIGKILL") {
  try {
    process.kill(-child.pid, signal);
  } catch {}
  for (
    let i = 0;
    i < 100 &&
    (await fetch(BASE).then(
      () => true,
      () => false,
    ));
    i++
  )
    await sleep(100);
}

/** An API call; the parsed JSON (null for 204), or throws with the status. `timeout` ms at most (a busy Worker may not answer). */
async function api(path, token, init = {}, timeout = 30_000) {
  const r = await fetch(BASE + path, {
    ...init,
    signal: AbortSignal.timeout(timeout),
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });
  if (r.status >= 400)
    throw Object.assign(new Error(`${init.method ?? "GET"} ${path}: ${r.status} ${await r.text()}`), {
      status: r.status,
    });
  return r.status === 204 ? null : r.json();
}
const post = (path, token, body) =>
  api(path, token, { method: "POST", ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
/** `f()`, or null when it fails (a status poll while the Worker is busy). */
const maybe = (f) => f().catch(() => null);

async function bearer() {
  const demo = JSON.parse(await readFile(join(state, "demo-client.json"), "utf8"));
  const body = new URLSearchParams({ grant_type: "client_credentials", ...demo });
  const r = await fetch(`${BASE}/auth/realms/main/protocol/openid-connect/token`, { method: "POST", body });
  return (await r.json()).access_token;
}

/** Runs `f(env)` with the R2 binding of the persisted state (the server must be stopped). */
async function withBuckets(f) {
  const dir = await mkdtemp(join(tmpdir(), "eo-edge-r2-"));
  const config = join(dir, "wrangler.json");
  await writeFile(
    config,
    JSON.stringify({
      name: "eo-edge",
      compatibility_date: "2026-11-01",
      r2_buckets: [{ binding: "BUCKETS", bucket_name: "eo-edge-buckets" }],
    }),
  );
  const proxy = await getPlatformProxy({ configPath: config, persist: { path: join(state, "v3") } });
  try {
    return await f(proxy.env.BUCKETS);
  } finally {
    await proxy.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

/** key (under `prefix`, without it) -> etag of the delivery bucket's objects, and the JSON of `json` keys. */
async function listBucket(prefix, json = []) {
  return withBuckets(async (r2) => {
    const out = new Map();
    let cursor;
    do {
      const page = await r2.list({ prefix: `${BUCKET}/${prefix}`, cursor });
      for (const o of page.objects) out.set(o.key.slice(BUCKET.length + prefix.length + 1), o.etag);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    const docs = {};
    for (const k of json) docs[k] = await (await r2.get(`${BUCKET}/${prefix}${k}`))?.json();
    return { objects: out, docs };
  });
}

const TILES = [0, 1, 2, 3, 4]; // the batch's tiles are 29RKH_<i>_<j> for i, j in TILES
const TIME = { timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" } };
const RKH = { crs: "http://www.opengis.net/def/crs/EPSG/0/32629" };
const BATCH = {
  processRequest: {
    input: {
      bounds: { bbox: [201000, 2701000, 299000, 2799000], properties: RKH },
      data: [{ type: "sentinel-2-l2a", dataFilter: TIME }],
    },
    output: { responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
    evalscript: `//VERSION=3
function setup() { return { input: ["B04"], output: { bands: 1, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [s.B04 * 10000]; }`,
  },
  input: { type: "tiling-grid", id: 0, resolution: 10 },
  output: { type: "raster", delivery: { s3: { url: `s3://${BUCKET}/batch` } } },
  description: "restart check",
};
const ASYNC = {
  input: {
    bounds: { bbox: [199980, 2690220, 309780, 2800020], properties: RKH },
    data: [{ type: "sentinel-2-l2a", dataFilter: TIME }],
  },
  output: {
    width: 8000,
    height: 8000,
    responses: [{ identifier: "default", format: { type: "image/tiff" } }],
    delivery: { s3: { url: `s3://${BUCKET}/async` } },
  },
  evalscript: `//VERSION=3
const BANDS = ["B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B09", "B11", "B12"];
function setup() { return { input: BANDS, output: { bands: 1, sampleType: "UINT16" } }; }
function evaluatePixel(s) { let sum = 0; for (const b of BANDS) sum += s[b]; return [1000 * sum]; }`,
};
const statbatchRequest = async () => ({
  input: { features: { s3: { url: `s3://${BUCKET}/in/fields.gpkg` } }, data: [{ type: "sentinel-2-l2a" }] },
  aggregation: {
    timeRange: { from: "2017-08-01T00:00:00Z", to: "2018-12-31T00:00:00Z" },
    aggregationInterval: { of: "P1D" },
    resx: 10,
    resy: 10,
    evalscript: await readFile("test/fixtures/statistics/ndvi_scl.js", "utf8"),
  },
  output: { s3: { url: `s3://${BUCKET}/statbatch` } },
});

/** A SAMPLE order of every West Flanders product (the patch's bbox is inside each one's footprint). */
const ORDER = {
  provider: "SAMPLE",
  bounds: { bbox: [3.02, 50.814, 3.028, 50.818], properties: { crs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84" } },
  data: [
    {
      type: "catalog",
      itemType: "sentinel-2-l2a",
      productBundle: "analytic_10m",
      dataFilter: { timeRange: { from: "2017-01-01T00:00:00Z", to: "2019-01-01T00:00:00Z" } },
    },
  ],
};

/** The West Flanders dates with files (one BYOC tile each). */
async function byocDates() {
  return (await readdir(WF)).filter((d) => existsSync(join(WF, d, "B04.tif"))).sort();
}

/**
 * Submits the batch and statistical batch tasks at once, then the async request (the batch tiles and the features,
 * queued once their analysis ran, wait behind its render); their ids.
 */
async function submit(token) {
  const startBatch = async () => {
    const id = (await post("/api/v2/batch/process", token, BATCH)).id;
    await post(`/api/v2/batch/process/${id}/start`, token);
    return id;
  };
  const startStatbatch = async () => {
    const id = (await post("/api/v1/statistics/batch", token, await statbatchRequest())).id;
    await post(`/api/v1/statistics/batch/${id}/start`, token);
    return id;
  };
  const startOrder = async () => {
    const id = (await post("/api/v1/dataimport/orders", token, { name: "restart check", input: ORDER })).id;
    return (await post(`/api/v1/dataimport/orders/${id}/confirm`, token)).id;
  };
  const [batch, statbatch, order] = await Promise.all([startBatch(), startStatbatch(), startOrder()]);
  return { batch, statbatch, order, async: (await post("/api/v1/async/process", token, ASYNC)).id };
}

/** A BYOC collection with one tile per West Flanders date, all queued for ingestion at once: its id and tile count. */
async function addByoc(token) {
  const id = (await post("/api/v1/byoc/collections", token, { name: "restart check", s3Bucket: "eo-edge-byoc-sample" }))
    .data.id;
  const dates = await byocDates();
  const tile = (d) =>
    api(
      `/api/v1/byoc/collections/${id}/tiles`,
      token,
      { method: "POST", body: JSON.stringify({ path: `westflanders/${d}/(BAND)` }) },
      120_000,
    );
  await Promise.all(dates.map(tile));
  return { byoc: id, tiles: dates.length };
}

/** Where each work stands (null members when the Worker did not answer in time). */
async function progress(token, ids, timeout = 1000) {
  const [batch, asyncRunning, statbatch, tiles, order] = await Promise.all([
    maybe(() => api(`/api/v2/batch/process/${ids.batch}`, token, {}, timeout)),
    api(`/api/v1/async/process/${ids.async}`, token, {}, timeout).then(
      () => true,
      (e) => (e.status === 404 ? false : null),
    ),
    maybe(() => api(`/api/v1/statistics/batch/${ids.statbatch}/status`, token, {}, timeout)),
    ids.byoc ? maybe(() => api(`/api/v1/byoc/collections/${ids.byoc}/tiles?count=100`, token, {}, timeout)) : null,
    maybe(() => api(`/api/v1/dataimport/orders/${ids.order}`, token, {}, timeout)),
  ]);
  const counts =
    tiles &&
    Object.entries(Object.groupBy(tiles.data, (t) => t.status))
      .map(([s, l]) => `${l.length} ${s}`)
      .join(", ");
  return {
    batch,
    asyncRunning,
    statbatch,
    tiles: tiles?.data,
    order,
    text:
      `batch ${batch ? `${batch.status} ${batch.completionPercentage}%` : "?"}; async ${asyncRunning === null ? "?" : asyncRunning ? "RUNNING" : "finished"}; ` +
      `statistical batch ${statbatch ? `${statbatch.status} ${statbatch.completionPercentage}%` : "?"}; BYOC tiles ${counts ?? "?"}; order ${order?.status ?? "?"}`,
  };
}

const finished = (p, ids) =>
  ["DONE", "FAILED"].includes(p.batch?.status) &&
  p.asyncRunning === false &&
  ["DONE", "FAILED", "PARTIAL"].includes(p.statbatch?.status) &&
  p.tiles?.length === ids.tiles &&
  p.tiles.every((t) => t.status === "INGESTED" || t.status === "FAILED") &&
  ["DONE", "PARTIAL", "FAILED"].includes(p.order?.status);

/** The objects of `before` whose etag changed in `after` (written again). */
const rewritten = (before, after) => [...before].filter(([k, etag]) => after.get(k) !== etag).map(([k]) => k);

const report = [];
/** Records one check's verdict. */
function check(ok, what) {
  report.push(ok);
  log(`${ok ? "ok  " : "FAIL"} ${what}`);
}

await withBuckets(async (r2) => void (await r2.put(`${BUCKET}/in/fields.gpkg`, await readFile(GPKG))));
/** Lists the three delivery prefixes (the server stopped): kind -> key -> etag. */
async function listings(ids) {
  return {
    batch: (await listBucket(`batch/${ids.batch}/`)).objects,
    async: (await listBucket(`async/${ids.async}/`)).objects,
    statbatch: (await listBucket(`statbatch/${ids.statbatch}/`)).objects,
  };
}

/**
 * The kills: the first while the async request renders and the batch tiles and statistical features wait behind
 * it in the queue (their messages are lost); the BYOC tiles are added after the first restart, behind the work sent
 * again, and the second kill comes once the batch is under way again (some of each work finished, some running,
 * some queued).
 */
const KILLS = [
  { what: "the async request rendering, batch tiles and features queued behind it", after: 4000, when: () => true },
  { what: "the batch under way", after: 0, when: (p) => p.batch?.completionPercentage > 0 },
];

let server = startServer();
try {
  await server.ready;
  log(`server up on ${BASE}, state ${state}`);
  let token = await bearer();
  const used0 = (await api("/api/v1/accounts/me", token)).processingUnits.used;
  const ids = await submit(token);
  log(`submitted: batch ${ids.batch}, statistical batch ${ids.statbatch}, async ${ids.async}, order ${ids.order}`);
  const before = []; // the listings at each kill, and whether the async request had finished then
  for (const kill of KILLS) {
    // each poll waits at most 1 s (the Worker is busy); at the latest KILL_AFTER_MS
    await sleep(kill.after);
    const limit = Date.now() + Number(process.env.KILL_AFTER_MS ?? 120_000);
    let seen = { text: "no status" };
    for (let p; Date.now() < limit; await sleep(300)) {
      p = await progress(token, ids);
      if (p.batch || p.asyncRunning !== null) seen = p;
      if (kill.when(p)) break;
    }
    await stopServer(server.child);
    log(`kill -9 of the server's process group (${kill.what}); last status seen: ${seen.text}`);
    const listed = await listings(ids);
    before.push({ listed, asyncDone: seen.asyncRunning === false });
    log(
      `outputs written so far: batch ${listed.batch.size} of ${TILES.length ** 2} tiles, async ${[...listed.async.keys()].join(" ") || "none"}, statistical batch ${listed.statbatch.size} of ${FIELDS} features`,
    );
    server = startServer();
    await server.ready;
    log("server restarted on the same state");
    token = await bearer();
    if (ids.byoc) continue;
    Object.assign(ids, await addByoc(token));
    log(`submitted: BYOC collection ${ids.byoc} (${ids.tiles} tiles)`);
  }
  const restarted = Date.now();
  let p;
  do {
    await sleep(2000);
    p = await progress(token, ids, 10_000);
  } while (!finished(p, ids) && Date.now() - restarted < 600_000);
  log(`${Math.round((Date.now() - restarted) / 1000)} s after the last restart: ${p.text}`);
  const used = (await api("/api/v1/accounts/me", token)).processingUnits.used - used0;
  const deliveries = (await api(`/api/v1/dataimport/orders/${ids.order}/deliveries?count=100`, token)).data;
  const orderTiles = (await api(`/api/v1/byoc/collections/${p.order?.collectionId}/tiles?count=100`, token)).data;
  await stopServer(server.child, "SIGINT");
  const after = await listings(ids);
  /** Keys written before a kill and again after it (units in flight at that kill run again: same keys). */
  const again = (kind) => [...new Set(before.flatMap((b) => rewritten(b.listed[kind], after[kind])))].sort();

  const tilesWritten = [...after.batch.keys()].map((k) => k.replace(/\/default\.tiff$/, "")).sort();
  const expectedTiles = TILES.flatMap((j) => TILES.map((i) => `29RKH_${i}_${j}`)).sort();
  check(
    p.batch?.status === "DONE" && JSON.stringify(tilesWritten) === JSON.stringify(expectedTiles),
    `batch DONE, ${after.batch.size} objects: ${tilesWritten.join(" ")}`,
  );
  log(
    `     batch tiles written before a kill and again after it (in flight at the kill, same key): ${again("batch").join(" ") || "none"}`,
  );

  const copy = (await listBucket(`async/${ids.async}/`, ["request.json"])).docs["request.json"];
  check(
    copy?.status === "DONE" && [...after.async.keys()].sort().join(" ") === "default.tif request.json",
    `async ${copy?.status}, objects: ${[...after.async.keys()].sort().join(" ")}, ${copy?.processingUnits} PU`,
  );
  const doneAt = before.findIndex((b) => b.asyncDone);
  if (doneAt >= 0)
    check(
      rewritten(before[doneAt].listed.async, after.async).length === 0,
      `async: finished before kill ${doneAt + 1}, nothing written again`,
    );
  log(`     async objects written before a kill and again after it: ${again("async").join(" ") || "none"}`);

  check(
    p.statbatch?.status === "DONE" && after.statbatch.size === FIELDS,
    `statistical batch ${p.statbatch?.status}, ${after.statbatch.size} feature files of ${FIELDS}`,
  );
  log(
    `     statistical batch feature files written before a kill and again after it (in flight at the kill): ${again("statbatch").join(" ") || "none"}`,
  );

  const ingested = (p.tiles ?? []).filter((t) => t.status === "INGESTED").length;
  check(ingested === ids.tiles, `BYOC: ${ingested} of ${ids.tiles} tiles INGESTED`);

  const delivered = deliveries.filter((d) => d.status === "DONE").length;
  check(
    p.order?.status === "DONE" &&
      delivered === deliveries.length &&
      deliveries.length > 0 &&
      orderTiles.length === deliveries.length &&
      orderTiles.every((t) => t.status === "INGESTED"),
    `order ${p.order?.status}: ${delivered} of ${deliveries.length} deliveries DONE, ${orderTiles.length} BYOC tiles (one per delivery)`,
  );

  const costs = (p.batch?.costPU ?? 0) + (copy?.processingUnits ?? 0) + (p.statbatch?.costPU ?? 0);
  check(
    Math.abs(used - costs) <= 1e-6 * Math.max(1, costs),
    `processing units charged ${used.toFixed(6)} = batch ${p.batch?.costPU} + async ${copy?.processingUnits} + statistical batch ${p.statbatch?.costPU} (each charged once)`,
  );
  const ok = report.every(Boolean);
  console.log(
    ok
      ? "OK: every work DONE or INGESTED, every output written once, units charged once, one tile per delivery"
      : "FAILED: see above",
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  await stopServer(server.child);
  if (!process.env.EO_EDGE_STATE) await rm(state, { recursive: true, force: true });
}

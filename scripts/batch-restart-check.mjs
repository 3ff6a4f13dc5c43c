// Batch v2 survives a killed server: `npm start` (own port and --persist-to state dir), create and start a batch over
// 3 x 3 tiles of 29RKH, kill -9 the server's process group mid-way, start it again on the same state, poll the task
// to DONE (the task object's watchdog alarm re-sends the tiles lost with the killed server), then list the delivery bucket through the R2 binding of the persisted state (wrangler's platform proxy)
// and check that every tile is there exactly once and that tiles finished before the kill were not written again.
// Usage: npm run batch:restart-check  (PORT default 8795; EO_EDGE_STATE default a fresh temp dir, removed at the end)
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPlatformProxy } from "wrangler";

const PORT = process.env.PORT ?? "8795";
const BASE = `http://127.0.0.1:${PORT}`;
const state = process.env.EO_EDGE_STATE ?? (await mkdtemp(join(tmpdir(), "eo-edge-restart-")));
const BUCKET = "restart-check";
const EXPECTED = [0, 1, 2].flatMap((j) => [0, 1, 2].map((i) => `29RKH_${i}_${j}`)).sort();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** `npm start` in its own process group; resolves when its banner says it is running (scripts/start.mjs). */
function startServer() {
  const child = spawn("npm", ["start"], { env: { ...process.env, PORT, EO_EDGE_STATE: state }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
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
  for (let i = 0; i < 100 && (await fetch(BASE).then(() => true, () => false)); i++) await sleep(100);
}

async function api(path, token, init = {}) {
  const r = await fetch(BASE + path, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });
  if (r.status >= 400) throw new Error(`${init.method ?? "GET"} ${path}: ${r.status} ${await r.text()}`);
  return r.status === 204 ? null : r.json();
}

async function bearer() {
  const demo = JSON.parse(await readFile(join(state, "demo-client.json"), "utf8"));
  const body = new URLSearchParams({ grant_type: "client_credentials", ...demo });
  const r = await fetch(`${BASE}/auth/realms/main/protocol/openid-connect/token`, { method: "POST", body });
  return (await r.json()).access_token;
}

/** key -> etag of the delivery bucket's objects, read from the persisted R2 state (server stopped). */
async function listBucket(prefix) {
  const dir = await mkdtemp(join(tmpdir(), "eo-edge-r2-"));
  const config = join(dir, "wrangler.json");
  await writeFile(config, JSON.stringify({ name: "eo-edge", compatibility_date: "2026-11-01", r2_buckets: [{ binding: "BUCKETS", bucket_name: "eo-edge-buckets" }] }));
  const proxy = await getPlatformProxy({ configPath: config, persist: { path: join(state, "v3") } });
  try {
    const out = new Map();
    let cursor;
    do {
      const page = await proxy.env.BUCKETS.list({ prefix: `${BUCKET}/${prefix}`, cursor });
      for (const o of page.objects) out.set(o.key.slice(BUCKET.length + prefix.length + 1), o.etag);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return out;
  } finally {
    await proxy.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

const request = {
  processRequest: {
    input: {
      bounds: { bbox: [201000, 2741000, 259000, 2799000], properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/32629" } },
      data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" } } }],
    },
    output: { responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
    evalscript: `//VERSION=3
function setup() { return { input: ["B02", "B03", "B04", "B08"], output: { bands: 4, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [s.B02, s.B03, s.B04, s.B08]; }`,
  },
  input: { type: "tiling-grid", id: 0, resolution: 10 },
  output: { type: "raster", delivery: { s3: { url: `s3://${BUCKET}/out` } } },
  description: "restart check",
};

let server = startServer();
try {
  await server.ready;
  log(`server up on ${BASE}, state ${state}`);
  let token = await bearer();
  const task = await api("/api/v2/batch/process", token, { method: "POST", body: JSON.stringify(request) });
  await api(`/api/v2/batch/process/${task.id}/start`, token, { method: "POST" });
  log(`task ${task.id} started`);
  // kill at the first sign of progress (a finished tile), at the latest KILL_AFTER_MS after the start; the Worker is
  // busy with tiles, so a status poll may not answer in time: each poll waits at most 1 s
  const limit = Date.now() + Number(process.env.KILL_AFTER_MS ?? 12_000);
  let seen = "no status";
  while (Date.now() < limit) {
    const t = await fetch(`${BASE}/api/v2/batch/process/${task.id}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(1000) })
      .then((r) => r.json(), () => null);
    if (t) seen = `${t.status} ${t.completionPercentage}%`;
    if (t && t.completionPercentage > 0) break;
    await sleep(300);
  }
  await stopServer(server.child);
  log(`kill -9 of the server's process group (last status seen: ${seen})`);
  const before = await listBucket(`out/${task.id}/`);
  log(`objects written before the kill: ${before.size} of ${EXPECTED.length}${before.size > 0 && before.size < EXPECTED.length ? " (mid-way)" : " (NOT mid-way: change KILL_AFTER_MS)"}`);
  server = startServer();
  await server.ready;
  const restarted = Date.now();
  log("server restarted on the same state");
  token = await bearer();
  let t;
  do {
    await sleep(1000);
    t = await api(`/api/v2/batch/process/${task.id}`, token);
  } while (t.status !== "DONE" && t.status !== "FAILED" && Date.now() - restarted < 300_000);
  log(`task ${t.status} ${t.completionPercentage}% ${Math.round((Date.now() - restarted) / 1000)} s after the restart, costPU ${t.costPU}`);
  await stopServer(server.child, "SIGINT");
  const after = await listBucket(`out/${task.id}/`);
  const names = [...after.keys()].map((k) => k.replace(/\/default\.tiff$/, "")).sort();
  const rewritten = [...before].filter(([k, etag]) => after.get(k) !== etag).map(([k]) => k);
  const ok = t.status === "DONE" && JSON.stringify(names) === JSON.stringify(EXPECTED) && after.size === EXPECTED.length;
  log(`bucket: ${after.size} objects, tiles ${names.join(" ")}`);
  log(`written before the kill and rewritten after it (in flight at the kill, same key): ${rewritten.length ? rewritten.join(" ") : "none"}`);
  console.log(ok ? "OK: DONE, every tile written once" : "FAILED: see above");
  process.exitCode = ok ? 0 : 1;
} finally {
  await stopServer(server.child);
  if (!process.env.EO_EDGE_STATE) await rm(state, { recursive: true, force: true });
}

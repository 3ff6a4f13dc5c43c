// Memory of large Processing requests and what they leave behind; a section for `npm run bench` (its PARTS,
// as `memory`), or alone: `npx node bench/bench-memory.mjs`. On the seeded scratch state (.state-bench) it starts
// wrangler dev (port BENCH_MEMORY_PORT, default 8794) with the DevTools inspector on BENCH_MEMORY_INSPECTOR (default 9239)
// and reports:
//  1. small requests: SMALL_N (BENCH_N, default 30) warm NDVI PNG 512x512 requests (the bench's NDVI request);
//  2. the JS memory of one 2500x2500 request (HEAVY_FORMAT: tiff, an NDVI FLOAT32 GeoTIFF, the default; png or jpeg,
//     a true-colour UINT8 image) in the Worker's isolate: V8 heap objects plus
//     ArrayBuffer backing stores (Runtime.getHeapUsage usedSize + backingStorageSize over the inspector; rasters live in
//     the backing stores), idle after a full GC, then polled back to back while the request runs and at its response.
//     The peak counts the garbage the request made too, up to the GC the 128 MB limit forces (see below).
//     V8 answers between JS turns only. The evalscript sandbox isolates (Worker Loader) are not reachable this way
//     (wrangler's inspector proxy shows the Worker only; 3. reads them through workerd's own);
//  3. workerd's resident memory (VmRSS, the largest workerd process of the server's process group) before and after
//     each of HEAVY_N (default 30) such requests (the curve: flat once the evalscript sandbox isolates are recycled,
//     src/raster/evalscript/host/sandboxgen.ts), the peak (VmHWM), the isolate's JS memory after them (uncollected
//     garbage included), and the evalscript sandbox isolates' count and JS memory (workerd's own inspector,
//     bench/lib/isolates.mjs: they hold their garbage apart, see sandboxgen.ts);
//  4. small-request p50 before and after the heavy requests, each interleaved request by request with a second, fresh
//     server (port BENCH_MEMORY_PORT_FRESH, default 8793, state .state-bench/fresh) that serves only small requests, so
//     both see the same machine load: after / fresh is the slowdown the heavy requests left behind;
//  5. RSS and JS memory after a full GC and IDLE_MS idle (does memory return?);
//  6. the isolate's JS memory right after start, one 16x16 request and a full GC (its code with the caches
//     nearly empty: BASELINE_BYTES of src/raster/memory.ts), and its peak, polled as in 2., while CONCURRENT (default
//     4) of the 2500x2500 requests are sent at once, twice. Each must answer 200, or 503 with Retry-After (the
//     admission of src/pipeline/admission.ts), and the peak stay below 128 MB; the script exits 1 when they do not.
// Both servers run with the edge's memory limit (EDGE_V8_ENV of scripts/lib/bench.mjs: 128 MB of V8 heap and
// ArrayBuffers per isolate), so V8 collects as at the edge and the polled peaks, garbage included, are what an edge
// isolate would hold; an isolate that needs more aborts workerd and its requests fail (a 500), failing 6.
// Targets: peak < 128 MB (the isolate limit); the small request not slower; memory returns.
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { isolatesMiB } from "./lib/isolates.mjs";
import {
  EDGE_V8_ENV,
  NDVI_SCRIPT,
  fmt,
  getToken,
  interleaved,
  pct,
  prepareState,
  processBody,
  sleep,
  startServer,
  timed,
  workerdPeakMiB,
  workerdMiB,
  summaryRow,
} from "../scripts/lib/bench.mjs";

const PORT = process.env.BENCH_MEMORY_PORT ?? "8794";
const INSPECTOR = process.env.BENCH_MEMORY_INSPECTOR ?? "9239";
const SMALL_N = Number(process.env.BENCH_N ?? 30);
const HEAVY_N = Number(process.env.HEAVY_N ?? 30);
const IDLE_MS = 5000;
const CONCURRENT = Number(process.env.CONCURRENT ?? 4);
const PORT_FRESH = process.env.BENCH_MEMORY_PORT_FRESH ?? "8793";
const STATE = resolve(".state-bench");
const STATE_FRESH = resolve(".state-bench", "fresh");
const MIB = 1024 * 1024;

const FLOAT_SCRIPT = `//VERSION=3
function setup(){return {input:["B04","B08"],output:{bands:1,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [(s.B08-s.B04)/(s.B08+s.B04)]}`;
const SMALL = processBody(NDVI_SCRIPT, 512, 512, "image/png");
/** A true-colour image (3 bands UINT8) for the PNG and JPEG heavy requests. */
const RGB_SCRIPT = `//VERSION=3
function setup(){return {input:["B04","B03","B02"],output:{bands:3,sampleType:"UINT8"}}}
function evaluatePixel(s){return [2.5*255*s.B04,2.5*255*s.B03,2.5*255*s.B02]}`;
/** The heavy request's file format (HEAVY_FORMAT, default tiff): FLOAT32 NDVI GeoTIFF, or true-colour PNG / JPEG. */
const HEAVY_KINDS = {
  tiff: { label: "NDVI FLOAT32 GeoTIFF", script: FLOAT_SCRIPT, type: "image/tiff" },
  png: { label: "true-colour UINT8 PNG", script: RGB_SCRIPT, type: "image/png" },
  jpeg: { label: "true-colour UINT8 JPEG", script: RGB_SCRIPT, type: "image/jpeg" },
};
const HEAVY_KIND = HEAVY_KINDS[process.env.HEAVY_FORMAT ?? "tiff"];
if (!HEAVY_KIND) throw new Error(`HEAVY_FORMAT must be one of ${Object.keys(HEAVY_KINDS).join(", ")}`);
const HEAVY = processBody(HEAVY_KIND.script, 2500, 2500, HEAVY_KIND.type);
const TINY = processBody(NDVI_SCRIPT, 16, 16, "image/png");

/**
 * A DevTools protocol session with the Worker's isolate (the first target the inspector lists):
 * { send(method, params) -> result, close() }.
 */
async function inspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const url = targets.find((t) => t.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${port}: ${JSON.stringify(targets)}`);
  // wrangler's inspector proxy accepts only local DevTools origins
  const ws = new WebSocket(url, { headers: { origin: "http://127.0.0.1" } });
  await new Promise((ok, fail) => ((ws.onopen = ok), (ws.onerror = fail)));
  let id = 0;
  const pending = new Map();
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.fail(new Error(`${msg.error.message} (${msg.error.code})`));
    else p.ok(msg.result);
  };
  const send = (method, params = {}) =>
    new Promise((ok, fail) => {
      pending.set(++id, { ok, fail });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

/**
 * The isolate's memory in MiB: V8 heap objects (usedSize) plus ArrayBuffer backing stores (backingStorageSize:
 * the typed arrays of rasters live there, outside the V8 heap, and count against the isolate's 128 MB as well).
 */
async function heapMiB(cdp) {
  const u = await cdp.send("Runtime.getHeapUsage");
  return (u.usedSize + (u.backingStorageSize ?? 0)) / MIB;
}

/**
 * A full GC of the isolate: a heap snapshot (its chunks are dropped) starts with one. workerd's inspector does not
 * answer HeapProfiler.collectGarbage and collects nothing for it.
 */
const collectGarbage = (cdp) => cdp.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });

/** Runs one request while polling the heap back to back: { peak (MiB), after (MiB, at the response), samples }. */
async function heapDuring(cdp, base, token, body) {
  let done = false;
  let peak = 0;
  let samples = 0;
  const request = timed(base, token, body).finally(() => (done = true));
  while (!done) {
    peak = Math.max(peak, await heapMiB(cdp));
    samples++;
  }
  await request;
  const after = await heapMiB(cdp);
  return { peak: Math.max(peak, after), after, samples };
}

/**
 * `n` requests of body sent at once while the heap is polled back to back: { peak (MiB), answers: [{status,
 * retryAfter}] }. A 503 is the admission refusing a request that found no room in time.
 */
async function concurrentDuring(cdp, base, token, body, n) {
  let left = n;
  let peak = 0;
  const one = async () => {
    const r = await fetch(`${base}/api/v1/process`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    await r.arrayBuffer();
    left--;
    return { status: r.status, retryAfter: r.headers.get("retry-after") };
  };
  const all = Promise.all(Array.from({ length: n }, one));
  while (left > 0) peak = Math.max(peak, await heapMiB(cdp));
  return { peak: Math.max(peak, await heapMiB(cdp)), answers: await all };
}

/**
 * Starts a server on its own seeded state; { server, token, baselineMiB }. With `inspectorPort`, baselineMiB is the
 * isolate's JS memory after one 16x16 request and a full GC (before the warm-up requests fill the caches).
 */
async function serverWithToken(stateDir, port, args = [], inspectorPort) {
  prepareState(stateDir);
  const server = await startServer({ stateDir, port, args, extraEnv: EDGE_V8_ENV });
  try {
    const token = await getToken(server.base, join(stateDir, "demo-client.json"));
    let baselineMiB;
    if (inspectorPort) {
      await timed(server.base, token, TINY);
      const cdp = await inspector(inspectorPort);
      await collectGarbage(cdp);
      baselineMiB = await heapMiB(cdp);
      cdp.close();
    }
    for (let i = 0; i < 3; i++) await timed(server.base, token, SMALL); // cold start, JIT
    await timed(server.base, token, HEAVY); // module state, caches, wasm of the large path
    return { server, token, baselineMiB };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/** Small requests on `a` and `b` in turn (a, b, a, b, ...): [p50 of a, p50 of b] (ms). */
async function smallAB(a, b) {
  const [x, y] = await interleaved(
    [a, b].map(({ server, token }, i) => ({ name: String(i), base: server.base, token, body: SMALL })),
    SMALL_N,
  );
  return [x.p50, y.p50];
}

/** The heavy server's figures (see the module docs), with small-request p50s against the fresh server `fresh`. */
async function measure(heavy, fresh) {
  const { server, token } = heavy;
  const [freshBefore, before] = await smallAB(fresh, heavy);
  const cdp = await inspector(INSPECTOR);
  try {
    await collectGarbage(cdp);
    const heapIdle = await heapMiB(cdp);
    const one = await heapDuring(cdp, server.base, token, HEAVY);
    const rssBefore = workerdMiB(server.pgid, "VmRSS");
    const heavyMs = [];
    const rssCurve = [rssBefore];
    for (let i = 0; i < HEAVY_N; i++) {
      heavyMs.push((await timed(server.base, token, HEAVY)).ms);
      rssCurve.push(workerdMiB(server.pgid, "VmRSS"));
    }
    const rssAfterHeavy = workerdMiB(server.pgid, "VmRSS");
    const heapAfterHeavy = await heapMiB(cdp);
    await collectGarbage(cdp);
    const many = await concurrentDuring(cdp, server.base, token, HEAVY, CONCURRENT);
    const again = await concurrentDuring(cdp, server.base, token, HEAVY, CONCURRENT);
    const sandboxes = await isolatesMiB(server.pgid);
    const [freshAfter, after] = await smallAB(fresh, heavy);
    const hwm = workerdPeakMiB(server.pgid);
    await collectGarbage(cdp);
    await sleep(IDLE_MS);
    return {
      baselineMiB: heavy.baselineMiB,
      concurrentPeakMiB: Math.max(many.peak, again.peak),
      concurrentAnswers: [...many.answers, ...again.answers],
      heapIdleMiB: heapIdle,
      heapPeakMiB: one.peak,
      heapAtResponseMiB: one.after,
      samples: one.samples,
      heapAfterHeavyMiB: heapAfterHeavy,
      sandboxIsolates: sandboxes.count,
      sandboxMiB: sandboxes.mib,
      heapAfterGcMiB: await heapMiB(cdp),
      rssBeforeMiB: rssBefore,
      rssAfterHeavyMiB: rssAfterHeavy,
      rssAfterGcIdleMiB: workerdMiB(server.pgid, "VmRSS"),
      hwmMiB: hwm,
      rssCurveMiB: rssCurve.map(Math.round),
      heavyP50: pct(heavyMs, 50),
      smallBefore: before,
      smallAfter: after,
      freshBefore,
      freshAfter,
    };
  } finally {
    cdp.close();
  }
}

/** True when every answer of the concurrent requests is a 200 or a 503 with Retry-After, and their peak fits 128 MB. */
const concurrentOk = (r) =>
  r.concurrentAnswers.every((a) => a.status === 200 || (a.status === 503 && a.retryAfter !== null)) &&
  r.concurrentPeakMiB * 1.048576 < 128;

function print(r) {
  console.log(
    `\nEO Edge memory bench (${HEAVY_KIND.label} 2500x2500 over 29RKH; small: NDVI PNG 512x512, N=${SMALL_N}; heavy N=${HEAVY_N})`,
  );
  console.log(
    `Worker isolate JS memory (heap + ArrayBuffers; isolates limited to 128 MB as at the edge): ${fmt(r.heapIdleMiB)} MiB idle after GC; one 2500x2500 request: peak ${fmt(r.heapPeakMiB)} MiB (${r.samples} samples; garbage included), ${fmt(r.heapAtResponseMiB)} MiB at its response (target < 128 MB)`,
  );
  console.log(
    `heavy request p50 ${fmt(r.heavyP50)} ms; after ${HEAVY_N} of them: JS memory ${fmt(r.heapAfterHeavyMiB)} MiB, workerd RSS ${fmt(r.rssBeforeMiB)} -> ${fmt(r.rssAfterHeavyMiB)} MiB (VmHWM ${fmt(r.hwmMiB)} MiB)`,
  );
  console.log(`workerd RSS (MiB) before and after each heavy request: ${r.rssCurveMiB.join(" ")}`);
  console.log(
    `evalscript sandbox isolates after them (workerd's inspector): ${r.sandboxIsolates}, JS memory ${fmt(r.sandboxMiB)} MiB (garbage included; each recycled after SANDBOX_RECYCLE_BYTES of pixels and values, src/raster/memory.ts)`,
  );
  console.log(
    `after a full GC and ${IDLE_MS / 1000} s idle: JS memory ${fmt(r.heapAfterGcMiB)} MiB, workerd RSS ${fmt(r.rssAfterGcIdleMiB)} MiB`,
  );
  console.log(
    `small request p50, interleaved with a fresh server: before the heavy requests ${fmt(r.smallBefore)} ms (fresh ${fmt(r.freshBefore)}), after ${fmt(r.smallAfter)} ms (fresh ${fmt(r.freshAfter)}); after/fresh ${(r.smallAfter / r.freshAfter).toFixed(2)} (target <= 1.1)`,
  );
  const answers = r.concurrentAnswers
    .map((a) => (a.status === 503 ? `503 (Retry-After ${a.retryAfter})` : String(a.status)))
    .join(", ");
  console.log(
    `right after start (one 16x16 request, full GC): JS memory ${fmt(r.baselineMiB)} MiB (the code, caches nearly empty)`,
  );
  console.log(
    `${CONCURRENT} of the 2500x2500 requests at once, twice: ${answers}; peak JS memory ${fmt(r.concurrentPeakMiB)} MiB, garbage included (target: each 200 or 503 with Retry-After, < 128 MB): ${concurrentOk(r) ? "ok" : "FAILED"}`,
  );
  console.log(JSON.stringify(r));
  const peak = r.heapPeakMiB * 1.048576; // MiB -> MB, the isolate limit's unit
  summaryRow(
    `peak JS heap of one 2500x2500 ${HEAVY_KIND.label} request`,
    `${fmt(peak)} MB (Worker isolate, heap + ArrayBuffers)`,
    "fits the 128 MB isolate limit",
    peak < 128,
  );
  const ratio = r.smallAfter / r.freshAfter;
  summaryRow(
    `small requests after ${HEAVY_N} heavy ones (p50 vs a fresh server); workerd RSS`,
    `${ratio.toFixed(2)}x; RSS ${fmt(r.rssBeforeMiB)} -> ${fmt(r.rssAfterHeavyMiB)} MiB, ${fmt(r.rssAfterGcIdleMiB)} after GC + idle`,
    "no slowdown; memory returns",
    ratio <= 1.1 && r.rssAfterGcIdleMiB <= r.rssBeforeMiB * 1.5,
  );
  summaryRow(
    `peak JS heap with ${CONCURRENT} 2500x2500 ${HEAVY_KIND.label} requests at once`,
    `${fmt(r.concurrentPeakMiB * 1.048576)} MB garbage included; answers ${answers}`,
    "each 200 or 503 + Retry-After; < 128 MB",
    concurrentOk(r),
  );
}

/** Two servers on their own states: `heavy` (with the inspector) serves the heavy requests, `fresh` only small ones. */
async function main() {
  const heavy = await serverWithToken(STATE, PORT, ["--inspector-port", INSPECTOR], INSPECTOR);
  try {
    const fresh = await serverWithToken(STATE_FRESH, PORT_FRESH);
    try {
      const r = await measure(heavy, fresh);
      print(r);
      if (!concurrentOk(r)) process.exitCode = 1;
    } finally {
      await fresh.server.stop();
    }
  } finally {
    await heavy.server.stop();
  }
}

await main();

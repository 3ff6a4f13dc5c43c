// The per-request path: `npx node bench/bench-reqpath.mjs` (or BENCH_ONLY=reqpath
// once the coordinator folds it into `npm run bench`). On a seeded scratch state (.state-reqpath, a copy for a
// second server) it measures
//  1. cold start, COLD_RUNS times: a fresh `wrangler dev` (new isolate, empty per-isolate caches; the state's D1/R2
//     as seeded), then in order: the first request of any kind (GET of an unknown path: module instantiation), the
//     token request, the first NDVI 512x512 PNG over 29RKH with its Server-Timing stages, a second one (warm);
//  2. concurrency: CONC_N NDVI requests by 1 client in sequence, then by 8 clients at once (same account, same
//     script): requests/s of each and their ratio (target >= 1.6 on 2 cores);
//  3. the limiter: two servers side by side (limiter on; `--var RATE_LIMITS:off` on the copy), NDVI and a cheap
//     authenticated GET (GET /api/v1/metadata/location) alternated between them N times: p50 of each and the
//     difference (target < 1 ms); then 16 concurrent clients of one account on the cheap GET: decisions/s
//     of that account's RateLimiter object (passed and 429 alike); then the same with a tiny metered Process
//     request (16x16 PNG: a decision and a processing-unit charge each, one limiter call since the charge rides on the decision,
//     src/ratelimit/carry.ts), against the server without the limiter: metered requests/s on and off.
// Ports BENCH_REQPATH_PORT (default 9145) and +1 (inspector ports +2, +3). REQPATH_PARTS=cold,concurrency,limiter
// picks parts. Prints one table per part; CPU figures are the workerd processes' user+system time (/proc).
import { cpSync, existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  NDVI_SCRIPT,
  fmt,
  getToken,
  pct,
  prepareState,
  processBody,
  startServer,
  summaryRow,
  concurrencyRounds,
  timed,
  workerdThreadTicks,
} from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 40);
const COLD_RUNS = Number(process.env.COLD_RUNS ?? 3);
const CONC_N = Number(process.env.CONC_N ?? 48);
const CLIENTS = 8;
const STREAMS = 16;
const PER_STREAM = 25;
const PORT = Number(process.env.BENCH_REQPATH_PORT ?? 9145);
const STATE = resolve(".state-reqpath");
const STATE2 = resolve(".state-reqpath-2");
const NDVI = processBody(NDVI_SCRIPT, 512, 512, "image/png");
const TINY = processBody(NDVI_SCRIPT, 16, 16, "image/png");
const CHEAP = "/api/v1/metadata/location";
/** Parts to run (REQPATH_PARTS, comma-separated; default all). */
const PARTS = new Set((process.env.REQPATH_PARTS ?? "cold,concurrency,limiter").split(","));

/** A wrangler dev server on `port` with its state `dir`; more wrangler args in `args`. */
const serve = (dir, port, args = []) =>
  startServer({
    stateDir: dir,
    port,
    args: ["--inspector-port", String(port + 2), "--var", `PUBLIC_BASE_URL:http://127.0.0.1:${port}`, ...args],
  });

/** Milliseconds of fn(). */
async function ms(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** One GET of `path` with the bearer token: { status, ms }. */
async function get(base, token, path) {
  const t0 = performance.now();
  const r = await fetch(base + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  await r.arrayBuffer();
  return { status: r.status, ms: performance.now() - t0 };
}

/**
 * CPU time (user + system, ms) used so far by the workerd processes of process group `pgid` (a startServer's):
 * work counted rather than timed, so a busy shared machine does not blur an A/B of two servers.
 */
function workerdCpuMs(pgid) {
  let ticks = 0;
  for (const t of workerdThreadTicks(pgid).values()) ticks += t;
  return ticks * 10; // USER_HZ = 100 on Linux
}

/** Server-Timing stages as { name: ms }. */
const stages = (timing) =>
  Object.fromEntries([...timing.matchAll(/(\w+);dur=([\d.]+)/g)].map((m) => [m[1], Number(m[2])]));

/** Part 1: COLD_RUNS fresh servers; the median of each figure. */
async function cold() {
  const runs = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const server = await serve(STATE, PORT);
    try {
      const first = await ms(() => get(server.base, undefined, "/no-such-path"));
      let token;
      const tokenMs = await ms(async () => (token = await getToken(server.base, join(STATE, "demo-client.json"))));
      const ndvi = await timed(server.base, token, NDVI);
      const warm = await timed(server.base, token, NDVI);
      runs.push({ first, tokenMs, ndvi: ndvi.ms, warm: warm.ms, stages: stages(ndvi.timing) });
    } finally {
      await server.stop();
    }
  }
  const med = (f) => pct(runs.map(f), 50);
  console.log(`\n## cold start (median of ${COLD_RUNS} fresh servers)`);
  console.log("first request (404) ms | token request ms | first NDVI ms | its stages (ms) | second NDVI ms");
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.stages)))];
  const st = names
    .map(
      (n) =>
        `${n} ${fmt(
          med((r) => r.stages[n] ?? NaN),
          0,
        )}`,
    )
    .join(", ");
  console.log(
    `${fmt(med((r) => r.first))} | ${fmt(med((r) => r.tokenMs))} | ${fmt(med((r) => r.ndvi))} | ${st} | ${fmt(med((r) => r.warm))}`,
  );
  console.log(`first token + NDVI after start: ${fmt(med((r) => r.tokenMs + r.ndvi))} ms (target: NDVI <= 150 ms)`);
  summaryRow(
    "first NDVI request after start, median of fresh servers",
    `${fmt(med((r) => r.ndvi))} ms (stages ${st})`,
    "<= 150 ms",
    med((r) => r.ndvi) <= 150,
  );
}

/** Part 2: 1 client vs 8 clients on one warm server (`server`: serve's, with its token). */
async function concurrency(server) {
  const { base, token } = server;
  for (let i = 0; i < 5; i++) await timed(base, token, NDVI);
  console.log(`\n## concurrency (NDVI 512 PNG, ${CONC_N} requests each way, 3 rounds in turn)`);
  console.log(
    `1 client req/s (busiest workerd thread, cores) | ${CLIENTS} clients req/s (cores) | ratio (target >= 1.6)`,
  );
  for (const r of await concurrencyRounds(server, token, NDVI, CLIENTS, CONC_N, 3))
    console.log(
      `${fmt(r.one, 2)} (${fmt(r.cores[0], 2)}) | ${fmt(r.many, 2)} (${fmt(r.cores[1], 2)}) | ${fmt(r.ratio, 2)}`,
    );
}

/** Part 3: limiter on vs off, alternated in both orders (wall p50, workerd CPU per request); then one limiter object under STREAMS clients. */
async function limiter(on, off) {
  const rows = {};
  for (const k of ["on", "off"]) rows[k] = { ndvi: [], cheap: [], wait: [], cpu: { ndvi: 0, cheap: 0 } };
  const servers = [
    ["on", on],
    ["off", off],
  ];
  for (const [, s] of servers) for (let i = 0; i < 5; i++) await timed(s.base, s.token, NDVI);
  for (let i = 0; i < N; i++)
    for (const [k, s] of i % 2 ? [...servers].reverse() : servers) {
      let c0 = workerdCpuMs(s.pgid);
      const r = await timed(s.base, s.token, NDVI);
      rows[k].cpu.ndvi += workerdCpuMs(s.pgid) - c0;
      rows[k].ndvi.push(r.ms);
      rows[k].wait.push(stages(r.timing).ratelimit ?? 0);
      c0 = workerdCpuMs(s.pgid);
      for (let j = 0; j < 5; j++) rows[k].cheap.push((await get(s.base, s.token, CHEAP)).ms);
      rows[k].cpu.cheap += workerdCpuMs(s.pgid) - c0;
    }
  console.log(`\n## rate limiter (alternated, ${N} NDVI and ${5 * N} GET ${CHEAP} per server)`);
  console.log("request | p50 limiter on | p50 off | added (target < 1 ms) | workerd CPU ms/request on | off");
  for (const k of ["ndvi", "cheap"]) {
    const [a, b] = [pct(rows.on[k], 50), pct(rows.off[k], 50)];
    const n = k === "ndvi" ? N : 5 * N;
    console.log(
      `${k === "ndvi" ? "NDVI 512 PNG" : `GET ${CHEAP}`} | ${fmt(a, 2)} | ${fmt(b, 2)} | ${fmt(a - b, 2)} | ${fmt(rows.on.cpu[k] / n, 2)} | ${fmt(rows.off.cpu[k] / n, 2)}`,
    );
  }
  console.log(
    `NDVI responses that waited for the limiter's decision (Server-Timing ratelimit): p50 ${fmt(pct(rows.on.wait, 50), 2)} ms, p95 ${fmt(pct(rows.on.wait, 95), 2)} ms`,
  );
  const waited = pct(rows.on.wait, 50);
  const cpu = rows.on.cpu.ndvi / N - rows.off.cpu.ndvi / N;
  summaryRow(
    "rate limiter's cost on the NDVI 512 request",
    `waited ${fmt(waited, 2)} ms p50 for the decision; workerd CPU +${fmt(cpu, 2)} ms/request; wall p50 on/off ${fmt(pct(rows.on.ndvi, 50))} / ${fmt(pct(rows.off.ndvi, 50))} ms`,
    "< 1 ms added",
    waited < 1 && cpu < 1,
  );
  let refused = 0;
  const stream = async () => {
    for (let i = 0; i < PER_STREAM; i++) if ((await get(on.base, on.token, CHEAP)).status === 429) refused++;
  };
  const s = (await ms(() => Promise.all([...Array(STREAMS)].map(stream)))) / 1000;
  console.log(
    `one account's limiter object, ${STREAMS} concurrent clients: ${fmt((STREAMS * PER_STREAM) / s)} decisions/s (${refused} of ${STREAMS * PER_STREAM} refused; bound by the Worker's own request path, one isolate under wrangler dev)`,
  );
  const metered = {};
  for (const [k, server] of [
    ["on", on],
    ["off", off],
    ["on", on],
    ["off", off],
  ]) {
    const run = async () => {
      for (let i = 0; i < PER_STREAM; i++) await timed(server.base, server.token, TINY);
    };
    const c0 = workerdCpuMs(server.pgid);
    const secs = (await ms(() => Promise.all([...Array(STREAMS)].map(run)))) / 1000;
    (metered[k] ??= []).push({
      rps: (STREAMS * PER_STREAM) / secs,
      cpu: (workerdCpuMs(server.pgid) - c0) / (STREAMS * PER_STREAM),
    });
  }
  const best = (k) => metered[k].reduce((a, b) => (b.rps > a.rps ? b : a));
  console.log(
    `metered Process 16x16 PNG, ${STREAMS} concurrent clients of one account (best of 2 rounds): limiter on ${fmt(best("on").rps)} requests/s (workerd CPU ${fmt(best("on").cpu, 2)} ms/request), off ${fmt(best("off").rps)} requests/s (${fmt(best("off").cpu, 2)} ms/request)`,
  );
  summaryRow(
    "one account's limiter: decisions/s (16 clients, cheap GET) and metered requests/s on/off",
    `${fmt((STREAMS * PER_STREAM) / s)} decisions/s; metered 16x16 Process ${fmt(best("on").rps)} / ${fmt(best("off").rps)} requests/s`,
    "one limiter call per metered request",
    null,
  );
}

if (!existsSync(join(STATE, "demo-client.json"))) prepareState(STATE);
if (PARTS.has("cold")) await cold();
rmSync(STATE2, { recursive: true, force: true });
cpSync(STATE, STATE2, { recursive: true });
const on = await serve(STATE, PORT);
const off = await serve(STATE2, PORT + 1, ["--var", "RATE_LIMITS:off"]);
try {
  on.token = await getToken(on.base, join(STATE, "demo-client.json"));
  off.token = await getToken(off.base, join(STATE2, "demo-client.json"));
  if (PARTS.has("concurrency")) await concurrency(on);
  if (PARTS.has("limiter")) await limiter(on, off);
} finally {
  await Promise.all([on.stop(), off.stop()]);
}

// `npm run bench` section `limiter` (BENCH_ONLY=limiter): the cost of the rate limiter (src/ratelimit/). On the seeded
// scratch state (.state-bench) it starts wrangler dev (port BENCH_LIMITER_PORT, default 8796) four times in turn:
// limiter on (the default), off (`--var RATE_LIMITS:off`, src/env.ts), on, off (ROUNDS = 2: alternating spreads the
// shared machine's changing load over both; two servers at once would need two states), and
//  1. on each: the NDVI benchmark request (PNG 512x512 over 29RKH), 1 cold + N/ROUNDS warm runs;
//  2. on the first limited server: LIMITER_N sequential cheap GETs (GET /api/v1/metadata/location) for the limiter's
//     own time (the Server-Timing entry `ratelimit`, measured in the Worker around its one RPC to the account's
//     RateLimiter object), then 16 concurrent clients of the same account for the decisions per second of that one object (passed and 429 alike).
// Prints p50/p95 of both runs and the p50 added by the limiter (target < 1 ms, issue 14).
import { join, resolve } from "node:path";
import { NDVI_SCRIPT, fmt, getToken, metric, pct, prepareState, processBody, scenario, startServer } from "./lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const LIMITER_N = Number(process.env.LIMITER_N ?? 300);
const PORT = process.env.BENCH_LIMITER_PORT ?? "8796";
const STATE = resolve(".state-bench");
const ROUNDS = 2;
const STREAMS = 16;
const PER_STREAM = 40;
const NDVI = processBody(NDVI_SCRIPT, 512, 512, "image/png");

/** One GET of a cheap authenticated route: { status, ms (wall), limiter (ms, Server-Timing `ratelimit`) }. */
async function cheap(base, token) {
  const t0 = performance.now();
  const r = await fetch(`${base}/api/v1/metadata/location`, { headers: { authorization: `Bearer ${token}` } });
  await r.arrayBuffer();
  return { status: r.status, ms: performance.now() - t0, limiter: metric(r.headers.get("server-timing") ?? "", "ratelimit") };
}

/** The limiter's own time over LIMITER_N sequential GETs, and one object's decisions/s under STREAMS clients. */
async function limiterObject(base, token) {
  for (let i = 0; i < 20; i++) await cheap(base, token); // warm-up
  const runs = [];
  for (let i = 0; i < LIMITER_N; i++) runs.push(await cheap(base, token));
  const t0 = performance.now();
  const streams = [...Array(STREAMS)].map(async () => {
    const out = [];
    for (let i = 0; i < PER_STREAM; i++) out.push(await cheap(base, token));
    return out;
  });
  const all = (await Promise.all(streams)).flat();
  const s = (performance.now() - t0) / 1000;
  return { runs, rpc: runs.map((r) => r.limiter).filter(Number.isFinite), all, s, refused: all.filter((r) => r.status === 429).length };
}

/**
 * ROUNDS rounds of (limiter on, limiter off), each a server of its own on STATE: 1 cold + N/ROUNDS warm NDVI runs
 * per server (alternating the servers spreads the machine's changing load over both); the limiter object's figures
 * on the first limited server. Returns { on, off, o }.
 */
async function measure() {
  const rows = { on: { runs: [], firsts: [] }, off: { runs: [], firsts: [] } };
  let o;
  for (let round = 0; round < ROUNDS; round++)
    for (const [mode, args] of [["on", []], ["off", ["--var", "RATE_LIMITS:off"]]]) {
      const server = await startServer({ stateDir: STATE, port: PORT, args });
      try {
        const token = await getToken(server.base, join(STATE, "demo-client.json"));
        const r = await scenario(server.base, token, Math.ceil(N / ROUNDS), mode, NDVI);
        rows[mode].firsts.push(r.first);
        rows[mode].runs.push(...r.runs);
        if (mode === "on" && !o) o = await limiterObject(server.base, token);
      } finally {
        await server.stop();
      }
    }
  const summary = (r) => ({ first: pct(r.firsts, 50), p50: pct(r.runs.map((x) => x.ms), 50), p95: pct(r.runs.map((x) => x.ms), 95), rpc: r.runs.map((x) => metric(x.timing, "ratelimit")).filter(Number.isFinite) });
  return { on: summary(rows.on), off: summary(rows.off), o };
}

prepareState(STATE);
const { on, off, o } = await measure();
console.log(`\nrate limiter (wrangler dev, 127.0.0.1; NDVI PNG 512x512 over 29RKH, ${ROUNDS} servers per row alternating on/off, each 1 cold + ${Math.ceil(N / ROUNDS)} warm runs; first = nearest-rank p50 of the cold runs)`);
console.log("limiter | first ms | p50 ms | p95 ms | limiter RPC p50 ms (Server-Timing)");
for (const [name, r] of [["on", on], ["off (RATE_LIMITS=off)", off]])
  console.log(`${name} | ${fmt(r.first)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${r.rpc.length ? fmt(pct(r.rpc, 50), 3) : "-"}`);
console.log(`p50 added by the limiter (on - off, whole request): ${fmt(on.p50 - off.p50, 2)} ms; in the Worker (ratelimit RPC p50): ${fmt(pct(on.rpc, 50), 3)} ms (target < 1 ms; workerd's clock has 1 ms steps)`);
console.log(`limiter RPC over ${LIMITER_N} sequential GET /api/v1/metadata/location: p50 ${fmt(pct(o.rpc, 50), 3)} ms, p95 ${fmt(pct(o.rpc, 95), 3)} ms; whole request p50 ${fmt(pct(o.runs.map((r) => r.ms), 50), 2)} ms`);
const loaded = o.all.map((r) => r.limiter).filter(Number.isFinite);
console.log(`${STREAMS} concurrent clients of one account: ${o.all.length} requests in ${fmt(o.s, 2)} s = ${fmt(o.all.length / o.s, 0)} decisions/s of its limiter object (${o.refused} answered 429; limiter RPC under this load p50 ${fmt(pct(loaded, 50), 3)} ms, p95 ${fmt(pct(loaded, 95), 3)} ms)`);

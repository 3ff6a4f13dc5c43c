// The cost of the rate limiter: `npx tsx scripts/limiter-latency.mjs` starts wrangler dev (port LIMITER_PORT, default
// 8796) on a scratch state with one account (enterprise plan) and one client, then
//  1. sends N sequential GET /api/v1/metadata/location and prints the p50/p95 of the limiter's own time (the
//     Server-Timing entry `ratelimit`, measured in the Worker around its one RPC to the account's RateLimiter
//     object) next to the p50 of the whole request as the client sees it;
//  2. sends 16 concurrent streams of requests of the same account and prints the decisions per second of that one
//     object (passed and 429 alike; the plan allows 1000/s).
// Not a test: figures for the report. No data is seeded (the route needs none).
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt, metric, pct, run, startServer } from "./lib/bench.mjs";

const N = Number(process.env.LIMITER_N ?? 300);
const PORT = process.env.LIMITER_PORT ?? "8796";
const STREAMS = 16;
const PER_STREAM = 40;

/** A scratch state with the migrations applied and one client (salted SHA-256 secret as src/auth/clients.ts stores it). */
function prepare(state) {
  run("npx", ["wrangler", "d1", "migrations", "apply", "eo-edge", "--local", "--persist-to", state]);
  const account = randomUUID(), id = randomUUID(), secret = randomBytes(24).toString("hex"), salt = randomBytes(16).toString("hex");
  const hash = `${salt}$${createHash("sha256").update(salt + secret).digest("hex")}`;
  const now = new Date().toISOString();
  const sql = `INSERT INTO accounts (id, name, created) VALUES ('${account}', 'latency', '${now}');
INSERT INTO oauth_clients (client_id, secret_hash, account_id, name, created) VALUES ('${id}', '${hash}', '${account}', 'latency', '${now}');`;
  run("npx", ["wrangler", "d1", "execute", "eo-edge", "--local", "--persist-to", state, "--command", sql]);
  return { client_id: id, client_secret: secret };
}

async function call(base, token) {
  const t0 = performance.now();
  const r = await fetch(`${base}/api/v1/metadata/location`, { headers: { authorization: `Bearer ${token}` } });
  await r.arrayBuffer();
  return { status: r.status, ms: performance.now() - t0, limiter: metric(r.headers.get("server-timing") ?? "", "ratelimit") };
}

const state = mkdtempSync(join(tmpdir(), "eo-edge-limiter-"));
let server;
try {
  const client = prepare(state);
  server = await startServer({ stateDir: state, port: PORT });
  const tr = await fetch(`${server.base}/auth/realms/main/protocol/openid-connect/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", ...client }),
  });
  const token = (await tr.json()).access_token;
  for (let i = 0; i < 20; i++) await call(server.base, token); // warm-up
  const runs = [];
  for (let i = 0; i < N; i++) runs.push(await call(server.base, token));
  const lim = runs.map((r) => r.limiter).filter(Number.isFinite);
  console.log(`rate limiter, ${N} sequential authenticated GETs (wrangler dev, 127.0.0.1):`);
  console.log(`  limiter RPC (Server-Timing ratelimit): p50 ${fmt(pct(lim, 50), 3)} ms, p95 ${fmt(pct(lim, 95), 3)} ms`);
  console.log(`  whole request seen by the client:      p50 ${fmt(pct(runs.map((r) => r.ms), 50), 2)} ms`);
  const t0 = performance.now();
  const all = (await Promise.all([...Array(STREAMS)].map(async () => {
    const out = [];
    for (let i = 0; i < PER_STREAM; i++) out.push(await call(server.base, token));
    return out;
  }))).flat();
  const s = (performance.now() - t0) / 1000;
  const refused = all.filter((r) => r.status === 429).length;
  console.log(`  ${STREAMS} concurrent clients of one account: ${all.length} requests in ${fmt(s, 2)} s = ${fmt(all.length / s, 0)} decisions/s (${refused} answered 429)`);
} finally {
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
}

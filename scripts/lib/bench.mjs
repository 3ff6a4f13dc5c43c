// Shared pieces of the benchmarks (bench/bench.mjs and bench/bench-*.mjs): the 29RKH NDVI request and its timing,
// percentiles and number formatting, Server-Timing parsing, a scratch wrangler state seeded like `npm start`,
// a `wrangler dev` server on it, a demo-client token and the workerd peak memory.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { inspectorPort, portFree, wranglerEnv } from "./local.mjs";
import { prepareState as prepareSeeded } from "./prepare.mjs";

export { portFree };

/** Environment for every child process: the caller's, with wrangler's network calls off (scripts/lib/local.mjs). */
export const env = wranglerEnv;

/**
 * Environment that gives every isolate of a `wrangler dev` (miniflare passes MINIFLARE_WORKERD_V8_FLAGS to workerd's
 * V8) the edge's memory limit: 128 MB (Cloudflare Workers limits, "Memory") = 122 MiB, V8 heap and ArrayBuffer
 * backing stores together (the global heap limit, at factor 1 of the old space's, enforced), so V8 collects before
 * it is full, as at the edge, and an isolate that holds more aborts workerd ("Reached heap limit": its requests then
 * fail). Checked on workerd 2026-11-02: a request holding 120 MB of Float32Arrays answers, one holding 130 MB aborts
 * it, one making 300 MB of garbage answers; without these flags local workerd has no limit and collects lazily.
 */
export const EDGE_V8_ENV = {
  MINIFLARE_WORKERD_V8_FLAGS:
    "--max-old-space-size=122 --maximum-global-heap-limit-factor=1 --enforce-global-heap-limit",
};

/** Resolves after ms milliseconds. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank p-th percentile (p in 0..100) of the numbers xs; undefined when xs is empty. */
export const pct = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))];

/**
 * Mean of the middle half of the numbers xs (the interquartile mean: the lowest and highest quarter dropped; all of
 * them when fewer than 4); NaN when xs is empty. For Server-Timing stages: workerd's clock moves in whole
 * milliseconds, so each reading is the stage's time rounded down or up by the tick, and their p50 is one such
 * reading (a 6.5 ms stage reads 6 or 7: 175 or 150 Mpx/s per Mpx). The mean of many readings resolves the fraction
 * (each tick boundary falls anywhere in the stage), and dropping the quarters keeps the median's robustness to a
 * stray GC pause or preemption.
 */
export const midMean = (xs) => {
  const s = [...xs].sort((a, b) => a - b),
    q = s.length < 4 ? 0 : Math.floor(s.length / 4),
    mid = s.slice(q, s.length - q);
  return mid.length ? mid.reduce((a, b) => a + b, 0) / mid.length : NaN;
};

/** x with `digits` decimals; "-" for undefined or a non-finite number. */
export const fmt = (x, digits = 1) => (x === undefined || !Number.isFinite(x) ? "-" : x.toFixed(digits));

/** Duration (ms) of the metric `name` in a Server-Timing header value ("a;dur=1.2, b;dur=3"); NaN when absent. */
export const metric = (serverTiming, name) =>
  Number(new RegExp(`(?:^|,\\s*)${name};dur=([\\d.]+)`).exec(serverTiming)?.[1] ?? NaN);

/**
 * Prepares the wrangler state directory stateDir (absolute path) as `npm start` does for one location (migrations,
 * sample data, demo client: scripts/seed.ts), unless it is already seeded from the current inputs
 * (scripts/lib/prepare.mjs). @throws Error with the seed's output when it fails
 */
export function prepareState(stateDir) {
  mkdirSync(stateDir, { recursive: true });
  prepareSeeded(stateDir);
}

/** Waits until base answers the OpenID configuration request (up to 60 s); throws when it never does. */
export async function waitReady(base, alive = () => true) {
  for (let i = 0; i < 120 && alive(); i++) {
    try {
      await fetch(`${base}/auth/realms/main/.well-known/openid-configuration`);
      return;
    } catch {
      await sleep(500);
    }
  }
  throw new Error("wrangler dev did not start");
}

/**
 * stop() of a child started with `detached: true` (its own process group): interrupts the whole group (SIGINT,
 * SIGKILL after 10 s) and resolves once no process of it is left.
 */
export function groupStopper(child) {
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
      return true;
    } catch {
      return false; // no process left in the group
    }
  };
  return async () => {
    if (!signal("SIGINT")) return;
    for (let i = 0; i < 100; i++) {
      await sleep(100);
      if (!signal(0)) return;
    }
    signal("SIGKILL");
    while (signal(0)) await sleep(100);
  };
}

/** Process groups of the servers started here and not yet stopped: killed if this process ends or is interrupted. */
const liveGroups = new Set();
const killLive = () => {
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
};
let reaperInstalled = false;
/**
 * Kills process group pgid (SIGKILL) if this process exits or gets SIGINT/SIGTERM/SIGHUP before the returned
 * untrack() is called: a Ctrl-C does not reach a detached group, whose server would otherwise keep its port.
 */
export function reapOnExit(pgid) {
  if (!reaperInstalled) {
    reaperInstalled = true;
    process.on("exit", killLive);
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.once(sig, () => (killLive(), process.exit(130)));
  }
  liveGroups.add(pgid);
  return () => liveGroups.delete(pgid);
}

/**
 * Starts `wrangler dev` on 127.0.0.1:port with the state in stateDir, in its own process group, and waits until it
 * answers. `args`: more wrangler dev arguments (e.g. `["--var", "RATE_LIMITS:off"]`, `["--config", file]`); `extraEnv`:
 * more environment variables (e.g. EDGE_V8_ENV); `onLine`: called with each line wrangler dev prints at log level info
 * (e.g. the local queue's `QUEUE <name> 1/1 (<ms>ms)`).
 * Returns { base: "http://127.0.0.1:<port>", pgid, readyMs (spawn to first answer), stop() }: pgid is that process
 * group (for workerdPeakMiB); stop() interrupts the whole group (SIGINT, SIGKILL after 10 s) and resolves once no
 * process of it is left, so the port is free for the next server. The group is also killed when this process exits.
 * Throws (after stopping it) when the port is already taken (another server would answer in its place: with another
 * state its token endpoint rejects our demo client, which once surfaced as a 401 "signature or format not accepted"
 * on the first API call) or when the server does not come up.
 */
export async function startServer({ stateDir, port, args = [], extraEnv = {}, onLine }) {
  const base = `http://127.0.0.1:${port}`;
  if (!(await portFree(port)))
    throw new Error(
      `port ${port} is already in use (a wrangler dev left over from an interrupted run, or someone else's server): stop it or pick another port (BENCH_PORT, BENCH_STATS_PORT, ...)`,
    );
  const t0 = performance.now();
  const dev = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      stateDir,
      "--log-level",
      onLine ? "info" : "error",
      ...inspectorPort(),
      ...args,
    ],
    {
      stdio: ["ignore", onLine ? "pipe" : "ignore", "inherit"],
      // X_LOCAL_OBSERVABILITY off: wrangler dev's local trace store records every invocation, RPC and Durable
      // Object statement into SQLite on the Worker's thread (about 6 disk writes per Process request, 1 for the
      // floor's hello-world); the edge has no such store (B08 256 px p50 14.05 -> 12.32 ms, h-peer5).
      env: { X_LOCAL_OBSERVABILITY: "false", ...env, ...extraEnv },
      detached: true,
    },
  );
  if (onLine) createInterface({ input: dev.stdout }).on("line", onLine);
  const untrack = reapOnExit(dev.pid);
  let exited = false;
  dev.on("exit", () => (exited = true));
  const stopGroup = groupStopper(dev);
  const stop = async () => {
    await stopGroup();
    untrack();
  };
  try {
    await waitReady(base, () => !exited);
    if (exited) throw new Error(`wrangler dev on port ${port} exited`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { base, pgid: dev.pid, readyMs: performance.now() - t0, stop };
}

/**
 * Access token (client credentials) for the demo client in clientFile (the demo-client.json the seed writes), checked
 * with {@link checkToken}. Throws an Error with the token endpoint's answer when it issues no token (a 401
 * invalid_client means the server at base does not hold that state's client).
 */
export async function getToken(base, clientFile) {
  const c = JSON.parse(readFileSync(clientFile, "utf8"));
  const r = await fetch(`${base}/auth/realms/main/protocol/openid-connect/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", ...c }),
  });
  const text = await r.text();
  const token = r.status === 200 ? JSON.parse(text).access_token : undefined;
  if (typeof token !== "string")
    throw new Error(
      `token request to ${base} for client ${c.client_id} (${clientFile}): ${r.status} ${text.slice(0, 300)}`,
    );
  await checkToken(base, token);
  return token;
}

/**
 * Checks that the server at base accepts its own fresh token before a bench relies on it: the token's `kid` is in the
 * server's JWKS (one signing key for the token endpoint and the verification) and an authenticated GET
 * (/api/v1/metadata/location) answers 200. Throws an Error naming the kid, the JWKS kids and the answer otherwise.
 */
export async function checkToken(base, token) {
  const kid = JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString("utf8")).kid;
  const jwks = await (await fetch(`${base}/auth/realms/main/protocol/openid-connect/certs`)).json();
  const kids = (jwks.keys ?? []).map((k) => k.kid);
  const r = await fetch(`${base}/api/v1/metadata/location`, { headers: { authorization: `Bearer ${token}` } });
  const text = await r.text();
  if (!kids.includes(kid) || r.status !== 200)
    throw new Error(
      `${base} does not accept its own token: kid ${kid}, JWKS kids [${kids.join(", ")}], GET /api/v1/metadata/location ${r.status} ${text.slice(0, 200)}`,
    );
}

/**
 * A JSON call `method path` on base with the bearer token; resolves to { status, json } (json undefined for an empty
 * body). Throws an Error with the body when the status is not `expect` (when given).
 */
export async function call(base, token, method, path, body, expect) {
  const init = { method, headers: { authorization: `Bearer ${token}` } };
  if (body !== undefined)
    Object.assign(init, {
      body: JSON.stringify(body),
      headers: { ...init.headers, "content-type": "application/json" },
    });
  const r = await fetch(base + path, init);
  const text = await r.text();
  if (expect !== undefined && r.status !== expect)
    throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

/**
 * The fields after "comm" of a /proc stat line ("pid (comm) state ppid pgrp ...": comm may hold spaces, so the
 * fields start after the last ")"): [state, ppid, pgrp, ..., utime at 11, stime at 12, ...]; and comm.
 */
function statFields(path) {
  const stat = readFileSync(path, "utf8");
  const close = stat.lastIndexOf(")");
  return { comm: stat.slice(stat.indexOf("(") + 1, close), f: stat.slice(close + 2).split(" ") };
}

/**
 * Pids of the processes in process group pgid (a startServer's) for which keep(pid, comm) is true (default: all);
 * a process that ends while it is looked at (keep may read its /proc files too) is left out.
 */
export function groupPids(pgid, keep = () => true) {
  const pids = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const { comm, f } = statFields(`/proc/${pid}/stat`);
      if (Number(f[2]) === pgid && keep(pid, comm)) pids.push(pid);
    } catch {
      /* process ended */
    }
  }
  return pids;
}

/** Pids of the workerd processes in process group pgid. */
export const workerdPids = (pgid) => groupPids(pgid, (_pid, comm) => comm.includes("workerd"));

/**
 * Resident memory (MiB) of the workerd processes in process group pgid (a startServer's), the largest over them:
 * `field` "VmHWM" (peak since start, the default) or "VmRSS" (now); 0 when none.
 */
export function workerdMiB(pgid, field = "VmHWM") {
  let most = 0;
  for (const pid of workerdPids(pgid)) {
    try {
      const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) most = Math.max(most, Number(m[1]) / 1024);
    } catch {
      /* process ended */
    }
  }
  return most;
}

/** CPU time (user + system, in ticks of 10 ms) per thread of the workerd processes in process group pgid: Map "pid/tid" -> ticks. */
export function workerdThreadTicks(pgid) {
  const ticks = new Map();
  for (const pid of workerdPids(pgid)) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const { f } = statFields(`/proc/${pid}/task/${tid}/stat`);
        ticks.set(`${pid}/${tid}`, Number(f[11]) + Number(f[12]));
      }
    } catch {
      /* process or thread ended */
    }
  }
  return ticks;
}

/** The busiest workerd thread's share of one core between two workerdThreadTicks snapshots `seconds` apart. */
export function busiestThreadCores(before, after, seconds) {
  let most = 0;
  for (const [k, t] of after) most = Math.max(most, (t - (before.get(k) ?? 0)) / 100 / seconds);
  return most;
}

/** Peak resident memory (VmHWM, MiB) of the workerd processes in process group pgid; 0 when none. */
export const workerdPeakMiB = (pgid) => workerdMiB(pgid, "VmHWM");

/**
 * One row of the closing summary of `npm run bench`: prints nothing, appends
 * `{figure, value, target, met}` as a JSON line to the file $BENCH_SUMMARY when set (bench/bench.mjs sets it for
 * its sections; a section run alone skips it). value and target are display strings; met is true, false or null
 * (not measured, e.g. a failed baseline).
 */
export function summaryRow(figure, value, target, met) {
  const row = { figure, value, target, met };
  if (process.env.BENCH_SUMMARY) appendFileSync(process.env.BENCH_SUMMARY, JSON.stringify(row) + "\n");
  return row;
}

/** Prints the rows summaryRow appended to file as a table `figure | value | target | met?`; nothing when absent. */
export function printSummary(file) {
  if (!existsSync(file)) return;
  const rows = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  console.log(
    "\nSummary of this run (the project's targets and the other sections' headline figures)\nfigure | value | target | met?",
  );
  for (const r of rows)
    console.log(`${r.figure} | ${r.value} | ${r.target} | ${r.met === null ? "-" : r.met ? "yes" : "NO"}`);
}

/** The 29RKH benchmark area (EPSG:4326 bbox, degrees) and its one Sentinel-2 date. */
export const RKH_BBOX = [-12.0, 24.3, -10.8, 25.3];
const RKH_TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };

/** The NDVI benchmark evalscript: a two-colour NDVI classification (RGBA). */
export const NDVI_SCRIPT = `//VERSION=3
function setup(){return {input:["B04","B08","dataMask"],output:{bands:4}}}
function evaluatePixel(s){let n=(s.B08-s.B04)/(s.B08+s.B04);return n<0.1?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask]}`;

/** A Process API body: `evalscript` over bbox (EPSG:4326 unless crs, an OGC CRS URL) as width x height of MIME type. */
export const processBody = (evalscript, width, height, type, bbox = RKH_BBOX, crs, collection = "sentinel-2-l2a") => ({
  input: {
    bounds: { bbox, properties: crs ? { crs } : undefined },
    data: [{ type: collection, dataFilter: { timeRange: RKH_TIME } }],
  },
  output: { width, height, responses: [{ identifier: "default", format: { type } }] },
  evalscript,
});

/**
 * POSTs body to /api/v1/process; { ms (wall time to the body's end), headers (ms until the headers arrived), timing
 * (Server-Timing), bytes }. Throws on a non-200.
 */
export async function timed(base, token, body) {
  const t0 = performance.now();
  const r = await fetch(`${base}/api/v1/process`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const headers = performance.now() - t0;
  const buf = await r.arrayBuffer();
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`status ${r.status}: ${new TextDecoder().decode(buf).slice(0, 300)}`);
  return { ms, headers, timing: r.headers.get("server-timing") ?? "", bytes: buf.byteLength };
}

/** Requests/s of `total` requests of body, from `clients` concurrent clients pulling from one counter. */
export async function throughput(base, token, body, clients, total) {
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (started++ < total) await timed(base, token, body);
    }),
  );
  return total / ((performance.now() - t0) / 1000);
}

/**
 * 1 client against `clients` concurrent clients, `rounds` times in turn (1, n, 1, n, ...), `total` requests each way
 * per round (alternating keeps a drift of the machine's load out of the ratio). Each round:
 * { one, many (req/s), ratio, cores: [busiest workerd thread's share of a core with 1 client, with n] }; workerd
 * runs the Worker's and the sandboxes' JavaScript on one thread, so that share shows how close a run is to the
 * one-thread ceiling (pgid: the server's process group, startServer's `pgid`).
 */
export async function concurrencyRounds(server, token, body, clients, total, rounds) {
  const out = [];
  const run = async (n) => {
    const [t0, w0] = [workerdThreadTicks(server.pgid), performance.now()];
    const rps = await throughput(server.base, token, body, n, total);
    return { rps, cores: busiestThreadCores(t0, workerdThreadTicks(server.pgid), (performance.now() - w0) / 1000) };
  };
  for (let r = 0; r < rounds; r++) {
    const [one, many] = [await run(1), await run(clients)];
    out.push({ one: one.rps, many: many.rps, ratio: many.rps / one.rps, cores: [one.cores, many.cores] });
  }
  return out;
}

/** One cold then n warm runs of body: { name, first, p50, p95 (ms), runs, bytes }. */
export async function scenario(base, token, n, name, body) {
  const first = await timed(base, token, body);
  const runs = [];
  for (let i = 0; i < n; i++) runs.push(await timed(base, token, body));
  const ms = runs.map((r) => r.ms);
  return { name, first: first.ms, p50: pct(ms, 50), p95: pct(ms, 95), runs, bytes: first.bytes };
}

/**
 * Like scenario for several { name, base, token, body } at once: 1 cold run each, then n warm rounds that run each
 * once in turn (a, b, a, b, ...) so that all see the same machine load. Returns one scenario result per entry, in order.
 */
export async function interleaved(entries, n) {
  const rows = [];
  for (const e of entries) rows.push({ ...e, cold: await timed(e.base, e.token, e.body), runs: [] });
  for (let i = 0; i < n; i++) for (const r of rows) r.runs.push(await timed(r.base, r.token, r.body));
  return rows.map((r) => {
    const ms = r.runs.map((x) => x.ms);
    return { name: r.name, first: r.cold.ms, p50: pct(ms, 50), p95: pct(ms, 95), runs: r.runs, bytes: r.cold.bytes };
  });
}

// Where a small Process request's time goes (not a test, not part of `npm run bench`): N warm requests of each row
// of bench/bench-peers.mjs (true colour and B08 over 29RKH, PNG, SIZE x SIZE px, default 256) on one wrangler dev
// server, interleaved request by request with the transport floor (bench/lib/floor.mjs, a hello-world Worker). Prints,
// per row, the wall p50 and mean, both net of the floor's, and the MEAN of each Server-Timing stage (parse, script,
// sources, admission, scenes, read, eval, encode, ratelimit): workerd's clock moves in whole milliseconds, so one
// request's stages are 0 or 1, but their mean over many requests is the stage's cost to a fraction of a millisecond.
// What the stages do not cover (routing, auth, the response's way out) is the wall mean net of the floor minus
// their sum ("outside stages"). Then the CPU time of each server's workerd per request (all its threads, user +
// system, the work a request leaves to waitUntil included: N requests in a row, read from /proc before and after
// with a pause for that work), the row's and the floor's: a figure that holds up on a loaded machine, where wall
// times and the inspector's CPU profiles (whose samples land on whatever ran when a preempted thread resumes) do not.
//
//   npx node bench/profile-request.mjs        (env: N=200 requests per row, SIZE=256, PORT=8806 and PORT+1)
import { join, resolve } from "node:path";
import { floorTimes, startFloor } from "./lib/floor.mjs";
import { PEER_SCRIPTS } from "./lib/peer-scripts.mjs";
import {
  fmt,
  getToken,
  pct,
  prepareState,
  processBody,
  sleep,
  startServer,
  timed,
  workerdThreadTicks,
} from "../scripts/lib/bench.mjs";

const N = Number(process.env.N ?? 200);
const SIZE = Number(process.env.SIZE ?? 256);
const PORT = Number(process.env.PORT ?? 8806);
const STATE = resolve(".state-bench");

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Server-Timing `a;dur=1, b;dur=0` as { a: 1, b: 0 } (entries without a duration left out). */
const stages = (header) =>
  Object.fromEntries([...header.matchAll(/([\w-]+);dur=([\d.]+)/g)].map((m) => [m[1], Number(m[2])]));

/** CPU ms (user + system, all threads) of the workerd processes of process group `pgid`. */
const cpuMs = (pgid) => [...workerdThreadTicks(pgid).values()].reduce((a, b) => a + b, 0) * 10;

/** workerd CPU ms per call of `run` over `n` calls in a row on the server of `pgid` (after 600 ms for waitUntil work). */
async function cpuPerCall(pgid, n, run) {
  await sleep(600);
  const c0 = cpuMs(pgid);
  for (let i = 0; i < n; i++) await run();
  await sleep(600);
  return (cpuMs(pgid) - c0) / n;
}

prepareState(STATE);
const server = await startServer({
  stateDir: STATE,
  port: String(PORT),
  args: ["--var", `PUBLIC_BASE_URL:http://127.0.0.1:${PORT}`],
});
const floor = await startFloor(String(PORT + 1));
try {
  const token = await getToken(server.base, join(STATE, "demo-client.json"));
  const rows = Object.entries(PEER_SCRIPTS).map(([row, script]) => ({
    row,
    body: processBody(script, SIZE, SIZE, "image/png"),
    wall: [],
    timings: [],
  }));
  const floorMs = [];
  for (const r of rows) for (let i = 0; i < 10; i++) await timed(server.base, token, r.body); // warm-up
  for (let i = 0; i < N; i++)
    for (const r of rows) {
      const t = await timed(server.base, token, r.body);
      r.wall.push(t.ms);
      r.timings.push(stages(t.timing));
      floorMs.push(...(await floorTimes(floor.base, 1)));
    }
  const [f50, fMean] = [pct(floorMs, 50), mean(floorMs)];
  console.log(
    `\n${SIZE} px PNG over 29RKH, ${N} warm requests per row; floor p50 ${fmt(f50, 2)} ms, mean ${fmt(fMean, 2)}`,
  );
  for (const r of rows) {
    const names = [...new Set(r.timings.flatMap((t) => Object.keys(t)))];
    const means = Object.fromEntries(names.map((k) => [k, mean(r.timings.map((t) => t[k] ?? 0))]));
    const inStages = Object.values(means).reduce((a, b) => a + b, 0);
    const net = mean(r.wall) - fMean;
    console.log(
      `${r.row}: wall p50 ${fmt(pct(r.wall, 50), 2)} (net ${fmt(pct(r.wall, 50) - f50, 2)}), mean ${fmt(mean(r.wall), 2)} (net ${fmt(net, 2)}) ms`,
    );
    console.log(
      `  stage means (ms): ${names.map((k) => `${k} ${fmt(means[k], 2)}`).join(", ")}; outside stages ${fmt(net - inStages, 2)}`,
    );
  }
  const floorCpu = await cpuPerCall(floor.pgid, N, () => floorTimes(floor.base, 1));
  const cpus = [];
  for (const r of rows)
    cpus.push(`${r.row} ${fmt(await cpuPerCall(server.pgid, N, () => timed(server.base, token, r.body)), 2)}`);
  console.log(
    `workerd CPU per request (ms, all threads, ${N} in a row): floor ${fmt(floorCpu, 2)}, ${cpus.join(", ")}`,
  );
} finally {
  await server.stop();
  await floor.stop();
}
process.exit(0);

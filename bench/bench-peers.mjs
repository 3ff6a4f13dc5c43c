// `npm run bench` section `peers` (BENCH_ONLY=peers; alone: `npx node bench/bench-peers.mjs`): EO Edge against
// GDAL and MapServer (python3-mapscript, bench/bench_peers.py, in process) on the same renderings over the 29RKH
// L2A scene: true colour (B04, B03, B02 x 2.5) and one band (B08 x 2.5), PNG in EPSG:4326 at 256, 512 and 1024 px.
// Ours: Process API requests on wrangler dev (port BENCH_PEERS_PORT, default 8796; scratch state .state-bench), wall
// time over HTTP. Row by row, interleaved run by run: after one cold run of each, BENCH_N rounds each run GDAL
// once, MapServer once (one Python process answering request by request), ours once and the transport floor once
// (bench/lib/floor.mjs), so that all four see the same machine load; each figure is a p50 of those runs, ours
// also net of the floor's p50 in the same row. Target: EO Edge no slower than either peer at any size.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { floorTimes, startFloor } from "./lib/floor.mjs";
import { PEER_SCRIPTS } from "./lib/peer-scripts.mjs";
import {
  RKH_BBOX,
  fmt,
  getToken,
  pct,
  prepareState,
  processBody,
  startServer,
  summaryRow,
  timed,
} from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const PORT = process.env.BENCH_PEERS_PORT ?? "8796";
const FLOOR_PORT = process.env.BENCH_PEERS_FLOOR_PORT ?? String(Number(PORT) + 1);
const STATE = resolve(".state-bench");
const SIZES = [256, 512, 1024];

/**
 * The peers in one Python process (bench/bench_peers.py): `ask(peer, row, size)` runs one rendering and resolves
 * to its ms; `stop()` ends the process.
 */
function startPeers() {
  const py = spawn("/usr/bin/python3", ["bench/bench_peers.py", RKH_BBOX.join(","), SIZES.join(",")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting = [];
  createInterface({ input: py.stdout }).on("line", (line) => waiting.shift()?.(Number(line)));
  return {
    ask: (peer, row, size) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        py.stdin.write(`${JSON.stringify({ peer, row, size })}\n`);
      }),
    stop: () => py.stdin.end(),
  };
}

/**
 * timed() again once when its fetch meets a socket the server closed (undici reuses an idle keep-alive connection
 * that wrangler dev has dropped: "other side closed", or EPIPE / ECONNRESET when the request body is written to it).
 */
async function ours(base, token, body) {
  try {
    return (await timed(base, token, body)).ms;
  } catch (e) {
    if (!["UND_ERR_SOCKET", "EPIPE", "ECONNRESET"].includes(e?.cause?.code)) throw e;
    return (await timed(base, token, body)).ms;
  }
}

async function main() {
  prepareState(STATE);
  // PUBLIC_BASE_URL as `npm start` sets it: its own address (else every request is re-addressed, a Request copy)
  const server = await startServer({
    stateDir: STATE,
    port: PORT,
    args: ["--var", `PUBLIC_BASE_URL:http://127.0.0.1:${PORT}`],
  });
  const floor = await startFloor(FLOOR_PORT);
  const peers = startPeers();
  try {
    const token = await getToken(server.base, join(STATE, "demo-client.json"));
    const rows = SIZES.flatMap((size) =>
      Object.entries(PEER_SCRIPTS).map(([row, script]) => ({
        row,
        size,
        key: `${row} ${size}`,
        body: processBody(script, size, size, "image/png"),
        runs: { GDAL: [], MapServer: [], ours: [] },
        floor: [],
      })),
    );
    for (const r of rows) {
      for (const peer of ["GDAL", "MapServer"]) await peers.ask(peer, r.row, r.size); // cold
      await ours(server.base, token, r.body);
      for (let i = 0; i < N; i++) {
        for (const peer of ["GDAL", "MapServer"]) r.runs[peer].push(await peers.ask(peer, r.row, r.size));
        r.runs.ours.push(await ours(server.base, token, r.body));
        r.floor.push(...(await floorTimes(floor.base, 1)));
      }
    }
    console.log(
      `\nPeers, PNG over 29RKH in EPSG:4326 (p50 ms of ${N} warm runs each, a row's runs interleaved run by run with the transport floor's; machine state as it was)`,
    );
    console.log(
      "row | size | EO Edge | net of floor | GDAL | MapServer | EO Edge / GDAL | EO Edge / MapServer | no slower than either",
    );
    for (const { row, size, key, runs, floor: floorMs } of rows) {
      const floorP50 = pct(floorMs, 50);
      const [mine, gdal, ms] = [pct(runs.ours, 50), pct(runs.GDAL, 50), pct(runs.MapServer, 50)];
      const met = mine <= gdal && mine <= ms;
      console.log(
        `${row} | ${size} | ${fmt(mine)} | ${fmt(mine - floorP50)} | ${fmt(gdal)} | ${fmt(ms)} | ${fmt(mine / gdal, 2)} | ${fmt(mine / ms, 2)} | ${met ? "yes" : "no"}`,
      );
      summaryRow(
        `peers: ${key} px PNG, EO Edge / GDAL; / MapServer`,
        `${fmt(mine / gdal, 2)}; ${fmt(mine / ms, 2)} (${fmt(mine)} / ${fmt(gdal)} / ${fmt(ms)} ms)`,
        "<= 1 each",
        met,
      );
    }
  } finally {
    peers.stop();
    await server.stop();
    await floor.stop();
  }
}

await main();
process.exit(0);

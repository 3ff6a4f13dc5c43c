// `npm run bench` section `peers` (BENCH_ONLY=peers; alone: `npx node bench/bench-peers.mjs`): EO Edge against
// GDAL and MapServer (python3-mapscript, bench/bench_peers.py, in process) on the same renderings over the 29RKH
// L2A scene: true colour (B04, B03, B02 x 2.5) and one band (B08 x 2.5), PNG in EPSG:4326 at 256, 512 and 1024 px.
// Ours: Process API requests on wrangler dev (port BENCH_PEERS_PORT, default 8796; scratch state .state-bench), wall
// p50 over HTTP. PEER_ROUNDS rounds in turn (the peers' warm runs, then ours), each row's figure the median round;
// ours is also given net of the transport floor (bench/lib/floor.mjs, measured in each round). Target:
// EO Edge no slower than either peer at any size.
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { floorP50, startFloor } from "./lib/floor.mjs";
import {
  RKH_BBOX,
  fmt,
  getToken,
  prepareState,
  processBody,
  scenario,
  startServer,
  summaryRow,
} from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const ROUNDS = Number(process.env.PEER_ROUNDS ?? 3);
const PORT = process.env.BENCH_PEERS_PORT ?? "8796";
const FLOOR_PORT = process.env.BENCH_PEERS_FLOOR_PORT ?? String(Number(PORT) + 1);
const STATE = resolve(".state-bench");
const SIZES = [256, 512, 1024];
const SCRIPTS = {
  "true colour": `//VERSION=3
function setup(){return {input:["B02","B03","B04"],output:{bands:3}}}
function evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02]}`,
  B08: `//VERSION=3
function setup(){return {input:["B08"],output:{bands:1}}}
function evaluatePixel(s){return [2.5*s.B08]}`,
};

/** The peers' p50s (ms) of n warm runs per row: { "GDAL true colour 256": ms, "MapServer ...": ms, ... }. */
function peers(n) {
  return JSON.parse(
    execFileSync("/usr/bin/python3", ["bench/bench_peers.py", RKH_BBOX.join(","), String(n), SIZES.join(",")], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
}

/**
 * scenario() again once when its first fetch meets a socket the server closed while the peers ran (undici reuses
 * an idle keep-alive connection that wrangler dev has dropped: "other side closed", or EPIPE / ECONNRESET when the
 * request body is written to it).
 */
async function ours(base, token, n, name, body) {
  try {
    return await scenario(base, token, n, name, body);
  } catch (e) {
    if (!["UND_ERR_SOCKET", "EPIPE", "ECONNRESET"].includes(e?.cause?.code)) throw e;
    return scenario(base, token, n, name, body);
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
  try {
    const token = await getToken(server.base, join(STATE, "demo-client.json"));
    const n = Math.max(3, Math.ceil(N / ROUNDS));
    const rounds = [];
    for (let k = 0; k < ROUNDS; k++) {
      const peer = peers(n);
      const mine = {};
      for (const size of SIZES)
        for (const [row, script] of Object.entries(SCRIPTS))
          mine[`${row} ${size}`] = (
            await ours(server.base, token, n, `${row} ${size}`, processBody(script, size, size, "image/png"))
          ).p50;
      rounds.push({ peer, ours: mine, floor: await floorP50(floor.base, 50) });
    }
    console.log(
      `\nPeers, PNG over 29RKH in EPSG:4326 (p50 ms of ${n} warm runs per round, ${ROUNDS} rounds in turn, median round per row; machine state as it was)`,
    );
    console.log(
      "row | size | EO Edge | net of floor | GDAL | MapServer | EO Edge / GDAL | EO Edge / MapServer | no slower than either",
    );
    for (const size of SIZES) {
      for (const row of Object.keys(SCRIPTS)) {
        const key = `${row} ${size}`;
        const worst = (r) => Math.max(r.ours[key] / r.peer[`GDAL ${key}`], r.ours[key] / r.peer[`MapServer ${key}`]);
        const mid = [...rounds].sort((a, b) => worst(a) - worst(b))[Math.floor(rounds.length / 2)];
        const [ours, gdal, ms] = [mid.ours[key], mid.peer[`GDAL ${key}`], mid.peer[`MapServer ${key}`]];
        const met = ours <= gdal && ours <= ms;
        console.log(
          `${row} | ${size} | ${fmt(ours)} | ${fmt(ours - mid.floor)} | ${fmt(gdal)} | ${fmt(ms)} | ${fmt(ours / gdal, 2)} | ${fmt(ours / ms, 2)} | ${met ? "yes" : "no"}`,
        );
        summaryRow(
          `peers: ${key} px PNG, EO Edge / GDAL; / MapServer`,
          `${fmt(ours / gdal, 2)}; ${fmt(ours / ms, 2)} (${fmt(ours)} / ${fmt(gdal)} / ${fmt(ms)} ms)`,
          "<= 1 each",
          met,
        );
      }
    }
  } finally {
    await server.stop();
    await floor.stop();
  }
}

await main();
process.exit(0);

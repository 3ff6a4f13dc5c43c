// `npm run bench` section `floor` (BENCH_ONLY=floor; alone: `npx node bench/bench-floor.mjs`): the transport floor.
// A hello-world Worker (a temporary config and module in a scratch directory, nothing else bound) under the same
// `wrangler dev` the other sections use (port BENCH_FLOOR_PORT, default 8795): p50/p95 of FLOOR_N sequential GETs
// (default max(50, 5 x BENCH_N)) over HTTP on 127.0.0.1. Every wall time of the other sections includes this much of
// dev server and transport that is none of EO Edge's work.
import { fmt, pct, summaryRow } from "../scripts/lib/bench.mjs";
import { floorTimes, startFloor } from "./lib/floor.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const FLOOR_N = Number(process.env.BENCH_FLOOR_N ?? Math.max(50, 5 * N));
const PORT = process.env.BENCH_FLOOR_PORT ?? "8795";

async function main() {
  const floor = await startFloor(PORT);
  try {
    const ms = await floorTimes(floor.base, FLOOR_N);
    console.log(
      `\nTransport floor: hello-world Worker under wrangler dev, ${FLOOR_N} GETs: p50 ${fmt(pct(ms, 50))} ms, p95 ${fmt(pct(ms, 95))} ms`,
    );
    summaryRow(
      "transport floor: hello-world Worker under wrangler dev, p50",
      `${fmt(pct(ms, 50))} ms`,
      "- (part of every wall time)",
      null,
    );
  } finally {
    await floor.stop();
  }
}

await main();
process.exit(0);

// `npm run bench` section `floor` (BENCH_ONLY=floor; alone: `npx node bench/bench-floor.mjs`): the transport floor.
// A hello-world Worker (a temporary config and module in a scratch directory, nothing else bound) under the same
// `wrangler dev` the other sections use (port BENCH_FLOOR_PORT, default 8795): p50/p95 of FLOOR_N sequential GETs
// (default max(50, 5 x BENCH_N)) over HTTP on 127.0.0.1. Every wall time of the other sections includes this much of
// dev server and transport that is none of EO Edge's work.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt, pct, startServer, summaryRow } from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const FLOOR_N = Number(process.env.BENCH_FLOOR_N ?? Math.max(50, 5 * N));
const PORT = process.env.BENCH_FLOOR_PORT ?? "8795";

/** Writes the hello-world Worker and its wrangler.json into a new scratch directory; returns the directory. */
function helloWorker() {
  const dir = mkdtempSync(join(tmpdir(), "eo-edge-floor-"));
  writeFileSync(join(dir, "worker.js"), 'export default { fetch() { return new Response("hello"); } };\n');
  writeFileSync(join(dir, "wrangler.json"), JSON.stringify({ name: "hello-floor", main: "worker.js", compatibility_date: "2026-11-01" }));
  return dir;
}

async function main() {
  const dir = helloWorker();
  const server = await startServer({ stateDir: join(dir, "state"), port: PORT, args: ["--config", join(dir, "wrangler.json")] });
  try {
    for (let i = 0; i < 10; i++) await (await fetch(server.base)).text(); // warm-up
    const ms = [];
    for (let i = 0; i < FLOOR_N; i++) {
      const t0 = performance.now();
      const r = await fetch(server.base);
      if ((await r.text()) !== "hello") throw new Error(`hello-world Worker answered ${r.status}`);
      ms.push(performance.now() - t0);
    }
    console.log(`\nTransport floor: hello-world Worker under wrangler dev, ${FLOOR_N} GETs: p50 ${fmt(pct(ms, 50))} ms, p95 ${fmt(pct(ms, 95))} ms`);
    summaryRow("transport floor: hello-world Worker under wrangler dev, p50", `${fmt(pct(ms, 50))} ms`, "- (part of every wall time)", null);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);

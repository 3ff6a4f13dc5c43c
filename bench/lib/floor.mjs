// The transport floor of `wrangler dev`: a hello-world Worker (a temporary config and module in a scratch directory,
// nothing else bound) served like the project. bench/bench-floor.mjs reports it alone; bench/bench-processing.mjs
// measures it in the same run as its rows, interleaved, and prints every row also net of it (the edge has no dev proxy).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pct, startServer } from "../../scripts/lib/bench.mjs";

/** Starts the hello-world Worker on `port`: { base, pgid (its process group, for CPU figures), stop() } (stop also removes its scratch directory). */
export async function startFloor(port) {
  const dir = mkdtempSync(join(tmpdir(), "eo-edge-floor-"));
  // The response leaves a 5 ms timer to waitUntil, as a Process request leaves its charge: workerd answers a request
  // with work pending faster than one without (docs/benchmarks.md), and the floor is the transport Process pays.
  writeFileSync(
    join(dir, "worker.js"),
    'export default { fetch(r, e, ctx) { ctx.waitUntil(new Promise((ok) => setTimeout(ok, 5))); return new Response("hello"); } };\n',
  );
  writeFileSync(
    join(dir, "wrangler.json"),
    JSON.stringify({ name: "hello-floor", main: "worker.js", compatibility_date: "2026-11-01" }),
  );
  const server = await startServer({
    stateDir: join(dir, "state"),
    port,
    args: ["--config", join(dir, "wrangler.json")],
  });
  for (let i = 0; i < 10; i++) await (await fetch(server.base)).text(); // warm-up
  return {
    base: server.base,
    pgid: server.pgid,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `n` sequential GETs of the hello-world Worker: their wall times in ms. */
export async function floorTimes(base, n) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fetch(base);
    if ((await r.text()) !== "hello") throw new Error(`hello-world Worker answered ${r.status}`);
    ms.push(performance.now() - t0);
  }
  return ms;
}

/** p50 (ms) of `n` GETs of the hello-world Worker. */
export const floorP50 = async (base, n) => pct(await floorTimes(base, n), 50);

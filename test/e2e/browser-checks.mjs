// `npm run test:browser`: every browser check against one `npm start` (lib/serve.mjs, on $PORT or a spare
// port, state in $EO_EDGE_STATE) instead of one server per check: the WMS map (browser-check.mjs), the console's
// log-in and locations (browser-check-console.mjs), its other pages (browser-check-pages.mjs), the request builder
// (browser-check-builder.mjs), the console defects (browser-check-defects.mjs), the exploration view (browser-check-explore.mjs), the API reference (docs-check.mjs) and, last (they change the demo account), the
// examples of README.md and docs/ (docs-examples.mjs), one after the other, each in its own Node
// process with CONSOLE_BASE set. Every check runs even after one failed; prints each one's time and the total;
// exits 1 when any failed. CHECKS=pages,builder runs some (by the names below), CHECKS_EXCEPT=pages all but some.
// The console's time-lapse export (browser-check-timelapse.mjs) runs after the defects.
import { spawn } from "node:child_process";
import { startEoEdge } from "../../scripts/lib/serve.mjs";

const CHECKS = {
  map: "browser-check.mjs",
  console: "browser-check-console.mjs",
  pages: "browser-check-pages.mjs",
  builder: "browser-check-builder.mjs",
  defects: "browser-check-defects.mjs",
  timelapse: "browser-check-timelapse.mjs",
  explore: "browser-check-explore.mjs",
  docs: "docs-check.mjs",
  examples: "docs-examples.mjs",
};

const t0 = Date.now();
const seconds = (from) => ((Date.now() - from) / 1000).toFixed(1);
const server = await startEoEdge();
console.log(`server ${server.base} started in ${seconds(t0)} s`);
const results = [];
try {
  for (const [name, file] of Object.entries(CHECKS).filter(
    ([n]) =>
      (!process.env.CHECKS || process.env.CHECKS.split(",").includes(n)) &&
      !(process.env.CHECKS_EXCEPT ?? "").split(",").includes(n),
  )) {
    const t = Date.now();
    const child = spawn(process.execPath, [`test/e2e/${file}`], {
      stdio: "inherit",
      env: { ...process.env, CONSOLE_BASE: server.base },
    });
    const status = await new Promise((done) => child.on("exit", (code) => done(code)));
    results.push(`${name} ${status === 0 ? "passed" : "FAILED"} (${seconds(t)} s)`);
    if (status !== 0) process.exitCode = 1;
  }
} finally {
  await server.stop();
}
console.log(`browser checks: ${results.join(", ")}; ${process.exitCode ? "FAILED" : "all passed"} in ${seconds(t0)} s`);

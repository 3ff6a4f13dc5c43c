// Runs the memory tests with workerd's isolates limited as at the edge: 128 MB of V8 heap and
// ArrayBuffers per isolate (EDGE_V8_ENV of scripts/lib/bench.mjs, which miniflare passes to workerd's V8), so an
// isolate that holds more aborts and its tests fail: the admission and memory budgets (test/pipeline/admission.test.ts),
// the caches sized in bytes and a panned WMTS map (test/budget/). Extra arguments go to vitest.
import { spawnSync } from "node:child_process";
import { EDGE_V8_ENV } from "../scripts/lib/bench.mjs";

const files = ["test/pipeline/admission.test.ts", "test/budget/caches.test.ts", "test/budget/wmts-pan.test.ts"];
const r = spawnSync("npx", ["vitest", "run", ...files, ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, ...EDGE_V8_ENV },
});
process.exit(r.status ?? 1);

// `npm run bench`: every figure of the project's targets and the other benchmarks, section by section (PARTS), each
// a script that starts and stops its own `wrangler dev` on a scratch state; the GDAL baselines run in the same run.
// Ends with a summary table `figure | value | target | met?` collected from the sections (summaryRow in
// scripts/lib/bench.mjs); exits 1 when a section fails. `BENCH_ONLY=processing,scripts npm run bench` runs only the
// sections named; BENCH_N (warm runs per scenario, default 30; 3 for a quick check that everything completes).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { env, printSummary, summaryRow } from "../scripts/lib/bench.mjs";

/**
 * The sections of `npm run bench` in run order, by name. A section whose script is not in this checkout (the decode,
 * memory and request-path benches come from other branches) is skipped with a notice.
 */
const PARTS = {
  startup: "bench/bench-startup.mjs",
  processing: "bench/bench-processing.mjs",
  scripts: "bench/bench-scripts.mjs",
  floor: "bench/bench-floor.mjs",
  peers: "bench/bench-peers.mjs",
  statistics: "bench/bench-statistics.mjs",
  timeseries: "bench/bench-timeseries.mjs",
  decode: "bench/bench-decode.mjs",
  memory: "bench/bench-memory.mjs",
  reqpath: "bench/bench-reqpath.mjs",
  catalog: "bench/bench-catalog.mjs",
  catalog1m: "bench/bench-catalog.mjs",
  batch: "bench/bench-batch.mjs",
  taskcpu: "bench/bench-taskcpu.mjs",
  byoc: "bench/bench-byoc.mjs",
  dataimport: "bench/bench-dataimport.mjs",
  limiter: "bench/bench-reqpath.mjs",
  archive: "bench/bench-archive.mjs",
};
/**
 * Summary rows of the targets a section from another branch measures: printed as not measured while its script is
 * absent, and as "see the section" when it ran without calling summaryRow (scripts/lib/bench.mjs) itself.
 */
const ABSENT_ROWS = {
  decode: ["tile decode (DEFLATE + predictor, the sample COGs), WASM / geotiff.js JS", ">= 2x faster"],
  memory: ["peak JS heap of one 2500x2500 FLOAT32 request", "fits the 128 MB isolate limit"],
};
/**
 * Environment of a section beyond the bench's own: bench/bench-reqpath.mjs serves two sections, the cold-start
 * breakdown (`reqpath`) and the limiter on/off figures (`limiter`); its concurrency part is left out
 * because the processing section measures 8 clients against 1. bench/bench-catalog.mjs serves `catalog` (100,000
 * items) and `catalog1m` (1,000,000 items; about 4.3 GB of local D1 state, loaded once and kept).
 */
const PART_ENV = {
  reqpath: { REQPATH_PARTS: "cold" },
  limiter: { REQPATH_PARTS: "limiter" },
  catalog1m: { BENCH_ITEMS: "1000000" },
};
/** Sections whose script imports the TypeScript sources directly (run with tsx). */
const TSX_PARTS = new Set(["decode"]);
const ONLY = process.env.BENCH_ONLY?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = ONLY?.filter((name) => !(name in PARTS)) ?? [];
if (unknown.length) {
  console.error(`BENCH_ONLY: unknown section(s) ${unknown.join(", ")}; sections: ${Object.keys(PARTS).join(", ")}`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "eo-edge-bench-"));
const summary = join(dir, "summary.jsonl");
process.env.BENCH_SUMMARY = summary;
/** Rows in the summary file so far. */
const rowCount = () => (existsSync(summary) ? readFileSync(summary, "utf8").split("\n").filter(Boolean).length : 0);
const failed = [];
for (const [name, script] of Object.entries(PARTS).filter(([name]) => !ONLY || ONLY.includes(name))) {
  if (!existsSync(script)) {
    console.log(`\nnotice: section ${name} skipped: ${script} is not in this checkout`);
    if (ABSENT_ROWS[name])
      summaryRow(ABSENT_ROWS[name][0], `not measured (${script} absent)`, ABSENT_ROWS[name][1], null);
    continue;
  }
  console.log(`\n=== section ${name} (${script}) ===`);
  const rowsBefore = rowCount();
  const r = spawnSync("npx", [TSX_PARTS.has(name) ? "tsx" : "node", script], {
    stdio: "inherit",
    env: { ...env, ...PART_ENV[name], BENCH_SUMMARY: summary },
  });
  if (ABSENT_ROWS[name] && rowCount() === rowsBefore)
    summaryRow(ABSENT_ROWS[name][0], `see section ${name} above (no summary row written)`, ABSENT_ROWS[name][1], null);
  if (r.status !== 0) {
    console.log(`${script} failed (exit ${r.status ?? r.signal})`);
    failed.push(name);
  }
}
printSummary(summary);
if (failed.length) console.log(`failed sections: ${failed.join(", ")}`);
rmSync(dir, { recursive: true, force: true });
process.exit(failed.length ? 1 : 0);

// The startup-CPU check of `npm run deploy -- --dry-run` (scripts/deploy.mjs): how much CPU the Worker's global
// scope takes, as `wrangler check startup` profiles it, judged so that a loaded machine cannot fail it.
//
// `wrangler check startup` runs the bundle in workerd under V8's sampling profiler and counts every sample outside
// `(idle)`; on a busy machine the wall time between samples is counted too, so the same bundle measured 550 ms and
// 2,128 ms on loaded machines. So each run here also profiles a calibration Worker, one line whose global
// scope does a fixed amount of work (CALIBRATION_LOOP), alternately with the Worker, RUNS times each, and measures
// the CPU time of that same work in this process (process.cpuUsage, which a loaded machine does not inflate). The
// calibration's profiled median over its CPU time is how much this machine's load inflates a profile now; the
// Worker's median divided by that factor (never multiplied: at least 1) is what is judged against the budget.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { judgeStartup, startupCpuMs } from "./deploy-config.ts";

/** Profiles per Worker (odd: the median is one of them). */
export const RUNS = 5;
/**
 * The calibration Worker's fixed work: a loop of integer arithmetic (about 100 ms of CPU on this repository's CI
 * machines), the same text run in workerd's global scope and here.
 */
export const CALIBRATION_LOOP =
  "let x = 0; for (let i = 0; i < 40_000_000; i++) x = (x + i * 7) % 1000003; globalThis.calibration = x;";

/** The median of `xs`. */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** CPU ms of CALIBRATION_LOOP in this process (user + system, process.cpuUsage). */
function calibrationCpuMs() {
  const before = process.cpuUsage();
  new Function(CALIBRATION_LOOP)();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** Builds `config`'s Worker as `wrangler deploy` would (`--dry-run --outfile`), offline. */
async function bundle(w, config, outfile) {
  await w.must(["deploy", "--dry-run", "--outfile", outfile, "-c", config], { local: true });
}

/** One profile of `bundle` (`wrangler check startup`), its startup CPU in ms. */
async function profile(w, config, bundlePath, outfile) {
  await w.must(["check", "startup", "--worker", bundlePath, "--outfile", outfile, "-c", config], { local: true });
  return startupCpuMs(JSON.parse(await readFile(outfile, "utf8")));
}

/**
 * Builds the Worker of `config` and the calibration Worker (in `dir`/calibration), profiles each RUNS times
 * alternately (measuring the calibration's work here each time), and resolves to `{ worker, calibration,
 * calibrationCpu, judged, runs }`: the medians and the judged ms ({@link judgeStartup}), `runs` every figure.
 * Runs offline.
 */
export async function checkStartup(w, config, dir, log = () => {}) {
  const cal = join(dir, "calibration");
  await mkdir(cal, { recursive: true });
  await writeFile(join(cal, "index.js"), `${CALIBRATION_LOOP} export default { fetch: () => new Response("ok") };\n`);
  await writeFile(
    join(cal, "wrangler.json"),
    JSON.stringify({ name: "startup-calibration", main: "index.js", compatibility_date: "2026-11-01" }) + "\n",
  );
  const workerBundle = join(dir, "worker.bundle");
  const calBundle = join(cal, "worker.bundle");
  await bundle(w, config, workerBundle);
  await bundle(w, join(cal, "wrangler.json"), calBundle);
  const runs = { worker: [], calibration: [], calibrationCpu: [] };
  for (let i = 0; i < RUNS; i++) {
    runs.worker.push(await profile(w, config, workerBundle, join(dir, "worker-startup.cpuprofile")));
    runs.calibration.push(await profile(w, join(cal, "wrangler.json"), calBundle, join(cal, "startup.cpuprofile")));
    runs.calibrationCpu.push(calibrationCpuMs());
  }
  const ms = (xs) => xs.map((x) => x.toFixed(0)).join(", ");
  log(
    `  startup profiles (ms): Worker ${ms(runs.worker)}; calibration Worker ${ms(runs.calibration)} (its work's CPU here: ${ms(runs.calibrationCpu)})`,
  );
  const [worker, calibration, calibrationCpu] = [
    median(runs.worker),
    median(runs.calibration),
    median(runs.calibrationCpu),
  ];
  return { worker, calibration, calibrationCpu, judged: judgeStartup(worker, calibration, calibrationCpu), runs };
}

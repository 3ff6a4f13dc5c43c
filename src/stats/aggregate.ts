/**
 * The Statistical API's work: plan the sample matrix once, split the time range into intervals, find which
 * intervals have acquisitions and read their scenes with a bounded number of queries (series.ts: sized before
 * any interval runs, a series beyond one invocation's subrequests or D1 queries refused with a 400), run the processing pipeline (read, warp, mosaic within
 * the interval, evalscript) for each of those and reduce its outputs to statistics.
 *
 * Intervals without an acquisition are omitted. An interval that fails carries `error: {type}` (BAD_REQUEST,
 * EXECUTION_ERROR, TIMEOUT) and the others still come back (status PARTIAL; FAILED when all fail). When every
 * interval fails with the same client error (e.g. a band the collection lacks), the request itself is a 400.
 * Data fusion (several input.data entries, see src/pipeline/sources.ts) works as in the Processing API; each
 * interval replaces every source's time window (withWindow, numbers in ms), and an interval counts when any
 * source has an acquisition in it. The sources are resolved once per request (withSources), not per interval.
 */
import type { Env } from "../env";
import { EngineError, invalidArgument, type EngineErrorKind } from "../raster/errors";
import { evaluatePlan, prepareEvalscript, STRIP_PIXELS, STRIP_TARGET, type PreparedScript } from "../pipeline/pipeline";
import { planRequest, withSources, withWindow, type Plan } from "../pipeline/plan";
import { planBytes, withAdmission } from "../pipeline/admission";
import { RequestBudgetError } from "../budget/meter";
import { isoTime, splitIntervals, type Interval } from "./intervals";
import { checkSeriesBudget, planSeries, type Series } from "./series";
import { reduceEvaluation, reducingSink, type OutputsJson } from "./reduce";
import { checkSetup } from "./setup";
import type { StatisticalRequest } from "./schema";

/** Most pixels (width x height x intervals with data) one request may process. */
export const MAX_TOTAL_PIXELS = 100_000_000;
/**
 * Pixels of the intervals evaluated at once (at least one interval, at most {@link MAX_INTERVALS_IN_FLIGHT}): an
 * interval of a small grid waits mostly on I/O (its scene query, its COG reads, the sandbox RPC), which the
 * others overlap. Measured (bench timeseries, a 50 x 50 px field, 19 intervals with data; interleaved servers,
 * wall p50): 4 in flight 151-165 ms, 16 in flight 112-127 ms, all 19 76-96 ms. 1 Mpx keeps the 4 intervals of
 * 512 x 512 px in flight of before (memory: each interval holds its bands and outputs until reduced).
 */
export const MAX_PIXELS_IN_FLIGHT = 4 * 512 * 512;
/** Intervals evaluated at once, however small the grid. */
export const MAX_INTERVALS_IN_FLIGHT = 64;
/** Minimum cost of a statistical request in processing units. */
export const MIN_PROCESSING_UNITS = 0.01;

export type IntervalErrorType = "BAD_REQUEST" | "EXECUTION_ERROR" | "TIMEOUT";

export interface IntervalEntry {
  interval: { from: string; to: string };
  outputs?: OutputsJson;
  error?: { type: IntervalErrorType; message: string };
}

export interface StatisticalResponse {
  status: "OK" | "PARTIAL" | "FAILED";
  /** Pixels of the sample matrix inside the request geometry (all of them for a bbox). */
  geometryPixelCount: number;
  data: IntervalEntry[];
}

export interface StatisticsResult {
  response: StatisticalResponse;
  processingUnits: number;
  /** Stage durations in ms summed over intervals, for Server-Timing. */
  timings: Record<string, number>;
}

/**
 * The interval error type of each engine error kind: the script running out of its execution budget is a
 * TIMEOUT, its other failures while running (its own error, a sandbox limit) EXECUTION_ERROR, the rest (bad
 * values, unsupported ones, a script that does not compile, a corrupt or oversized file) BAD_REQUEST.
 */
const INTERVAL_ERROR_TYPE: Record<EngineErrorKind, IntervalErrorType> = {
  "invalid-argument": "BAD_REQUEST",
  unsupported: "BAD_REQUEST",
  "script-syntax": "BAD_REQUEST",
  "script-error": "EXECUTION_ERROR",
  "budget-exceeded": "TIMEOUT",
  "limit-exceeded": "EXECUTION_ERROR",
  "invalid-file": "BAD_REQUEST",
};

/**
 * The interval error type of a failure, by kind only: an EngineError by INTERVAL_ERROR_TYPE; anything else (an
 * internal fault: storage) is EXECUTION_ERROR.
 */
const errorType = (e: unknown): IntervalErrorType =>
  e instanceof EngineError ? INTERVAL_ERROR_TYPE[e.kind] : "EXECUTION_ERROR";

/** True for an engine error that is a bad request (not about the script's execution). */
const isBadRequest = (e: unknown): e is EngineError =>
  e instanceof EngineError && INTERVAL_ERROR_TYPE[e.kind] === "BAD_REQUEST";

/** The error every run failed with when it is the same bad request (one message) for all: the request's error. */
function requestWideError(runs: { failure?: unknown }[]): EngineError | undefined {
  const first = runs[0]?.failure;
  if (!isBadRequest(first)) return undefined;
  return runs.every((r) => isBadRequest(r.failure) && r.failure.message === first.message) ? first : undefined;
}

/**
 * Runs interval `i` of the series (every source's window; its scenes from the series' batched reads): evaluation +
 * reduction, or its error entry. A request budget error is the request's, not the interval's: it is thrown.
 */
async function runInterval(
  env: Env,
  script: PreparedScript,
  req: StatisticalRequest,
  plan: Plan,
  series: Series,
  i: number,
) {
  const iv: Interval = series.intervals[i]!;
  const interval = { from: isoTime(iv.from), to: isoTime(iv.to) };
  try {
    const scenes = (s: Plan["sources"][number], k: number) => series.scenes(k, s, i);
    // the host path gathers the samples while it evaluates (the first pass then falls under `eval`)
    const pixels = plan.grid.width * plan.grid.height;
    const reducing = reducingSink(script.setup, plan.geometryMask, req.calculations, pixels);
    const window = withWindow(plan, { from: iv.from, to: iv.to - 1 });
    const ev = await evaluatePlan(env, script, window, { scenes, sink: reducing?.sink });
    const t0 = Date.now();
    const outputs = ev.result.sunk
      ? reducing!.finish()
      : reduceEvaluation(script.setup, ev.result, plan.geometryMask, req.calculations, true);
    return {
      entry: { interval, outputs } as IntervalEntry,
      pu: ev.processingUnits,
      timings: { ...ev.timings, reduce: Date.now() - t0 },
    };
  } catch (e) {
    if (e instanceof RequestBudgetError) throw e;
    if (!(e instanceof EngineError)) console.error("statistical interval failed", interval, e);
    const message = e instanceof Error ? e.message : String(e);
    return {
      entry: { interval, error: { type: errorType(e), message } } as IntervalEntry,
      pu: 0,
      timings: {},
      failure: e,
    };
  } finally {
    series.done(i);
  }
}

/** Runs `fn` over `items` with at most `limit` at a time, results in input order. */
async function mapPool<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Computes a statistical request. Throws 400 for invalid input (bounds, sizes, evalscript, calculations,
 * intervals, limits) before any interval runs, and when every interval fails with the same client error; an
 * OverloadedError (503) when its intervals' pixels found no room in the isolate within `admissionWaitMs`
 * (src/pipeline/admission.ts; default its ADMISSION_WAIT_MS: a queue consumer may wait longer).
 */
export async function computeStatistics(
  env: Env,
  req: StatisticalRequest,
  account: string,
  admissionWaitMs?: number,
): Promise<StatisticsResult> {
  const agg = req.aggregation;
  const { of, lastIntervalBehavior } = agg.aggregationInterval;
  const intervals = splitIntervals(
    Date.parse(agg.timeRange.from),
    Date.parse(agg.timeRange.to),
    of,
    lastIntervalBehavior,
  );
  const area = planRequest(req.input, { width: agg.width, height: agg.height, resx: agg.resx, resy: agg.resy });
  const script = await prepareEvalscript(env, agg.evalscript, account);
  checkSetup(script.setup, req.calculations);
  const plan = await withSources({ env, account }, area, req.input.data, script.setup);
  const series = await planSeries(env, plan, intervals);
  const todo = series.intervals.map((_, i) => i);
  const pixels = plan.grid.width * plan.grid.height;
  if (pixels * todo.length > MAX_TOTAL_PIXELS)
    throw invalidArgument(
      `The request needs ${todo.length} intervals x ${pixels} px = ${pixels * todo.length} px; at most ${MAX_TOTAL_PIXELS} px per request are allowed. Use a coarser resx/resy, a smaller area, a longer aggregationInterval or a shorter timeRange.`,
    );
  checkSeriesBudget(plan, series, pixels <= STRIP_PIXELS ? 1 : Math.ceil(pixels / STRIP_TARGET));
  // intervals in flight bounded by pixels; together they share one admission of their bytes
  // (src/pipeline/admission.ts; 503 when no room)
  const inFlight = Math.max(
    1,
    Math.min(MAX_INTERVALS_IN_FLIGHT, Math.floor(MAX_PIXELS_IN_FLIGHT / pixels), todo.length),
  );
  const bytes = inFlight * planBytes(plan, script.setup, "reduce");
  const runs = await withAdmission(
    bytes,
    () => mapPool(todo, inFlight, (i) => runInterval(env, script, req, plan, series, i)),
    admissionWaitMs,
  );
  const wide = requestWideError(runs);
  if (wide) throw wide;
  const failures = runs.filter((r) => r.failure !== undefined).length;
  const timings: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.timings)) timings[k] = (timings[k] ?? 0) + v;
  const geometryPixelCount = plan.geometryMask ? plan.geometryMask.reduce((a, v) => a + v, 0) : pixels;
  const status = failures === 0 ? "OK" : failures === runs.length ? "FAILED" : "PARTIAL";
  const pu = runs.reduce((a, r) => a + r.pu, 0);
  return {
    response: { status, geometryPixelCount, data: runs.map((r) => r.entry) },
    processingUnits: Math.max(MIN_PROCESSING_UNITS, Math.round(pu * 1e6) / 1e6),
    timings,
  };
}

/**
 * Runs an async request: the shared pipeline (src/pipeline/pipeline.ts `evaluatePlan`) strip by strip over the
 * output grid, each strip's outputs handed to the delivered files (./outputs.ts) before the next strip is read.
 *
 * A strip is {@link ASYNC_STRIP_PIXELS} pixels at most (whole rows), evaluated as one Processing request over the
 * strip's bbox (same pixel centres as the whole grid, so strips join exactly): scene search, preProcessScenes and
 * one evalscript session per strip. So evaluatePixel state does not carry across strips, and `userdata.json` holds
 * the userData of the last strip (updateOutputMetadata sees the same scenes in every strip).
 *
 * Processing units: the sum of the strips' units (each as the Processing API computes them), times 2/3 for
 * outputs of at least 10 000 px ("a multiplication factor of 2/3 is applied to all requests with an area of at
 * least 10,000 px", docs.planet.com/develop/apis/async-processing).
 */
import type { Env } from "../env";
import { evaluatePlan, prepareEvalscript, STRIP_TARGET } from "../pipeline/pipeline";
import { MAX_ASYNC_SIZE, planRequest, stripPlan, withSources, type AreaPlan } from "../pipeline/plan";
import type { OutputRequest } from "../pipeline/output";
import type { EvalResult } from "../raster/evalscript";
import { deliveryTarget } from "./delivery";
import type { AsyncRecord } from "./schema";
import { fileName, outputFile, type OutputFile } from "./outputs";

/** Pixels per strip (whole rows): the pipeline's own strip size, so a strip is evaluated in one piece. */
export const ASYNC_STRIP_PIXELS = STRIP_TARGET;

/** Output area from which the async factor applies (px), and the factor. */
const DISCOUNT_FROM_PIXELS = 10_000;
const ASYNC_FACTOR = 2 / 3;

/**
 * The output grid of an async request: the Processing planner with the async size limit (MAX_ASYNC_SIZE px per
 * side); the geometry mask is rasterized per strip, never for the whole grid.
 * @throws EngineError invalid-argument for invalid bounds or sizes (as the Processing API).
 */
export const asyncArea = (request: Pick<AsyncRecord["request"], "input" | "output">): AreaPlan =>
  planRequest(request.input, request.output, { maxSize: MAX_ASYNC_SIZE, maskPerStrip: true });

/** The responses of a request: `output.responses`, default one PNG named `default` (as the Processing API). */
export const responsesOf = (record: Pick<AsyncRecord, "request">): OutputRequest[] =>
  record.request.output.responses ?? [{ identifier: "default", format: { type: "image/png" } }];

/** Rows per strip for a grid `width` px wide. */
export const stripRows = (width: number): number => Math.max(1, Math.floor(ASYNC_STRIP_PIXELS / width));

/**
 * Renders the request and writes every response file. Returns the processing units charged.
 * @throws ApiError / EngineError for what the client must fix (the request then FAILS), other errors for
 *   transient faults (the message is retried); `signal`'s reason (a LeaseLostError) between strips once it aborts.
 */
export async function renderAsync(env: Env, record: AsyncRecord, signal?: AbortSignal): Promise<number> {
  const { request } = record;
  const script = await prepareEvalscript(env, request.evalscript, record.account);
  const plan = await withSources({ env, account: record.account }, asyncArea(request), request.input.data, script.setup);
  const rows = stripRows(plan.grid.width);
  const s3 = request.output.delivery.s3;
  const targets = await Promise.all(responsesOf(record).map((r) => deliveryTarget(env, record.account, s3, record.id, fileName(r))));
  const files = responsesOf(record).map((r, i) => outputFile(r, plan.grid, rows, targets[i]!));
  try {
    let units = 0;
    let last: EvalResult = { outputs: {} };
    for (let row = 0; row < plan.grid.height; row += rows) {
      signal?.throwIfAborted(); // the render's lease was lost: another delivery renders it now
      const count = Math.min(rows, plan.grid.height - row);
      const evaluation = await evaluatePlan(env, script, stripPlan(plan, row, count), { convert: true });
      units += evaluation.processingUnits;
      for (const f of files) await f.strip(evaluation.result, row, count);
      last = { outputs: {}, userData: evaluation.result.userData }; // not the pixels: only userData is used
    }
    for (const f of files) await f.finish(last);
    const { width, height } = plan.grid;
    return Math.round(units * (width * height >= DISCOUNT_FROM_PIXELS ? ASYNC_FACTOR : 1) * 1e6) / 1e6;
  } catch (e) {
    await abortAll(files);
    throw e;
  }
}

/** Aborts unfinished uploads, ignoring failures (the original error is what matters). */
async function abortAll(files: OutputFile[]): Promise<void> {
  for (const f of files) await f.abort().catch((e) => console.error("async: abort failed:", String(e)));
}

/**
 * Renders an async request in strip units: the output grid is cut into units of whole rows ({@link stripUnits}, at
 * most {@link ASYNC_UNIT_PIXELS} pixels each, so every queue message's CPU is bounded), each unit one queue message
 * (./plugin.ts). A unit runs the shared pipeline (src/pipeline/pipeline.ts `evaluatePlan`) strip by strip over its
 * rows and writes its part of every response (./outputs.ts); the assembly joins the parts once the last unit is done.
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
import { planBytes, withConsumerAdmission } from "../pipeline/admission";
import { evaluatePlan, prepareEvalscript, STRIP_TARGET } from "../pipeline/pipeline";
import { MAX_ASYNC_SIZE, planRequest, stripPlan, withSources, type AreaPlan } from "../pipeline/plan";
import type { OutputRequest } from "../pipeline/output";
import type { Grid } from "../raster/types";
import { deliveryTarget } from "./delivery";
import type { AsyncRecord } from "./schema";
import { fileName, Part, partKey } from "./outputs";

/** Pixels per strip (whole rows): the pipeline's own strip size, so a strip is evaluated in one piece. */
export const ASYNC_STRIP_PIXELS = STRIP_TARGET;

/**
 * Most pixels of one strip unit (16 strips): 8 Mi px, about 1 s of CPU for a FLOAT32 NDVI (a whole 10000 x 10000
 * one measured 11.9 s) and at most 32 MiB of samples; `npm run bench` (BENCH_ONLY=taskcpu) prints the largest.
 */
export const ASYNC_UNIT_PIXELS = 16 * STRIP_TARGET;

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

/** A strip unit: rows [row, row + rows) of the output grid. */
export interface StripUnit {
  row: number;
  rows: number;
}

/** The strip units of `grid`: whole strips of stripRows, at most ASYNC_UNIT_PIXELS pixels (one strip at least). */
export function stripUnits(grid: Pick<Grid, "width" | "height">): StripUnit[] {
  const strip = stripRows(grid.width);
  const rows = strip * Math.max(1, Math.floor(ASYNC_UNIT_PIXELS / (strip * grid.width)));
  const units: StripUnit[] = [];
  for (let row = 0; row < grid.height; row += rows) units.push({ row, rows: Math.min(rows, grid.height - row) });
  return units;
}

/**
 * Renders strip unit `unit` of the request and writes its part of every response (./outputs.ts). Returns the
 * processing units charged. The delivery bucket is checked first (403 before any work). The unit's strips and parts
 * are admitted with their bytes (src/pipeline/admission.ts withConsumerAdmission).
 * @throws ApiError / EngineError for what the client must fix (the request then FAILS), other errors for
 *   transient faults (the message is retried: an OverloadedError too, when the isolate had no room in time);
 *   `signal`'s reason (a LeaseLostError) between strips once it aborts.
 */
export async function renderUnit(
  env: Env,
  record: AsyncRecord,
  unit: StripUnit,
  signal?: AbortSignal,
): Promise<number> {
  const { request } = record;
  const script = await prepareEvalscript(env, request.evalscript, record.account);
  const plan = await withSources(
    { env, account: record.account },
    asyncArea(request),
    request.input.data,
    script.setup,
  );
  const strip = stripRows(plan.grid.width);
  const responses = responsesOf(record);
  for (const r of responses)
    await deliveryTarget(env, record.account, request.output.delivery.s3, record.id, fileName(r));
  // the unit's pixels and parts share the isolate with its requests and other units (src/pipeline/admission.ts)
  const bytes = planBytes(
    stripPlan(plan, unit.row, unit.rows),
    script.setup,
    "encode",
    responses.map((r) => r.format.type),
  );
  const units = await withConsumerAdmission(bytes, async () => {
    const parts = responses.map((r) => new Part(r, plan.grid, unit.rows, strip));
    let sum = 0;
    for (let row = unit.row; row < unit.row + unit.rows; row += strip) {
      signal?.throwIfAborted(); // the unit's lease was lost: another delivery renders it now
      const count = Math.min(strip, unit.row + unit.rows - row);
      const evaluation = await evaluatePlan(env, script, stripPlan(plan, row, count), { convert: true });
      sum += evaluation.processingUnits;
      for (const p of parts) p.strip(evaluation.result, count);
    }
    signal?.throwIfAborted();
    await Promise.all(parts.map((p, i) => p.put(env.DATA, partKey(record.id, unit.row, i))));
    return sum;
  });
  const { width, height } = plan.grid;
  return units * (width * height >= DISCOUNT_FROM_PIXELS ? ASYNC_FACTOR : 1);
}

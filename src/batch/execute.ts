/**
 * One batch tile (the plug-in's `run`, ./plugin.ts): plans the tile's grid (its CRS, buffered bbox and size,
 * src/pipeline/plan.ts planGrid with the batch tile size limit; a GeoPackage feature's geometry clips), runs the
 * shared pipeline (src/pipeline) and writes each output to the delivery bucket.
 *
 * Once and only once: the engine runs a tile only while it is PENDING and its task PROCESSING, counts it once
 * (src/tasks/engine.ts), and the object keys are fixed by the delivery template, so a redelivered message at worst
 * rewrites the same bytes under the same keys.
 * Zarr output (./zarrtile.ts) writes the tile's chunks of the task's store instead of files.
 * Existing outputs are checked once per tile, before its first write, and the answer kept in the task object, so a
 * retry after a partial write is not mistaken for files the user had there (the unit's memo; output.overwrite /
 * skipExisting). Failures: a request error (bad evalscript, unknown output, ...) fails the tile at once; any other
 * error is retried until the lease's last attempt, then the tile is FAILED (the engine).
 */
import type { Env } from "../env";
import { planBytes, withConsumerAdmission } from "../pipeline/admission";
import { evaluatePlan, prepareEvalscript, type Evaluation } from "../pipeline/pipeline";
import { planGrid, withSources } from "../pipeline/plan";
import type { Grid } from "../raster/types";
import type { Task, UnitResult, UnitWork } from "../tasks/plugin";
import { bucketObject, outputUrl } from "./delivery";
import { DEFAULT_BATCH_RESPONSES, encodeTileOutput } from "./encode";
import type { BatchRequest, BatchResponse } from "./schema";
import { batchTileGrid, type BatchTile } from "./tiles";
import { writeZarrTile } from "./zarrtile";
import { addTileItem } from "./collection";

/** A tile to run: the task's id, account and request, and the tile. */
interface Work {
  id: string;
  account: string;
  request: BatchRequest;
  tile: BatchTile;
}

/** The outputs' objects of a tile (store and key per response), in buckets the task's account may use. */
function tileObjects(env: Env, w: Work) {
  const delivery = w.request.output.delivery.s3;
  const responses = w.request.processRequest.output?.responses ?? DEFAULT_BATCH_RESPONSES;
  const objectOf = async (response: BatchResponse) => ({
    response,
    ...(await bucketObject(
      env,
      w.account,
      delivery,
      outputUrl(delivery.url, { requestId: w.id, tileName: w.tile.name, response }),
    )),
  });
  return Promise.all(responses.map(objectOf));
}

/** "none", "some" or "all" of the objects exist. */
async function existing(objects: Awaited<ReturnType<typeof tileObjects>>): Promise<string> {
  const found = (await Promise.all(objects.map((o) => o.store.head(o.key)))).filter(Boolean).length;
  return found === 0 ? "none" : found === objects.length ? "all" : "some";
}

/**
 * Runs the shared pipeline over the tile's grid and `use`s its values, admitted with their bytes beside the isolate's
 * other requests and units (src/pipeline/admission.ts withConsumerAdmission: an OverloadedError is retried).
 */
async function evaluateTile<T>(env: Env, w: Work, use: (grid: Grid, evaluation: Evaluation) => Promise<T>): Promise<T> {
  const grid = batchTileGrid(w.tile);
  const script = await prepareEvalscript(env, w.request.processRequest.evalscript, w.account);
  const plan = await withSources(
    { env, account: w.account },
    planGrid(grid, { geometry: w.tile.geometry }),
    w.request.processRequest.input.data,
    script.setup,
  );
  return withConsumerAdmission(planBytes(plan, script.setup), async () =>
    use(grid, await evaluatePlan(env, script, plan, { convert: true })),
  );
}

/**
 * Evaluates and writes tile `unit` of `task`; its processing units (0 when skipped), or an error for a refused tile.
 * @throws for failures retrying may fix (and ApiError / EngineError for request errors: the tile fails).
 */
export async function runTile(env: Env, task: Task<BatchRequest>, unit: UnitWork<BatchTile>): Promise<UnitResult> {
  const w: Work = { id: task.id, account: task.account, request: task.request, tile: unit.data };
  const out = w.request.output;
  if (out.type === "zarr") {
    return evaluateTile(env, w, async (grid, evaluation) => {
      await writeZarrTile(env, w.account, w.id, w.request, w.tile, grid, evaluation.result);
      return { pu: evaluation.processingUnits };
    });
  }
  const objects = await tileObjects(env, w);
  const before = unit.memo ?? (await unit.remember(await existing(objects)));
  if (before === "all" && out.skipExisting) return addTileItem(env, w).then(() => ({ pu: 0 }));
  if (before !== "none" && !out.overwrite)
    return {
      pu: 0,
      error: `Outputs of tile ${w.tile.name} already exist in the delivery bucket (${before}); set output.overwrite or output.skipExisting.`,
    };
  const pu = await evaluateTile(env, w, async (grid, evaluation) => {
    for (const o of objects) {
      const file = await encodeTileOutput(evaluation.result, o.response, grid, out);
      await o.store.put(o.key, file.data, { contentType: file.contentType });
    }
    return evaluation.processingUnits;
  });
  await addTileItem(env, w);
  return { pu };
}

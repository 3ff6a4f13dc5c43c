/**
 * The queue consumer of batch tiles (kind `batch-tile`): plans the tile's grid (its CRS, buffered bbox and size,
 * src/pipeline/plan.ts planGrid with the batch tile size limit; a GeoPackage feature's geometry clips), runs the
 * shared pipeline (src/pipeline) and writes each output to the delivery bucket.
 *
 * Once and only once: the task object says whether the tile still needs work (PROCESSING and tile PENDING; a
 * stopped task's messages are acked without work), counts a finished tile once (./object.ts), and the object keys
 * are fixed by the delivery template, so a redelivered message at worst rewrites the same bytes under the same keys.
 * Zarr output (./zarrtile.ts) writes the tile's chunks of the task's store instead of files.
 * Existing outputs are checked once per tile, before its first write, and the answer kept in the task object, so a
 * retry after a partial write is not mistaken for files the user had there (output.overwrite / skipExisting).
 * Failures: a request error (bad evalscript, unknown output, ...) fails the tile at once; any other error is retried
 * by the queue until MAX_TILE_ATTEMPTS, then the tile is FAILED (also by the dead-letter hook, {@link deadTile}).
 */
import type { Env } from "../env";
import { ApiError, kindedError } from "../http/errors";
import { evaluatePlan, prepareEvalscript } from "../pipeline/pipeline";
import { planGrid, withSources } from "../pipeline/plan";
import type { TaskMessage } from "../tasks/queue";
import { asLocation } from "../locations/hosting";
import { bucketObject, outputUrl } from "./delivery";
import { DEFAULT_BATCH_RESPONSES, encodeTileOutput } from "./encode";
import { MAX_TILE_ATTEMPTS } from "./messages";
import type { TileWork } from "./object";
import type { BatchResponse } from "./schema";
import { batchStub } from "./stub";
import { batchTileGrid } from "./tiles";
import { writeZarrTile } from "./zarrtile";
import { addTileItem } from "./collection";

type Work = Extract<TileWork, { run: true }>;

/** True for errors of the request itself (retrying cannot help). */
export const isRequestError = (e: unknown): boolean => (e instanceof ApiError && e.status < 500) || kindedError(e) !== undefined;

/** The message's task id and tile name. @throws Error for a malformed message (retried, then dead-lettered). */
function tileOf(body: TaskMessage): { task: string; tile: string } {
  if (typeof body.task !== "string" || typeof body.tile !== "string") throw new Error("batch-tile message without task or tile");
  return { task: body.task, tile: body.tile };
}

/** The outputs' objects of a tile (store and key per response), in buckets the task's account may use. */
function tileObjects(env: Env, w: Work) {
  const delivery = w.request.output.delivery.s3;
  const responses = w.request.processRequest.output?.responses ?? DEFAULT_BATCH_RESPONSES;
  const objectOf = async (response: BatchResponse) => ({ response, ...(await bucketObject(env, w.account, delivery, outputUrl(delivery.url, { requestId: w.id, tileName: w.tile.name, response }))) });
  return Promise.all(responses.map(objectOf));
}

/** "none", "some" or "all" of the objects exist. */
async function existing(objects: Awaited<ReturnType<typeof tileObjects>>): Promise<string> {
  const found = (await Promise.all(objects.map((o) => o.store.head(o.key)))).filter(Boolean).length;
  return found === 0 ? "none" : found === objects.length ? "all" : "some";
}

/** Runs the shared pipeline over the tile's grid. */
async function evaluateTile(env: Env, w: Work) {
  const grid = batchTileGrid(w.tile);
  const script = await prepareEvalscript(env, w.request.processRequest.evalscript, w.account);
  const plan = await withSources({ env, account: w.account }, planGrid(grid, { geometry: w.tile.geometry }), w.request.processRequest.input.data, script.setup);
  return { grid, evaluation: await evaluatePlan(env, script, plan, { convert: true }) };
}

/** Evaluates and writes one tile; returns the processing units spent (0 when skipped), or an error for a refused tile. */
async function runTile(env: Env, w: Work): Promise<{ pu: number } | { error: string }> {
  const out = w.request.output;
  if (out.type === "zarr") {
    const { grid, evaluation } = await evaluateTile(env, w);
    await writeZarrTile(env, w.account, w.id, w.request, w.tile, grid, evaluation.result);
    return { pu: evaluation.processingUnits };
  }
  const objects = await tileObjects(env, w);
  const before = w.existing ?? (await batchStub(env, w.id).recordExisting(w.tile.name, await existing(objects)));
  if (before === "all" && out.skipExisting) return addTileItem(env, w).then(() => ({ pu: 0 }));
  if (before !== "none" && !out.overwrite)
    return { error: `Outputs of tile ${w.tile.name} already exist in the delivery bucket (${before}); set output.overwrite or output.skipExisting.` };
  const { grid, evaluation } = await evaluateTile(env, w);
  for (const o of objects) {
    const file = await encodeTileOutput(evaluation.result, o.response, grid, out);
    await o.store.put(o.key, file.data, { contentType: file.contentType });
  }
  await addTileItem(env, w);
  return { pu: evaluation.processingUnits };
}

/** Handler of `batch-tile` messages. @throws to have the queue retry a tile that failed for a transient reason. */
export async function tileMessage(body: TaskMessage, env: Env): Promise<void> {
  const { task, tile } = tileOf(body);
  const stub = batchStub(env, task);
  const work = (await stub.tileWork(tile)) as TileWork;
  if (!work.run) return;
  try {
    const r = await runTile(asLocation(env, work.location), work);
    if ("error" in r) await stub.tileFailed(tile, r.error);
    else await stub.tileDone(tile, r.pu);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (isRequestError(e)) await stub.tileFailed(tile, message);
    else if (!(await stub.tileAttemptFailed(tile, message, MAX_TILE_ATTEMPTS))) throw e;
  }
}

/** Dead-letter hook of `batch-tile` (also for a tile whose every attempt was lost: `cause`): the tile is FAILED (counted once). */
export async function deadTile(body: TaskMessage, env: Env, _message: Message<unknown>, cause?: string): Promise<void> {
  const { task, tile } = tileOf(body);
  await batchStub(env, task).tileFailed(tile, cause ?? "The tile failed every delivery attempt of the queue (dead-lettered).");
}

/**
 * The plan of a batch task (the plug-in's `plan`, ./plugin.ts): lists the task's output tiles (the tiling grid's
 * tiles intersecting the request bounds, or one per GeoPackage feature, ./features.ts), one unit each, and estimates
 * its cost (a Zarr output's store metadata is written first, ./zarrmeta.ts; a createCollection task's collection is
 * registered, ./collection.ts); the engine then moves the task to ANALYSIS_DONE (and on to PROCESSING after START).
 *
 * Cost estimate in processing units (Sentinel Hub's definition, src/pipeline/bands.ts processingUnits): per tile
 * and per data source the tile's pixels / 512^2 x the source's input bands / 3 x 2 for FLOAT32 output, one sample
 * per source (a multi-temporal script is charged for the samples it really reads, so the final cost may be higher),
 * at least 0.005 per tile. A request error (bad evalscript, unknown bands, bad grid) fails the task with it (the engine).
 */
import type { Env } from "../env";
import { processingUnits } from "../pipeline/bands";
import { MIN_PROCESSING_UNITS, prepareEvalscript } from "../pipeline/pipeline";
import { resolveSources } from "../pipeline/sources";
import type { Plan, Task } from "../tasks/plugin";
import { invalidArgument } from "../raster/errors";
import { tilingGridTiles, type BatchTile } from "./tiles";
import { geoPackageTiles } from "./features";
import type { BatchRequest } from "./schema";
import { writeZarrMetadata } from "./zarrmeta";
import { prepareBatchCollection } from "./collection";

/** The output tiles of a task's request. @throws ApiError 400 / EngineError for a request that cannot be tiled. */
async function requestTiles(env: Env, account: string, req: BatchRequest): Promise<BatchTile[]> {
  if (req.input.type === "tiling-grid") return tilingGridTiles(req.input, req.processRequest.input.bounds!);
  return geoPackageTiles(env, account, req.input);
}

/** Processing units estimated for `tiles` (see the module comment). @throws EngineError invalid-argument for INT8 outputs with cogOutput. */
async function estimate(env: Env, req: BatchRequest, account: string, tiles: BatchTile[]): Promise<number> {
  const { setup } = await prepareEvalscript(env, req.processRequest.evalscript, account);
  if (req.output.cogOutput && setup.outputs.some((o) => o.sampleType === "INT8"))
    throw invalidArgument(
      "cogOutput cannot be used with sampleType INT8 outputs (Sentinel Hub's rule for COG output); use UINT8, INT16 or another type.",
    );
  const sources = await resolveSources({ env, account }, req.processRequest.input.data, setup);
  const float32 = setup.outputs.some((o) => o.sampleType === "FLOAT32");
  const perTile = (t: BatchTile) =>
    Math.max(
      MIN_PROCESSING_UNITS,
      sources.reduce((a, s) => a + processingUnits(t.width, t.height, s.fileBands.length, 1, float32, 0), 0),
    );
  return Math.round(tiles.reduce((a, t) => a + perTile(t), 0) * 1e6) / 1e6;
}

/** The plan of a task: its tiles (unit id = tile name) and its estimate. @throws ApiError 400 / EngineError for a request error. */
export async function planTiles(env: Env, task: Task<BatchRequest>): Promise<Plan<BatchTile>> {
  const tiles = await requestTiles(env, task.account, task.request);
  if (task.request.output.type === "zarr")
    await writeZarrMetadata(env, task.account, task.id, task.request, tiles, task.created);
  await prepareBatchCollection(env, task);
  return {
    units: tiles.map((t) => ({ id: t.name, data: t })),
    estimatePU: await estimate(env, task.request, task.account, tiles),
  };
}

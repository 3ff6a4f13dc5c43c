/**
 * Batch v2 `createCollection` / `collectionId` (OpenAPI `BatchV2RasterOutput`): the task's COG tiles become a
 * collection of kind batch in the registry (src/storage/registry.ts), processable as `batch-<id>` by Process and
 * Statistics (the pipeline opens the `s3://` asset hrefs through src/storage/sources.ts openFile) and described at
 * /api/v1/metadata/collection/batch-<id>.
 * - createCollection: the collection's id is the task id; it is registered at the end of analysis, owned by the
 *   task's account, one band per response (the response identifier, the evalscript output's stored sample type,
 *   units DN, its nodataValue, the grid resolution in metres).
 * - collectionId: an existing batch collection of the account (else the creation is a 404 naming it, the same for
 *   another account's) whose bands are the responses with the same sample types; the analysis fails naming the
 *   difference otherwise (or when the collection was deleted meanwhile).
 * Each written tile is then an item (`<tileName>_<taskId>`: bbox and geometry of the tile in CRS84, `proj:epsg`,
 * datetime = end of the first data source's timeRange (else its start, else the tile's processing time), one asset
 * per band = the tile's output file). Items are upserted before the tile is counted, so under at-least-once delivery
 * a tile is an item exactly once. EO Edge difference: the collection is visible from analysis on and fills as tiles
 * finish (Sentinel Hub ingests the tiles as BYOC tiles when they are written).
 */
import type { Env } from "../env";
import { badRequest } from "../http/errors";
import { isUuid } from "../http/ids";
import { UnknownCollectionError } from "../pipeline/collections";
import { prepareEvalscript } from "../pipeline/pipeline";
import { crsFromEpsg, transformBounds } from "../raster/crs";
import { invalidArgument } from "../raster/errors";
import { storedSampleType } from "../raster/evalscript/sampletype";
import { findCollection, registerCollection, type BandDef } from "../storage/registry";
import { upsertItem } from "../storage/items";
import { outputUrl } from "./delivery";
import type { BatchRequest, BatchResponse, RasterOutput } from "./schema";
import type { BatchTile } from "./tiles";

/** The processing type id of a batch collection. */
export const batchType = (id: string): string => `batch-${id}`;

/** The raster output of a request that fills a collection, else null. */
function collectionOutput(req: BatchRequest): RasterOutput | null {
  const out = req.output;
  return out.type === "raster" && (out.createCollection || out.collectionId !== undefined) ? out : null;
}

/** The id of the collection task `taskId` fills. */
const targetId = (out: RasterOutput, taskId: string): string => out.collectionId ?? taskId;

/** The raster responses (userdata excluded). */
const rasterResponses = (req: BatchRequest): BatchResponse[] =>
  (req.processRequest.output?.responses ?? [{ identifier: "default", format: { type: "image/tiff" } }]).filter(
    (r) => r.identifier !== "userdata",
  );

/** Creation checks. @throws ApiError 400: no cogOutput, a non-TIFF response, a collectionId that is no uuid. */
export function checkCollectionRequest(req: BatchRequest): void {
  const out = collectionOutput(req);
  if (!out) return;
  if (!out.cogOutput) throw badRequest("output.createCollection / output.collectionId need output.cogOutput = true.");
  if (rasterResponses(req).some((r) => r.format.type !== "image/tiff"))
    throw badRequest("With createCollection / collectionId every output must be image/tiff.");
  if (out.collectionId !== undefined && !isUuid(out.collectionId))
    throw badRequest(`output.collectionId '${out.collectionId.slice(0, 80)}' is not a collection id (a uuid).`);
}

/** @throws UnknownCollectionError (404) when output.collectionId names no batch collection of `account`. */
export async function checkCollectionTarget(env: Env, account: string, req: BatchRequest): Promise<void> {
  const id = collectionOutput(req)?.collectionId;
  if (id === undefined) return;
  if ((await findCollection(env, account, batchType(id)))?.kind !== "batch")
    throw new UnknownCollectionError("batch", id, batchType(id));
}

/** The bands the outputs give. @throws EngineError invalid-argument for a multi-band output. */
async function outputBands(env: Env, req: BatchRequest, account: string): Promise<BandDef[]> {
  const { setup } = await prepareEvalscript(env, req.processRequest.evalscript, account);
  const res = req.input.type === "tiling-grid" ? req.input.resolution : null;
  const metres = res === null ? null : res < 1 ? res * 111_320 : res;
  return rasterResponses(req).map((r) => {
    const o = setup.outputs.find((x) => x.id === r.identifier);
    if (!o) throw invalidArgument(`Response identifier '${r.identifier}' matches no evalscript output.`);
    if (o.bands !== 1)
      throw invalidArgument(`A batch collection needs single-band outputs: output '${o.id}' has ${o.bands} bands.`);
    return {
      name: o.id,
      kind: "file",
      units: ["DN"],
      sampleType: storedSampleType(o.sampleType),
      resolution: metres,
      nodata: o.nodataValue ?? null,
    };
  });
}

/**
 * At analysis: registers the collection of a createCollection task, or checks the collectionId target.
 * @throws EngineError invalid-argument for multi-band outputs, an unknown target or one with other bands.
 */
export async function prepareBatchCollection(
  env: Env,
  task: { id: string; account: string; request: BatchRequest },
): Promise<void> {
  const out = collectionOutput(task.request);
  if (!out) return;
  const bands = await outputBands(env, task.request, task.account);
  const id = targetId(out, task.id);
  const existing = await findCollection(env, task.account, batchType(id));
  if (out.collectionId !== undefined) {
    if (!existing || existing.kind !== "batch")
      throw invalidArgument(`output.collectionId: the account has no batch collection ${id}.`);
    const have = [...existing.bands.values()].map((b) => `${b.name}:${b.sampleType}`).join(", ");
    const want = bands.map((b) => `${b.name}:${b.sampleType}`).join(", ");
    if (have !== want)
      throw invalidArgument(`output.collectionId: collection ${id} has bands [${have}], the outputs give [${want}].`);
    return;
  }
  if (existing) return; // a redelivered analysis
  const title = task.request.description || `Batch ${task.id}`;
  await registerCollection(env, {
    id: batchType(id),
    collectionId: id,
    aliases: [],
    kind: "batch",
    owner: task.account,
    title,
    location: null,
    optical: false,
    config: { task: task.id },
    stac: { description: `Results of batch task ${task.id}` },
    bands,
  });
}

/**
 * The time of a task's results (ms since the epoch): the end of the first data source's timeRange, else its start,
 * else `fallback` (ISO 8601; default now).
 */
export function requestTime(req: BatchRequest, fallback?: string): number {
  const range = (req.processRequest.input.data[0] as { dataFilter?: { timeRange?: { from?: string; to?: string } } })
    .dataFilter?.timeRange;
  const at = range?.to ?? range?.from ?? fallback;
  return at === undefined ? Date.now() : Date.parse(at);
}

/** After a tile's files are written: its item in the task's collection (nothing for other tasks). */
export async function addTileItem(env: Env, w: { id: string; request: BatchRequest; tile: BatchTile }): Promise<void> {
  const out = collectionOutput(w.request);
  if (!out) return;
  const [west, south, east, north] = transformBounds(w.tile.bbox, crsFromEpsg(w.tile.epsg), crsFromEpsg(4326));
  const assets = Object.fromEntries(
    rasterResponses(w.request).map((response) => {
      const href = outputUrl(out.delivery.s3.url, { requestId: w.id, tileName: w.tile.name, response });
      return [
        response.identifier,
        { href, type: "image/tiff; application=geotiff; profile=cloud-optimized", roles: ["data"] },
      ];
    }),
  );
  await upsertItem(env, {
    type: "Feature",
    stac_version: "1.0.0",
    id: `${w.tile.name}_${w.id}`,
    collection: batchType(targetId(out, w.id)),
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [west, south],
          [east, south],
          [east, north],
          [west, north],
          [west, south],
        ],
      ],
    },
    bbox: [west, south, east, north],
    properties: {
      datetime: new Date(requestTime(w.request)).toISOString(),
      "proj:epsg": w.tile.epsg,
      "batch:task": w.id,
    },
    links: [],
    assets,
  });
}

/**
 * The Zarr v2 store of a batch task with ZarrOutput, laid out as Sentinel Hub's batch Zarr output and its Zarr
 * import conventions (docs.sentinel-hub.com/api/latest/api/zarr "Data constraints"; so the store can be imported
 * again as a Zarr collection, src/zarr/inspect.ts, when its arrays are 32 / 64-bit):
 * - group `.zgroup` / `.zattrs` (date_modified, geospatial_bounds [minX, minY, maxX, maxY] and its CRS, resolution,
 *   the task id, then group.customAttributes);
 * - coordinate arrays `x`, `y` (or `lon`, `lat` on the WGS84 grid): pixel centres, `<f8`, one raw chunk; `time`:
 *   one step, `<i8` seconds since 1970-01-01T00:00:00Z (the end of the first data source's timeRange);
 * - one data array per response, shape [1, height, width] over the envelope of the task's tiles (north-up,
 *   origin top-left), `_ARRAY_DIMENSIONS` [time, y, x] (or [time, lat, lon]), chunks from the array parameters.
 * The metadata is written once at analysis ({@link writeZarrMetadata}); tiles write only chunks (./zarrtile.ts).
 */
import type { Env } from "../env";
import { resolveBucket, type BucketLocation } from "../buckets";
import { invalidArgument } from "../raster/errors";
import { requestTime } from "./collection";
import type { BatchRequest } from "./schema";
import type { BatchTile } from "./tiles";
import { arrayParameters, type ZarrOutput } from "./zarrschema";

/** The pixel grid of the whole store: EPSG code, bbox in its units, size in pixels, pixel size. */
export interface ZarrEnvelope {
  epsg: number;
  bbox: [number, number, number, number];
  width: number;
  height: number;
  resolution: number;
}

/**
 * The bucket location (store and key prefix) of a task's Zarr group: delivery URL with `<requestId>` = `id`, used
 * by the task's `account`. @throws BucketAccessDenied (403) for a bucket `account` may not use.
 */
export function zarrLocation(env: Env, account: string, out: ZarrOutput, id: string): Promise<BucketLocation> {
  return resolveBucket(env, account, { ...out.delivery.s3, url: out.delivery.s3.url.replaceAll("<requestId>", id) });
}

/** The output ZarrOutput of a request (the caller checked `output.type`). */
export const zarrOutput = (req: BatchRequest): ZarrOutput => req.output as ZarrOutput;

/** `key` inside the group at `prefix`. */
export const groupKey = (prefix: string, key: string): string => (prefix ? `${prefix}/${key}` : key);

/**
 * The envelope of `tiles` (all in one CRS, on one grid) at `resolution` CRS units per pixel.
 * @throws EngineError invalid-argument when the tiles are in several CRSs or there are none.
 */
export function zarrEnvelope(tiles: BatchTile[], resolution: number): ZarrEnvelope {
  const epsgs = [...new Set(tiles.map((t) => t.epsg))];
  if (epsgs.length !== 1)
    throw invalidArgument(
      `Zarr output needs the tiles in one CRS; the area covers ${epsgs.length ? `EPSG:${epsgs.join(", EPSG:")}` : "no tile"}.`,
    );
  const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const t of tiles) {
    bbox[0] = Math.min(bbox[0], t.bbox[0]);
    bbox[1] = Math.min(bbox[1], t.bbox[1]);
    bbox[2] = Math.max(bbox[2], t.bbox[2]);
    bbox[3] = Math.max(bbox[3], t.bbox[3]);
  }
  const width = Math.round((bbox[2] - bbox[0]) / resolution);
  const height = Math.round((bbox[3] - bbox[1]) / resolution);
  return { epsg: epsgs[0]!, bbox, width, height, resolution };
}

/** Pixel centres of `n` pixels from `start` in steps of `step`. */
const centres = (start: number, step: number, n: number): Float64Array =>
  Float64Array.from({ length: n }, (_, i) => start + (i + 0.5) * step);

/** .zarray of a one-chunk raw little-endian coordinate vector. */
const vectorMeta = (n: number, dtype: string) => ({
  zarr_format: 2,
  shape: [n],
  chunks: [n],
  dtype,
  compressor: null,
  fill_value: null,
  order: "C",
  filters: null,
});

/** Every metadata object of the store (key relative to the group -> JSON or bytes). */
function metadataObjects(req: BatchRequest, id: string, env: ZarrEnvelope, created: string): Map<string, unknown> {
  const out = zarrOutput(req);
  const geographic = env.epsg === 4326;
  const [xn, yn] = geographic ? ["lon", "lat"] : ["x", "y"];
  const [w, , , n] = env.bbox;
  const objects = new Map<string, unknown>([
    [
      ".zattrs",
      {
        date_modified: new Date().toISOString(),
        geospatial_bounds: env.bbox,
        geospatial_bounds_crs: `EPSG:${env.epsg}`,
        crs: `EPSG:${env.epsg}`,
        resolution: [env.resolution, -env.resolution],
        "eoedge:requestId": id,
        ...out.group.customAttributes,
      },
    ],
    [".zgroup", { zarr_format: 2 }],
    [`${xn}/.zarray`, vectorMeta(env.width, "<f8")],
    [`${xn}/.zattrs`, { _ARRAY_DIMENSIONS: [xn] }],
    [`${xn}/0`, new Uint8Array(centres(w, env.resolution, env.width).buffer)],
    [`${yn}/.zarray`, vectorMeta(env.height, "<f8")],
    [`${yn}/.zattrs`, { _ARRAY_DIMENSIONS: [yn] }],
    [`${yn}/0`, new Uint8Array(centres(n, -env.resolution, env.height).buffer)],
    ["time/.zarray", vectorMeta(1, "<i8")],
    [
      "time/.zattrs",
      { _ARRAY_DIMENSIONS: ["time"], units: "seconds since 1970-01-01T00:00:00Z", calendar: "proleptic_gregorian" },
    ],
    ["time/0", new Uint8Array(BigInt64Array.of(BigInt(Math.round(requestTime(req, created) / 1000))).buffer)],
  ]);
  for (const r of req.processRequest.output!.responses!) {
    const p = arrayParameters(out, r.identifier);
    if (typeof p === "string") throw invalidArgument(p);
    const { customAttributes, ...zarray } = p;
    objects.set(`${r.identifier}/.zarray`, {
      zarr_format: 2,
      shape: [1, env.height, env.width],
      ...zarray,
      filters: null,
    });
    objects.set(`${r.identifier}/.zattrs`, { _ARRAY_DIMENSIONS: ["time", yn, xn], ...customAttributes });
  }
  return objects;
}

/** Reads a JSON object of the store, or null when it is missing. */
export async function readStoreJson(at: BucketLocation, key: string): Promise<Record<string, unknown> | null> {
  const obj = await at.store.get(groupKey(at.prefix, key));
  return obj ? ((await new Response(obj.body).json()) as Record<string, unknown>) : null;
}

/**
 * Writes the store's metadata for task `id` of `account` (group attributes first: they claim the folder, so a redelivered
 * analysis of the same task rewrites it while another task's store, or other files, refuse).
 * @throws EngineError invalid-argument when the delivery folder already holds files that are not this task's store.
 */
export async function writeZarrMetadata(
  env: Env,
  account: string,
  id: string,
  req: BatchRequest,
  tiles: BatchTile[],
  created: string,
): Promise<void> {
  const at = await zarrLocation(env, account, zarrOutput(req), id);
  const attrs = await readStoreJson(at, ".zattrs");
  if (attrs?.["eoedge:requestId"] !== id) {
    const listing = await at.store.list({ prefix: at.prefix ? `${at.prefix}/` : "", limit: 1 });
    if (listing.objects.length)
      throw invalidArgument(
        `The Zarr delivery folder s3://${at.store.bucket}/${at.prefix} is not empty; Zarr output needs an empty folder.`,
      );
  }
  if (req.input.type !== "tiling-grid") throw invalidArgument("ZarrOutput needs a tiling-grid input.");
  const objects = metadataObjects(req, id, zarrEnvelope(tiles, req.input.resolution), created);
  for (const [key, value] of objects) {
    const body = value instanceof Uint8Array ? value : JSON.stringify(value);
    await at.store.put(groupKey(at.prefix, key), body, {
      contentType: value instanceof Uint8Array ? "application/octet-stream" : "application/json",
    });
  }
}

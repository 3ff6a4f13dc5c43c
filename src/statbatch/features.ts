/**
 * The features of a Statistical Batch task: the polygons of the GeoPackage at `input.features.s3`, each with its
 * feature id (the GeoPackage's primary key), its `identifier` column when the table has one, its geometry
 * (GeoJSON Polygon or MultiPolygon in the layer's CRS) and that CRS as an OGC URI.
 */
import type { Env } from "../env";
import { resolveBucket, type BucketDescriptor } from "../buckets";
import type { AreaGeometry } from "../pipeline/input";
import { invalidArgument } from "../raster/errors";
import { readGeoPackageObject, type GeoPackageFeature } from "../vector/geopackage";
import type { BatchStatisticalRequest } from "./schema";

/** One input feature. */
export interface BatchFeature {
  /** The feature id (GeoPackage fid): `<ID>` of output templates and `id` of the result file. */
  id: number;
  /** The `identifier` column, when present: `<IDENTIFIER>` and `identifier` of the result file. */
  identifier?: string;
  geometry: AreaGeometry;
  /** e.g. http://www.opengis.net/def/crs/EPSG/0/32631 */
  crs: string;
}

/** Why the features could not be read: the message becomes the task's `error` (the task FAILS). */
export class FeaturesError extends Error {
  override readonly name = "FeaturesError";
}

/**
 * The descriptor's object key and store, used by `account`; the URL names the .gpkg object itself.
 * @throws EngineError invalid-argument otherwise; BucketAccessDenied (403) for a bucket `account` may not use.
 */
async function locate(env: Pick<Env, "BUCKETS" | "DB">, account: string, descriptor: BucketDescriptor) {
  const loc = await resolveBucket(env, account, descriptor);
  if (!loc.prefix)
    throw invalidArgument(
      `input.features.s3.url '${descriptor.url}' names a bucket, not a GeoPackage object (s3://<bucket>/<path>.gpkg).`,
    );
  return loc;
}

/** The feature's CRS as the OGC URI the Statistical API's bounds take. */
const crsUri = (epsg: number): string => `http://www.opengis.net/def/crs/EPSG/0/${epsg}`;

/** The `identifier` column's value as text, when the layer has one. */
function identifierOf(f: GeoPackageFeature): string | undefined {
  const v = f.properties.identifier;
  return typeof v === "string" || typeof v === "number" ? String(v) : undefined;
}

/**
 * Reads the features of a task of `account`: the first feature layer of the GeoPackage (src/vector/geopackage.ts),
 * Polygons and MultiPolygons only, in fid order.
 * @throws EngineError invalid-argument when the object is missing, too large, not a GeoPackage, has no feature
 *   layer, a CRS without EPSG code or another geometry type; FeaturesError when it has no features or a feature
 *   has no geometry; BucketAccessDenied (403) for a bucket `account` may not use.
 */
export async function readFeatures(
  env: Pick<Env, "BUCKETS" | "DB">,
  account: string,
  descriptor: BucketDescriptor,
): Promise<BatchFeature[]> {
  const loc = await locate(env, account, descriptor);
  const layer = await readGeoPackageObject(loc.store, loc.prefix);
  if (layer.features.length === 0)
    throw new FeaturesError(`Layer "${layer.name}" of the GeoPackage ${descriptor.url} has no features.`);
  return layer.features.map((f) => {
    if (!f.geometry)
      throw new FeaturesError(
        `Feature ${f.fid} of layer "${layer.name}" has no geometry; every feature needs a polygon.`,
      );
    const identifier = identifierOf(f);
    return {
      id: f.fid,
      geometry: f.geometry as AreaGeometry,
      crs: crsUri(layer.epsg),
      ...(identifier !== undefined ? { identifier } : {}),
    };
  });
}

/**
 * Checks at creation that `account` may use the buckets of the output and of the evalscript reference (the
 * GeoPackage's: requireObject, src/buckets), claiming unowned ones; queue-time work checks again with the task's account.
 * @throws EngineError invalid-argument for a bad URL; BucketAccessDenied (403) for another account's bucket.
 */
export async function checkBuckets(
  env: Pick<Env, "BUCKETS" | "DB">,
  account: string,
  req: BatchStatisticalRequest,
): Promise<void> {
  const reference = req.aggregation.evalscriptReference?.s3;
  for (const d of [req.output.s3, ...(reference ? [reference] : [])]) await resolveBucket(env, account, d);
}

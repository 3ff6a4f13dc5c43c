/**
 * Output tiles of a GeoPackageInput (OpenAPI `BatchV2GeoPackageInput`): one tile per feature of the GeoPackage's
 * first feature layer (src/vector: readGeoPackageObject, batchFeatures for identifiers and sizes), in the layer's
 * CRS. Each tile is what a synchronous Process request over the feature gives: bounds = the feature geometry (its
 * bbox, pixels outside the geometry no data), size = the feature's width/height, or its resolution turned into
 * pixels by the Process rule (src/pipeline/plan.ts outputSize: round(extent / resolution)).
 * Errors (EngineError invalid-argument, the task then FAILS at analysis with the message): unreadable or missing
 * GeoPackage, features without geometry or size, sizes above 3500 px, duplicate identifiers.
 */
import type { Env } from "../env";
import { outputSize } from "../pipeline/plan";
import { MAX_FEATURE_PIXELS, batchFeatures } from "../vector/batchfeatures";
import { readGeoPackageObject } from "../vector/geopackage";
import { bucketObject } from "./delivery";
import type { GeoPackageInput } from "./schema";
import type { BatchTile } from "./tiles";

/**
 * The tiles of a GeoPackageInput of a task of `account`, in feature (fid) order.
 * @throws EngineError invalid-argument (see the module comment); ApiError 400 for a size above 3500 px;
 *   BucketAccessDenied (403) for a GeoPackage in a bucket `account` may not use.
 */
export async function geoPackageTiles(env: Env, account: string, input: GeoPackageInput): Promise<BatchTile[]> {
  const { store, key } = await bucketObject(env, account, input.features.s3, input.features.s3.url);
  const layer = await readGeoPackageObject(store, key);
  return batchFeatures(layer, input.defaults).map((f) => ({
    name: f.identifier,
    epsg: f.epsg,
    bbox: f.bbox,
    ...outputSize(f.bbox, f.output, MAX_FEATURE_PIXELS),
    geometry: f.geometry,
  }));
}

/**
 * The features of a Statistical Batch task: the polygons of the GeoPackage at `input.features.s3`, each with its
 * feature id (the GeoPackage's primary key), its `identifier` column when the table has one, its geometry
 * (GeoJSON Polygon or MultiPolygon in the layer's CRS) and that CRS as an OGC URI.
 */
import type { Env } from "../env";
import { resolveBucket, type BucketDescriptor } from "../buckets";
import type { AreaGeometry } from "../pipeline/input";
import { invalidArgument } from "../raster/errors";

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

/** The descriptor's object key and store; the URL names the .gpkg object itself. @throws EngineError invalid-argument otherwise. */
function locate(env: Pick<Env, "BUCKETS">, descriptor: BucketDescriptor) {
  const loc = resolveBucket(env, descriptor);
  if (!loc.prefix) throw invalidArgument(`input.features.s3.url '${descriptor.url}' names a bucket, not a GeoPackage object (s3://<bucket>/<path>.gpkg).`);
  return loc;
}

/** True when the GeoPackage object exists (checked at creation). @throws EngineError invalid-argument for a bad URL. */
export async function featuresExist(env: Pick<Env, "BUCKETS">, descriptor: BucketDescriptor): Promise<boolean> {
  const loc = locate(env, descriptor);
  return (await loc.store.head(loc.prefix)) !== null;
}

/** The GeoPackage's bytes. @throws FeaturesError when the object does not exist. */
export async function readGeoPackageBytes(env: Pick<Env, "BUCKETS">, descriptor: BucketDescriptor): Promise<Uint8Array> {
  const loc = locate(env, descriptor);
  const obj = await loc.store.get(loc.prefix);
  if (!obj) throw new FeaturesError(`The GeoPackage ${descriptor.url} does not exist.`);
  return new Uint8Array(await new Response(obj.body).arrayBuffer());
}

/**
 * Reads the task's features. @throws FeaturesError when the object is missing, is not a GeoPackage, has no
 * polygon layer or no features.
 */
export async function readFeatures(env: Pick<Env, "BUCKETS">, descriptor: BucketDescriptor): Promise<BatchFeature[]> {
  const bytes = await readGeoPackageBytes(env, descriptor);
  throw new FeaturesError(`Reading GeoPackages (${bytes.length} bytes) is not available yet.`);
}

/**
 * Opens the band array an item of a Zarr collection names (asset href `s3://<bucket>/<path><array>`, the time
 * step in `properties["zarr:time_index"]`) as a RasterReader over the collection's group, for the pipeline's
 * scene reads (src/pipeline/read.ts).
 */
import type { Env } from "../env";
import { resolveBucket } from "../buckets";
import { parseCrs } from "../raster/crs";
import type { RasterReader } from "../raster/reader";
import { openZarrSlice } from "../raster/zarr/reader";
import type { StacItem } from "./stac";
import type { DataCollection } from "./registry";
import { objectZarrStore } from "./zarrstore";

/**
 * The reader of one band (array) at one time step, read as the collection's owner.
 * @throws Error when the href is not inside the collection's group or the collection has no owner;
 *   BucketAccessDenied (403) when the owner may no longer use the group's bucket; zarrita / reader errors for a
 *   store that changed since ingestion.
 */
export async function openZarrAsset(
  env: Pick<Env, "BUCKETS" | "DB">,
  c: DataCollection,
  item: StacItem,
  href: string,
): Promise<RasterReader> {
  const { s3Bucket, path, crs, coords } = c.config as {
    s3Bucket: string;
    path: string;
    crs: string;
    coords?: [string, string];
  };
  const group = `s3://${s3Bucket}/${path}`;
  if (!href.startsWith(group)) throw new Error(`asset ${href} of item ${item.id} is not in the Zarr group ${group}`);
  if (c.owner === null) throw new Error(`Zarr collection ${c.id} has no owner`);
  const bucket = await resolveBucket(env, c.owner, { url: group });
  const time = Number(item.properties["zarr:time_index"] ?? 0);
  return openZarrSlice(objectZarrStore(bucket.store, bucket.prefix), {
    arrays: [href.slice(group.length)],
    time,
    crs: parseCrs(crs),
    id: `${href}#t=${time}`,
    coords,
  });
}

/**
 * Ingestion of a Zarr collection, run synchronously by create and reingest: it reads only metadata (.zgroup,
 * .zattrs, each array's .zarray/.zattrs and the x / y / time coordinate arrays: a few small objects whatever the
 * size of the data), so a queue round trip would only add latency; no pixel chunk is read.
 * On success the collection is registered in the collection registry (kind zarr, type `zarr-<id>`, one band per
 * data array, units DN) with one STAC item per time step (collection `zarr-<id>`, `zarr:time_index`, assets =
 * the band arrays), so processing mosaics time steps like scenes and the catalog lists them. On failure the
 * record is FAILED with `ingestionErrors` and nothing stays registered. Status is INGESTED or FAILED afterwards.
 * The group is read as the collection's account, which must own or be granted its bucket (src/buckets/owners.ts):
 * otherwise ingestion FAILS with that reason (create refuses such a bucket with 403 before, src/zarr/routes.ts).
 */
import type { Env } from "../env";
import { BucketAccessDenied, resolveBucket } from "../buckets";
import { crsFromEpsg, parseCrs, transformBounds } from "../raster/crs";
import { bboxOf } from "../raster/reader";
import { sampleTypeOf } from "../raster/zarr/reader";
import type { Crs } from "../raster/types";
import { registerCollection, type BandDef } from "../storage/registry";
import { upsertItem, type StacItem } from "../storage/items";
import { inspectGroup, type InspectedGroup } from "./inspect";
import { saveIngestion, type IngestedInfo, type ZarrRecord } from "./records";

/** The processing type id of a Zarr collection. */
export const zarrType = (id: string): string => `zarr-${id}`;

/** Zarr dtype (v2 string) -> zarrita data type name. */
const DTYPES: Record<string, string> = { u4: "uint32", i4: "int32", f4: "float32", f8: "float64" };

/** Metres per CRS unit at the grid (degrees: 111320 m at the equator). */
const metres = (crs: Crs, v: number): number => (crs.geographic ? v * 111_320 : v);

function bandDefs(g: InspectedGroup, crs: Crs): BandDef[] {
  const res = metres(crs, Math.abs(g.geoTransform[1]));
  return g.bands.map((b) => {
    const fill = b.zarray.fill_value;
    const sampleType = sampleTypeOf(DTYPES[String(b.zarray.dtype).slice(1)]!)!;
    return { name: b.name, kind: "file", units: ["DN"], sampleType, resolution: res, nodata: typeof fill === "number" ? fill : null };
  });
}

/** additionalData.bands as Sentinel Hub shows BYOC bands (bitDepth, sampleFormat, noData). */
function bandsJson(defs: BandDef[]): Record<string, Record<string, unknown>> {
  const format = (t: string) => (t.startsWith("FLOAT") ? "FLOAT" : t.startsWith("U") ? "UINT" : "INT");
  return Object.fromEntries(defs.map((d) => [d.name, { bitDepth: Number(/\d+/.exec(d.sampleType)![0]), sampleFormat: format(d.sampleType), ...(d.nodata === null ? {} : { noData: d.nodata }) }]));
}

/** One STAC item per time step (a single item at `created` for 2-D data). */
function items(r: ZarrRecord, g: InspectedGroup, crs: Crs): StacItem[] {
  const box = bboxOf(g.geoTransform, g.width, g.height);
  const [w, s, e, n] = transformBounds(box, crs, crsFromEpsg(4326));
  const geometry = { type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] };
  const assets = Object.fromEntries(g.bands.map((b) => [b.name, { href: `s3://${r.s3Bucket}/${r.path}${b.name}`, type: "application/vnd+zarr", roles: ["data"] }]));
  const times = g.times.length ? g.times : [Date.parse(r.created)];
  return times.map((t, i) => {
    const datetime = new Date(t).toISOString().replace(".000Z", "Z");
    return {
      type: "Feature", stac_version: "1.0.0", id: datetime, collection: zarrType(r.id), geometry, bbox: [w, s, e, n],
      properties: { datetime, "zarr:time_index": i }, links: [], assets,
    };
  });
}

/** Removes the registry entry, bands and items of a Zarr collection (nothing when it has none). */
export async function unregisterZarr(env: Pick<Env, "DB">, id: string): Promise<void> {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM items WHERE collection = ?").bind(zarrType(id)),
    env.DB.prepare("DELETE FROM collection_bands WHERE collection = ?").bind(id),
    env.DB.prepare("DELETE FROM data_collections WHERE id = ? AND kind = 'zarr'").bind(id),
  ]);
}

const EMPTY: IngestedInfo = { envelope: null, width: null, height: null, zattrs: null, arrays: [], bands: null, maxMetersPerPixel: null };

/**
 * Ingests (or re-ingests) `r`: inspects its group, then registers it or records why not.
 * @returns the new status and errors. Storage faults (D1, R2) propagate.
 */
export async function ingestZarr(env: Pick<Env, "DB" | "BUCKETS">, r: ZarrRecord): Promise<{ status: "INGESTED" | "FAILED"; errors: string | null }> {
  await unregisterZarr(env, r.id);
  const crs = parseCrs(r.crs);
  const bucket = await resolveBucket(env, r.account, { url: `s3://${r.s3Bucket}/${r.path}` }).catch((e: unknown) => {
    if (e instanceof BucketAccessDenied) return { errors: [e.message] };
    throw e;
  });
  const g = "errors" in bucket ? bucket : await inspectGroup(bucket.store, bucket.prefix);
  if ("errors" in g) {
    const errors = g.errors.join("; ");
    await saveIngestion(env, r.id, "FAILED", errors, EMPTY);
    return { status: "FAILED", errors };
  }
  const defs = bandDefs(g, crs);
  try {
    await registerCollection(env, {
      id: zarrType(r.id), collectionId: r.id, aliases: [], kind: "zarr", owner: r.account, title: r.name, location: null, optical: false,
      config: { s3Bucket: r.s3Bucket, path: r.path, crs: r.crs, coords: g.coords }, stac: { description: `Zarr collection ${r.name}` }, bands: defs,
    });
    for (const item of items(r, g, crs)) await upsertItem(env, item);
  } catch (e) {
    await unregisterZarr(env, r.id); // never half-registered
    throw e;
  }
  const [x0, y0, x1, y1] = bboxOf(g.geoTransform, g.width, g.height);
  const envelope = { type: "Polygon" as const, coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] };
  const info: IngestedInfo = {
    envelope, width: g.width, height: g.height, zattrs: g.zattrs, arrays: g.arrays, bands: bandsJson(defs),
    maxMetersPerPixel: 3 * metres(crs, Math.abs(g.geoTransform[1])),
  };
  await saveIngestion(env, r.id, "INGESTED", null, info);
  return { status: "INGESTED", errors: null };
}

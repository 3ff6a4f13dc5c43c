/**
 * Ingestion of a Zarr collection, run by the request itself: by reingest before it answers, by create right after
 * it answered the collection CREATED (the spec's first state; ctx.waitUntil). It reads only metadata (.zgroup,
 * .zattrs, each array's .zarray/.zattrs and the x / y / time coordinate arrays: a few small objects whatever the
 * size of the data), so a queue round trip would only add latency; no pixel chunk is read. It still runs as a
 * leased unit, leased before create answers ({@link leaseZarrIngestion}, {@link ingestLeased}): a request killed
 * before or during the ingestion leaves a unit whose lease expires, and the watchdog sends its message (kind
 * `zarr-ingest`), whose consumer ingests again; nothing stays CREATED or INGESTING.
 * On success the collection is registered in the collection registry (kind zarr, type `zarr-<id>`, one band per
 * data array, units DN) with one STAC item per time step (collection `zarr-<id>`, `zarr:time_index`, assets =
 * the band arrays), so processing mosaics time steps like scenes and the catalog lists them. On failure the
 * record is FAILED with `ingestionErrors` and nothing stays registered. Status is INGESTED or FAILED afterwards.
 * The group is read as the collection's account, which must own or be granted its bucket (src/buckets/owners.ts):
 * otherwise ingestion FAILS with that reason (create refuses such a bucket with 403 before, src/zarr/routes.ts).
 */
import type { Env } from "../env";
import { BucketAccessDenied, resolveBucket } from "../buckets";
import type { TaskMessage } from "../tasks/messages";
import { runLeased, unitsStub, type UnitRef } from "../tasks/runner";
import { crsFromEpsg, parseCrs, transformBounds } from "../raster/crs";
import { bboxOf } from "../raster/reader";
import { sampleTypeOf } from "../raster/zarr/reader";
import type { Crs } from "../raster/types";
import { registerCollection, type BandDef } from "../storage/registry";
import { upsertItem } from "../storage/items";
import type { StacItem } from "../storage/stac";
import { inspectGroup, type InspectedGroup } from "./inspect";
import { getZarr, markIngesting, saveIngestion, type IngestedInfo, type ZarrRecord } from "./records";

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
    return {
      name: b.name,
      kind: "file",
      units: ["DN"],
      sampleType,
      resolution: res,
      nodata: typeof fill === "number" ? fill : null,
    };
  });
}

/** additionalData.bands as Sentinel Hub shows BYOC bands (bitDepth, sampleFormat, noData). */
function bandsJson(defs: BandDef[]): Record<string, Record<string, unknown>> {
  const format = (t: string) => (t.startsWith("FLOAT") ? "FLOAT" : t.startsWith("U") ? "UINT" : "INT");
  return Object.fromEntries(
    defs.map((d) => [
      d.name,
      {
        bitDepth: Number(/\d+/.exec(d.sampleType)![0]),
        sampleFormat: format(d.sampleType),
        ...(d.nodata === null ? {} : { noData: d.nodata }),
      },
    ]),
  );
}

/** One STAC item per time step (a single item at `created` for 2-D data). */
function items(r: ZarrRecord, g: InspectedGroup, crs: Crs): StacItem[] {
  const box = bboxOf(g.geoTransform, g.width, g.height);
  const [w, s, e, n] = transformBounds(box, crs, crsFromEpsg(4326));
  const geometry = {
    type: "Polygon",
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
  const assets = Object.fromEntries(
    g.bands.map((b) => [
      b.name,
      { href: `s3://${r.s3Bucket}/${r.path}${b.name}`, type: "application/vnd+zarr", roles: ["data"] },
    ]),
  );
  const times = g.times.length ? g.times : [Date.parse(r.created)];
  return times.map((t, i) => {
    const datetime = new Date(t).toISOString().replace(".000Z", "Z");
    return {
      type: "Feature",
      stac_version: "1.0.0",
      id: datetime,
      collection: zarrType(r.id),
      geometry,
      bbox: [w, s, e, n],
      properties: { datetime, "zarr:time_index": i },
      links: [],
      assets,
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

const EMPTY: IngestedInfo = {
  envelope: null,
  width: null,
  height: null,
  zattrs: null,
  arrays: [],
  bands: null,
  maxMetersPerPixel: null,
};

/**
 * Ingests (or re-ingests) `r`: inspects its group, then registers it or records why not.
 * @returns the new status and errors. Storage faults (D1, R2) propagate.
 */
export async function ingestZarr(
  env: Pick<Env, "DB" | "BUCKETS">,
  r: ZarrRecord,
): Promise<{ status: "INGESTED" | "FAILED"; errors: string | null }> {
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
      id: zarrType(r.id),
      collectionId: r.id,
      aliases: [],
      kind: "zarr",
      owner: r.account,
      title: r.name,
      location: null,
      optical: false,
      config: { s3Bucket: r.s3Bucket, path: r.path, crs: r.crs, coords: g.coords },
      stac: { description: `Zarr collection ${r.name}` },
      bands: defs,
    });
    for (const item of items(r, g, crs)) await upsertItem(env, item);
  } catch (e) {
    await unregisterZarr(env, r.id); // never half-registered
    throw e;
  }
  const [x0, y0, x1, y1] = bboxOf(g.geoTransform, g.width, g.height);
  const envelope = {
    type: "Polygon" as const,
    coordinates: [
      [
        [x0, y0],
        [x1, y0],
        [x1, y1],
        [x0, y1],
        [x0, y0],
      ],
    ],
  };
  const info: IngestedInfo = {
    envelope,
    width: g.width,
    height: g.height,
    zattrs: g.zattrs,
    arrays: g.arrays,
    bands: bandsJson(defs),
    maxMetersPerPixel: 3 * metres(crs, Math.abs(g.geoTransform[1])),
  };
  await saveIngestion(env, r.id, "INGESTED", null, info);
  return { status: "INGESTED", errors: null };
}

export const ZARR_INGEST_KIND = "zarr-ingest";

/** The unit id of a collection's ingestion in its UnitObject (`zarr:<id>`). */
const INGEST_UNIT = "ingest";

/** The UnitObject of collection `id`'s ingestion. */
const ingestionUnits = (env: Pick<Env, "UNITS">, id: string) => unitsStub(env, `zarr:${id}`);

/** The leased unit of a `zarr-ingest` message `{kind, collection, account}` (the kind's `lease`). */
export const zarrUnit = (body: TaskMessage, env: Pick<Env, "UNITS">): UnitRef | null =>
  typeof body.collection === "string" ? { stub: ingestionUnits(env, body.collection), unit: INGEST_UNIT } : null;

/** The record a `zarr-ingest` message names, or null (deleted since). */
async function recordOf(env: Env, body: TaskMessage): Promise<ZarrRecord | null> {
  return typeof body.collection === "string" && typeof body.account === "string"
    ? getZarr(env, body.account, body.collection)
    : null;
}

/**
 * Leases the ingestion of `r`: the unit of its collection put (again, so a reingest starts over). From then on a
 * request killed before or during the ingestion leaves a unit its watchdog sends. False while another ingestion of
 * it is under way (its lease runs).
 */
export async function leaseZarrIngestion(env: Pick<Env, "UNITS">, r: ZarrRecord): Promise<boolean> {
  const message: TaskMessage = { kind: ZARR_INGEST_KIND, collection: r.id, account: r.account };
  return (await ingestionUnits(env, r.id).putUnits([{ id: INGEST_UNIT, message }], true)).length > 0;
}

/**
 * Runs the leased ingestion of `r` (leaseZarrIngestion) now, marked INGESTING meanwhile. False, ingesting nothing,
 * when its unit is not there to claim (another owner holds it, or it finished). Storage faults propagate; the
 * unit is then retried by its watchdog.
 */
export async function ingestLeased(env: Env, r: ZarrRecord): Promise<boolean> {
  const run = await runLeased(
    { stub: ingestionUnits(env, r.id), unit: INGEST_UNIT },
    `request:${crypto.randomUUID()}`,
    async () => {
      await markIngesting(env, r.id);
      await ingestZarr(env, r);
    },
  );
  return run.ran;
}

/** Ingests `r` now: leaseZarrIngestion, then ingestLeased. False, ingesting nothing, while another ingestion of it is under way. */
export async function runZarrIngestion(env: Env, r: ZarrRecord): Promise<boolean> {
  return (await leaseZarrIngestion(env, r)) && ingestLeased(env, r);
}

/** Queue handler of `zarr-ingest`: the ingestion of a request that did not finish it (see the module docs). */
export async function zarrIngestMessage(body: TaskMessage, env: Env): Promise<void> {
  const r = await recordOf(env, body);
  if (r) await ingestZarr(env, r);
}

/** Its every attempt lost or failed: the collection is FAILED with the cause, nothing stays registered. */
export async function zarrIngestDead(
  body: TaskMessage,
  env: Env,
  message: Message<unknown>,
  cause?: string,
): Promise<void> {
  const r = await recordOf(env, body);
  if (!r) return;
  await unregisterZarr(env, r.id);
  await saveIngestion(
    env,
    r.id,
    "FAILED",
    cause ?? `Ingestion failed on all ${message.attempts} attempts (storage errors); reingest to try again.`,
    EMPTY,
  );
}

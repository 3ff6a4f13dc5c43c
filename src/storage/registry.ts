/**
 * The collection registry in D1 (tables data_collections and collection_bands, migration 0003): every data
 * collection the service knows, built-in (sentinel-2-l2a, sentinel-2-l1c, sentinel-1-grd, registered by the
 * migration) or owned by an account (BYOC, batch, Zarr), with its type id and aliases, title, location and bands
 * (kind, units, sample type, resolution, no-data, wavelength).
 *
 * Scoping: built-ins are visible to every account (and to anonymous callers, account null); an owned collection
 * only to its owner. Built-ins are cached per isolate and D1 binding for CACHE_MS (they change only with a
 * migration; the resolved list is cached, see `cache`); owned collections are read from D1 on every lookup, so
 * updates are seen at once. Returned collections may be shared between requests: treat them as read-only.
 */
import { and, asc, eq, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import type { Env } from "../env";
import { archiveSettings, offeredCollections, type ArchiveEnv } from "./archives";
import { db } from "./db";
import { collectionBands, dataCollections } from "./schema";

/** Units a band can be requested in (Sentinel Hub `units`). */
export type Units = "REFLECTANCE" | "DN" | "DEGREES" | "OPTICAL_DEPTH" | "LINEAR_POWER" | "METERS" | "KELVIN";

/** Stored sample type of a band (Sentinel Hub sampleType names). */
export type SampleType = (typeof collectionBands.sampleType.enumValues)[number];

/** Where a collection comes from: a built-in of this service, or an account's BYOC, batch or Zarr collection. */
export type CollectionKind = (typeof dataCollections.kind.enumValues)[number];

/** One band of a collection. */
export interface BandDef {
  name: string;
  /** `file`: read from the item's assets; `derived`: computed from `from`; `angle`: per-scene constant angles. */
  kind: "file" | "derived" | "angle";
  /** Units accepted, the first is the default. */
  units: Units[];
  /** Source band of a derived band. */
  from?: string;
  sampleType: SampleType;
  /** Nominal ground sampling distance in metres; null when unknown. */
  resolution: number | null;
  /** No-data value of the stored samples; null when there is none. */
  nodata: number | null;
  /** STAC eo:bands members: common name, centre wavelength and FWHM in micrometres. */
  commonName?: string;
  wavelength?: number;
  fwhm?: number;
}

/** A registered data collection. */
export interface DataCollection {
  /** Processing type id (input.data[].type), also the catalog collection id and items.collection. */
  id: string;
  /** The collection's own id: the built-in's name, or the uuid of a BYOC / batch / Zarr collection. */
  collectionId: string;
  /** Further type names accepted in requests (e.g. S2L2A). */
  aliases: string[];
  kind: CollectionKind;
  /** Owning account; null for built-ins. */
  owner: string | null;
  title: string;
  /** Deployment location id it is hosted in (spec 4.14); null = this deployment's own. */
  location: string | null;
  bands: Map<string, BandDef>;
  /** True for Sentinel-2 DN -> reflectance conversion with BOA/TOA offsets. */
  optical: boolean;
  /** Kind-specific settings (BYOC bucket, Zarr store, ...). */
  config: Record<string, unknown>;
  /** Static members of the STAC collection document (see migration 0003). */
  stac: Record<string, unknown>;
  /** Registration time, ISO 8601 UTC. */
  created: string;
}

type CollectionRow = typeof dataCollections.$inferSelect;
type BandRow = typeof collectionBands.$inferSelect;

/** How long an isolate keeps the built-ins, in ms. */
export const CACHE_MS = 60_000;

const json = <T>(text: string, fallback: T): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

function toBand(r: BandRow): BandDef {
  const units = json<Units[]>(r.units, []);
  const def = r.defaultUnits as Units;
  const band: BandDef = {
    name: r.name,
    kind: r.kind,
    units: [def, ...units.filter((u) => u !== def)],
    sampleType: r.sampleType,
    resolution: r.resolution,
    nodata: r.nodata,
  };
  if (r.sourceBand !== null) band.from = r.sourceBand;
  if (r.commonName !== null) band.commonName = r.commonName;
  if (r.wavelength !== null) band.wavelength = r.wavelength;
  if (r.fwhm !== null) band.fwhm = r.fwhm;
  return band;
}

function toCollection(r: CollectionRow, bands: BandRow[]): DataCollection {
  return {
    id: r.type,
    collectionId: r.id,
    aliases: json<string[]>(r.aliases, []),
    kind: r.kind,
    owner: r.owner,
    title: r.title,
    location: r.location,
    bands: new Map(bands.map((b) => [b.name, toBand(b)])),
    optical: r.optical === 1,
    config: json(r.config, {}),
    stac: json(r.stac, {}),
    created: r.created,
  };
}

/** The collections matching `where`, with their bands, in (built-ins first, created, id) order. */
async function load(env: Pick<Env, "DB">, where: SQL | undefined): Promise<DataCollection[]> {
  const d = db(env);
  const rows = await d
    .select()
    .from(dataCollections)
    .where(where)
    .orderBy(sql`${dataCollections.owner} IS NOT NULL`, asc(dataCollections.created), asc(dataCollections.id));
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const bands = await d
    .select()
    .from(collectionBands)
    .where(inArray(collectionBands.collection, ids))
    .orderBy(asc(collectionBands.position));
  return rows.map((r) =>
    toCollection(
      r,
      bands.filter((b) => b.collection === r.id),
    ),
  );
}

/**
 * Built-ins per D1 binding: the resolved list, never a pending promise (a Worker must not await a promise that
 * another request's I/O settles; concurrent first readers each query D1 once).
 */
const cache = new WeakMap<object, { at: number; list: DataCollection[] }>();

/**
 * The built-in collections (cached per isolate and D1 binding for CACHE_MS), without those only an upstream archive
 * holds (`config.archiveOnly`: dem, landsat-ot-l2) when the deployment's archive does not serve them (no archive,
 * or a requester-pays bucket without the operator's AWS keys: ./archives.ts).
 */
export async function builtinCollections(env: Pick<Env, "DB"> & ArchiveEnv): Promise<DataCollection[]> {
  const hit = cache.get(env.DB);
  const list = hit && Date.now() - hit.at < CACHE_MS ? hit.list : await load(env, isNull(dataCollections.owner));
  if (list !== hit?.list) cache.set(env.DB, { at: Date.now(), list });
  if (!list.some((c) => c.config.archiveOnly === true)) return list;
  const offered = offeredCollections(archiveSettings(env));
  return list.filter((c) => c.config.archiveOnly !== true || offered.includes(c.id));
}

/** Owned collections of `account` matching `where` (none for anonymous callers). */
function owned(env: Pick<Env, "DB">, account: string | null, where?: SQL): Promise<DataCollection[]> {
  if (account === null) return Promise.resolve([]);
  return load(env, and(eq(dataCollections.owner, account), where));
}

/** Every collection `account` sees: the built-ins, then its own in registration order. */
export async function visibleCollections(env: Pick<Env, "DB">, account: string | null): Promise<DataCollection[]> {
  const [builtins, own] = await Promise.all([builtinCollections(env), owned(env, account)]);
  return [...builtins, ...own];
}

/**
 * The collection `account` sees under the exact type id `type` (the catalog collection id), or undefined.
 */
export async function findCollection(
  env: Pick<Env, "DB">,
  account: string | null,
  type: string,
): Promise<DataCollection | undefined> {
  const builtin = (await builtinCollections(env)).find((c) => c.id === type);
  return builtin ?? (await owned(env, account, eq(dataCollections.type, type)))[0];
}

/**
 * The collection a request's `input.data[].type` names for `account`: a type id, an alias (as Sentinel Hub spells
 * it) or a built-in id in another letter case; undefined when `account` sees none.
 */
export async function resolveCollectionType(
  env: Pick<Env, "DB">,
  account: string | null,
  type: string,
): Promise<DataCollection | undefined> {
  const builtin = (await builtinCollections(env)).find(
    (c) => c.id === type || c.aliases.includes(type) || c.id === type.toLowerCase(),
  );
  if (builtin) return builtin;
  const aliased = sql`EXISTS (SELECT 1 FROM json_each(${dataCollections.aliases}) WHERE value = ${type})`;
  return (await owned(env, account, or(eq(dataCollections.type, type), aliased)))[0];
}

/** A collection to register: everything but the derived fields; `created` defaults to now. */
export type NewCollection = Omit<DataCollection, "created" | "bands"> & { bands: BandDef[]; created?: string };

/**
 * Registers a collection with its bands (one D1 batch, so either all rows land or none).
 * @throws Error when `owner` is null for a non-built-in (or set for a built-in), or the id / type is taken (D1
 *   constraint errors).
 */
export async function registerCollection(env: Pick<Env, "DB">, c: NewCollection): Promise<void> {
  if ((c.kind === "builtin") !== (c.owner === null))
    throw new Error(`registerCollection: a ${c.kind} collection ${c.owner === null ? "needs" : "has no"} owner`);
  const d = db(env);
  const row = {
    id: c.collectionId,
    type: c.id,
    aliases: JSON.stringify(c.aliases),
    kind: c.kind,
    owner: c.owner,
    title: c.title,
    location: c.location,
    optical: c.optical ? 1 : 0,
    config: JSON.stringify(c.config),
    stac: JSON.stringify(c.stac),
    created: c.created ?? new Date().toISOString(),
  };
  const bands = c.bands.map((b, position) => ({
    collection: c.collectionId,
    position,
    name: b.name,
    kind: b.kind,
    units: JSON.stringify(b.units),
    defaultUnits: b.units[0] ?? "DN",
    sampleType: b.sampleType,
    resolution: b.resolution,
    nodata: b.nodata,
    sourceBand: b.from ?? null,
    commonName: b.commonName ?? null,
    wavelength: b.wavelength ?? null,
    fwhm: b.fwhm ?? null,
  }));
  const insert = d.insert(dataCollections).values(row);
  if (bands.length === 0) await insert;
  else await d.batch([insert, d.insert(collectionBands).values(bands)]);
}

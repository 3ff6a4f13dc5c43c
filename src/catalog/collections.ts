/**
 * Catalog collections: the STAC collection documents of the registry's collections (src/storage/registry.ts) the
 * caller sees (built-ins for everyone, owned collections for their owner): the registry's static STAC members,
 * title, `summaries["eo:bands"]` from its bands with a wavelength, and the extent computed from its items in D1.
 */
import type { Env } from "../env";
import type { LocationEnv } from "../locations/config";
import { assertHosted, hostedHere } from "../locations/hosting";
import { isoTime } from "./time";
import { CATALOG_TITLE, type CatalogUrls } from "./render";
import { QUERYABLES_REL } from "./queryables";
import { itemsBackend } from "../storage/backend";
import { findCollection as findRegistered, visibleCollections, type DataCollection } from "../storage/registry";

/** A STAC extent: bbox [[west, south, east, north]] in CRS84 degrees and [[first, last]] ISO 8601 times. */
export interface Extent {
  spatial: { bbox: number[][] };
  temporal: { interval: (string | null)[][] };
}

/** A collection document without `extent` and `links`; `extent_default` is served while it has no items. */
export type CollectionBase = Record<string, unknown> & { id: string; title: string; extent_default: Extent };

const WORLD: Extent = { spatial: { bbox: [[-180, -90, 180, 90]] }, temporal: { interval: [[null, null]] } };

/** STAC eo:bands entries of the bands with a known wavelength (name, common_name, centre and FWHM in um). */
function eoBands(c: DataCollection): Record<string, unknown>[] {
  return [...c.bands.values()]
    .filter((b) => b.wavelength !== undefined)
    .map((b) => ({
      name: b.name,
      ...(b.commonName ? { common_name: b.commonName } : {}),
      center_wavelength: b.wavelength,
      ...(b.fwhm !== undefined ? { full_width_half_max: b.fwhm } : {}),
    }));
}

/** The document base of a registered collection. */
export function collectionBase(c: DataCollection): CollectionBase {
  const { summaries, extent_default, ...rest } = c.stac as {
    summaries?: Record<string, unknown>;
    extent_default?: Extent;
  };
  const bands = eoBands(c);
  const merged = bands.length ? { ...summaries, "eo:bands": bands } : summaries;
  return {
    ...rest,
    id: c.id,
    title: c.title,
    ...(merged ? { summaries: merged } : {}),
    extent_default: extent_default ?? WORLD,
  };
}

/** All collections `account` sees (null: anonymous, built-ins only) hosted in this location: built-ins first, then its own. */
export async function listCollections(
  env: Pick<Env, "DB"> & LocationEnv,
  account: string | null,
): Promise<CollectionBase[]> {
  return (await visibleCollections(env, account)).filter((c) => hostedHere(env, c)).map(collectionBase);
}

/**
 * The collection with catalog id `id` that `account` sees, or undefined.
 * @throws ApiError 404 naming the hosting location when another location hosts it (src/locations/hosting.ts).
 */
export async function findCollection(
  env: Pick<Env, "DB"> & LocationEnv,
  account: string | null,
  id: string,
): Promise<CollectionBase | undefined> {
  const c = await findRegistered(env, account, id);
  if (c) assertHosted(env, [c]);
  return c && collectionBase(c);
}

/**
 * STAC extents computed from the items (the items backend, src/storage/extents.ts): the union of item bboxes and [first, last]
 * acquisition time. Collections without items are absent from the map.
 */
export async function itemExtents(env: Pick<Env, "DB">, collection?: string): Promise<Map<string, Extent>> {
  const out = new Map<string, Extent>();
  for (const [id, x] of await itemsBackend(env).extents(collection)) {
    out.set(id, { spatial: { bbox: [x.bbox] }, temporal: { interval: [[isoTime(x.from), isoTime(x.to)]] } });
  }
  return out;
}

/** The STAC collection document as served under `urls`; every link has a title (stac-check's best practice). */
export function renderCollection(
  base: CollectionBase,
  extent: Extent | undefined,
  urls: CatalogUrls,
): Record<string, unknown> {
  const { extent_default, id, title, links: _ignored, ...rest } = base;
  const self = urls.collection(id);
  return {
    stac_version: "1.0.0",
    stac_extensions: [],
    type: "Collection",
    id,
    title,
    ...rest,
    description: rest.description ?? title,
    license: rest.license ?? "various",
    extent: extent ?? extent_default,
    links: [
      { rel: "root", href: `${urls.root}/`, type: "application/json", title: CATALOG_TITLE },
      { rel: "self", href: self, type: "application/json", title },
      { rel: "parent", href: `${urls.root}/`, type: "application/json", title: CATALOG_TITLE },
      { rel: "items", href: `${self}/items`, type: "application/geo+json", title: `Items of ${title}` },
      {
        rel: QUERYABLES_REL,
        href: `${self}/queryables`,
        type: "application/schema+json",
        title: `Queryables of ${title}`,
      },
      ...(base.license === "proprietary"
        ? [
            {
              rel: "license",
              href: "https://sentinels.copernicus.eu/documents/247904/690755/Sentinel_Data_Legal_Notice",
              title: "Legal notice on the use of Copernicus Sentinel Data and Service Information",
            },
          ]
        : []),
    ],
  };
}

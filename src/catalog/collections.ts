/**
 * Catalog collections: the built-in ones (definitions.ts) plus any documents in the D1 `collections` table
 * (a row with the same id replaces a built-in). The extent of each is computed from its items in D1.
 */
import type { Env } from "../env";
import { isoTime } from "./time";
import { BUILTIN_COLLECTIONS, type CollectionBase, type Extent } from "./definitions";
import type { CatalogUrls } from "./render";
import { itemExtents as storedExtents } from "../storage/extents";

interface CollectionRow {
  id: string;
  doc: string;
}

function fromRow(row: CollectionRow): CollectionBase | undefined {
  try {
    const doc = JSON.parse(row.doc) as Record<string, unknown>;
    const extent = (doc.extent as Extent | undefined) ?? {
      spatial: { bbox: [[-180, -90, 180, 90]] },
      temporal: { interval: [[null, null]] },
    };
    return { title: row.id, ...doc, id: row.id, extent_default: extent } as CollectionBase;
  } catch {
    return undefined;
  }
}

/** All collections, built-ins first, in id order within each group. */
export async function listCollections(env: Pick<Env, "DB">): Promise<CollectionBase[]> {
  const { results } = await env.DB.prepare("SELECT id, doc FROM collections ORDER BY id").all<CollectionRow>();
  const stored = results.map(fromRow).filter((c): c is CollectionBase => c !== undefined);
  const ids = new Set(stored.map((c) => c.id));
  return [...BUILTIN_COLLECTIONS.filter((c) => !ids.has(c.id)), ...stored];
}

/** One collection, or undefined when there is none with that id. */
export async function findCollection(env: Pick<Env, "DB">, id: string): Promise<CollectionBase | undefined> {
  const row = await env.DB.prepare("SELECT id, doc FROM collections WHERE id = ?").bind(id).first<CollectionRow>();
  return row ? fromRow(row) : BUILTIN_COLLECTIONS.find((c) => c.id === id);
}

/**
 * STAC extents computed from the items (src/storage/extents.ts): the union of item bboxes and [first, last]
 * acquisition time. Collections without items are absent from the map.
 */
export async function itemExtents(env: Pick<Env, "DB">, collection?: string): Promise<Map<string, Extent>> {
  const out = new Map<string, Extent>();
  for (const [id, x] of await storedExtents(env, collection)) {
    out.set(id, { spatial: { bbox: [x.bbox] }, temporal: { interval: [[isoTime(x.from), isoTime(x.to)]] } });
  }
  return out;
}

/** The STAC collection document as served under `urls`. */
export function renderCollection(base: CollectionBase, extent: Extent | undefined, urls: CatalogUrls): Record<string, unknown> {
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
      { rel: "root", href: `${urls.root}/`, type: "application/json" },
      { rel: "self", href: self, type: "application/json" },
      { rel: "parent", href: `${urls.root}/`, type: "application/json" },
      { rel: "items", href: `${self}/items`, type: "application/geo+json" },
      { rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables", href: `${self}/queryables`, type: "application/schema+json" },
      ...(base.license === "proprietary"
        ? [{ rel: "license", href: "https://sentinels.copernicus.eu/documents/247904/690755/Sentinel_Data_Legal_Notice", title: "Legal notice on the use of Copernicus Sentinel Data and Service Information" }]
        : []),
    ],
  };
}

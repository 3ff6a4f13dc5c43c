/**
 * STAC items in D1 (table `items`): insert/update and the scene lookup the processing engine uses.
 * An item's asset hrefs are R2 keys in the DATA bucket (paths under data/ in the repository).
 */
import type { Env } from "../env";
import { forgetScenes } from "./scenes";
import type { StacItem } from "./stac";

/** The columns of table `items`, in the order of {@link itemColumns}. */
export const ITEM_COLUMNS = [
  "collection",
  "id",
  "datetime",
  "cloud_cover",
  "min_lon",
  "min_lat",
  "max_lon",
  "max_lat",
  "doc",
] as const;

/**
 * The `items` columns of one item: datetime in ms since epoch (NaN when unparsable), cloud cover or null, the 2D
 * bbox (of a 3D one too), the item as JSON. @throws TypeError when the item has no bbox.
 */
export function itemColumns(item: StacItem): unknown[] {
  const [minLon, minLat, maxLon, maxLat] =
    item.bbox.length === 6 ? [item.bbox[0], item.bbox[1], item.bbox[3], item.bbox[4]] : item.bbox;
  const cc = item.properties["eo:cloud_cover"];
  const datetime = Date.parse(item.properties.datetime);
  const cloudCover = typeof cc === "number" ? cc : null;
  return [item.collection, item.id, datetime, cloudCover, minLon, minLat, maxLon, maxLat, JSON.stringify(item)];
}

/** Inserts or replaces one item (and empties this isolate's scene cache). Throws when datetime or bbox is missing. */
export async function upsertItem(env: Pick<Env, "DB">, item: StacItem): Promise<void> {
  const columns = itemColumns(item);
  if (!Number.isFinite(columns[2])) throw new Error(`item ${item.id}: invalid datetime`);
  await env.DB.prepare(
    `INSERT OR REPLACE INTO items (${ITEM_COLUMNS.join(", ")}) VALUES (${ITEM_COLUMNS.map(() => "?").join(", ")})`,
  )
    .bind(...columns)
    .run();
  forgetScenes();
}

/** One stored item of `collection` (catalog collection id), or null when there is none with that id. */
export async function getItem(env: Pick<Env, "DB">, collection: string, id: string): Promise<StacItem | null> {
  const row = await env.DB.prepare("SELECT doc FROM items WHERE collection = ? AND id = ?")
    .bind(collection, id)
    .first<{ doc: string }>();
  return row ? (JSON.parse(row.doc) as StacItem) : null;
}

/** Where one band of an item is stored: R2 key and 0-based sample index inside that file. */
export interface BandLocation {
  key: string;
  index: number;
}

/**
 * Finds a band among an item's assets: an asset keyed by the band name, or an asset whose `eo:bands` lists it
 * (its position is the sample index). Null when the item has no such band.
 */
export function locateBand(item: StacItem, band: string): BandLocation | null {
  const direct = item.assets[band];
  if (direct && (direct["eo:bands"]?.length ?? 1) <= 1) return { key: direct.href, index: 0 };
  for (const asset of Object.values(item.assets)) {
    const i = asset["eo:bands"]?.findIndex((b) => b.name === band) ?? -1;
    if (i >= 0) return { key: asset.href, index: i };
  }
  return null;
}

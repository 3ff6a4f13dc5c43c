/**
 * Collection extents computed from the items, kept in `catalog_extents` by the triggers of migration 0002: inserts
 * widen a collection's extent, deletes/updates/replacements mark it stale and the next reader recomputes it.
 */
import type { Env } from "../env";
import { EAST_SQL } from "./condition";

/**
 * The extent of a collection's items: `bbox` [west, south, east, north] in CRS84 degrees (west > east when the union
 * crosses the antimeridian), `from` / `to` the first and last acquisition times in ms since epoch.
 */
export interface ItemExtent {
  bbox: [number, number, number, number];
  from: number;
  to: number;
}

interface ExtentRow {
  collection: string;
  t0: number;
  t1: number;
  w: number;
  s: number;
  e: number;
  n: number;
  stale: number;
}

const EXTENT_COLUMNS =
  "collection, min_datetime AS t0, max_datetime AS t1, min_lon AS w, min_lat AS s, max_lon_e AS e, max_lat AS n, stale";

/** Recomputes a stale extent from the items (a scan of the collection) and stores it. */
async function refreshExtent(env: Pick<Env, "DB">, collection: string): Promise<ExtentRow | undefined> {
  const fresh = env.DB.prepare(
    "UPDATE catalog_extents SET (min_datetime, max_datetime, min_lon, min_lat, max_lon_e, max_lat, stale) = " +
      `(SELECT min(datetime), max(datetime), min(min_lon), min(min_lat), max(${EAST_SQL}), max(max_lat), 0 FROM items WHERE collection = ?1) ` +
      "WHERE collection = ?1 AND EXISTS (SELECT 1 FROM items WHERE collection = ?1)",
  ).bind(collection);
  const empty = env.DB.prepare(
    "DELETE FROM catalog_extents WHERE collection = ?1 AND NOT EXISTS (SELECT 1 FROM items WHERE collection = ?1)",
  ).bind(collection);
  await env.DB.batch([fresh, empty]);
  return (
    (await env.DB.prepare(`SELECT ${EXTENT_COLUMNS} FROM catalog_extents WHERE collection = ?`)
      .bind(collection)
      .first<ExtentRow>()) ?? undefined
  );
}

function toExtent(r: ExtentRow): ItemExtent {
  const [w, e] = r.e <= 180 ? [r.w, r.e] : r.e - 360 >= r.w ? [-180, 180] : [r.w, r.e - 360];
  return { bbox: [w, r.s, e, r.n], from: r.t0, to: r.t1 };
}

/**
 * Extents computed from the items: the union of item bboxes (longitudes unwrapped across the antimeridian; a
 * union wider than 360 degrees becomes -180..180) and [first, last] acquisition time, per collection id (all
 * collections, or only `collection`). Collections without items are absent from the map.
 */
export async function itemExtents(env: Pick<Env, "DB">, collection?: string): Promise<Map<string, ItemExtent>> {
  const where = collection === undefined ? "" : "WHERE collection = ?";
  const stmt = env.DB.prepare(`SELECT ${EXTENT_COLUMNS} FROM catalog_extents ${where}`);
  const { results } = await (collection === undefined ? stmt : stmt.bind(collection)).all<ExtentRow>();
  const out = new Map<string, ItemExtent>();
  for (const row of results) {
    const r = row.stale ? await refreshExtent(env, row.collection) : row;
    if (r) out.set(r.collection, toExtent(r));
  }
  return out;
}

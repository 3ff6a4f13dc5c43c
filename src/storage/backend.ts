/**
 * The items backend: what the API areas (catalog, processing, statistics, the coming task areas) ask of stored STAC
 * items, behind one interface, the way stac-fastapi keeps its database backends apart from the API. Areas build
 * queries from these shapes (SceneQuery; ItemQuery with a Condition from condition.ts and the filter SQL of
 * filters.ts / properties.ts) and never write SQL against `items` themselves. `itemsBackend(env)` is the D1
 * implementation (tables of migrations 0001/0002).
 */
import type { Env } from "../env";
import { itemExtents, type ItemExtent } from "./extents";
import { getItem, upsertItem } from "./items";
import type { StacItem } from "./stac";
import { findSceneTimes, findScenes, type MosaickingOrder, type Scene, type SceneQuery } from "./scenes";
import {
  countMatches,
  distinctValues,
  fetchRows,
  newestItems,
  scanMatches,
  type CountLimits,
  type ItemQuery,
  type ItemRow,
  type RowCursor,
  type SortField,
  type SortTerm,
} from "./search";

export type {
  CountLimits,
  ItemExtent,
  ItemQuery,
  ItemRow,
  MosaickingOrder,
  RowCursor,
  Scene,
  SceneQuery,
  SortField,
  SortTerm,
  StacItem,
};

export interface ItemsBackend {
  /** Inserts or replaces an item (key: collection + id). Throws when its datetime or bbox is missing. */
  upsert(item: StacItem): Promise<void>;
  /** One item, or null. */
  get(collection: string, id: string): Promise<StacItem | null>;
  /** Processing scene search: overlap (antimeridian-aware), time, cloud cover, properties, mosaicking order. */
  scenes(q: SceneQuery): Promise<Scene[]>;
  /** The acquisition times (ms, ascending) of a scene search's scenes, at most `q.limit`, without their documents. */
  sceneTimes(q: SceneQuery): Promise<number[]>;
  /** Catalog rows in the query's order from a datetime (datetime orders only), skipping `skip`, at most `take`. */
  rows(q: ItemQuery, from: number | undefined, skip: number, take: number): Promise<ItemRow[]>;
  /** Walks the rows that pass the exact condition from the cursor until `visit` returns false. */
  scan(
    q: ItemQuery,
    pageSize: number,
    cursor: RowCursor,
    visit: (row: ItemRow, item: StacItem) => boolean,
  ): Promise<void>;
  /** The number of matching rows, or undefined past the limits. */
  count(q: ItemQuery, limits: CountLimits): Promise<number | undefined>;
  /** Distinct non-null values of an SQL expression over an exact query, ascending. */
  distinct(q: ItemQuery, expr: string, offset: number, take: number): Promise<unknown[]>;
  /** The id of the newest item of each collection that has items. */
  newest(collections: string[]): Promise<{ collection: string; id: string }[]>;
  /** Per-collection extents of the items (all collections, or one). */
  extents(collection?: string): Promise<Map<string, ItemExtent>>;
}

/** The D1 items backend over `env.DB`. */
export function itemsBackend(env: Pick<Env, "DB">): ItemsBackend {
  return {
    upsert: (item) => upsertItem(env, item),
    get: (collection, id) => getItem(env, collection, id),
    scenes: (q) => findScenes(env, q),
    sceneTimes: (q) => findSceneTimes(env, q),
    rows: (q, from, skip, take) => fetchRows(env, q, from, skip, take),
    scan: (q, pageSize, cursor, visit) => scanMatches(env, q, pageSize, cursor, visit),
    count: (q, limits) => countMatches(env, q, limits),
    distinct: (q, expr, offset, take) => distinctValues(env, q, expr, offset, take),
    newest: (collections) => newestItems(env, collections),
    extents: (collection) => itemExtents(env, collection),
  };
}

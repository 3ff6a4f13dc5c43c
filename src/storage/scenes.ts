/**
 * Scene search for processing: a collection's items in D1 that overlap a lon/lat box, within a time range and
 * cloud-cover limit, with optional item-property equalities, in a mosaicking order. The bbox test is the catalog's
 * (condition.ts bboxOverlapSql), so items whose bbox crosses the antimeridian (min_lon > max_lon) are found from
 * either side, and so are queries whose box crosses it (west > east).
 */
import type { Env } from "../env";
import { Lru } from "../raster/lru";
import { SCENE_CACHE_BYTES } from "../raster/memory";
import { bboxOverlapSql, type BBox } from "./condition";
import type { StacItem } from "./stac";

/** Scene orders of Sentinel Hub's `mosaickingOrder`; ties are broken by item id. */
export type MosaickingOrder = "mostRecent" | "leastRecent" | "leastCC";

export interface SceneQuery {
  /** Catalog collection id of the items (the registry's type id, e.g. sentinel-2-l2a). */
  collection: string;
  /** [west, south, east, north] in CRS84 degrees; west > east crosses the antimeridian. */
  lonLatBbox: BBox;
  /** ms since epoch, inclusive. */
  from: number;
  to: number;
  /** eo:cloud_cover upper limit in percent (items without cloud cover always pass). */
  maxCloudCoverage: number;
  order: MosaickingOrder;
  limit: number;
  /** Item properties that must equal these values (ASCII case-insensitive), e.g. `sat:orbit_state`. */
  properties?: Record<string, string>;
  /**
   * True when the answer may come from this isolate's scene cache (see {@link findScenes}): for built-in
   * collections, whose items change only when the archive is seeded (upsertItem).
   */
  cacheable?: boolean;
}

export interface Scene {
  item: StacItem;
  /** Acquisition time, ms since epoch. */
  time: number;
  cloudCover: number | null;
}

const ORDER_SQL: Record<MosaickingOrder, string> = {
  mostRecent: "datetime DESC, id",
  leastRecent: "datetime ASC, id",
  leastCC: "cloud_cover IS NULL, cloud_cover ASC, datetime DESC, id",
};

/** A property name safe to splice into a JSON path (names come from code, e.g. s1PropertyFilter). */
const PROPERTY = /^[A-Za-z0-9_:.-]+$/;

/** How long a cached scene search answers, in ms. */
export const SCENES_TTL_MS = 60_000;
/**
 * Bytes a parsed item holds per character of its JSON text: V8 objects of short strings and numbers take about 2-3x
 * the UTF-16 text (an estimate; the cache budget, SCENE_CACHE_BYTES, keeps it well inside the isolate's memory).
 */
export const SCENE_BYTES_PER_CHAR = 6;
const cache = new Lru<{ at: number; scenes: readonly Scene[]; bytes: number }>(
  512,
  SCENE_CACHE_BYTES,
  (e) => e.bytes,
  true,
);

/** The scene cache's entries, bytes and budget (tests). */
export const sceneCacheStats = () => cache.stats;

/** Empties this isolate's scene cache (upsertItem calls it; so must any other writer of built-in items). */
export function forgetScenes(): void {
  cache.clear();
}

/** `x` and everything in it made read-only (cached scenes are shared by requests: a change would leak). */
function deepFreeze<T>(x: T): T {
  if (x && typeof x === "object" && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) deepFreeze(v);
  }
  return x;
}

/**
 * Finds scenes (STAC items) for a query: at most `limit`, in mosaicking order. A `cacheable` query is answered
 * from this isolate's cache for SCENES_TTL_MS (one D1 round trip less per request); items written through
 * upsertItem in this isolate empty it at once, other isolates see them within SCENES_TTL_MS. Cached scenes are
 * deeply frozen: callers must not change them.
 * @throws Error when a property name of `q.properties` is not a plain name (they come from code, never a request).
 */
export async function findScenes(env: Pick<Env, "DB">, q: SceneQuery): Promise<Scene[]> {
  if (!q.cacheable) return (await searchScenes(env, q)).scenes;
  const hit = cachedScenes(q);
  if (hit) return hit;
  const now = Date.now();
  const found = await searchScenes(env, q);
  const scenes = deepFreeze(found.scenes);
  cache.set(cacheKey(q), { at: now, scenes, bytes: 64 + found.chars * SCENE_BYTES_PER_CHAR });
  return scenes;
}

/** The scene cache's key of a query: everything its answer depends on. */
const cacheKey = (q: SceneQuery): string =>
  JSON.stringify([
    q.collection,
    q.lonLatBbox,
    q.from,
    q.to,
    q.maxCloudCoverage,
    q.order,
    q.limit,
    q.properties ?? null,
  ]);

/**
 * The answer {@link findScenes} would give `q` from this isolate's cache (deeply frozen), or undefined when it would
 * query D1 (not cacheable, not cached, or older than SCENES_TTL_MS). Synchronous: src/archive asks it to know,
 * before starting an upstream search, whether the local store's answer is already known.
 */
export function cachedScenes(q: SceneQuery): Scene[] | undefined {
  if (!q.cacheable) return undefined;
  const hit = cache.get(cacheKey(q));
  const now = Date.now();
  return hit && now - hit.at < SCENES_TTL_MS && now >= hit.at ? (hit.scenes as Scene[]) : undefined;
}

/** The WHERE clause of a scene query (parameters in order) and its property filters. */
function sceneWhere(q: SceneQuery): { text: string; params: unknown[] } {
  const overlap = bboxOverlapSql(q.lonLatBbox);
  const props = Object.entries(q.properties ?? {});
  for (const [name] of props)
    if (!PROPERTY.test(name)) throw new Error(`findScenes: bad property name ${JSON.stringify(name)}`);
  const propSql = props
    .map(([name]) => ` AND upper(ifnull(json_extract(doc, '$.properties."${name}"'), '')) = upper(?)`)
    .join("");
  return {
    text: `collection = ? AND datetime >= ? AND datetime <= ? AND ${overlap.text}
       AND (cloud_cover IS NULL OR cloud_cover <= ?)${propSql}`,
    params: [q.collection, q.from, q.to, ...overlap.params, q.maxCloudCoverage, ...props.map(([, v]) => v)],
  };
}

/** The D1 search of {@link findScenes}: the scenes and the characters of their JSON documents. */
async function searchScenes(env: Pick<Env, "DB">, q: SceneQuery): Promise<{ scenes: Scene[]; chars: number }> {
  const where = sceneWhere(q);
  const rows = await env.DB.prepare(
    `SELECT doc, datetime, cloud_cover FROM items WHERE ${where.text} ORDER BY ${ORDER_SQL[q.order]} LIMIT ?`,
  )
    .bind(...where.params, q.limit)
    .all<{ doc: string; datetime: number; cloud_cover: number | null }>();
  const chars = rows.results.reduce((a, r) => a + r.doc.length, 0);
  return {
    scenes: rows.results.map((r) => ({
      item: JSON.parse(r.doc) as StacItem,
      time: r.datetime,
      cloudCover: r.cloud_cover,
    })),
    chars,
  };
}

/**
 * The acquisition times (ms, ascending) of the scenes of `q` (its order ignored), at most `q.limit`: one D1 query
 * that reads no item document, for planning a time series (src/stats/series.ts).
 */
export async function findSceneTimes(env: Pick<Env, "DB">, q: SceneQuery): Promise<number[]> {
  const where = sceneWhere(q);
  const rows = await env.DB.prepare(`SELECT datetime FROM items WHERE ${where.text} ORDER BY datetime ASC LIMIT ?`)
    .bind(...where.params, q.limit)
    .raw<[number]>();
  return rows.map((r) => r[0]);
}

/** Orders scenes in place as the D1 search's ORDER_SQL does (ids compared as SQLite's BINARY collation for ASCII). */
export function sortScenes(scenes: Scene[], order: MosaickingOrder): Scene[] {
  const byId = (a: Scene, b: Scene) => (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0);
  const cmp: Record<MosaickingOrder, (a: Scene, b: Scene) => number> = {
    mostRecent: (a, b) => b.time - a.time || byId(a, b),
    leastRecent: (a, b) => a.time - b.time || byId(a, b),
    leastCC: (a, b) =>
      Number(a.cloudCover === null) - Number(b.cloudCover === null) ||
      (a.cloudCover ?? 0) - (b.cloudCover ?? 0) ||
      b.time - a.time ||
      byId(a, b),
  };
  return scenes.sort(cmp[order]);
}

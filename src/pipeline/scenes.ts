/**
 * Scene search of a data source: its dataFilter (time range, cloud cover, mosaicking order, Sentinel-1 filters) as
 * a query of the items backend (src/storage/backend.ts; the D1 search is src/storage/scenes.ts).
 */
import type { Env } from "../env";
import { itemsBackend, type MosaickingOrder, type Scene, type SceneQuery } from "../storage/backend";
import type { DataCollection } from "./collections";
import type { DataSourceRequest } from "./input";

export type { MosaickingOrder, Scene, SceneQuery };

export { sortScenes } from "../storage/scenes";

/** The acquisition times (ms, ascending) of a scene search, at most `q.limit`, without the items (one query). */
export function findSceneTimes(env: Pick<Env, "DB">, q: SceneQuery): Promise<number[]> {
  return itemsBackend(env).sceneTimes(q);
}

/** Runs a scene search on the items backend: at most `q.limit` scenes in mosaicking order. */
export function findScenes(env: Pick<Env, "DB">, q: SceneQuery): Promise<Scene[]> {
  return itemsBackend(env).scenes(q);
}

/**
 * Sentinel-1 dataFilter members (Sentinel Hub S1GRD: acquisitionMode, polarization, resolution, orbitDirection)
 * as item property filters (STAC sar/s1/sat extension fields).
 */
export function s1PropertyFilter(dataFilter: Record<string, unknown> | undefined): Record<string, string> {
  const map: Record<string, string> = {
    acquisitionMode: "sar:instrument_mode",
    polarization: "s1:polarization",
    resolution: "s1:resolution",
    orbitDirection: "sat:orbit_state",
  };
  const out: Record<string, string> = {};
  for (const [member, property] of Object.entries(map)) {
    const v = dataFilter?.[member];
    if (typeof v === "string" && v) out[property] = v;
  }
  return out;
}

/**
 * The scene search of a data source (its request entry and resolved collection, see sources.ts) over `lonLatBbox`
 * (CRS84 degrees) between `from` and `to` (ms, inclusive): its collection, maxCloudCoverage (default 100), the S1
 * property filters, and `order` (default: its mosaickingOrder, else mostRecent). Searches of built-in collections
 * may be answered from the isolate's scene cache (src/storage/scenes.ts).
 */
export function sceneQueryFor(
  { request: source, collection: c }: { request: DataSourceRequest; collection: DataCollection },
  lonLatBbox: SceneQuery["lonLatBbox"],
  from: number,
  to: number,
  limit: number,
  order: MosaickingOrder = source.dataFilter?.mosaickingOrder ?? "mostRecent",
): SceneQuery {
  const collection = c.id;
  return {
    collection,
    lonLatBbox,
    from,
    to,
    maxCloudCoverage: source.dataFilter?.maxCloudCoverage ?? 100,
    order,
    limit,
    properties: collection === "sentinel-1-grd" ? s1PropertyFilter(source.dataFilter) : undefined,
    cacheable: c.kind === "builtin",
  };
}

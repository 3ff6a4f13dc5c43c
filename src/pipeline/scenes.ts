/**
 * Scene search of a data source: its dataFilter (time range, cloud cover, mosaicking order, Sentinel-1 filters) as
 * a query of the items backend (src/storage/backend.ts; the D1 search is src/storage/scenes.ts).
 */
import type { Env } from "../env";
import { findScenes as storeScenes, findSceneTimes as storeSceneTimes, type ArchiveOptions } from "../archive";
import type { MosaickingOrder, Scene, SceneQuery } from "../storage/backend";
import type { DataCollection } from "./collections";
import type { DataSourceRequest } from "./input";

export type { MosaickingOrder, Scene, SceneQuery };

export { sortScenes } from "../storage/scenes";

/** A data source as the scene search needs it: its request entry and resolved collection (see sources.ts). */
export interface SearchedSource {
  request: DataSourceRequest;
  collection: DataCollection;
}

/**
 * The acquisition times (ms, ascending) of the scene search `q` of `source`, at most `q.limit`, without the items
 * (one query of the local store; the archive's search when the local store has none, see findScenes).
 */
export function findSceneTimes(env: Env, source: SearchedSource, q: SceneQuery): Promise<number[]> {
  return storeSceneTimes(env, source.collection, q, archiveOptions(source.request));
}

/** Scene searches in flight in this isolate, by searchKey: a search asked for again meanwhile joins the first. */
const inFlight = new Map<string, Promise<Scene[]>>();

/**
 * What a scene search's answer depends on: the archive the environment names (one per deployment; tests vary it per
 * call), the collection (id, kind, owner), the query and the archive options.
 */
const searchKey = (env: Env, source: SearchedSource, q: SceneQuery, options: ArchiveOptions): string => {
  const { id, kind, owner } = source.collection;
  return JSON.stringify([env.EO_EDGE_ARCHIVE, env.ARCHIVE_STAC_URL, id, kind, owner, q, options]);
};

/**
 * Runs the scene search `q` of `source`: at most `q.limit` scenes in mosaicking order, from the local store or, for
 * a built-in an upstream archive serves and nothing local matches, from the archive (src/archive). The same search
 * asked while one is in flight in this isolate (the request's own prefetch, prefetch.ts, or a concurrent request)
 * gets that search's answer instead of a second round trip.
 * @throws UpstreamError (502 / 503) when the archive fails; EngineError invalid-argument for options it cannot serve.
 */
export function findScenes(env: Env, source: SearchedSource, q: SceneQuery): Promise<Scene[]> {
  const options = archiveOptions(source.request);
  const key = searchKey(env, source, q, options);
  const pending = inFlight.get(key);
  if (pending) return pending;
  const search = storeScenes(env, source.collection, q, options).finally(() => inFlight.delete(key));
  inFlight.set(key, search);
  return search;
}

/** The request options that choose an archive's upstream collection: dataFilter.demInstance, the processing options. */
export function archiveOptions(request: DataSourceRequest): ArchiveOptions {
  const pick = (o: unknown, k: string) => {
    const v = (o as Record<string, unknown> | undefined)?.[k];
    return typeof v === "string" ? v : undefined;
  };
  const processing = request.processing as ArchiveOptions["processing"];
  return { demInstance: pick(request.dataFilter, "demInstance"), ...(processing ? { processing } : {}) };
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

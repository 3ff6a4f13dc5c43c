/**
 * Scene search for processing: the collection's STAC items in D1 that intersect the request footprint, within
 * the time range and cloud-cover limit, in the requested mosaicking order.
 */
import type { Env } from "../env";
import type { StacItem } from "../storage/items";
import { collectionForType } from "./collections";
import type { DataSourceRequest } from "./input";

export type MosaickingOrder = "mostRecent" | "leastRecent" | "leastCC";

export interface SceneQuery {
  collection: string;
  /** [minLon, minLat, maxLon, maxLat]. */
  lonLatBbox: [number, number, number, number];
  /** ms since epoch, inclusive. */
  from: number;
  to: number;
  /** eo:cloud_cover upper limit in percent (items without cloud cover always pass). */
  maxCloudCoverage: number;
  order: MosaickingOrder;
  limit: number;
  /** Item properties that must equal these values (case-insensitive), e.g. `sat:orbit_state`. */
  properties?: Record<string, string>;
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

/** Finds scenes (STAC items) for a request; at most `limit`, in mosaicking order. */
export async function findScenes(env: Pick<Env, "DB">, q: SceneQuery): Promise<Scene[]> {
  const [minLon, minLat, maxLon, maxLat] = q.lonLatBbox;
  const rows = await env.DB.prepare(
    `SELECT doc, datetime, cloud_cover FROM items
     WHERE collection = ?1 AND datetime >= ?2 AND datetime <= ?3
       AND max_lon >= ?4 AND min_lon <= ?6 AND max_lat >= ?5 AND min_lat <= ?7
       AND (cloud_cover IS NULL OR cloud_cover <= ?8)
     ORDER BY ${ORDER_SQL[q.order]} LIMIT ?9`,
  )
    .bind(q.collection, q.from, q.to, minLon, minLat, maxLon, maxLat, q.maxCloudCoverage, q.limit)
    .all<{ doc: string; datetime: number; cloud_cover: number | null }>();
  const scenes = rows.results.map((r) => ({ item: JSON.parse(r.doc) as StacItem, time: r.datetime, cloudCover: r.cloud_cover }));
  const wanted = Object.entries(q.properties ?? {});
  return wanted.length === 0 ? scenes : scenes.filter((s) => wanted.every(([k, v]) => String(s.item.properties[k] ?? "").toUpperCase() === v.toUpperCase()));
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
 * The scene search of a data source over `lonLatBbox` between `from` and `to` (ms, inclusive): its collection,
 * maxCloudCoverage (default 100), the S1 property filters, and `order` (default: its mosaickingOrder, else
 * mostRecent). Throws 400 for an unknown collection type.
 */
export function sceneQueryFor(
  source: DataSourceRequest,
  lonLatBbox: SceneQuery["lonLatBbox"],
  from: number,
  to: number,
  limit: number,
  order: MosaickingOrder = source.dataFilter?.mosaickingOrder ?? "mostRecent",
): SceneQuery {
  const collection = collectionForType(source.type).id;
  return {
    collection,
    lonLatBbox,
    from,
    to,
    maxCloudCoverage: source.dataFilter?.maxCloudCoverage ?? 100,
    order,
    limit,
    properties: collection === "sentinel-1-grd" ? s1PropertyFilter(source.dataFilter) : undefined,
  };
}

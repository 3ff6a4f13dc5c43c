/**
 * A SearchRequest checked against the interface spec and compiled into a SearchPlan: collection (exactly one),
 * limit (1..100, default 10, larger values capped), bbox (4 or 6 numbers, antimeridian boxes), intersects, datetime
 * (required on /search), ids, CQL2 filter (text or JSON, CRS84 only) and the paging position.
 */
import type { Geometry } from "geojson";
import { badRequest } from "../http/errors";
import { compileFilter } from "./cql2/compile";
import { checkFilterShape, checkFilterSize } from "./cql2/limits";
import { parseCql2Text } from "./cql2/text";
import { compileCondition, type BoolNode } from "../storage/condition";
import { bboxGeometry, geometryBBox, type BBox } from "./geometry";
import { decodeNext } from "./paging";
import { queryablesOf, type Queryable } from "./queryables";
import type { SearchRequest } from "./schema";
import type { SearchPlan } from "./search";
import { parseDatetime, type TimeRange } from "./time";

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
const CRS84 = ["http://www.opengis.net/def/crs/OGC/1.3/CRS84", "https://www.opengis.net/def/crs/OGC/1.3/CRS84"];

/** The one collection a search names. Throws 400 unless exactly one is given. */
export function searchCollection(req: SearchRequest): string {
  const c = req.collections ?? [];
  if (c.length !== 1) throw badRequest(`'collections' must hold exactly one collection id; got ${c.length}.`);
  return c[0]!;
}

/** Page size: default 10, values above 100 become 100; below 1 or not an integer -> 400. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw badRequest(`Invalid limit ${limit}: use an integer from 1 to ${MAX_LIMIT}.`);
  return Math.min(limit, MAX_LIMIT);
}

/** Checks a STAC bbox (4 or 6 numbers, CRS84) and returns [west, south, east, north]. */
export function checkBBox(b: number[]): BBox {
  if (b.length !== 4 && b.length !== 6) throw badRequest(`Invalid bbox: use 4 or 6 numbers; got ${b.length}.`);
  const [w, s, e, n] = (b.length === 6 ? [b[0], b[1], b[3], b[4]] : b) as BBox;
  if ([w, e].some((x) => !(x >= -180 && x <= 180)) || [s, n].some((y) => !(y >= -90 && y <= 90))) {
    throw badRequest(`Invalid bbox [${b.join(", ")}]: longitudes must be within -180..180 and latitudes within -90..90.`);
  }
  if (s > n) throw badRequest(`Invalid bbox [${b.join(", ")}]: the south latitude is above the north latitude.`);
  return [w, s, e, n];
}

/** Resolves filter property names ("properties." prefix allowed) against the collection's queryables. */
export function queryableLookup(collection: string): (name: string) => Queryable {
  const queryables = queryablesOf(collection);
  return (name) => {
    const q = queryables.get(name.replace(/^properties\./, ""));
    if (!q) throw badRequest(`Unknown property '${name}' in the filter; queryables of ${collection}: ${[...queryables.keys()].join(", ")}.`);
    return q;
  };
}

/**
 * The filter as CQL2 JSON (parsing CQL2 text), or undefined when absent. Throws 400 past the limits of
 * cql2/limits.ts (text size before parsing; depth and node count, then serialized size, of the JSON).
 */
function filterJson(req: SearchRequest): unknown {
  const f = req.filter;
  if (f === undefined || f === "") return undefined;
  if (req.filterCrs !== undefined && !CRS84.includes(req.filterCrs)) {
    throw badRequest(`Unsupported filter-crs '${req.filterCrs}': only ${CRS84[0]} is accepted.`);
  }
  const lang = req.filterLang ?? (typeof f === "string" ? "cql2-text" : "cql2-json");
  if (typeof f === "string") checkFilterSize(f, lang);
  const json = parseFilter(f, lang);
  checkFilterShape(json);
  if (typeof f !== "string") checkFilterSize(serialized(f), lang);
  return json;
}

/** JSON text of a filter object; nesting too deep to serialize (inside literals the shape check does not walk) is a 400. */
function serialized(f: unknown): string {
  try {
    return JSON.stringify(f);
  } catch {
    throw badRequest("The filter is nested too deeply to be read; flatten it.");
  }
}

function parseFilter(f: unknown, lang: "cql2-text" | "cql2-json"): unknown {
  if (lang === "cql2-text") {
    if (typeof f !== "string") throw badRequest("filter-lang is cql2-text but the filter is not a string; use cql2-json.");
    return parseCql2Text(f);
  }
  if (typeof f !== "string") return f;
  try {
    return JSON.parse(f);
  } catch {
    throw badRequest("filter-lang is cql2-json but the filter is not valid JSON.");
  }
}

function spatialNode(geometry: Geometry, bbox: BBox): BoolNode {
  return { kind: "spatial", geometry, bbox };
}

function intersectsNode(g: Geometry): BoolNode {
  try {
    return spatialNode(g, geometryBBox(g));
  } catch (e) {
    throw badRequest(`Invalid intersects geometry: ${(e as Error).message} (coordinates are lon, lat in CRS84).`);
  }
}

/** The `datetime` member as inclusive bounds (400 when required and absent, or invalid). */
export function timeRange(req: SearchRequest, requireDatetime: boolean): TimeRange {
  if (req.datetime === undefined) {
    if (!requireDatetime) return {};
    throw badRequest("'datetime' is required: an RFC 3339 instant or interval such as 2020-01-01T00:00:00Z/2020-02-01T00:00:00Z.");
  }
  return parseDatetime(req.datetime);
}

/** The spatial and filter conditions of a request, as top-level conjuncts. */
export function conjuncts(req: SearchRequest, collection: string): BoolNode[] {
  const out: BoolNode[] = [];
  if (req.bbox && req.intersects) throw badRequest("Use either 'bbox' or 'intersects', not both.");
  if (req.bbox) {
    const box = checkBBox(req.bbox);
    out.push(spatialNode(bboxGeometry(box), box));
  }
  if (req.intersects) out.push(intersectsNode(req.intersects));
  const filter = filterJson(req);
  if (filter !== undefined) out.push(compileFilter(filter, queryableLookup(collection)));
  return out;
}

/** Compiles a request for `collection` into a search plan. Throws 400 ApiErrors for invalid members. */
export function planSearch(req: SearchRequest, collection: string, requireDatetime: boolean): SearchPlan {
  const limit = pageLimit(req.limit);
  const time = timeRange(req, requireDatetime);
  const condition = compileCondition(conjuncts(req, collection));
  const params = condition.where.params.length + condition.columns.reduce((n, c) => n + c.params.length, 0);
  if (params > 90) throw badRequest("The search is too large (more than 90 literal values); simplify the filter or use 'in' lists.");
  const ids = req.ids && req.ids.length > 0 ? req.ids : undefined;
  return { collection, ids, time, condition, limit, position: decodeNext(req.next) };
}

/**
 * A SearchRequest checked and compiled into a SearchPlan: collections (the caller resolves which: routes.ts),
 * limit (1..100, default 10, larger values capped), bbox (4 or 6 numbers, antimeridian boxes), intersects, datetime
 * (optional), ids, CQL2 filter (text or JSON, CRS84 only), sortby and the paging position.
 *
 * Sentinel Hub's interface is narrower: `datetime` required and exactly one collection. The STAC API item search
 * makes both optional, and this catalog accepts that superset (README, Catalog), so what Sentinel Hub clients send
 * is answered as before.
 */
import type { Geometry } from "geojson";
import { badRequest } from "../http/errors";
import { compileFilter } from "./cql2/compile";
import { checkFilterShape, checkFilterSize } from "./cql2/limits";
import { parseCql2Text } from "./cql2/text";
import { compileCondition, type BoolNode } from "../storage/condition";
import { bboxGeometry, geometryBBox, type BBox } from "./geometry";
import { decodeNext } from "./paging";
import { queryablesOfAll, type Queryable } from "./queryables";
import type { SearchRequest } from "./schema";
import type { SearchPlan } from "./search";
import { sortTerms } from "./sort";
import { datetimeFirst } from "../storage/search";
import { parseDatetime, type TimeRange } from "./time";

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
const CRS84 = ["http://www.opengis.net/def/crs/OGC/1.3/CRS84", "https://www.opengis.net/def/crs/OGC/1.3/CRS84"];

/** The collections a search names, each once; undefined when it names none (then it searches every collection). */
export function namedCollections(req: SearchRequest): string[] | undefined {
  const c = [...new Set((req.collections ?? []).map((x) => x.trim()).filter(Boolean))];
  return c.length ? c : undefined;
}

/** Page size: default 10, values above 100 become 100; below 1 or not an integer -> 400. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw badRequest(`Invalid limit ${limit}: use an integer from 1 to ${MAX_LIMIT}.`);
  return Math.min(limit, MAX_LIMIT);
}

/** Checks a STAC bbox (4 or 6 numbers, CRS84) and returns [west, south, east, north]. */
export function checkBBox(b: number[]): BBox {
  if (b.length !== 4 && b.length !== 6) throw badRequest(`Invalid bbox: use 4 or 6 numbers; got ${b.length}.`);
  const [w, s, e, n] = (b.length === 6 ? [b[0], b[1], b[3], b[4]] : b) as BBox;
  if ([w, e].some((x) => !(x >= -180 && x <= 180)) || [s, n].some((y) => !(y >= -90 && y <= 90))) {
    throw badRequest(
      `Invalid bbox [${b.join(", ")}]: longitudes must be within -180..180 and latitudes within -90..90.`,
    );
  }
  if (s > n) throw badRequest(`Invalid bbox [${b.join(", ")}]: the south latitude is above the north latitude.`);
  return [w, s, e, n];
}

/**
 * Resolves filter property names ("properties." prefix allowed) against the queryables of `collections` (a
 * property of any of them; none: every queryable of the item search). Items without the property have no value,
 * so comparisons with it are not true.
 */
export function queryableLookup(collections: string[]): (name: string) => Queryable {
  const queryables = queryablesOfAll(collections);
  return (name) => {
    const q = queryables.get(name.replace(/^properties\./, ""));
    if (!q)
      throw badRequest(`Unknown property '${name}' in the filter; queryables: ${[...queryables.keys()].join(", ")}.`);
    return q;
  };
}

/**
 * The filter as CQL2 JSON (parsing CQL2 text), or undefined when absent. Throws 400 past the limits of
 * cql2/limits.ts (text size before parsing; depth and node count, then serialized size, of the JSON).
 */
export function filterJson(req: SearchRequest): unknown {
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
    if (typeof f !== "string")
      throw badRequest("filter-lang is cql2-text but the filter is not a string; use cql2-json.");
    return parseCql2Text(f);
  }
  if (typeof f !== "string") return f;
  try {
    return JSON.parse(f);
  } catch {
    throw badRequest("filter-lang is cql2-json but the filter is not valid JSON.");
  }
}

function intersectsNode(g: Geometry): BoolNode {
  try {
    return { kind: "spatial", geometry: g, bbox: geometryBBox(g) };
  } catch (e) {
    throw badRequest(`Invalid intersects geometry: ${(e as Error).message} (coordinates are lon, lat in CRS84).`);
  }
}

/** The `datetime` member as inclusive bounds (absent: all times). Throws 400 when invalid. */
export function timeRange(req: SearchRequest): TimeRange {
  return req.datetime === undefined ? {} : parseDatetime(req.datetime);
}

/** The spatial and filter conditions of a request over `collections`, as top-level conjuncts. */
export function conjuncts(req: SearchRequest, collections: string[]): BoolNode[] {
  const out: BoolNode[] = [];
  if (req.bbox && req.intersects) throw badRequest("Use either 'bbox' or 'intersects', not both.");
  if (req.bbox) {
    const box = checkBBox(req.bbox);
    out.push({ kind: "spatial", geometry: bboxGeometry(box), bbox: box, rect: true });
  }
  if (req.intersects) out.push(intersectsNode(req.intersects));
  const filter = filterJson(req);
  if (filter !== undefined) out.push(compileFilter(filter, queryableLookup(collections)));
  return out;
}

/**
 * Compiles a request over `collections` (every collection it may search) into a search plan; property names are
 * resolved against the queryables of `queryables` (by default the same collections; none: the item search's).
 * Throws 400 ApiErrors for invalid members.
 */
export function planSearch(req: SearchRequest, collections: string[], queryables: string[] = collections): SearchPlan {
  const limit = pageLimit(req.limit);
  const time = timeRange(req);
  const condition = compileCondition(conjuncts(req, queryables));
  const sql = [condition.where, ...condition.columns, ...(condition.sure ? [condition.sure] : [])];
  if (sql.reduce((n, c) => n + c.params.length, 0) > 90) {
    throw badRequest("The search is too large (more than 90 literal values); simplify the filter or use 'in' lists.");
  }
  const ids = req.ids && req.ids.length > 0 ? req.ids : undefined;
  const sort = sortTerms(req.sortby);
  const position = decodeNext(req.next);
  if (position.kind === "keyset" && !datetimeFirst(sort)) {
    throw badRequest(
      `Invalid 'next' ${JSON.stringify(req.next)} for a search sorted by ${sort[0]!.field}: use the value of context.next.`,
    );
  }
  return { collections, ids, time, condition, sort, limit, position };
}

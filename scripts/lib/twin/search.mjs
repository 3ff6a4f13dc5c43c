// STAC Item Search over the archive twin's items (STAC API 1.0.0 item-search, with the query, sort and filter
// extensions the real Earth Search (stac-server) and Planetary Computer (stac-fastapi-pgstac) offer). Parsing of GET
// and POST parameters into one search, matching, sorting. Errors are thrown as SearchError (answered 400).
import booleanIntersects from "@turf/boolean-intersects";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** cql2-wasm (developmentseed/cql2-rs): CQL2 text/JSON parsing and matching; loaded by {@link loadCql2}. */
let cql2;

/**
 * Instantiates cql2-wasm's module by hand (its entry imports the .wasm file as an ES module, which Node only does
 * behind an experimental warning). Call once before parsing a search with a filter.
 */
export async function loadCql2() {
  if (cql2) return;
  const bg = await import("cql2-wasm/cql2_wasm_bg.js");
  const bytes = readFileSync(createRequire(import.meta.url).resolve("cql2-wasm/cql2_wasm_bg.wasm"));
  const { instance } = await WebAssembly.instantiate(bytes, { "./cql2_wasm_bg.js": bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  cql2 = bg;
}

/** A bad search parameter (answered 400 with the API's error shape). */
export class SearchError extends Error {}

const bboxPolygon = ([w, s, e, n]) => ({
  type: "Polygon",
  coordinates: [
    [
      [w, s],
      [e, s],
      [e, n],
      [w, n],
      [w, s],
    ],
  ],
});

function parseBbox(v) {
  const b = (Array.isArray(v) ? v : String(v).split(",")).map(Number);
  if (!(b.length === 4 || b.length === 6) || b.some((x) => !Number.isFinite(x)))
    throw new SearchError(`Invalid bbox: ${v}`);
  const [w, s, e, n] = b.length === 6 ? [b[0], b[1], b[3], b[4]] : b;
  if (s > n) throw new SearchError(`Invalid bbox: south ${s} > north ${n}`);
  return [w, s, e, n];
}

function parseInterval(v) {
  const bound = (s, open) => {
    if (s === ".." || s === "") return open;
    const t = Date.parse(s);
    if (!Number.isFinite(t) || !/^\d{4}-\d{2}-\d{2}/.test(s)) throw new SearchError(`Invalid datetime: ${v}`);
    return t;
  };
  const parts = String(v).split("/");
  if (parts.length > 2) throw new SearchError(`Invalid datetime: ${v}`);
  const start = bound(parts[0], -Infinity),
    end = parts.length === 2 ? bound(parts[1], Infinity) : start;
  if (start > end) throw new SearchError(`Invalid datetime: start after end in ${v}`);
  return [start, end];
}

const list = (v) =>
  v === undefined ? undefined : Array.isArray(v) ? v.map(String) : String(v).split(",").filter(Boolean);
const jsonParam = (v, what) => {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    throw new SearchError(`Invalid ${what}: not JSON`);
  }
};

/** `-properties.datetime,+id` (GET) or [{field, direction}] (POST) -> [{field, direction}]. */
function parseSortby(v) {
  if (v === undefined) return undefined;
  if (Array.isArray(v))
    return v.map((s) => ({ field: String(s.field), direction: s.direction === "desc" ? "desc" : "asc" }));
  return String(v)
    .split(",")
    .filter(Boolean)
    .map((s) => ({ field: s.replace(/^[+-]/, ""), direction: s.startsWith("-") ? "desc" : "asc" }));
}

/**
 * One search from GET query parameters (strings) or a POST body (JSON): { collections, ids, bbox, intersects,
 * datetime: [start, end] ms, limit, query, filter (cql2 Expr), sortby, token }. `limits`: { default, max }.
 */
export function parseSearch(params, limits) {
  const limit = params.limit === undefined ? limits.default : Number(params.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > limits.max)
    throw new SearchError(`Invalid limit ${params.limit}: must be an integer from 1 to ${limits.max}`);
  if (params.bbox !== undefined && params.intersects !== undefined)
    throw new SearchError("Only one of bbox or intersects may be given");
  const search = {
    limit,
    collections: list(params.collections),
    ids: list(params.ids),
    sortby: parseSortby(params.sortby),
  };
  if (params.bbox !== undefined) search.geometry = bboxPolygon(parseBbox(params.bbox));
  if (params.intersects !== undefined) {
    const g = jsonParam(params.intersects, "intersects");
    if (!g || typeof g.type !== "string" || !("coordinates" in g || "geometries" in g))
      throw new SearchError("Invalid intersects: not a GeoJSON geometry");
    search.geometry = g;
  }
  if (params.datetime !== undefined) search.datetime = parseInterval(params.datetime);
  if (params.query !== undefined) search.query = jsonParam(params.query, "query");
  if (params.filter !== undefined) {
    try {
      const lang = params["filter-lang"] ?? (typeof params.filter === "string" ? "cql2-text" : "cql2-json");
      search.filter =
        lang === "cql2-text"
          ? cql2.parseText(String(params.filter))
          : cql2.parseJson(typeof params.filter === "string" ? params.filter : JSON.stringify(params.filter));
    } catch (e) {
      throw new SearchError(`Invalid filter: ${e.message ?? e}`);
    }
  }
  return search;
}

const itemTime = (item) => {
  const p = item.properties ?? {};
  const t = Date.parse(p.datetime ?? p.start_datetime);
  return [Date.parse(p.start_datetime ?? p.datetime) || t, Date.parse(p.end_datetime ?? p.datetime) || t];
};

const OPS = {
  eq: (a, b) => a === b,
  neq: (a, b) => a !== b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  startsWith: (a, b) => typeof a === "string" && a.startsWith(b),
  endsWith: (a, b) => typeof a === "string" && a.endsWith(b),
  contains: (a, b) => typeof a === "string" && a.includes(b),
  in: (a, b) => Array.isArray(b) && b.includes(a),
};

function matchesQuery(item, query) {
  return Object.entries(query).every(([prop, ops]) =>
    Object.entries(ops ?? {}).every(([op, value]) => {
      if (!OPS[op]) throw new SearchError(`Invalid query operator ${op}`);
      const v = prop in (item.properties ?? {}) ? item.properties[prop] : item[prop];
      return v !== undefined && OPS[op](v, value);
    }),
  );
}

/** True when `item` passes every criterion of `search` (collections, ids, geometry, datetime, query, filter). */
export function matches(item, search) {
  if (search.collections && !search.collections.includes(item.collection)) return false;
  if (search.ids && !search.ids.includes(item.id)) return false;
  if (search.datetime) {
    const [s, e] = itemTime(item);
    if (e < search.datetime[0] || s > search.datetime[1]) return false;
  }
  if (search.geometry && !(item.geometry && booleanIntersects(search.geometry, item.geometry))) return false;
  if (search.query && !matchesQuery(item, search.query)) return false;
  if (search.filter && !search.filter.matches(item)) return false;
  return true;
}

const field = (item, f) => {
  const path = f.replace(/^properties\./, "");
  if (path === "id" || path === "collection") return item[path];
  return item.properties?.[path];
};

/** Sorts items as the APIs do by default (datetime desc, then id desc) or by `sortby`. */
export function sortItems(items, sortby) {
  const order = sortby ?? [
    { field: "properties.datetime", direction: "desc" },
    { field: "id", direction: "desc" },
  ];
  const cmp = (a, b) => {
    for (const { field: f, direction } of order) {
      const x = f.endsWith("datetime") ? itemTime(a)[0] : field(a, f),
        y = f.endsWith("datetime") ? itemTime(b)[0] : field(b, f);
      if (x === y) continue;
      const r = x === undefined ? 1 : y === undefined ? -1 : x < y ? -1 : 1;
      return direction === "desc" ? -r : r;
    }
    return a.collection === b.collection ? 0 : a.collection < b.collection ? -1 : 1;
  };
  return [...items].sort(cmp);
}

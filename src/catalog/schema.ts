/**
 * Search requests of the catalog, with the member names of the STAC API (item search, fields, sort, filter,
 * context, Sentinel Hub's distinct): the POST JSON body and the GET query string, both read into one
 * `SearchRequest`.
 */
import { z } from "zod";
import type { Geometry } from "geojson";
import { badRequest } from "../http/errors";
import { validate } from "../http/parse";
import { parseFieldsParam, type FieldsSpec } from "./fields";
import { geometrySchema } from "./geometry";
import { parseSortParam, type SortRequest } from "./sort";

/** A search request as received (validated in shape; semantics are checked in query.ts). */
export interface SearchRequest {
  collections?: string[];
  bbox?: number[];
  intersects?: Geometry;
  datetime?: string;
  ids?: string[];
  limit?: number;
  fields?: FieldsSpec;
  sortby?: SortRequest[];
  filter?: unknown;
  filterLang?: "cql2-text" | "cql2-json";
  filterCrs?: string;
  distinct?: string;
  next?: unknown;
}

const optional = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);

/** A sortby term of the POST form. */
const sortTermSchema = z.object({ field: z.string(), direction: z.enum(["asc", "desc", "ASC", "DESC"]).optional() });

/**
 * POST /search body (STAC item search + fields + sort + filter + context + distinct). Unknown members are ignored.
 * `fields` must be an object when present (null is refused, as stac-api-validator expects); in it a missing
 * `include` differs from a null one (see fields.ts).
 */
export const searchBodySchema = z.object({
  collections: optional(z.union([z.array(z.string()), z.string().transform((s) => s.split(","))])),
  bbox: optional(z.array(z.number())),
  intersects: optional(geometrySchema),
  datetime: optional(z.string()),
  ids: optional(z.array(z.string())),
  limit: optional(z.number()),
  fields: z.object({ include: z.array(z.string()).nullish(), exclude: z.array(z.string()).nullish() }).optional(),
  filter: optional(z.union([z.string(), z.boolean(), z.record(z.string(), z.unknown())])),
  "filter-lang": optional(z.enum(["cql2-text", "cql2-json"])),
  "filter-crs": optional(z.string()),
  distinct: optional(z.string()),
  next: optional(z.union([z.number(), z.string()])),
  sortby: optional(z.union([z.array(sortTermSchema), z.string()])),
  query: z.unknown().optional(),
});

function rejectUnsupported(body: { query?: unknown }): void {
  if (body.query !== undefined) throw badRequest("The 'query' extension is not supported; use 'filter' (CQL2).");
}

/** Reads a POST /search body. Throws 400 (with zod issues) for wrong member types. */
export function searchFromBody(raw: unknown): SearchRequest {
  const b = validate(searchBodySchema, raw, "search request");
  rejectUnsupported(b);
  return {
    collections: b.collections,
    bbox: b.bbox,
    intersects: b.intersects as Geometry | undefined,
    datetime: b.datetime,
    ids: b.ids,
    limit: b.limit,
    fields: b.fields
      ? {
          include: b.fields.include === undefined ? undefined : (b.fields.include ?? []),
          exclude: b.fields.exclude ?? [],
        }
      : undefined,
    sortby:
      typeof b.sortby === "string"
        ? parseSortParam(b.sortby)
        : b.sortby?.map((t) => ({ field: t.field, descending: t.direction?.toLowerCase() === "desc" })),
    filter: b.filter,
    filterLang: b["filter-lang"],
    filterCrs: b["filter-crs"],
    distinct: b.distinct,
    next: b.next,
  };
}

type Query = Record<string, string | string[] | undefined>;

/** The last value of a query parameter (repeated parameters: the last one wins); empty = absent. */
function one(query: Query, name: string): string | undefined {
  const v = query[name];
  const s = Array.isArray(v) ? v[v.length - 1] : v;
  return s === undefined || s.trim() === "" ? undefined : s;
}

const list = (s: string | undefined): string[] | undefined =>
  s === undefined
    ? undefined
    : s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean);

function numbers(name: string, s: string | undefined): number[] | undefined {
  const parts = list(s);
  if (!parts) return undefined;
  const out = parts.map(Number);
  if (out.some((n) => !Number.isFinite(n))) throw badRequest(`Invalid ${name} '${s}': use comma-separated numbers.`);
  return out;
}

function integer(name: string, s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  if (!/^-?\d+$/.test(s.trim())) throw badRequest(`Invalid ${name} '${s}': use an integer.`);
  return Number(s);
}

function geometryParam(s: string | undefined): Geometry | undefined {
  if (s === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(s);
  } catch {
    throw badRequest("Invalid intersects: use a GeoJSON geometry as JSON text.");
  }
  return validate(geometrySchema, value, "intersects geometry") as Geometry;
}

const param = (description: string) => z.string().optional().describe(description);

/**
 * GET /search and GET /collections/{id}/items query parameters (STAC API item search, OGC API Features), each the
 * last value of a repeated parameter, empty = absent; the values are parsed by `searchFromQuery`. Also the
 * routes' OpenAPI query parameters (src/openapi).
 */
export const searchQuerySchema = z.object({
  collections: param("Comma-separated collection ids (default: every collection)"),
  datetime: param("RFC 3339 instant or interval; '..' for an open end (default: all times)"),
  bbox: param("4 or 6 comma-separated numbers, CRS84"),
  intersects: param("GeoJSON geometry (JSON text)"),
  ids: param("Comma-separated item ids"),
  limit: param("Page size, an integer 1..100 (default 10)"),
  fields: param("Comma list of JSON paths; '-' prefix excludes, '+' or none includes"),
  sortby: param("Comma list of datetime, eo:cloud_cover, id, collection; '-' prefix descending (default: datetime)"),
  filter: param("CQL2 filter (text, or JSON with filter-lang=cql2-json)"),
  "filter-lang": param("cql2-text (default) or cql2-json"),
  "filter-crs": param("CRS of the filter's geometries (CRS84 only)"),
  distinct: param("Return the distinct values of this property ('date' for days)"),
  next: param("context.next of the previous page"),
  query: param("Not supported (400): use filter (CQL2)"),
});

/** Reads GET /search (and GET /collections/{id}/items) query parameters. */
export function searchFromQuery(query: Query): SearchRequest {
  const q = validate(
    searchQuerySchema,
    Object.fromEntries(Object.keys(query).map((k) => [k, one(query, k)])),
    "search query",
  );
  const lang = q["filter-lang"];
  if (lang !== undefined && lang !== "cql2-text" && lang !== "cql2-json") {
    throw badRequest(`Invalid filter-lang '${lang}': use cql2-text or cql2-json.`);
  }
  rejectUnsupported(q);
  return {
    collections: list(q.collections),
    bbox: numbers("bbox", q.bbox),
    intersects: geometryParam(q.intersects),
    datetime: q.datetime,
    ids: list(q.ids),
    limit: integer("limit", q.limit),
    fields: query.fields === undefined ? undefined : parseFieldsParam(q.fields ?? ""),
    sortby: q.sortby === undefined ? undefined : parseSortParam(q.sortby),
    filter: q.filter,
    filterLang: lang as SearchRequest["filterLang"],
    filterCrs: q["filter-crs"],
    distinct: q.distinct,
    next: q.next,
  };
}

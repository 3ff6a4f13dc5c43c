/**
 * Queryables: the properties a CQL2 filter (and `distinct`) may use, per collection, with the SQL that reads each
 * from the `items` table (src/storage/properties.ts: a column where one exists, else the property in the STAC JSON).
 * The JSON Schema document of GET /collections/{id}/queryables is rendered from the same table.
 */
import { itemPropertySql } from "../storage/properties";

/** Link relation of a queryables document (OGC API Features part 3). */
export const QUERYABLES_REL = "http://www.opengis.net/def/rel/ogc/1.0/queryables";

/** Value type of a queryable, as the filter compiler sees it. */
export type QueryableType = "string" | "number" | "datetime" | "geometry";

export interface Queryable {
  type: QueryableType;
  /** SQL expression over `items` (absent for geometry, which is tested spatially). */
  sql?: string;
  /** JSON Schema of the property. */
  schema: Record<string, unknown>;
}

/** SQL reading property `name` of an item (the items backend's column or JSON path). */
const prop = itemPropertySql;

const str = (name: string, title: string, extra: Record<string, unknown> = {}): [string, Queryable] => [
  name,
  { type: "string", sql: prop(name), schema: { title, type: "string", ...extra } },
];
const num = (name: string, title: string, extra: Record<string, unknown> = {}): [string, Queryable] => [
  name,
  { type: "number", sql: prop(name), schema: { title, type: "number", ...extra } },
];

const COMMON: [string, Queryable][] = [
  ["id", { type: "string", sql: prop("id"), schema: { title: "Item ID", type: "string" } }],
  ["collection", { type: "string", sql: prop("collection"), schema: { title: "Collection ID", type: "string" } }],
  [
    "datetime",
    {
      type: "datetime",
      sql: prop("datetime"),
      schema: { title: "Acquisition time", type: "string", format: "date-time" },
    },
  ],
  ["geometry", { type: "geometry", schema: { title: "Footprint", $ref: "https://geojson.org/schema/Geometry.json" } }],
  str("platform", "Platform"),
  str("constellation", "Constellation"),
  str("mission", "Mission"),
  num("gsd", "Ground sample distance (m)", { exclusiveMinimum: 0 }),
  // Sentinel Hub Catalog 0.9's name of gsd (its 1.0.0 moved eo:gsd to gsd). Items carry gsd only: the eo v1.0.0
  // schema forbids unknown eo: fields, so a filter on eo:gsd reads gsd.
  [
    "eo:gsd",
    {
      type: "number",
      sql: prop("gsd"),
      schema: { title: "Ground sample distance (m), the former name of gsd", type: "number", exclusiveMinimum: 0 },
    },
  ],
  [
    "proj:epsg",
    { type: "number", sql: prop("proj:epsg"), schema: { title: "EPSG code of the native CRS", type: "integer" } },
  ],
];

const CLOUD: [string, Queryable] = [
  "eo:cloud_cover",
  {
    type: "number",
    sql: prop("eo:cloud_cover"),
    schema: { title: "Cloud Cover", description: "Cloud Cover", type: "number", minimum: 0, maximum: 100 },
  },
];

const OPTICAL: [string, Queryable][] = [...COMMON, CLOUD, str("s2:processing_baseline", "Processing baseline")];

const SAR: [string, Queryable][] = [
  ...COMMON,
  str("sar:instrument_mode", "Instrument mode", { enum: ["SM", "IW", "EW", "WV", "EN", "AN", "IM"] }),
  str("sar:product_type", "Product type"),
  str("sar:frequency_band", "Frequency band"),
  str("s1:polarization", "Polarization", { enum: ["SH", "SV", "DH", "DV", "HH", "HV", "VV", "VH"] }),
  str("s1:resolution", "Resolution", { enum: ["HIGH", "MEDIUM", "FULL"] }),
  str("s1:timeliness", "Timeliness"),
  str("sat:orbit_state", "Orbit state", { enum: ["ascending", "descending", "geostationary"] }),
  num("sat:absolute_orbit", "Absolute orbit number"),
  num("sat:relative_orbit", "Relative orbit number"),
];

const BY_COLLECTION: Record<string, Map<string, Queryable>> = {
  "sentinel-2-l1c": new Map(OPTICAL),
  "sentinel-2-l2a": new Map(OPTICAL),
  "sentinel-1-grd": new Map(SAR),
};
const GENERIC = new Map([...COMMON, CLOUD]);

/** Queryables of a collection (a generic set for collections without their own). */
export function queryablesOf(collection: string): Map<string, Queryable> {
  return (Object.hasOwn(BY_COLLECTION, collection) ? BY_COLLECTION[collection] : undefined) ?? GENERIC;
}

/** The queryables of any of `collections` (every known queryable when none is given), each name once. */
export function queryablesOfAll(collections: string[]): Map<string, Queryable> {
  const sets = collections.length ? collections.map(queryablesOf) : [...Object.values(BY_COLLECTION), GENERIC];
  const out = new Map<string, Queryable>();
  for (const set of sets) for (const [name, q] of set) if (!out.has(name)) out.set(name, q);
  return out;
}

/**
 * The queryables JSON Schema document (OGC API Features part 3), `$id` = its own URL: of one collection, or
 * (`collection` undefined) of the item search over every collection (GET /queryables).
 */
export function queryablesDocument(collection: string | undefined, selfUrl: string): Record<string, unknown> {
  const set = collection === undefined ? queryablesOfAll([]) : queryablesOf(collection);
  const properties = Object.fromEntries([...set].map(([name, q]) => [name, q.schema]));
  return {
    $schema: "https://json-schema.org/draft/2019-09/schema",
    $id: selfUrl,
    type: "object",
    title: collection === undefined ? "Queryables of the item search" : `Queryables of ${collection}`,
    description:
      collection === undefined
        ? "Queryable names for CQL2 filters of the STAC item search over any collection."
        : "Queryable names for CQL2 filters of the STAC item search and the collection's items.",
    properties,
    additionalProperties: false,
  };
}

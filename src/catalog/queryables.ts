/**
 * Queryables: the properties a CQL2 filter (and `distinct`) may use, per collection, with the SQL that reads each
 * from the `items` table (src/storage/properties.ts: a column where one exists, else the property in the STAC JSON).
 * The JSON Schema document of GET /collections/{id}/queryables is rendered from the same table.
 */
import { itemPropertySql } from "../storage/properties";

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
  ["datetime", { type: "datetime", sql: prop("datetime"), schema: { title: "Acquisition time", type: "string", format: "date-time" } }],
  ["geometry", { type: "geometry", schema: { title: "Footprint", $ref: "https://geojson.org/schema/Geometry.json" } }],
  str("platform", "Platform"),
  str("constellation", "Constellation"),
  num("gsd", "Ground sample distance (m)", { exclusiveMinimum: 0 }),
  ["proj:epsg", { type: "number", sql: prop("proj:epsg"), schema: { title: "EPSG code of the native CRS", type: "integer" } }],
];

const CLOUD: [string, Queryable] = [
  "eo:cloud_cover",
  { type: "number", sql: prop("eo:cloud_cover"), schema: { title: "Cloud Cover", description: "Cloud Cover", type: "number", minimum: 0, maximum: 100 } },
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

/** The queryables JSON Schema document (OGC API Features part 3), `$id` = its own URL. */
export function queryablesDocument(collection: string, selfUrl: string): Record<string, unknown> {
  const properties = Object.fromEntries([...queryablesOf(collection)].map(([name, q]) => [name, q.schema]));
  return {
    $schema: "https://json-schema.org/draft/2019-09/schema",
    $id: selfUrl,
    type: "object",
    title: `Queryables of ${collection}`,
    description: "Queryable names for CQL2 filters of the STAC item search and the collection's items.",
    properties,
    additionalProperties: false,
  };
}

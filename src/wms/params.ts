/**
 * WMS request parameters (OGC 06-042 WMS 1.3.0, 7.2.4 / 7.3.2 GetMap; WMS 1.1.1, 7.2 GetMap): key-value pairs with
 * case-insensitive names. Every missing or invalid value throws a WmsException with its OGC code and the parameter
 * as locator.
 *
 * CRS and axis order: 1.3.0 names the CRS `CRS` and uses the CRS's own axis order (OGC 06-042 6.7.3: with
 * CRS=EPSG:4326 the BBOX is minLat,minLon,maxLat,maxLon); 1.1.1 names it `SRS` and is always x,y (EPSG:4326
 * lon,lat); CRS:84 is lon,lat in both. Parsed bboxes are always x/y (lon/lat) order, the order of the Processing
 * API's `bounds.bbox`.
 */
import { crsFromEpsg, SUPPORTED_CRS, SUPPORTED_EPSG } from "../raster/crs";
import type { Crs } from "../raster/types";
import { MAX_SYNC_SIZE } from "../pipeline/plan";
import { WmsException } from "./exceptions";
import { operationVersion, WMS_VERSIONS, type WmsVersion } from "./version";

/** Parameters by upper-case name (the first value of a repeated name wins). */
export type Kvp = Map<string, string>;

/** The query of `url` with upper-cased names. */
export function kvp(url: URL): Kvp {
  const out: Kvp = new Map();
  for (const [k, v] of url.searchParams) if (!out.has(k.toUpperCase())) out.set(k.toUpperCase(), v);
  return out;
}

/** Value of `name`; MissingParameterValue when absent or empty. */
export function required(p: Kvp, name: string): string {
  const v = p.get(name)?.trim();
  if (!v) throw new WmsException("MissingParameterValue", `Parameter ${name} is missing.`, name);
  return v;
}

/** The WMS GetMap formats (MIME types encodeOutput writes). */
export const MAP_FORMATS = ["image/png", "image/jpeg"] as const;
export type MapFormat = (typeof MAP_FORMATS)[number];

/** The EPSG codes GetMap accepts (parseWmsCrs): every supported CRS but the geographic ones other than WGS 84. */
const GETMAP_EPSG = [
  4326,
  3857,
  ...SUPPORTED_EPSG.filter((c) => c !== 4326 && c !== 3857 && !crsFromEpsg(c).geographic),
];
const EPSG_NAMES = GETMAP_EPSG.map((c) => `EPSG:${c}`);
/**
 * CRSs advertised in GetCapabilities per version: every one GetMap accepts (Sentinel Hub's list: WGS 84, Web
 * Mercator, the UTM zones, ...), as Sentinel Hub's WMS advertises its list. CRS:84 is a 1.3.0 name (OGC 06-042
 * annex B.3), 1.1.1's geographic CRS is EPSG:4326 in lon,lat order.
 */
export const CAPABILITY_CRS: Readonly<Record<WmsVersion, string[]>> = {
  "1.1.1": EPSG_NAMES,
  "1.3.0": ["CRS:84", ...EPSG_NAMES],
};

/** A time window in ms since the epoch, both ends inclusive. */
export interface TimeWindow {
  from: number;
  to: number;
}

/** A parsed GetMap: one layer, the grid (CRS, x/y bbox, size), format and the optional TIME / MAXCC / STYLES. */
export interface MapRequest {
  layer: string;
  style?: string;
  crs: Crs;
  bbox: [number, number, number, number];
  width: number;
  height: number;
  format: MapFormat;
  transparent: boolean;
  time?: TimeWindow;
  maxcc?: number;
}

/**
 * The CRS of `name` (CRS:84, EPSG:<code>) and whether its BBOX is lat,lon (EPSG:4326 in 1.3.0).
 * @throws WmsException InvalidCRS (locator: the version's CRS parameter) for another name or a geographic CRS
 *   other than WGS 84.
 */
export function parseWmsCrs(name: string, version: WmsVersion): { crs: Crs; latLon: boolean } {
  const upper = name.toUpperCase();
  if (upper === "CRS:84" || upper === "OGC:CRS84") return { crs: crsFromEpsg(4326), latLon: false };
  const m = /^EPSG:(\d+)$/.exec(upper);
  let crs: Crs | undefined;
  try {
    crs = m ? crsFromEpsg(Number(m[1])) : undefined;
  } catch {
    crs = undefined;
  }
  const param = WMS_VERSIONS[version].crsParam;
  if (!crs || (crs.geographic && crs.epsg !== 4326))
    throw new WmsException(
      "InvalidCRS",
      `${param} '${name}' is not supported; use ${version === "1.3.0" ? "CRS:84, " : ""}${SUPPORTED_CRS.replace("EPSG:4326 (or OGC CRS84)", "EPSG:4326")} (the capabilities list them).`,
      param,
    );
  return { crs, latLon: crs.epsg === 4326 && version === "1.3.0" };
}

/** A positive integer number of pixels up to MAX_SYNC_SIZE; InvalidParameterValue otherwise. */
function pixels(p: Kvp, name: string): number {
  const v = required(p, name);
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > MAX_SYNC_SIZE)
    throw new WmsException(
      "InvalidParameterValue",
      `${name} must be an integer from 1 to ${MAX_SYNC_SIZE}; it is '${v}'.`,
      name,
    );
  return n;
}

/** BBOX as 4 numbers min < max, turned to x/y order when `latLon`. */
function parseBbox(v: string, latLon: boolean): [number, number, number, number] {
  const n = v.split(",").map((s) => Number(s.trim()));
  if (n.length !== 4 || !n.every(Number.isFinite) || !(n[0]! < n[2]!) || !(n[1]! < n[3]!))
    throw new WmsException(
      "InvalidParameterValue",
      `BBOX must be minx,miny,maxx,maxy with min < max; it is '${v}'.`,
      "BBOX",
    );
  const [a, b, c, d] = n as [number, number, number, number];
  return latLon ? [b, a, d, c] : [a, b, c, d];
}

/** True when `s` starts with a real calendar date YYYY-MM-DD (Date.parse rolls 2020-02-30 over to March). */
function calendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** Ms of an ISO 8601 date or date-time; a bare date means its first (or, `end`, last) millisecond UTC. */
function instant(s: string, end: boolean): number {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(s);
  const t = Date.parse(dateOnly ? `${s}T00:00:00Z` : s);
  if (!calendarDate(s) || Number.isNaN(t))
    throw new WmsException("InvalidDimensionValue", `TIME value '${s}' is not an ISO 8601 date or date-time.`, "TIME");
  return dateOnly && end ? t + 86_400_000 - 1 : t;
}

/** TIME: `start/end[/period]` (period ignored) or one date / date-time (a bare date is that whole UTC day). */
export function parseTime(v: string): TimeWindow {
  const parts = v.split("/");
  if (parts.length > 3 || (parts.length === 2 && !parts[1]))
    throw new WmsException("InvalidDimensionValue", `TIME '${v}' must be a date or start/end.`, "TIME");
  const from = instant(parts[0]!, false);
  const to = instant(parts.length === 1 ? parts[0]! : parts[1]!, true);
  if (from > to) throw new WmsException("InvalidDimensionValue", `TIME '${v}': the start is after the end.`, "TIME");
  return { from, to };
}

/** A FORMAT value (case-insensitive MIME type); InvalidFormat unless image/png or image/jpeg. */
export function formatOf(value: string): MapFormat {
  const v = value.toLowerCase();
  if (!(MAP_FORMATS as readonly string[]).includes(v))
    throw new WmsException(
      "InvalidFormat",
      `FORMAT '${v}' is not supported; use ${MAP_FORMATS.join(" or ")}.`,
      "FORMAT",
    );
  return v as MapFormat;
}

const parseFormat = (p: Kvp): MapFormat => formatOf(required(p, "FORMAT"));

function parseBool(p: Kvp, name: string): boolean {
  const v = (p.get(name) ?? "FALSE").toUpperCase();
  if (v !== "TRUE" && v !== "FALSE")
    throw new WmsException("InvalidParameterValue", `${name} must be TRUE or FALSE; it is '${p.get(name)}'.`, name);
  return v === "TRUE";
}

/** MAXCC (maximum cloud coverage, 0..100 %, Sentinel Hub's OGC parameter) or undefined; InvalidParameterValue. */
export function parseMaxcc(p: Kvp): number | undefined {
  const v = p.get("MAXCC");
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === "" || !(n >= 0 && n <= 100))
    throw new WmsException("InvalidParameterValue", `MAXCC must be a number from 0 to 100; it is '${v}'.`, "MAXCC");
  return n;
}

/** The single layer of LAYERS (and its STYLES entry, if any). EO Edge renders one layer per GetMap. */
function parseLayer(p: Kvp): { layer: string; style?: string } {
  const layers = required(p, "LAYERS").split(",");
  if (layers.length !== 1)
    throw new WmsException(
      "InvalidParameterValue",
      `LAYERS names ${layers.length} layers; EO Edge renders one layer per GetMap request.`,
      "LAYERS",
    );
  const style = p.get("STYLES")?.trim();
  return { layer: layers[0]!.trim(), ...(style ? { style } : {}) };
}

/** Parses a GetMap request (VERSION 1.3.0 with CRS, or 1.1.1 with SRS; 1.3.0 when VERSION is absent). */
export function parseGetMap(p: Kvp): MapRequest {
  const version = operationVersion(p);
  const { crs, latLon } = parseWmsCrs(required(p, WMS_VERSIONS[version].crsParam), version);
  const time = p.get("TIME")?.trim();
  const maxcc = parseMaxcc(p);
  return {
    ...parseLayer(p),
    crs,
    bbox: parseBbox(required(p, "BBOX"), latLon),
    width: pixels(p, "WIDTH"),
    height: pixels(p, "HEIGHT"),
    format: parseFormat(p),
    transparent: parseBool(p, "TRANSPARENT"),
    ...(time ? { time: parseTime(time) } : {}),
    ...(maxcc !== undefined ? { maxcc } : {}),
  };
}

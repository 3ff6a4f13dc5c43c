/**
 * Coordinate reference systems of EO Edge: parsing the CRS URIs of the Processing API, proj4 definitions,
 * valid areas and point transformers. All projection maths is proj4's; this module only names definitions.
 *
 * The supported CRSs and their definitions (from the epsg-index package) are in ./epsg.ts.
 *
 * Axis order: EPSG:4326 and OGC CRS84 are both lon, lat (x = longitude) everywhere in EO Edge, as the
 * Processing API documents for `bounds.properties.crs`. Projected CRSs are always x = easting, y = northing
 * (GDAL's "traditional GIS order", what proj4 strings without +axis mean), also for those whose EPSG definition
 * lists northing first (2180, 2193, 3844, 5514, ...).
 */
import proj4 from "proj4";
import { unsupported } from "../errors";
import type { Crs } from "../types";
import { requireEpsg, SUPPORTED_CRS, utmZone } from "./epsg";

export { CRS_DOCUMENTATION, SUPPORTED_CRS, SUPPORTED_EPSG } from "./epsg";

const crsCache = new Map<number, Crs>();

/**
 * The Crs of a supported EPSG code (proj4 definition from epsg-index; geographic for geographic 2D CRSs).
 * @throws EngineError unsupported naming the code, the supported CRSs and where they are documented.
 */
export function crsFromEpsg(code: number): Crs {
  const cached = crsCache.get(code);
  if (cached) return cached;
  const def = requireEpsg(code);
  const crs: Crs = { epsg: code, proj4: def.proj4, geographic: def.kind === "CRS-GEOGCRS" };
  crsCache.set(code, crs);
  return crs;
}

const EPSG_FORMS = [
  /^https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/[^/]+\/(\d+)$/i,
  /^urn:ogc:def:crs:EPSG:[^:]*:(\d+)$/i,
  /^EPSG:(\d+)$/i,
];
const CRS84_FORMS = [
  /^https?:\/\/www\.opengis\.net\/def\/crs\/OGC\/1\.3\/CRS84$/i,
  /^urn:ogc:def:crs:OGC:1\.3:CRS84$/i,
  /^(OGC:)?CRS84$/i,
];

/**
 * Parses a CRS identifier: `http://www.opengis.net/def/crs/EPSG/0/<code>`,
 * `http://www.opengis.net/def/crs/OGC/1.3/CRS84` (= EPSG:4326, lon/lat), `urn:ogc:def:crs:EPSG::<code>` or
 * `EPSG:<code>`.
 * @throws EngineError unsupported naming the CRS and what is supported when it is not recognised or not supported.
 */
export function parseCrs(uri: string): Crs {
  const text = String(uri).trim();
  if (CRS84_FORMS.some((re) => re.test(text))) return crsFromEpsg(4326);
  for (const re of EPSG_FORMS) {
    const m = re.exec(text);
    if (!m) continue;
    const code = Number(m[1]);
    requireEpsg(code, `CRS "${text}" (EPSG:${code})`);
    return crsFromEpsg(code);
  }
  throw unsupported(
    `CRS "${text}" is not recognised: use http://www.opengis.net/def/crs/EPSG/0/<code> or ` +
      `http://www.opengis.net/def/crs/OGC/1.3/CRS84. Supported: ${SUPPORTED_CRS}.`,
  );
}

const areaCache = new Map<number, [number, number, number, number]>();

/**
 * Bounds of the box [x0, y0, x1, y1] of CRS `from` in CRS `to`: its edges densified to `n` points each and
 * transformed (as GDAL's OCTTransformBounds / rasterio's transform_bounds do); NaN where nothing transforms.
 */
export function transformBounds(box: readonly number[], from: Crs, to: Crs, n = 21): [number, number, number, number] {
  const [x0, y0, x1, y1] = box as [number, number, number, number];
  const xs = new Float64Array(4 * n);
  const ys = new Float64Array(4 * n);
  for (let i = 0; i < n; i++) {
    const t = i / (n - 1);
    const x = x0 + t * (x1 - x0);
    const y = y0 + t * (y1 - y0);
    [xs[i], ys[i]] = [x, y0];
    [xs[n + i], ys[n + i]] = [x, y1];
    [xs[2 * n + i], ys[2 * n + i]] = [x0, y];
    [xs[3 * n + i], ys[3 * n + i]] = [x1, y];
  }
  transformer(from, to)(xs, ys);
  return finiteBounds(xs, ys) ?? [NaN, NaN, NaN, NaN];
}

/** Bounds of a lon/lat box projected to `crs` (181 points per edge). */
function projectedBounds(
  crs: Crs,
  lon0: number,
  lat0: number,
  lon1: number,
  lat1: number,
): [number, number, number, number] {
  return transformBounds([lon0, lat0, lon1, lat1], crsFromEpsg(4326), crs, 181);
}

/** [minX, minY, maxX, maxY] of the points whose x and y are both finite, or null when there are none. */
export function finiteBounds(xs: ArrayLike<number>, ys: ArrayLike<number>): [number, number, number, number] | null {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < xs.length; i++) {
    const [x, y] = [xs[i]!, ys[i]!];
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  return minX <= maxX ? [minX, minY, maxX, maxY] : null;
}

/** Degrees added on every side of the EPSG area of use of the national / polar CRSs (see crsArea). */
const AREA_MARGIN = 15;

/**
 * The valid extent of a CRS, [minX, minY, maxX, maxY] in its units, for "bbox outside the CRS" checks (they catch
 * swapped axes and wrong CRSs, so they are generous on purpose), projected with proj4 (edges densified):
 * - EPSG:4326: the whole globe; EPSG:3857: EPSG's area of use (latitudes within +-85.06 degrees);
 * - UTM: the zone's central meridian +-9 degrees (the 6-degree zone plus 6 degrees on each side) and latitudes
 *   -80..84 for both hemispheres;
 * - the others: the EPSG area of use (from epsg-index) widened by 15 degrees on every side, clamped to the globe.
 * @throws EngineError unsupported for an unsupported code.
 */
export function crsArea(crs: Crs): [number, number, number, number] {
  const cached = areaCache.get(crs.epsg);
  if (cached) return [...cached];
  const [west, south, east, north] = requireEpsg(crs.epsg).area;
  const utm = utmZone(crs.epsg);
  let area: [number, number, number, number];
  if (crs.geographic) area = [west, south, east, north];
  else if (crs.epsg === 3857) area = projectedBounds(crs, west, south, east, north);
  else if (utm) area = projectedBounds(crs, -183 + 6 * utm.zone - 9, -80, -183 + 6 * utm.zone + 9, 84);
  else {
    const m = AREA_MARGIN;
    area = projectedBounds(
      crs,
      Math.max(-180, west - m),
      Math.max(-90, south - m),
      Math.min(180, east + m),
      Math.min(90, north + m),
    );
  }
  areaCache.set(crs.epsg, area);
  return [...area];
}

/** A point transformer: transforms the coordinates in place; points that fail become NaN. */
export type PointTransformer = (xs: Float64Array, ys: Float64Array) => void;

const identity: PointTransformer = () => {};
const transformerCache = new Map<string, PointTransformer>();

/**
 * A transformer from `from` to `to` (x = lon / easting, y = lat / northing), proj4 underneath, cached per pair.
 * The identity (same EPSG code) is a no-op. Points proj4 cannot transform become NaN.
 */
export function transformer(from: Crs, to: Crs): PointTransformer {
  if (from.epsg === to.epsg) return identity;
  const key = `${from.epsg}>${to.epsg}`;
  const cached = transformerCache.get(key);
  if (cached) return cached;
  const converter = proj4(from.proj4, to.proj4);
  const fn: PointTransformer = (xs, ys) => {
    const p: [number, number] = [0, 0];
    for (let i = 0; i < xs.length; i++) {
      p[0] = xs[i]!;
      p[1] = ys[i]!;
      let out: number[];
      try {
        out = converter.forward(p);
      } catch {
        out = [NaN, NaN];
      }
      const ok = Number.isFinite(out[0]) && Number.isFinite(out[1]);
      xs[i] = ok ? out[0]! : NaN;
      ys[i] = ok ? out[1]! : NaN;
    }
  };
  transformerCache.set(key, fn);
  return fn;
}

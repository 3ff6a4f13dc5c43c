/**
 * GeoTIFF georeferencing tags (OGC GeoTIFF 1.1, OGC 19-008r4) for a north-up grid in an EPSG CRS:
 * - ModelPixelScaleTag (33550): [resX, resY, 0]
 * - ModelTiepointTag (33922): raster (0, 0, 0) -> model (minX, maxY, 0), the outer corner of the top-left pixel
 * - GeoKeyDirectoryTag (34735), header [1, 1, 0] (the GeoTIFF 1.0-compatible revision GDAL writes by default;
 *   every key below exists in 1.0 and 1.1), with GTModelTypeGeoKey (1024), GTRasterTypeGeoKey (1025) =
 *   RasterPixelIsArea, and GeodeticCRSGeoKey (2048, "GeographicTypeGeoKey" in 1.0) for geographic CRSs or
 *   ProjectedCRSGeoKey (3072, "ProjectedCSTypeGeoKey") for projected ones. Units and datum follow from the EPSG
 *   code, as GDAL reads them.
 * - GDAL_NODATA (42113, GDAL's private ASCII tag) when a nodata value is set.
 * Model X/Y are easting/northing, or longitude/latitude for geographic CRSs (the order GDAL writes for 4326).
 */
import { invalidArgument } from "../errors";
import type { TiffEntry } from "./ifd";
import type { GeoRef } from "./types";

export const TAG_MODEL_PIXEL_SCALE = 33550;
export const TAG_MODEL_TIEPOINT = 33922;
export const TAG_GEO_KEY_DIRECTORY = 34735;
export const TAG_GDAL_NODATA = 42113;

const GT_MODEL_TYPE = 1024;
const GT_RASTER_TYPE = 1025;
const GEODETIC_CRS = 2048;
const PROJECTED_CRS = 3072;
const MODEL_TYPE_PROJECTED = 1;
const MODEL_TYPE_GEOGRAPHIC = 2;
const RASTER_PIXEL_IS_AREA = 1;

/**
 * Common EPSG geographic 2D CRSs, for callers that do not set `georef.geographic` (everything else is treated as
 * projected). The Processing API passes `geographic` from the CRS definition (src/raster/crs/epsg.ts).
 */
const GEOGRAPHIC_EPSG = new Set([4326, 4258, 4269, 4283, 4167, 4230, 4617, 4674]);

/** True when the EPSG code names a geographic (lon/lat degrees) CRS, unless `georef.geographic` says otherwise. */
export function isGeographic(georef: GeoRef): boolean {
  return georef.geographic ?? GEOGRAPHIC_EPSG.has(georef.epsg);
}

/** GeoKeyDirectory values: header [1, 1, 0, n] then [keyId, 0 (value inline), 1, value] per key, sorted by id. */
export function geoKeyDirectory(georef: GeoRef): number[] {
  const geographic = isGeographic(georef);
  const keys: [number, number][] = [
    [GT_MODEL_TYPE, geographic ? MODEL_TYPE_GEOGRAPHIC : MODEL_TYPE_PROJECTED],
    [GT_RASTER_TYPE, RASTER_PIXEL_IS_AREA],
    [geographic ? GEODETIC_CRS : PROJECTED_CRS, georef.epsg],
  ];
  return [1, 1, 0, keys.length, ...keys.flatMap(([id, value]) => [id, 0, 1, value])];
}

/** GDAL_NODATA text: GDAL parses it with CPLAtof, so integers as digits, NaN as "nan", infinities as "inf"/"-inf". */
export function nodataText(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  return String(value);
}

/**
 * The georeferencing entries of a `width` x `height` grid covering `georef.bbox`, plus GDAL_NODATA.
 * @throws EngineError invalid-argument for an empty or inverted bbox or an EPSG code outside 1..32767 (GeoKey SHORT range).
 */
export function geoEntries(georef: GeoRef, width: number, height: number, nodataValue?: number): TiffEntry[] {
  const [minX, minY, maxX, maxY] = georef.bbox;
  if (!(maxX > minX && maxY > minY))
    throw invalidArgument(`bbox [${georef.bbox.join(", ")}] must have maxX > minX and maxY > minY.`);
  if (!Number.isInteger(georef.epsg) || georef.epsg < 1 || georef.epsg > 32767) {
    throw invalidArgument(`EPSG code ${georef.epsg} cannot be written to a GeoTIFF (1..32767).`);
  }
  const entries: TiffEntry[] = [
    { tag: TAG_MODEL_PIXEL_SCALE, type: "DOUBLE", values: [(maxX - minX) / width, (maxY - minY) / height, 0] },
    { tag: TAG_MODEL_TIEPOINT, type: "DOUBLE", values: [0, 0, 0, minX, maxY, 0] },
    { tag: TAG_GEO_KEY_DIRECTORY, type: "SHORT", values: geoKeyDirectory(georef) },
  ];
  if (nodataValue !== undefined) entries.push({ tag: TAG_GDAL_NODATA, type: "ASCII", values: nodataText(nodataValue) });
  return entries;
}

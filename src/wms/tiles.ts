/**
 * Web Mercator tiles (WMTS GetTile, tile matrix sets of Sentinel Hub's OGC WMTS: PopularWebMercator256 and
 * PopularWebMercator512). Tile matrix z has 2^z x 2^z tiles over the EPSG:3857 square of half-side
 * 20037508.342789244 m (OGC 17-083r2 "WebMercatorQuad"), row 0 at the north edge: TILEMATRIX/TILECOL/TILEROW are
 * the z/x/y of XYZ web-map tiles.
 */
import { WmsException } from "./exceptions";

/** Half the side of the EPSG:3857 square in metres (pi * 6378137). */
export const MERCATOR_HALF = 20037508.342789244;
/** Deepest tile matrix served. */
export const MAX_ZOOM = 22;

/** Tile size in px of a tile matrix set name; TileMatrixSet names other than PopularWebMercator256/512 are invalid. */
export function tileSize(matrixSet: string): number {
  const m = /^PopularWebMercator(256|512)$/i.exec(matrixSet);
  if (!m)
    throw new WmsException(
      "InvalidParameterValue",
      `TILEMATRIXSET '${matrixSet}' is not supported; use PopularWebMercator256 or PopularWebMercator512.`,
      "TILEMATRIXSET",
    );
  return Number(m[1]);
}

/** A non-negative integer parameter up to `max`; `code` (InvalidParameterValue / TileOutOfRange) otherwise. */
export function tileIndex(v: string, name: string, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v))
    throw new WmsException("InvalidParameterValue", `${name} must be a non-negative integer; it is '${v}'.`, name);
  if (n > max) throw new WmsException("TileOutOfRange", `${name} ${n} is out of range (0..${max}).`, name);
  return n;
}

/** EPSG:3857 bbox [minx, miny, maxx, maxy] in metres of tile (z, x, y). */
export function tileBbox(z: number, x: number, y: number): [number, number, number, number] {
  const size = (2 * MERCATOR_HALF) / 2 ** z;
  return [
    -MERCATOR_HALF + x * size,
    MERCATOR_HALF - (y + 1) * size,
    -MERCATOR_HALF + (x + 1) * size,
    MERCATOR_HALF - y * size,
  ];
}

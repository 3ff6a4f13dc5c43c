/**
 * Sentinel Hub's Batch tiling grids: which grids exist, which resolutions they offer, and which tiles cover an area.
 *
 * API (stable; used by batch analysis and the tilinggrids routes):
 * - `TILING_GRIDS`, `findTilingGrid(id)` (undefined when unknown), `tilingGrid(id)` (throws), `gridDescriptor(g)`;
 * - `checkResolution(grid, res)` -> the offered resolution equal to `res` (relative 1e-9);
 * - `areaOfBounds(processRequest.input.bounds)` -> the {@link GridArea} of a request's bounds;
 * - `tileGrid(tile)` -> the tile's pixel Grid (src/raster/types) for the pipeline;
 * - `tilesIntersecting(grid, res, area, buffer?)` -> {@link GridTile}[]: every tile whose interior meets the area (a
 *   tile that only touches it, or overlaps it by less than 10 cm or 1e-6 degree, is not listed),
 *   ordered by EPSG code, then north to south (top edge descending), then west to east (left edge ascending).
 *   `area` = `{geometry: Polygon | MultiPolygon, crs?}` (crs: an EPSG Crs of src/raster/crs, default EPSG:4326 lon/lat;
 *   edges are straight lines in that CRS, so a CRS84 footprint's edges curve in UTM);
 *   `buffer` = `{x, y}` in pixels (Sentinel Hub's bufferX / bufferY): each side grows by x (y) pixels.
 *   A tile's `bbox` is in its own CRS (`epsg`), buffer included; `width`/`height` are its pixels at `res`:
 *   round(tile size / res) + 2 buffer, and the bbox spans exactly width x height pixels of size `res` from the
 *   cell's west / north edge minus the buffer (so for 1.4999 m on the 10 km grid the bbox is 6667 px = 9999.33 m).
 *
 * Layout and names (EO Edge's reading of Sentinel Hub's documentation, which describes the UTM grids as the
 * Sentinel-2 tiling "with some adjustments" and the others as regular grids, without naming rules; the names here
 * are ours where the docs give none):
 * - UTM grids (ids 0, 1, 2: 20040 m, 10000 m, 100080 m): the area is split by UTM zone (6 degrees) and hemisphere;
 *   each part is tiled in its zone's CRS (EPSG:326zz / 327zz). Inside every MGRS 100 km square, tiles step by the
 *   tile size east (column i) and south (row j) from the square's north-west corner until the square is covered;
 *   for 20040 and 100080 m tiles that corner is the Sentinel-2 tile origin (snapped outward to 60 m, ./mgrs.ts), so
 *   they keep Sentinel-2's 60 m pixel grid (and overlap the next square's tiles by up to 240 m); 10 km tiles start
 *   at the square's own corner (the MGRS 10 km squares, no overlap). Name: `<zone><band><square>_<i>_<j>`, e.g.
 *   31UES_0_3 (i, j from 0).
 * - WGS84 grid (id 3): 1 degree cells on integer degrees in EPSG:4326, named by the south-west corner: N50E003,
 *   S01W001.
 * - LAEA grids (ids 6, 7: 100 km, 20 km): EPSG:3035 cells on multiples of the tile size from the CRS origin (the
 *   EEA / INSPIRE reference grid), named as the EEA names its cells: 100kmE38N31, 20kmE384N312.
 * At most `limit` (default MAX_TILES = 100000) tiles per area: more throws invalid-argument.
 */
import { EngineError } from "../../raster/errors";
import type { Crs, Grid } from "../../raster/types";
import { crsFromEpsg, parseCrs } from "../../raster/crs";
import { TILING_GRIDS, type TilingGrid } from "./definitions";
import { areaToLonLat, boxRing, type Box, type LonLatArea } from "./geometry";
import { laeaCells, MAX_TILES, utmCells, wgs84Cells, type GridCell } from "./layouts";

export { MAX_TILES };

export { TILING_GRIDS, gridDescriptor, type TilingGrid, type TilingGridProperties } from "./definitions";

/** One output tile of a grid. */
export interface GridTile {
  /** Unique within the grid (see the module note for the naming). */
  name: string;
  /** Numeric id, unique within the grid. */
  id: number;
  /** EPSG code of the tile CRS. */
  epsg: number;
  /** [minX, minY, maxX, maxY] in the tile CRS (metres or degrees), buffer included. */
  bbox: Box;
  /** Pixels at the requested resolution, buffer included. */
  width: number;
  height: number;
}

/** The area to tile: a Polygon / MultiPolygon in `crs` (default EPSG:4326, x = lon). */
export interface GridArea {
  geometry: LonLatArea;
  crs?: Crs;
}

/**
 * The area of a Process request's `input.bounds` (`{bbox?, geometry?, properties?: {crs?}}`, as batch
 * `processRequest.input.bounds`): the geometry when there is one (it lies inside the bbox when both are given),
 * else the bbox as a polygon; CRS from `properties.crs` (default OGC CRS84, lon/lat).
 * @throws EngineError unsupported for a CRS EO Edge does not know (src/raster/crs parseCrs), invalid-argument when
 *   there is neither a geometry nor a 4-number bbox.
 */
export function areaOfBounds(bounds: {
  bbox?: number[];
  geometry?: LonLatArea;
  properties?: { crs?: string };
}): GridArea {
  const crs = parseCrs(bounds.properties?.crs ?? "http://www.opengis.net/def/crs/OGC/1.3/CRS84");
  if (bounds.geometry) return { geometry: bounds.geometry, crs };
  const b = bounds.bbox;
  if (!b || b.length !== 4)
    throw new EngineError("invalid-argument", "input.bounds needs a bbox (minX, minY, maxX, maxY) or a geometry.");
  return { geometry: { type: "Polygon", coordinates: [boxRing(b as Box)] }, crs };
}

/** The pixel grid of a tile (for the pipeline's planGrid): its CRS, bbox (buffer included), width and height. */
export function tileGrid(tile: GridTile): Grid {
  return { crs: crsFromEpsg(tile.epsg), bbox: [...tile.bbox], width: tile.width, height: tile.height };
}

/** The grid with this id, or undefined. */
export function findTilingGrid(id: number): TilingGrid | undefined {
  return TILING_GRIDS.find((g) => g.id === id);
}

/** @throws EngineError invalid-argument naming the known grid ids when `id` is not one. */
export function tilingGrid(id: number): TilingGrid {
  const grid = findTilingGrid(id);
  if (!grid) {
    const known = TILING_GRIDS.map((g) => `${g.id} (${g.name})`).join(", ");
    throw new EngineError("invalid-argument", `Tiling grid ${id} does not exist; the tiling grids are ${known}.`);
  }
  return grid;
}

/**
 * The offered resolution of the grid equal to `res` (within 1e-9 relative), in the grid's units.
 * @throws EngineError invalid-argument listing the offered resolutions (ascending) when it is not offered.
 */
export function checkResolution(grid: TilingGrid, res: number): number {
  const offered = grid.properties.resolutions;
  const hit = offered.find((r) => Math.abs(r - res) <= 1e-9 * r);
  if (hit === undefined) {
    const unit = grid.properties.unit === "METRE" ? "m" : "degrees";
    const list = [...offered].sort((a, b) => a - b).join(", ");
    throw new EngineError(
      "invalid-argument",
      `Resolution ${res} is not offered by tiling grid ${grid.id} (${grid.name}); offered resolutions (${unit}): ${list}.`,
    );
  }
  return hit;
}

const CELLS: Record<TilingGrid["layout"], (size: number, area: LonLatArea, limit: number) => GridCell[]> = {
  utm: utmCells,
  wgs84: wgs84Cells,
  laea: laeaCells,
};

/**
 * The tiles of `grid` at resolution `res` whose interior meets the area (see the module note).
 * @throws EngineError invalid-argument when the resolution is not offered, a buffer is not a non-negative integer,
 *   the geometry cannot be transformed to longitude / latitude, or the area needs more than `limit` tiles
 *   (default MAX_TILES).
 */
export function tilesIntersecting(
  grid: TilingGrid,
  res: number,
  area: GridArea,
  buffer: { x?: number; y?: number } = {},
  limit = MAX_TILES,
): GridTile[] {
  const resolution = checkResolution(grid, res);
  const bx = buffer.x ?? 0,
    by = buffer.y ?? 0;
  if (![bx, by].every((b) => Number.isInteger(b) && b >= 0)) {
    throw new EngineError(
      "invalid-argument",
      `bufferX and bufferY must be non-negative integers (pixels); got ${bx}, ${by}.`,
    );
  }
  const lonLat = areaToLonLat(area.geometry, area.crs ?? crsFromEpsg(4326));
  if (!lonLat)
    throw new EngineError(
      "invalid-argument",
      `The area cannot be transformed from EPSG:${area.crs?.epsg} to longitude / latitude.`,
    );
  const size = grid.properties.tileWidth;
  const px = Math.round(size / resolution);
  // when the tile size is a whole number of pixels the bbox keeps the cell's exact edges (no rounding drift)
  const whole = Math.abs(px * resolution - size) <= 1e-9 * size;
  const tiles = CELLS[grid.layout](size, lonLat, limit).map(({ name, id, epsg, cell }): GridTile => {
    const minX = cell[0] - bx * resolution,
      maxY = cell[3] + by * resolution;
    const maxX = whole ? cell[2] + bx * resolution : minX + (px + 2 * bx) * resolution;
    const minY = whole ? cell[1] - by * resolution : maxY - (px + 2 * by) * resolution;
    return { name, id, epsg, bbox: [minX, minY, maxX, maxY], width: px + 2 * bx, height: px + 2 * by };
  });
  return tiles.sort((a, b) => a.epsg - b.epsg || b.bbox[3] - a.bbox[3] || a.bbox[0] - b.bbox[0]);
}

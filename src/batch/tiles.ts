/**
 * The output tiles of a batch task: each a pixel grid (CRS, bbox, width, height) with the name Sentinel Hub's
 * delivery paths use (`<tileName>`), optionally a geometry that clips it.
 * - TilingGridInput: the tiles of the tiling grid (./grids) that share a point with the request bounds (its
 *   geometry, or its bbox as a polygon), at the requested resolution, buffered by bufferX / bufferY pixels.
 * - GeoPackageInput: one tile per feature (./features.ts).
 */
import { crsFromEpsg } from "../raster/crs";
import type { AreaGeometry } from "../pipeline/input";
import type { Grid } from "../raster/types";
import { areaOfBounds, checkResolution, tilesIntersecting, tilingGrid } from "./grids";
import type { LonLatArea } from "./grids/geometry";
import type { TilingGridInput } from "./schema";

/** One output tile as stored in the task: `bbox` in EPSG:`epsg` units (buffer included), size in pixels. */
export interface BatchTile {
  name: string;
  epsg: number;
  bbox: [number, number, number, number];
  width: number;
  height: number;
  /** Pixels outside this geometry (in the tile CRS) are no data, as in a Process request with that geometry. */
  geometry?: AreaGeometry;
}

/** Request bounds: a bbox and / or a Polygon / MultiPolygon in `properties.crs` (default CRS84). */
export interface Bounds {
  bbox?: number[];
  geometry?: LonLatArea;
  properties?: { crs?: string };
}

/** @throws EngineError invalid-argument when the grid does not exist or does not offer the resolution. */
export function checkTilingGrid(input: TilingGridInput): void {
  checkResolution(tilingGrid(input.id), input.resolution);
}

/**
 * The tiles of a tiling grid covering `bounds`, buffered and sized at `input.resolution` (grid order: EPSG, north
 * to south, west to east).
 * @throws EngineError invalid-argument for an unknown grid or resolution, or too many tiles; unsupported for a CRS.
 */
export function tilingGridTiles(input: TilingGridInput, bounds: Bounds): BatchTile[] {
  const buffer = { x: input.bufferX ?? 0, y: input.bufferY ?? 0 };
  const tiles = tilesIntersecting(tilingGrid(input.id), input.resolution, areaOfBounds(bounds), buffer);
  return tiles.map(({ name, epsg, bbox, width, height }) => ({ name, epsg, bbox, width, height }));
}

/** The pixel grid of a tile. @throws EngineError unsupported for an EPSG code EO Edge does not know. */
export const batchTileGrid = (t: BatchTile): Grid => ({
  crs: crsFromEpsg(t.epsg),
  bbox: t.bbox,
  width: t.width,
  height: t.height,
});

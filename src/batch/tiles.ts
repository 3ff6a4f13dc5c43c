/**
 * The output tiles of a batch task: each a pixel grid (CRS, bbox, width, height) named as Sentinel Hub names it.
 * TilingGridInput: the grid's tiles intersecting the request bounds, at the requested resolution, each enlarged
 * by bufferX / bufferY pixels on both sides (OpenAPI `BatchV2TilingGridInput`: "the output tile will be wider by
 * 2 * bufferX pixels; its coordinates move by bufferX * resolution").
 */
import { CRS84 } from "../pipeline/plan";
import { crsFromEpsg, parseCrs } from "../raster/crs";
import type { Grid } from "../raster/types";
import type { TilingGridInput } from "./schema";
import { standinCheck, standinTiles } from "./standin-grid";

/** One output tile as stored in the task: `bbox` in EPSG:`epsg` units (buffer included), size in pixels. */
export interface BatchTile {
  name: string;
  epsg: number;
  bbox: [number, number, number, number];
  width: number;
  height: number;
}

/** Request bounds: a bbox or a geometry in `crs` (default CRS84). */
export interface Bounds {
  bbox?: number[];
  geometry?: { type: string; coordinates: unknown };
  properties?: { crs?: string };
}

/** @throws ApiError 400 when the grid does not exist or does not offer the resolution. */
export function checkTilingGrid(input: TilingGridInput): void {
  standinCheck(input.id, input.resolution);
}

/** [minX, minY, maxX, maxY] of the bounds' bbox, or of its geometry's positions. */
function boundsBox(b: Bounds): [number, number, number, number] {
  if (b.bbox) return b.bbox as [number, number, number, number];
  const flat = JSON.stringify(b.geometry!.coordinates).match(/-?[\d.eE+-]+/g)!.map(Number);
  const xs = flat.filter((_, i) => i % 2 === 0), ys = flat.filter((_, i) => i % 2 === 1);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/**
 * The tiles of a tiling grid covering `bounds`, buffered and sized at `input.resolution`.
 * @throws ApiError 400 for an unknown grid or resolution; EngineError for an unsupported CRS.
 */
export function tilingGridTiles(input: TilingGridInput, bounds: Bounds): BatchTile[] {
  const crs = parseCrs(bounds.properties?.crs ?? CRS84);
  const r = input.resolution;
  const bx = (input.bufferX ?? 0) * r, by = (input.bufferY ?? 0) * r;
  return standinTiles(input.id, r, boundsBox(bounds), crs).map((t) => {
    const bbox: BatchTile["bbox"] = [t.bbox[0] - bx, t.bbox[1] - by, t.bbox[2] + bx, t.bbox[3] + by];
    return { name: t.name, epsg: t.epsg, bbox, width: Math.round((bbox[2] - bbox[0]) / r), height: Math.round((bbox[3] - bbox[1]) / r) };
  });
}

/** The output grid of a tile. @throws EngineError unsupported for an EPSG code EO Edge does not know. */
export function tileGrid(t: BatchTile): Grid {
  return { crs: crsFromEpsg(t.epsg), bbox: t.bbox, width: t.width, height: t.height };
}

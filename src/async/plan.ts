/**
 * The output grid of an async request and its strips. Bounds are checked and planned by the Processing planner
 * (src/pipeline/plan.ts `planRequest`), the size with the async limit of 10000 px per side instead of the
 * synchronous 2500 (until the planner takes the limit as a parameter). The geometry mask is rasterized per strip,
 * never for the whole grid (a 10000 x 10000 mask alone would be 100 MB).
 */
import { badRequest } from "../http/errors";
import { DEFAULT_SIZE, geometryRings, planRequest, stripPlan, type GridRequest, type Plan } from "../pipeline/plan";
import type { ProcessInput } from "../pipeline/input";
import { rasterizeRings } from "../raster/grid/rasterize";
import type { Grid } from "../raster/types";
import { MAX_ASYNC_SIZE } from "./schema";

/** The whole request: its grid, geometry rings (null for a bbox) and WGS84 search footprint. */
export interface AsyncPlan {
  grid: Grid;
  rings: Float64Array[] | null;
  lonLatBbox: Plan["lonLatBbox"];
}

/** Pixels along an edge of `extent` CRS units at `res` units per pixel (at least 1). */
const pixels = (extent: number, res: number): number => Math.max(1, Math.round(extent / res));

/**
 * Width and height in pixels: resx/resy in CRS units, else width/height (one of them: the other keeps the bbox
 * aspect ratio), else 256 x 256 (as the Processing API).
 * @throws ApiError 400 above 10000 px per side.
 */
export function asyncSize(bbox: readonly number[], out: GridRequest): { width: number; height: number } {
  const dx = bbox[2]! - bbox[0]!;
  const dy = bbox[3]! - bbox[1]!;
  const rx = out.resx ?? out.resy;
  const ry = out.resy ?? out.resx;
  let size: { width: number; height: number };
  if (rx !== undefined && ry !== undefined) size = { width: pixels(dx, rx), height: pixels(dy, ry) };
  else if (out.width !== undefined) size = { width: out.width, height: out.height ?? pixels(dy, dx / out.width) };
  else if (out.height !== undefined) size = { width: pixels(dx, dy / out.height), height: out.height };
  else size = { width: DEFAULT_SIZE, height: DEFAULT_SIZE };
  if (size.width > MAX_ASYNC_SIZE || size.height > MAX_ASYNC_SIZE)
    throw badRequest(`The output would be ${size.width} x ${size.height} px; async requests allow at most ${MAX_ASYNC_SIZE} x ${MAX_ASYNC_SIZE} px. Use a coarser resx/resy or a smaller bbox.`);
  return size;
}

/** Plans an async request. @throws ApiError 400 for invalid bounds or sizes (as the Processing API). */
export function asyncPlan(input: Pick<ProcessInput, "bounds">, output: GridRequest): AsyncPlan {
  const base = planRequest(input, { width: 1, height: 1 });
  const grid: Grid = { ...base.grid, ...asyncSize(base.grid.bbox, output) };
  return { grid, rings: input.bounds.geometry ? geometryRings(input.bounds.geometry) : null, lonLatBbox: base.lonLatBbox };
}

/** The pipeline plan of rows [row, row + rows): same pixel centres as the whole grid, its own geometry mask. */
export function stripOf(plan: AsyncPlan, row: number, rows: number): Plan {
  const strip = stripPlan({ grid: plan.grid, geometryMask: null, lonLatBbox: plan.lonLatBbox }, row, rows);
  return plan.rings ? { ...strip, geometryMask: rasterizeRings(plan.rings, strip.grid) } : strip;
}

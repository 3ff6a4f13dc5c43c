/**
 * Plans a Processing request: output grid (CRS, bbox, width, height), the geometry clip mask and the
 * WGS84 footprint used to find scenes.
 */
import { crsArea, crsFromEpsg, parseCrs, transformBounds } from "../raster/crs";
import { EngineError, invalidArgument } from "../raster/errors";
import { rasterizeRings } from "../raster/grid/rasterize";
import type { Crs, Grid } from "../raster/types";
import type { AreaGeometry, ProcessInput } from "./input";

/** The output size a request asks for: width/height in pixels or resx/resy in CRS units (Processing `output`, Statistical `aggregation`). */
export interface GridRequest {
  width?: number;
  height?: number;
  resx?: number;
  resy?: number;
}

export const CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
export const MAX_SIZE = 2500;
export const DEFAULT_SIZE = 256;

export interface Plan {
  grid: Grid;
  /** 1 inside the request geometry, 0 outside; null when the request has only a bbox. */
  geometryMask: Uint8Array | null;
  /** [minLon, minLat, maxLon, maxLat] covering the request area (EPSG:4326), for scene search. */
  lonLatBbox: [number, number, number, number];
}

/** Polygon / MultiPolygon rings as flat coordinate arrays. */
export function geometryRings(g: AreaGeometry): Float64Array[] {
  const polys = g.type === "Polygon" ? [g.coordinates] : g.coordinates;
  return polys.flatMap((p) => p.map((ring) => Float64Array.from(ring.flatMap((pt) => [pt[0]!, pt[1]!]))));
}

function ringsBbox(rings: Float64Array[]): [number, number, number, number] {
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const r of rings) {
    for (let i = 0; i < r.length; i += 2) {
      b[0] = Math.min(b[0], r[i]!);
      b[1] = Math.min(b[1], r[i + 1]!);
      b[2] = Math.max(b[2], r[i]!);
      b[3] = Math.max(b[3], r[i + 1]!);
    }
  }
  return b;
}

/** Checks bbox ordering and that it lies within the CRS's valid area; throws EngineError invalid-argument. */
export function checkBbox(bbox: number[], crs: Crs): void {
  const [minX, minY, maxX, maxY] = bbox as [number, number, number, number];
  if (!(minX < maxX) || !(minY < maxY))
    throw invalidArgument(`Invalid bbox [${bbox.join(", ")}]: minX must be < maxX and minY < maxY (order: minX, minY, maxX, maxY).`);
  const [aMinX, aMinY, aMaxX, aMaxY] = crsArea(crs);
  if (minX < aMinX || minY < aMinY || maxX > aMaxX || maxY > aMaxY)
    throw invalidArgument(
      `bbox [${bbox.join(", ")}] lies outside the valid area of EPSG:${crs.epsg} [${[aMinX, aMinY, aMaxX, aMaxY].join(", ")}]; check the coordinate order and the CRS.`,
    );
}

/**
 * Output size in pixels from width/height or resx/resy (CRS units). One of width/height given: the other keeps
 * the bbox aspect ratio. Neither: 256 x 256 (the API default). Throws EngineError invalid-argument (with its limit) over 2500 px.
 */
export function outputSize(bbox: number[], out: GridRequest | undefined): { width: number; height: number } {
  const dx = bbox[2]! - bbox[0]!;
  const dy = bbox[3]! - bbox[1]!;
  let width: number;
  let height: number;
  if (out?.resx !== undefined || out?.resy !== undefined) {
    const rx = out.resx ?? out.resy!;
    const ry = out.resy ?? out.resx!;
    width = Math.max(1, Math.round(dx / rx));
    height = Math.max(1, Math.round(dy / ry));
  } else if (out?.width !== undefined && out.height !== undefined) {
    width = out.width;
    height = out.height;
  } else if (out?.width !== undefined) {
    width = out.width;
    height = Math.max(1, Math.round((out.width * dy) / dx));
  } else if (out?.height !== undefined) {
    height = out.height;
    width = Math.max(1, Math.round((out.height * dx) / dy));
  } else {
    width = DEFAULT_SIZE;
    height = DEFAULT_SIZE;
  }
  if (width > MAX_SIZE || height > MAX_SIZE)
    throw new EngineError(
      "invalid-argument",
      `The output would be ${width} x ${height} px; at most ${MAX_SIZE} x ${MAX_SIZE} px are allowed. Use a coarser resx/resy or a smaller bbox.`,
      undefined,
      { name: "output size (px per side)", max: MAX_SIZE },
    );
  if (width < 1 || height < 1) throw invalidArgument("Output width and height must be at least 1 pixel.");
  return { width, height };
}

/** WGS84 bbox of a grid: its edges densified (21 points per side) and transformed. */
export function lonLatBounds(grid: Grid): [number, number, number, number] {
  return transformBounds(grid.bbox, grid.crs, crsFromEpsg(4326));
}

/** Plans the grid of a request: bounds + output -> Plan. Throws EngineError invalid-argument on invalid bounds or sizes. */
export function planRequest(input: Pick<ProcessInput, "bounds">, output: GridRequest | undefined): Plan {
  const crs = parseCrs(input.bounds.properties?.crs ?? CRS84);
  const rings = input.bounds.geometry ? geometryRings(input.bounds.geometry) : null;
  const bbox = rings ? ringsBbox(rings) : (input.bounds.bbox as [number, number, number, number]);
  checkBbox(bbox, crs);
  const grid: Grid = { crs, bbox, ...outputSize(bbox, output) };
  return { grid, geometryMask: rings ? rasterizeRings(rings, grid) : null, lonLatBbox: lonLatBounds(grid) };
}

/** The plan of rows [row, row + rows) of `plan` (same pixel centres, so strips join into the full grid exactly). */
export function stripPlan(plan: Plan, row: number, rows: number): Plan {
  const { grid } = plan;
  const resY = (grid.bbox[3] - grid.bbox[1]) / grid.height;
  const top = grid.bbox[3] - row * resY;
  const bbox: Grid["bbox"] = [grid.bbox[0], top - rows * resY, grid.bbox[2], top];
  const mask = plan.geometryMask ? plan.geometryMask.subarray(row * grid.width, (row + rows) * grid.width) : null;
  return { grid: { ...grid, bbox, height: rows }, geometryMask: mask, lonLatBbox: plan.lonLatBbox };
}

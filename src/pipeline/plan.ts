/**
 * Plans a request for the pipeline: what every caller (Processing, Statistical, async, batch, statistical batch)
 * hands to evaluatePlan, as plain parameters:
 * - the output grid (CRS, bbox, width, height), the geometry clip mask and the WGS84 footprint for scene search;
 * - the limits it was planned under (most pixels per side: MAX_SYNC_SIZE for Processing and Statistical,
 *   MAX_ASYNC_SIZE for async processing, a batch tile's own size up to MAX_BATCH_TILE_SIZE);
 * - the data sources, resolved once against the script's setup() (data fusion ready, see sources.ts), each with
 *   its time window in ms (its dataFilter.timeRange; the Statistical API replaces it per interval, withWindow).
 *
 * Steps: `planRequest` (request bounds + output size) or `planGrid` (an explicit grid, e.g. a batch tile) give
 * an AreaPlan; `withSources` adds the sources once the script is prepared; `withWindow` narrows every source's
 * window. All errors are EngineError invalid-argument (src/raster/errors.ts).
 */
import { crsArea, crsFromEpsg, parseCrs, transformBounds } from "../raster/crs";
import { EngineError, invalidArgument } from "../raster/errors";
import type { EvalSetup } from "../raster/evalscript";
import { rasterizeRings } from "../raster/grid/rasterize";
import type { Crs, Grid } from "../raster/types";
import type { AreaGeometry, DataSourceRequest, ProcessInput } from "./input";
import type { LocationEnv } from "../locations/config";
import { assertHosted } from "../locations/hosting";
import { resolveSources, type RegistryScope, type Source } from "./sources";

/** The output size a request asks for: width/height in pixels or resx/resy in CRS units (Processing `output`, Statistical `aggregation`). */
export interface GridRequest {
  width?: number;
  height?: number;
  resx?: number;
  resy?: number;
}

export const CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
/** Most pixels per side of a synchronous request (Processing, Statistical; Sentinel Hub OpenAPI ProcessRequestOutput width/height maximum). */
export const MAX_SYNC_SIZE = 2500;
/** Most pixels per side of an async processing request (Sentinel Hub OpenAPI AsyncProcessRequest output width/height maximum). */
export const MAX_ASYNC_SIZE = 10_000;
/** Most pixels per side of one batch tile (tiling grid tile plus buffer); the grid lays tiles out, planGrid checks them against this. */
export const MAX_BATCH_TILE_SIZE = 10_000;
export const DEFAULT_SIZE = 256;

/** A time window in ms since the epoch, both ends inclusive. */
export interface TimeWindow {
  from: number;
  to: number;
}

/** The limits a plan was made under. */
export interface PlanLimits {
  /** Most pixels per side of the output grid. */
  maxSize: number;
}

/** Where a request renders: the output grid and what is derived from it. */
export interface AreaPlan {
  grid: Grid;
  /** 1 inside the request geometry, 0 outside (row-major, grid.width x grid.height); null when the request has only a bbox. */
  geometryMask: Uint8Array | null;
  /**
   * The request geometry's rings in the grid's CRS when the mask is rasterized per strip instead (planned with
   * `maskPerStrip`: a 10000 x 10000 mask alone would be 100 MB): stripPlan rasterizes them for each strip.
   */
  geometryRings?: Float64Array[] | null;
  /** [minLon, minLat, maxLon, maxLat] covering the request area (EPSG:4326), for scene search. */
  lonLatBbox: [number, number, number, number];
  limits: PlanLimits;
}

/** A data source of a plan: the resolved source (sources.ts) and the time window its scenes are searched in. */
export interface PlannedSource extends Source {
  window: TimeWindow;
}

/** Everything evaluatePlan needs besides the script: the area and the sources the script reads (input.data order). */
export interface Plan extends AreaPlan {
  sources: PlannedSource[];
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
    throw invalidArgument(
      `Invalid bbox [${bbox.join(", ")}]: minX must be < maxX and minY < maxY (order: minX, minY, maxX, maxY).`,
    );
  const [aMinX, aMinY, aMaxX, aMaxY] = crsArea(crs);
  if (minX < aMinX || minY < aMinY || maxX > aMaxX || maxY > aMaxY)
    throw invalidArgument(
      `bbox [${bbox.join(", ")}] lies outside the valid area of EPSG:${crs.epsg} [${[aMinX, aMinY, aMaxX, aMaxY].join(", ")}]; check the coordinate order and the CRS.`,
    );
}

/**
 * Output size in pixels from width/height or resx/resy (CRS units). One of width/height given: the other keeps
 * the bbox aspect ratio. Neither: 256 x 256 (the API default). Throws EngineError invalid-argument (checkSize) over
 * `maxSize` px per side.
 */
export function outputSize(
  bbox: number[],
  out: GridRequest | undefined,
  maxSize = MAX_SYNC_SIZE,
): { width: number; height: number } {
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
  checkSize(width, height, maxSize);
  return { width, height };
}

/**
 * Throws EngineError invalid-argument when a `width` x `height` px output exceeds `maxSize` px per side (the
 * error carries the limit) or is under 1 px.
 */
export function checkSize(width: number, height: number, maxSize: number): void {
  if (width > maxSize || height > maxSize)
    throw new EngineError(
      "invalid-argument",
      `The output would be ${width} x ${height} px; at most ${maxSize} x ${maxSize} px are allowed. Use a coarser resx/resy or a smaller bbox.`,
      undefined,
      { name: "output size (px per side)", max: maxSize },
    );
  if (width < 1 || height < 1) throw invalidArgument("Output width and height must be at least 1 pixel.");
}

/** WGS84 bbox of a grid: its edges densified (21 points per side) and transformed. */
export function lonLatBounds(grid: Grid): [number, number, number, number] {
  return transformBounds(grid.bbox, grid.crs, crsFromEpsg(4326));
}

/** The area plan of `grid`, clipped to `rings` (in the grid's CRS) when given: now, or per strip with `maskPerStrip`. */
function areaPlan(grid: Grid, rings: Float64Array[] | null, maxSize: number, maskPerStrip = false): AreaPlan {
  const lazy = rings !== null && maskPerStrip;
  const area: AreaPlan = {
    grid,
    geometryMask: rings && !lazy ? rasterizeRings(rings, grid) : null,
    lonLatBbox: lonLatBounds(grid),
    limits: { maxSize },
  };
  return lazy ? { ...area, geometryRings: rings } : area;
}

/**
 * Plans the grid of a request: bounds (bbox or geometry, in bounds.properties.crs, default CRS84) + output size
 * -> AreaPlan. `opts.maxSize`: most px per side (default MAX_SYNC_SIZE; async: MAX_ASYNC_SIZE). `opts.maskPerStrip`:
 * keep the geometry as rings and rasterize its mask per strip (stripPlan), for grids evaluated strip by strip.
 * @throws EngineError invalid-argument on invalid bounds or sizes; unsupported for an unknown CRS.
 */
export function planRequest(
  input: Pick<ProcessInput, "bounds">,
  output: GridRequest | undefined,
  opts: { maxSize?: number; maskPerStrip?: boolean } = {},
): AreaPlan {
  const maxSize = opts.maxSize ?? MAX_SYNC_SIZE;
  const crs = parseCrs(input.bounds.properties?.crs ?? CRS84);
  const rings = input.bounds.geometry ? geometryRings(input.bounds.geometry) : null;
  const bbox = rings ? ringsBbox(rings) : (input.bounds.bbox as [number, number, number, number]);
  checkBbox(bbox, crs);
  return areaPlan({ crs, bbox, ...outputSize(bbox, output, maxSize) }, rings, maxSize, opts.maskPerStrip);
}

/**
 * Plans an explicit grid, e.g. a batch tile (tile CRS, bbox and width/height from the tiling grid): no output-size
 * rule, the grid is taken as given. `opts.geometry` (in the grid's CRS) clips; `opts.maxSize` (default
 * MAX_BATCH_TILE_SIZE) bounds the tile's px per side and becomes the plan's limit.
 * @throws EngineError invalid-argument for a bbox outside the CRS's area or a size over the limit.
 */
export function planGrid(grid: Grid, opts: { geometry?: AreaGeometry; maxSize?: number } = {}): AreaPlan {
  const maxSize = opts.maxSize ?? MAX_BATCH_TILE_SIZE;
  checkBbox(grid.bbox, grid.crs);
  checkSize(grid.width, grid.height, maxSize);
  return areaPlan(grid, opts.geometry ? geometryRings(opts.geometry) : null, maxSize);
}

/** The time window of a data source: its dataFilter.timeRange (ISO 8601 -> ms), else all time up to now. */
export function sourceWindow(d: DataSourceRequest): TimeWindow {
  const t = d.dataFilter?.timeRange;
  return { from: t?.from ? Date.parse(t.from) : 0, to: t?.to ? Date.parse(t.to) : Date.now() };
}

/**
 * The full plan: `area` with the sources of `data` the script reads (resolved against its `setup`, once per
 * request), each with its own window (sourceWindow).
 * Collections are looked up in the registry for `scope.account` and must be hosted in this location: checked as
 * each is found, before its bands, so the spec's 404 comes first.
 * @throws ApiError 404 for a collection hosted in another location (src/locations/hosting.ts); the errors of
 *   resolveSources (unknown collections, bands or units; data fusion id mismatches).
 */
export async function withSources(
  scope: RegistryScope & { env: LocationEnv },
  area: AreaPlan,
  data: DataSourceRequest[],
  setup: EvalSetup,
): Promise<Plan> {
  const sources = await resolveSources({ ...scope, assertHere: (c) => assertHosted(scope.env, [c]) }, data, setup);
  return { ...area, sources: sources.map((s) => ({ ...s, window: sourceWindow(s.request) })) };
}

/** `plan` with every source's window set to `window` (Statistical API: one aggregation interval). */
export function withWindow(plan: Plan, window: TimeWindow): Plan {
  return { ...plan, sources: plan.sources.map((s) => ({ ...s, window })) };
}

/**
 * The plan of rows [row, row + rows) of `plan` (same pixel centres, so strips join into the full grid exactly).
 * Its mask is the rows of the plan's mask, or the plan's geometryRings rasterized on the strip's grid.
 */
export function stripPlan<P extends AreaPlan>(plan: P, row: number, rows: number): P {
  const { grid } = plan;
  const resY = (grid.bbox[3] - grid.bbox[1]) / grid.height;
  const top = grid.bbox[3] - row * resY;
  const strip: Grid = { ...grid, bbox: [grid.bbox[0], top - rows * resY, grid.bbox[2], top], height: rows };
  const mask = plan.geometryMask
    ? plan.geometryMask.subarray(row * grid.width, (row + rows) * grid.width)
    : plan.geometryRings
      ? rasterizeRings(plan.geometryRings, strip)
      : null;
  return { ...plan, grid: strip, geometryMask: mask, geometryRings: undefined };
}

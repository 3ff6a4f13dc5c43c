/**
 * A warp prepared for one output grid and one reader layout: the level GDAL's `-ovr AUTO` picks (plan.ts
 * chooseLevel), the source coordinates of every output pixel (coords.ts), the kernel scale (plan.ts kernelScale)
 * and the source window the kernels can touch. None of it depends on pixel values, so it is kept per isolate:
 * the band files of one tile (B02, B03, B04, B08: same CRS, geotransform and level sizes) and warm requests over
 * the same grid skip the proj4 passes (chooseLevel's 100 points, kernelScale's 84, the lattice's ~1,100).
 */
import { approxBytes, Lru } from "../lru";
import type { PixelWindow, RasterReader } from "../reader";
import type { Grid, Resampling } from "../types";
import { levelTransform, sourceCoords, type SourceCoords } from "./coords";
import { chooseLevel, edgeBounds, kernelScale, type KernelScale } from "./plan";
import { PREPARED_WARP_BYTES } from "../memory";

/** What readWarped needs before reading pixels. `scale` and `win` are null when the grid misses the level. */
export interface PreparedWarp {
  levelIndex: number;
  coords: SourceCoords;
  /** Names grid, level geotransform and error threshold: the identity of `coords` (near.ts keys its maps on it). */
  coordsKey: string;
  scale: KernelScale | null;
  win: PixelWindow | null;
}

/**
 * Prepared warps per grid, reader layout (CRS, geotransform, level sizes), resampling, error threshold and level
 * override: the key holds everything the result depends on, so a replaced file with another layout never hits.
 * Bounded by PREPARED_WARP_BYTES (src/raster/memory.ts; a prepared warp holds the lattice cells of its coordinates).
 */
export const preparedCache = new Lru<PreparedWarp>(32, PREPARED_WARP_BYTES, approxBytes, true);

/** The pixel window of the level the kernels can touch: the coordinates' bounds plus the kernel reach. */
function readWindowFor(
  bounds: [number, number, number, number],
  scale: KernelScale,
  width: number,
  height: number,
): PixelWindow | null {
  const x0 = Math.max(0, Math.floor(bounds[0]) - scale.xRadius - 2);
  const y0 = Math.max(0, Math.floor(bounds[1]) - scale.yRadius - 2);
  const x1 = Math.min(width, Math.ceil(bounds[2]) + scale.xRadius + 2);
  const y1 = Math.min(height, Math.ceil(bounds[3]) + scale.yRadius + 2);
  return x1 > x0 && y1 > y0 ? { x0, y0, width: x1 - x0, height: y1 - y0 } : null;
}

/**
 * When the prepared warp of these arguments is not cached yet: the level it will read (GDAL's choice, or `level`)
 * and the window it most likely reads, from about 270 exact transforms instead of the coordinates' lattice
 * (~1,100 on a 512 x 512 grid from UTM): the source bounds of the output edges (edgeBounds) grown by one pixel,
 * plus the kernel reach (readWindowFor). A warp prefetches it, so that the reads travel while the coordinates are
 * computed; the prepared warp's own window (from the coordinates) is what is read, and anything outside this one
 * is read then. Null when the warp is cached or the grid misses the level.
 */
export function likelyWindow(
  reader: RasterReader,
  grid: Grid,
  resampling: Resampling,
  threshold: number,
  level?: number,
): { levelIndex: number; win: PixelWindow } | null {
  if (preparedCache.get(preparedKey(reader, grid, resampling, threshold, level)) !== undefined) return null;
  const levelIndex = level ?? chooseLevel(reader, grid);
  const l = reader.levels[levelIndex]!;
  const exact = levelTransform(grid, reader, l);
  const b = edgeBounds(exact, grid);
  const scale = b && kernelScale(exact, grid, l.width, l.height, resampling, b);
  const win = scale && readWindowFor([b[0] - 1, b[1] - 1, b[2] + 1, b[3] + 1], scale, l.width, l.height);
  return win ? { levelIndex, win } : null;
}

/** Computes a prepared warp (no cache). */
function prepare(
  reader: RasterReader,
  grid: Grid,
  resampling: Resampling,
  threshold: number,
  level: number | undefined,
): PreparedWarp {
  const levelIndex = level ?? chooseLevel(reader, grid);
  const l = reader.levels[levelIndex]!;
  const exact = levelTransform(grid, reader, l);
  const coordsKey = [
    grid.crs.epsg,
    ...grid.bbox,
    grid.width,
    grid.height,
    reader.crs.epsg,
    ...l.geoTransform,
    reader.gcps?.key ?? "",
    threshold,
  ].join("|");
  // affine (exact per pixel) only without GCPs and in the file's own CRS
  const approximate = grid.crs.epsg !== reader.crs.epsg || reader.gcps !== undefined;
  const coords = sourceCoords(exact, grid.width, grid.height, threshold, approximate);
  const scale = coords.bounds && kernelScale(exact, grid, l.width, l.height, resampling);
  const win = scale && readWindowFor(coords.bounds!, scale, l.width, l.height);
  return { levelIndex, coords, coordsKey, scale: scale || null, win: win || null };
}

/** The preparedCache key: everything a prepared warp depends on. */
function preparedKey(
  reader: RasterReader,
  grid: Grid,
  resampling: Resampling,
  threshold: number,
  level: number | undefined,
): string {
  const layout = [
    reader.crs.epsg,
    ...reader.geoTransform,
    reader.gcps?.key ?? "",
    ...reader.levels.flatMap((l) => [l.width, l.height]),
  ];
  return [grid.crs.epsg, ...grid.bbox, grid.width, grid.height, ...layout, resampling, threshold, level ?? "auto"].join(
    "|",
  );
}

/**
 * The prepared warp of `grid` from `reader` (cached; see preparedCache). `threshold`: error threshold of the
 * approximate transformer in source pixels; `level`: a level override, undefined for GDAL's choice.
 */
export function preparedWarp(
  reader: RasterReader,
  grid: Grid,
  resampling: Resampling,
  threshold: number,
  level?: number,
): PreparedWarp {
  const key = preparedKey(reader, grid, resampling, threshold, level);
  let p = preparedCache.get(key);
  if (!p) {
    p = prepare(reader, grid, resampling, threshold, level);
    preparedCache.set(key, p);
  }
  return p;
}

/**
 * Warp planning, mirroring GDAL 3.6 so that results match `gdal.Warp` (gdalwarp):
 * - the overview choice of `-ovr AUTO` (apps/gdalwarp_lib.cpp),
 * - the source window and resampling scale of one warp chunk (alg/gdalwarpoperation.cpp ComputeSourceWindow,
 *   alg/gdalwarpkernel.cpp GDALWarpKernel::PerformWarp), which decide when bilinear/cubic kernels are
 *   stretched for downsampling and how wide they are.
 */
import type { RasterReader } from "../reader";
import { finiteBounds } from "../crs";
import type { Grid, Resampling } from "../types";
import { levelTransform, type PixelTransform } from "./coords";

/** Kernel radius in source pixels (GDAL anGWKFilterRadius: near 0, bilinear 1, cubic 2). */
export const FILTER_RADIUS: Record<Resampling, number> = { NEAREST: 0, BILINEAR: 1, BICUBIC: 2 };

/**
 * The level (0 = full resolution) of a RasterReader GDAL's `-ovr AUTO` warps from, for an output grid with explicit extent
 * and size. As gdalwarp does: a 10 x 10 lattice of output pixel positions (0..width, 0..height, pixel edges
 * included) is transformed exactly to full-resolution source pixels; the target ratio is
 * min(source x span / output width, source y span / output height), i.e. output pixel size over source pixel
 * size. If it exceeds 1, the level is the coarsest overview whose ratio (full width / overview width) is
 * below the target, or within 0.1 of it; otherwise full resolution. Hence "the overview whose resolution is
 * just finer than or equal to the output's", measured in source pixels over the whole output footprint
 * (the points may lie outside the image; only their spread counts).
 */
export function chooseLevel(reader: RasterReader, grid: Grid): number {
  if (reader.levels.length < 2) return 0;
  const n = 10;
  const xs = new Float64Array(n * n);
  const ys = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      xs[i * n + j] = (grid.width * i) / (n - 1);
      ys[i * n + j] = (grid.height * j) / (n - 1);
    }
  levelTransform(grid, reader, reader.levels[0]!)(xs, ys);
  const b = finiteBounds(xs, ys);
  if (!b) return 0;
  const target = Math.min(
    b[2] > b[0] ? (b[2] - b[0]) / grid.width : Infinity,
    b[3] > b[1] ? (b[3] - b[1]) / grid.height : Infinity,
  );
  if (!(target > 1) || !Number.isFinite(target)) return 0;
  // GDAL iterates iOvr = -1 (full resolution) .. count-2 and breaks on the first match; level = iOvr + 1.
  let level = 0;
  for (; level < reader.levels.length - 1; level++) {
    const ratio = reader.levels[level]!.ratio;
    const next = reader.levels[level + 1]!.ratio;
    if ((ratio < target && next > target) || Math.abs(ratio - target) < 0.1) break;
  }
  return level;
}

/** Resampling parameters of a warp chunk, as GDALWarpKernel::PerformWarp derives them. */
export interface KernelScale {
  /** Output size over source window size (without the kernel margin); 1 when not downsampling. */
  xScale: number;
  yScale: number;
  /** Kernel half-widths in source pixels: ceil(radius / scale) when downsampling, else the radius. */
  xRadius: number;
  yRadius: number;
  /** GDAL nFiltInitX/Y: first kernel tap relative to floor(src - 0.5). */
  xFiltInit: number;
  yFiltInit: number;
  /** GDAL's 4-sample bilinear/cubic formulas apply (both scales >= 0.95); otherwise the general stretched kernel. */
  use4Samples: boolean;
  /** GDAL falls back to nearest for a one-pixel-wide or -high source window. */
  nearestOnly: boolean;
}

/** One axis of ComputeSourceWindow + PerformWarp: (source extent of the output edges) -> scale. */
function axisScale(min: number, max: number, dstSize: number, rasterSize: number, radius: number) {
  const round = (v: number) => (Math.abs(Math.round(v) - v) < 1e-6 ? Math.round(v) : v);
  [min, max] = [round(min), round(max)];
  const windowScale = Math.max(1e-3, dstSize / (max - min));
  const windowRadius = windowScale < 0.95 ? Math.ceil(radius / windowScale) : radius;
  const minClamped = Math.trunc(Math.max(0, min));
  const maxClamped = Math.trunc(Math.min(Math.ceil(max), rasterSize));
  const rawSize = Math.max(0, Math.min(rasterSize - minClamped, max - min));
  let size: number;
  if (maxClamped - minClamped > 0.9 * rasterSize) size = rasterSize;
  else {
    const off = Math.max(0, Math.min(minClamped - windowRadius, rasterSize));
    size = Math.max(0, Math.min(rasterSize - off, maxClamped - off + windowRadius));
  }
  const extra = size - rawSize;
  let scale = dstSize / (size - extra);
  if (size >= dstSize && size <= dstSize + extra) scale = 1;
  if (scale < 1) {
    const reciprocal = 1 / scale;
    const nearest = Math.trunc(reciprocal + 0.5);
    if (Math.abs(reciprocal - nearest) < 0.05) scale = 1 / nearest;
  }
  return { scale, size };
}

/**
 * Source pixel bounds [minX, minY, maxX, maxY] of the output grid's edges, sampled with 21 points each as GDAL's
 * ComputeSourceWindow does and transformed by `exact`; null when no point transforms.
 */
export function edgeBounds(exact: PixelTransform, grid: Grid): [number, number, number, number] | null {
  const steps = 21;
  const xs = new Float64Array(4 * steps);
  const ys = new Float64Array(4 * steps);
  for (let s = 0; s < steps; s++) {
    const t = s / (steps - 1);
    xs.set([t * grid.width, t * grid.width, 0, grid.width], 4 * s);
    ys.set([0, grid.height, t * grid.height, t * grid.height], 4 * s);
  }
  exact(xs, ys);
  return finiteBounds(xs, ys);
}

/**
 * GDAL's resampling scale for warping the whole output grid in one chunk: the source window of the output edges
 * (`edges`, edgeBounds: ComputeSourceWindow), clamped to the chosen level, gives the scale (PerformWarp).
 * Returns null when the output does not overlap the level.
 */
export function kernelScale(
  exact: PixelTransform,
  grid: Grid,
  levelWidth: number,
  levelHeight: number,
  resampling: Resampling,
  edges = edgeBounds(exact, grid),
): KernelScale | null {
  const b = edges;
  if (!b || b[0] > levelWidth || b[2] < 0 || b[1] > levelHeight || b[3] < 0) return null;
  const radius = FILTER_RADIUS[resampling];
  const x = axisScale(b[0], b[2], grid.width, levelWidth, radius);
  const y = axisScale(b[1], b[3], grid.height, levelHeight, radius);
  const xRadius = x.scale < 1 ? Math.ceil(radius / x.scale) : radius;
  const yRadius = y.scale < 1 ? Math.ceil(radius / y.scale) : radius;
  const init = (radius + 1) % 2;
  return {
    xScale: x.scale,
    yScale: y.scale,
    xRadius,
    yRadius,
    xFiltInit: init - xRadius,
    yFiltInit: init - yRadius,
    use4Samples: x.scale >= 0.95 && y.scale >= 0.95,
    nearestOnly: x.size === 1 || y.size === 1,
  };
}

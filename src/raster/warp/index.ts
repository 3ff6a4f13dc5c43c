/**
 * Warping bands of any RasterReader (../reader.ts: a COG, a Zarr array, ...) onto an output grid, with GDAL's semantics (gdalwarp / gdal.Warp 3.6):
 * overview choice of `-ovr AUTO` (plan.ts), GDAL's approximate transformer (coords.ts) and GDAL's near,
 * bilinear and cubic kernels including their nodata and image-edge behaviour (kernels.ts).
 * Values are not rounded to the file's integer type (as gdalwarp -ot Float32 / -wt Float32). A reader georeferenced by
 * ground control points (RasterReader.gcps) is warped through its GCP polynomial (coords.ts levelTransform), as
 * gdalwarp's default GCP transformer.
 */
import { EngineError, invalidArgument } from "../errors";
import type { RasterReader } from "../reader";
import type { Grid, Resampling, ValueScale, WarpedBand } from "../types";
import { DEFAULT_ERROR_THRESHOLD } from "./coords";
import { warpRows, type KernelMode } from "./kernels";
import { warpNear } from "./near";
import type { KernelScale } from "./plan";
import { likelyWindow, preparedWarp } from "./prepared";
import { applyScale } from "./values";

export { chooseLevel } from "./plan";
export { INDEX_CACHE_BYTES, indexCache } from "./near";
export { preparedCache } from "./prepared";
export { applyScale, scaled } from "./values";

/** Options of readWarped. */
export interface WarpOptions {
  resampling: Resampling;
  /** Source nodata: undefined = the file's GDAL_NODATA, null = none, a number = that value. NaN samples never count. */
  nodata?: number | null;
  /**
   * Error threshold of the approximate transformer in source pixels (as gdalwarp -et). Default 0.01 (see
   * coords.ts for why not GDAL's 0.125); 0 transforms every output pixel exactly (slow: one proj4 call per
   * pixel). Grids in the file's own CRS are always exact (affine).
   */
  errorThreshold?: number;
  /** Read this level (0 = full resolution) instead of GDAL's -ovr AUTO choice. */
  level?: number;
  /**
   * Keep NEAREST's index map in the per-isolate cache for the next request over the same grid (default true);
   * false for grids used once, such as the strips of a large request (near.ts warpNear).
   */
  cacheIndex?: boolean;
  /**
   * A conversion of each band's stored values (one entry per entry of `bands`; null or missing: none), applied to
   * the valid samples: `data` then holds the converted values (NEAREST from a reader's blocks converts as it
   * gathers, near.ts; the other paths convert the warped band, values.ts applyScale).
   */
  scales?: readonly (ValueScale | null)[];
}

const RESAMPLINGS: Resampling[] = ["NEAREST", "BILINEAR", "BICUBIC"];

/** Most source pixels (window x bands) one call holds in memory (64 MB of Float32); larger requests get a 400. */
export const MAX_WINDOW_PIXELS = 16 * 1024 * 1024;

function checkArguments(reader: RasterReader, bands: number[], grid: Grid, opts: WarpOptions): void {
  if (!RESAMPLINGS.includes(opts.resampling))
    throw invalidArgument(`Unknown resampling "${opts.resampling}"; use one of ${RESAMPLINGS.join(", ")}.`);
  const bad = bands.find((b) => !(Number.isInteger(b) && b >= 0 && b < reader.bandCount));
  if (bad !== undefined)
    throw invalidArgument(
      `Band index ${bad} does not exist in ${reader.id} (it has ${reader.bandCount} band(s), indices from 0).`,
    );
  const { width, height, bbox } = grid;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0))
    throw invalidArgument(`Output size ${width}x${height} is invalid: width and height must be positive integers.`);
  if (!(bbox[0] < bbox[2] && bbox[1] < bbox[3]))
    throw invalidArgument(`Output bbox [${bbox.join(", ")}] is invalid: it needs minX < maxX and minY < maxY.`);
  if (opts.level !== undefined && !reader.levels[opts.level])
    throw invalidArgument(`Level ${opts.level} does not exist (0..${reader.levels.length - 1}).`);
}

/** The kernel GDAL runs for this resampling and scale. */
function kernelMode(resampling: Resampling, scale: KernelScale): KernelMode {
  if (resampling === "NEAREST" || scale.nearestOnly) return "near";
  const cubic = resampling === "BICUBIC";
  if (scale.use4Samples) return cubic ? "cubic4" : "bilinear4";
  return cubic ? "cubic" : "bilinear";
}

/**
 * Before a warp is prepared for the first time (likelyWindow), starts the reader's prefetch of its likely window
 * and lets it leave (one macrotask: the request goes out before the coordinates' CPU work, which would otherwise
 * hold the thread). Its failure is the warp's read's: that read joins it.
 * Traced on cold NDVI 512² requests through the archive twin (loaded machine): the block reads left 9-26 ms after
 * the warp began instead of 22-94 ms.
 */
async function prefetchLikely(
  reader: RasterReader,
  bands: number[],
  grid: Grid,
  resampling: Resampling,
  threshold: number,
  level: number | undefined,
): Promise<void> {
  const likely = reader.prefetch && likelyWindow(reader, grid, resampling, threshold, level);
  if (!likely) return;
  reader.prefetch!(likely.levelIndex, bands, likely.win).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Reads 0-based bands `bands` of `reader` warped onto `grid`.
 *
 * Overview: the level GDAL's `-ovr AUTO` picks (see plan.ts chooseLevel: the coarsest overview whose size ratio
 * does not exceed output-pixel / source-pixel size over the footprint; same rule, same numbers).
 * Reads one window of the level (the output footprint plus the kernel reach) with a single `reader.read` for all
 * bands (the COG reader turns it into one coalesced range read of the blocks it touches); NEAREST then gathers
 * from that window through a per-isolate index map (near.ts), the other resamplings run the WebAssembly kernels.
 * Output pixel (c, r) samples the source at its centre: x = minX + (c + 0.5) * resX, y = maxY - (r + 0.5) * resY.
 * `valid` is 0 where the source pixel under the centre is nodata or outside the scene (GDAL writes nothing
 * there) and `data` is 0; elsewhere `data` is the resampled value in file units.
 * @throws EngineError invalid-argument for unknown resampling, band indices outside the file, an invalid grid, or a grid needing
 *   more than MAX_WINDOW_PIXELS source pixels (GDAL would warp it in chunks; not done here).
 */
export async function readWarped(
  reader: RasterReader,
  bands: number[],
  grid: Grid,
  opts: WarpOptions,
): Promise<WarpedBand[]> {
  checkArguments(reader, bands, grid, opts);
  const n = grid.width * grid.height;
  const out: WarpedBand[] = bands.map(() => ({ data: new Float32Array(n), valid: new Uint8Array(n) }));
  if (bands.length === 0) return out;
  const threshold = opts.errorThreshold ?? DEFAULT_ERROR_THRESHOLD;
  await prefetchLikely(reader, bands, grid, opts.resampling, threshold, opts.level);
  const { levelIndex, coords, coordsKey, scale, win } = preparedWarp(
    reader,
    grid,
    opts.resampling,
    threshold,
    opts.level,
  );
  const level = reader.levels[levelIndex]!;
  if (!scale || !win) return out;
  if (win.width * win.height * bands.length > MAX_WINDOW_PIXELS)
    throw new EngineError(
      "invalid-argument",
      `The output grid needs ${win.width}x${win.height} source pixels of ${bands.length} band(s) from ${reader.id} ` +
        `(level ${levelIndex}); request fewer pixels (width/height) or a smaller area.`,
      undefined,
      { name: "windowPixels", max: MAX_WINDOW_PIXELS },
    );
  const nodata = opts.nodata === undefined ? reader.nodata : opts.nodata;
  const geometry = { ...win, imageWidth: level.width, imageHeight: level.height };
  const nd = nodata === null ? NaN : Math.fround(nodata);
  const mode = kernelMode(opts.resampling, scale);
  const scales = opts.scales ?? [];
  const converted =
    mode === "near" &&
    (await warpNear(reader, levelIndex, bands, geometry, coords, coordsKey, nd, out, opts.cacheIndex ?? true, scales));
  if (mode !== "near")
    warpRows(coords, { ...geometry, nodata: nd, bands: await reader.read(levelIndex, bands, win) }, scale, mode, out);
  if (!converted) out.forEach((o, b) => scales[b] && applyScale(o.data, o.valid, scales[b]));
  return out;
}

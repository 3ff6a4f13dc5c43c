/**
 * The raster reader interface: what the warp (src/raster/warp) needs from any gridded source. A Cloud Optimized
 * GeoTIFF (src/raster/cog) is the first implementation; a Zarr array or any other georeferenced grid with
 * resolution levels plugs in by implementing `RasterReader`, without touching the warp.
 *
 * Conventions (as GDAL's raster data model, gdal.org/user/raster_data_model.html):
 * - pixel (col, row) of a level covers the square whose top-left corner is geoTransform applied to (col, row);
 *   row 0 is the first row of the array (north for north-up grids);
 * - level 0 is the full-resolution grid, further levels are reduced-resolution overviews, finest first, each
 *   covering the same extent (its geotransform is level 0's rescaled by the size ratio);
 * - bands are 0-based indices.
 */
import type { Crs, GeoTransform } from "./types";
import type { GcpTransformer } from "./gcp";

export type { GeoTransform } from "./types";

/** Data type of the stored samples, named as GDAL / the Processing API `sampleType` do. */
export type SampleType = "UINT8" | "INT8" | "UINT16" | "INT16" | "UINT32" | "INT32" | "FLOAT32" | "FLOAT64";

/** A pixel window of one level: columns x0..x0+width-1, rows y0..y0+height-1 (inside the level). */
export interface PixelWindow {
  x0: number;
  y0: number;
  width: number;
  height: number;
}

/** One resolution level: the full-resolution grid (index 0) or an overview. */
export interface RasterLevel {
  /** 0 = full resolution, then overviews from finest to coarsest. */
  index: number;
  /** Size in pixels. */
  width: number;
  height: number;
  /** Storage block (tile / chunk) size in pixels: reads aligned on it touch the fewest blocks. */
  blockWidth: number;
  blockHeight: number;
  /** This level's geotransform: the full-resolution one rescaled by the size ratios, as GDAL does for overviews. */
  geoTransform: GeoTransform;
  /** Pixel size [x, y] in CRS units (positive). */
  resolution: [number, number];
  /** Full-resolution width / this level's width (GDAL's overview ratio; 1 for level 0). */
  ratio: number;
}

/** A georeferenced gridded source with resolution levels, read by pixel windows. */
export interface RasterReader {
  /** Stable identity (file key plus version): names the source in messages and keys per-isolate caches. */
  readonly id: string;
  readonly crs: Crs;
  /** Full-resolution size in pixels. */
  readonly width: number;
  readonly height: number;
  /** Full-resolution geotransform (GDAL order). */
  readonly geoTransform: GeoTransform;
  /** Footprint [minX, minY, maxX, maxY] in `crs` units. */
  readonly bbox: [number, number, number, number];
  readonly bandCount: number;
  /** Sample type of the stored values. */
  readonly sampleType: SampleType;
  /** The value that marks missing samples (NaN allowed), or null when the source declares none. */
  readonly nodata: number | null;
  /** levels[0] = full resolution, then overviews finest first; at least one level. */
  readonly levels: readonly RasterLevel[];
  /**
   * Set when the source is georeferenced by ground control points only (a Sentinel-1 GRD GeoTIFF): the fitted GCP
   * transformer (./gcp.ts) between `crs` (the GCPs' CRS) and full-resolution pixels, which warps use; `geoTransform`
   * and the levels' geotransforms are then only its affine approximation (sizes, resolutions) and `bbox` the
   * footprint of its forward polynomial.
   */
  readonly gcps?: GcpTransformer;
  /**
   * Reads `window` of level `level` (0 = full resolution) for 0-based `bands`: one Float32Array per band, in the
   * order asked, window-sized, row-major; values in the source's units (not scaled). Samples the source does not
   * store (sparse blocks, chunks never written) read as `nodata` when it is finite, else 0.
   * @throws RangeError for a level that does not exist, a window outside the level or bad band indices (may be
   *   thrown synchronously); Error when the storage read or decoding fails.
   */
  read(level: number, bands: number[], window: PixelWindow): Promise<Float32Array[]>;
  /**
   * Optional: starts reading what `read(level, bands, window)` would need (a COG fetches and decodes the blocks
   * into its block cache) without returning pixels; a `read` of the same data meanwhile joins it. The warp calls
   * it with a likely window before computing the exact one, so that the bytes travel while it computes.
   * @throws as `read`.
   */
  prefetch?(level: number, bands: number[], window: PixelWindow): Promise<void>;
  /**
   * Optional, as `read` but in the stored integer type when Float32 holds every value of it exactly (8- and 16-bit
   * integers): the same numbers as `read` returns, in half the bytes and without a conversion pass. Absent (or
   * undefined) for other sources; callers then use `read`.
   */
  readonly readNative?: (level: number, bands: number[], window: PixelWindow) => Promise<NativeWindow[]>;
  /**
   * Optional, where `readNative` is offered and each stored block (tile, chunk) holds one band: the blocks
   * `window` of level `level` touches, per band, in the stored type and without copying them (see BandBlocks), so
   * that a gather reads them in place instead of a window copied from them. Callers must not write them.
   * @throws as `read`.
   */
  readonly readBlocks?: (level: number, bands: number[], window: PixelWindow) => Promise<BandBlocks[]>;
}

/**
 * The blocks of one band a window touches (RasterReader.readBlocks), row-major over the block grid of the level from
 * block column floor(x0 / blockWidth), row floor(y0 / blockHeight) to those of the window's last pixel: level pixel
 * (x, y) is element (y mod blockHeight) * blockWidth + (x mod blockWidth) of its block. null: a block the source
 * does not store, whose samples read as `fill` (as `read` gives them).
 */
export interface BandBlocks {
  blocks: (NativeWindow | null)[];
  fill: number;
}

/** A window in a stored type Float32 represents exactly (see RasterReader.readNative). */
export type NativeWindow = Uint8Array | Int8Array | Uint16Array | Int16Array | Float32Array;

/** Pixel size [x, y] (positive, CRS units) of a geotransform. */
export function resolutionOf(gt: GeoTransform): [number, number] {
  return [Math.hypot(gt[1], gt[4]), Math.hypot(gt[2], gt[5])];
}

/** Footprint [minX, minY, maxX, maxY] of a width x height grid with geotransform `gt` (its four corners). */
export function bboxOf(gt: GeoTransform, width: number, height: number): [number, number, number, number] {
  const corners = [
    [0, 0],
    [width, 0],
    [0, height],
    [width, height],
  ] as const;
  const xs = corners.map(([c, r]) => gt[0] + c * gt[1] + r * gt[2]);
  const ys = corners.map(([c, r]) => gt[3] + c * gt[4] + r * gt[5]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/**
 * Levels of a pyramid whose levels share level 0's extent: each geotransform is level 0's scaled by
 * (full width / width, full height / height), as GDAL derives overview geotransforms.
 */
export function pyramidLevels(
  gt: GeoTransform,
  sizes: readonly { width: number; height: number; blockWidth: number; blockHeight: number }[],
): RasterLevel[] {
  const full = sizes[0]!;
  return sizes.map((l, index): RasterLevel => {
    const [rx, ry] = [full.width / l.width, full.height / l.height];
    const levelGt: GeoTransform = [gt[0], gt[1] * rx, gt[2] * ry, gt[3], gt[4] * rx, gt[5] * ry];
    return {
      index,
      width: l.width,
      height: l.height,
      blockWidth: l.blockWidth,
      blockHeight: l.blockHeight,
      geoTransform: levelGt,
      resolution: resolutionOf(levelGt),
      ratio: rx,
    };
  });
}

/**
 * Checks a window read against the reader: the level exists, the window lies inside it, the bands exist.
 * @throws RangeError naming the offending level, window or band.
 */
export function checkWindow(
  reader: Pick<RasterReader, "levels" | "bandCount">,
  level: number,
  bands: number[],
  win: PixelWindow,
): RasterLevel {
  const l = reader.levels[level];
  if (!l) throw new RangeError(`level ${level} does not exist (levels 0..${reader.levels.length - 1})`);
  if (
    win.width <= 0 ||
    win.height <= 0 ||
    win.x0 < 0 ||
    win.y0 < 0 ||
    win.x0 + win.width > l.width ||
    win.y0 + win.height > l.height
  )
    throw new RangeError(`window ${JSON.stringify(win)} lies outside level ${level} (${l.width}x${l.height})`);
  for (const b of bands)
    if (!(Number.isInteger(b) && b >= 0 && b < reader.bandCount))
      throw new RangeError(`band index ${b} outside 0..${reader.bandCount - 1}`);
  return l;
}

/**
 * Shared types of the raster engine (no HTTP in src/raster).
 *
 * Conventions:
 * - A CRS is identified by its EPSG code; 4326 means lon/lat order (OGC CRS84 axis order) everywhere in EO Edge.
 * - A Grid's bbox is [minX, minY, maxX, maxY] in its CRS units; pixel (col, row) covers
 *   x in [minX + col*resX, minX + (col+1)*resX], y in [maxY - (row+1)*resY, maxY - row*resY]; row 0 is north.
 * - Rasters are row-major Float32Array (or typed arrays of the file's type), width*height long.
 */

/** A resolved coordinate reference system. */
export interface Crs {
  /** EPSG code (4326 for CRS84 / WGS84 lon-lat). */
  epsg: number;
  /** proj4 definition string. */
  proj4: string;
  /** True when units are degrees. */
  geographic: boolean;
}

/** GDAL order: [originX, pixelWidth, rowRotation, originY, columnRotation, pixelHeight (negative if north-up)]. */
export type GeoTransform = [number, number, number, number, number, number];

/** A georeferenced pixel grid. */
export interface Grid {
  crs: Crs;
  /** [minX, minY, maxX, maxY] in CRS units. */
  bbox: [number, number, number, number];
  width: number;
  height: number;
}

/** Resampling kernels named as in the Processing API (`processing.upsampling` / `downsampling`). */
export type Resampling = "NEAREST" | "BILINEAR" | "BICUBIC";

/**
 * Random access to the bytes of one stored file (a COG in R2 or in a user's bucket; src/storage/sources.ts opens them).
 * `read` may be given several ranges; implementations coalesce adjacent ones.
 */
export interface ByteSource {
  /** Stable identity for caches: key plus etag/version. */
  readonly id: string;
  readonly size: number;
  read(ranges: { offset: number; length: number }[]): Promise<ArrayBuffer[]>;
}

/**
 * A conversion of stored values (DN) to other units, e.g. Sentinel-2 reflectance: a value v becomes
 * `max(min, v + offset) * scale + add`, in double arithmetic in that order, each step only when its field is given
 * (`offset` 0 still adds 0), stored as Float32.
 */
export interface ValueScale {
  offset?: number;
  /** Values below it (after the offset) become it. */
  min?: number;
  scale: number;
  add?: number;
}

/** One band of a scene warped onto an output grid. */
export interface WarpedBand {
  /** Values in the file's units (DN) or converted by the warp's ValueScale, NaN-free; width*height. */
  data: Float32Array;
  /** 1 where a source pixel with data was found, 0 for nodata / outside the scene; width*height. */
  valid: Uint8Array;
}

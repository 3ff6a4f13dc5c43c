/**
 * Cloud Optimized GeoTIFFs on a ByteSource: `openCog` parses the header (geotiff.js, one range read for a GDAL
 * COG) and caches it per isolate by `source.id` (key + etag) in a bounded LRU; `readCogWindow` reads pixel
 * windows of any level through the block reader (coalesced range reads, decoded-block LRU).
 */
import type { ByteSource, Crs } from "../types";
import { crsFromEpsg } from "../crs";
import { blockCache, readWindow, type PixelWindow } from "./blocks";
import { parseHeader, type CogHeader, type GeoTransform, type SampleType } from "./header";
import { Lru } from "../lru";

export type { GeoTransform, SampleType, PixelWindow };

/** One resolution level of a COG: the full-resolution image (index 0) or an overview. */
export interface CogLevel {
  /** 0 = full resolution, then overviews from finest to coarsest. */
  index: number;
  width: number;
  height: number;
  blockWidth: number;
  blockHeight: number;
  /** This level's geotransform: the full-resolution one rescaled by the size ratios, as GDAL does for overviews. */
  geoTransform: GeoTransform;
  /** Pixel size [x, y] in CRS units (positive). */
  resolution: [number, number];
  /** Full-resolution width / this level's width (GDAL's overview ratio; 1 for level 0). */
  ratio: number;
}

/** An opened COG. Bands are 0-based sample indices. */
export interface Cog {
  readonly source: ByteSource;
  /** CRS from the GeoKeys (EPSG code). */
  readonly crs: Crs;
  /** Full-resolution size in pixels. */
  readonly width: number;
  readonly height: number;
  /** Full-resolution geotransform (GDAL order). */
  readonly geoTransform: GeoTransform;
  /** Footprint [minX, minY, maxX, maxY] in `crs` units. */
  readonly bbox: [number, number, number, number];
  readonly bandCount: number;
  /** GDAL_NODATA tag value, or null. */
  readonly nodata: number | null;
  readonly sampleType: SampleType;
  /** levels[0] = full resolution, then overviews finest first. */
  readonly levels: CogLevel[];
  /** Parsed header (block layout); for the engine's readers. */
  readonly header: CogHeader;
}

const headerCache = new Lru<CogHeader>(256);

/** Resizes the per-isolate caches: parsed headers (entries) and decoded blocks (bytes). */
export function configureCogCaches(o: { headers?: number; blockBytes?: number }): void {
  if (o.headers !== undefined) headerCache.resize(o.headers);
  if (o.blockBytes !== undefined) blockCache.resize(4096, o.blockBytes);
}

/** Empties both caches (tests measure cold reads with it). */
export function clearCogCaches(): void {
  headerCache.clear();
  blockCache.clear();
}

/** Sizes of the per-isolate caches. */
export function cogCacheStats(): { headers: number; blocks: number; blockBytes: number; blockBudget: number } {
  const b = blockCache.stats;
  return { headers: headerCache.stats.entries, blocks: b.entries, blockBytes: b.bytes, blockBudget: b.maxBytes };
}

function rescale(gt: GeoTransform, rx: number, ry: number): GeoTransform {
  return [gt[0], gt[1] * rx, gt[2] * ry, gt[3], gt[4] * rx, gt[5] * ry];
}

function bboxOf(gt: GeoTransform, width: number, height: number): [number, number, number, number] {
  const xs = [0, width, 0, width].map((c, i) => gt[0] + c * gt[1] + (i < 2 ? 0 : height) * gt[2]);
  const ys = [0, width, 0, width].map((c, i) => gt[3] + c * gt[4] + (i < 2 ? 0 : height) * gt[5]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** Builds the Cog view of a parsed header for `source`. */
function cogOf(source: ByteSource, header: CogHeader): Cog {
  const full = header.levels[0]!;
  const levels = header.levels.map((l, index): CogLevel => {
    const [rx, ry] = [full.width / l.width, full.height / l.height];
    const gt = rescale(header.geoTransform, rx, ry);
    return {
      index, width: l.width, height: l.height, blockWidth: l.blockWidth, blockHeight: l.blockHeight,
      geoTransform: gt, resolution: [Math.hypot(gt[1], gt[4]), Math.hypot(gt[2], gt[5])], ratio: rx,
    };
  });
  return {
    source, crs: crsFromEpsg(header.epsg), width: full.width, height: full.height, geoTransform: header.geoTransform,
    bbox: bboxOf(header.geoTransform, full.width, full.height), bandCount: header.samplesPerPixel,
    nodata: header.nodata, sampleType: header.sampleType, levels, header,
  };
}

/**
 * Opens the COG in `source`. The parsed header is cached per isolate by `source.id` (LRU of 256 headers), so a
 * warm open costs no read at all.
 * @throws EngineError unsupported when the file's CRS is not supported; Error when the file is not a readable GeoTIFF.
 */
export async function openCog(source: ByteSource): Promise<Cog> {
  let header = headerCache.get(source.id);
  if (!header) {
    header = await parseHeader(source);
    headerCache.set(source.id, header);
  }
  return cogOf(source, header);
}

/**
 * Reads a pixel window of level `level` (0 = full resolution) for 0-based `bands`: one Float32Array per band,
 * window-sized, row-major; values in the file's units. Only the blocks the window touches are read.
 * @throws RangeError for windows outside the level or bad band indices.
 */
export function readCogWindow(cog: Cog, level: number, bands: number[], win: PixelWindow): Promise<Float32Array[]> {
  const l = cog.levels[level];
  if (!l) throw new RangeError(`COG level ${level} does not exist (levels 0..${cog.levels.length - 1})`);
  if (win.width <= 0 || win.height <= 0 || win.x0 < 0 || win.y0 < 0 || win.x0 + win.width > l.width || win.y0 + win.height > l.height)
    throw new RangeError(`window ${JSON.stringify(win)} lies outside level ${level} (${l.width}x${l.height})`);
  for (const b of bands) if (!(Number.isInteger(b) && b >= 0 && b < cog.bandCount)) throw new RangeError(`band index ${b} outside 0..${cog.bandCount - 1}`);
  const fill = cog.nodata !== null && Number.isFinite(cog.nodata) ? cog.nodata : 0;
  return readWindow(cog.source, cog.header, level, bands, win, fill);
}

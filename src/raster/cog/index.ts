/**
 * Cloud Optimized GeoTIFFs on a ByteSource, the first implementation of the engine's RasterReader (../reader.ts):
 * `openCog` parses the header (geotiff.js, one range read for a GDAL COG) and caches it per isolate by
 * `source.id` (key + etag) in an LRU bounded in entries and bytes; `read` / `readCogWindow` read pixel windows of
 * any level through the block reader (coalesced range reads, decoded-block LRU).
 */
import type { ByteSource, Crs } from "../types";
import { crsFromEpsg } from "../crs";
import {
  bboxOf,
  checkWindow,
  pyramidLevels,
  type BandBlocks,
  type NativeWindow,
  type RasterLevel,
  type RasterReader,
} from "../reader";
import { blockCache, prefetchWindow, readBlocks, readWindow, type PixelWindow } from "./blocks";
import { parseHeader, type CogHeader, type GeoTransform, type SampleType } from "./header";
import { Lru } from "../lru";
import { gcpBounds, gcpTransformer, type GcpTransformer } from "../gcp";
import { HEADER_CACHE_BYTES } from "../memory";

export type { GeoTransform, SampleType, PixelWindow };

/** One resolution level of a COG: the full-resolution image (index 0) or an overview. */
export type CogLevel = RasterLevel;

/** An opened COG: a RasterReader (CRS from the GeoKeys' EPSG code, nodata from GDAL_NODATA) on a ByteSource. */
export interface Cog extends RasterReader {
  readNative?: RasterReader["readNative"];
  readBlocks?: RasterReader["readBlocks"];
  readonly source: ByteSource;
  readonly crs: Crs;
  readonly levels: CogLevel[];
  /** Parsed header (block layout); for the engine's readers. */
  readonly header: CogHeader;
}

/** Parsed headers per isolate within HEADER_CACHE_BYTES (src/raster/memory.ts): a header costs about 16 bytes per block (offset and count). */
const headerBytes = (h: CogHeader): number =>
  1024 + h.levels.reduce((n, l) => n + 8 * (l.offsets.length + l.byteCounts.length), 0);
const headerCache = new Lru<CogHeader>(256, HEADER_CACHE_BYTES, headerBytes);

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

/** GCP transformers fitted per parsed header (headers are cached, so a warm open fits nothing). */
const fitted = new WeakMap<CogHeader, GcpTransformer>();

/** The GCP transformer of a header with GCPs (GDAL's default order), fitted once per header. */
function gcpsOf(header: CogHeader): GcpTransformer | undefined {
  if (!header.gcps) return undefined;
  let t = fitted.get(header);
  if (!t) fitted.set(header, (t = gcpTransformer(header.gcps)));
  return t;
}

/** Builds the Cog view of a parsed header for `source`. */
function cogOf(source: ByteSource, header: CogHeader): Cog {
  const full = header.levels[0]!;
  const gcps = gcpsOf(header);
  const cog: Cog = {
    id: source.id,
    source,
    crs: crsFromEpsg(header.epsg),
    width: full.width,
    height: full.height,
    geoTransform: header.geoTransform,
    bbox: gcps ? gcpBounds(gcps, full.width, full.height) : bboxOf(header.geoTransform, full.width, full.height),
    ...(gcps ? { gcps } : {}),
    bandCount: header.samplesPerPixel,
    nodata: header.nodata,
    sampleType: header.sampleType,
    levels: pyramidLevels(header.geoTransform, header.levels),
    header,
    read: (level, bands, win) => readCogWindow(cog, level, bands, win),
    prefetch: async (level, bands, win) => {
      checkWindow(cog, level, bands, win);
      await prefetchWindow(source, header, level, bands, win);
    },
  };
  const Native = NATIVE[header.sampleType];
  const fill = windowFill(cog);
  if (Native && Native.of(fill)[0] === fill) {
    cog.readNative = (level, bands, win) => readCogWindow(cog, level, bands, win, Native);
    if (header.samplesPerPixel === 1 || header.levels.every((l) => l.planarConfiguration === 2))
      cog.readBlocks = (level, bands, win) => readCogBlocks(cog, level, bands, win, fill);
  }
  return cog;
}

/** RasterReader.readBlocks of a COG whose blocks hold one sample each (see cogOf). */
async function readCogBlocks(cog: Cog, level: number, bands: number[], win: PixelWindow, fill: number) {
  checkWindow(cog, level, bands, win);
  const grids = await readBlocks(cog.source, cog.header, level, bands, win);
  return grids.map((blocks): BandBlocks => ({ blocks: blocks as (NativeWindow | null)[], fill }));
}

/**
 * Opens the COG in `source`. The parsed header is cached per isolate by `source.id` (LRU of 256 headers and
 * HEADER_CACHE_BYTES), so a warm open costs no read at all.
 * @throws EngineError unsupported when the file's CRS is not supported, invalid-file when the file is not a readable
 *   GeoTIFF or breaks a limit of ./limits.ts (TIFF_LIMITS); the storage's Error when a read fails.
 */
export async function openCog(source: ByteSource): Promise<Cog> {
  let header = headerCache.get(source.id);
  if (!header) {
    header = await parseHeader(source);
    headerCache.set(source.id, header);
  }
  return cogOf(source, header);
}

/** Stored types whose every value Float32 holds exactly: windows of them can stay in that type (readNative). */
const NATIVE: Partial<Record<SampleType, { new (n: number): NativeWindow; of(...v: number[]): NativeWindow }>> = {
  UINT8: Uint8Array,
  INT8: Int8Array,
  UINT16: Uint16Array,
  INT16: Int16Array,
};

/** What samples of blocks the file does not store read as: the nodata value when finite, else 0. */
function windowFill(cog: Pick<Cog, "nodata">): number {
  return cog.nodata !== null && Number.isFinite(cog.nodata) ? cog.nodata : 0;
}

/**
 * Reads a pixel window of level `level` (0 = full resolution) for 0-based `bands`: one Float32Array per band
 * (or, given `native`, that typed array: see RasterReader.readNative), window-sized, row-major; values in the
 * file's units. Only the blocks the window touches are read.
 * @throws RangeError for windows outside the level or bad band indices; EngineError invalid-file for blocks that
 *   do not decode.
 */
export function readCogWindow(cog: Cog, level: number, bands: number[], win: PixelWindow): Promise<Float32Array[]>;
export function readCogWindow(
  cog: Cog,
  level: number,
  bands: number[],
  win: PixelWindow,
  native: new (n: number) => NativeWindow,
): Promise<NativeWindow[]>;
export function readCogWindow(
  cog: Cog,
  level: number,
  bands: number[],
  win: PixelWindow,
  native?: new (n: number) => NativeWindow,
): Promise<NativeWindow[]> {
  checkWindow(cog, level, bands, win);
  return readWindow(cog.source, cog.header, level, bands, win, windowFill(cog), native ?? null) as Promise<
    NativeWindow[]
  >;
}

/**
 * GDAL's NEAREST warp (alg/gdalwarpkernel.cpp GWKNearest*: the source pixel under the output centre,
 * GWKCheckAndComputeSrcOffsets: trunc(x + 1e-10), trunc(y + 1e-10); nothing written where it is outside the image,
 * NaN or nodata) as a gather through an index map: the source position under every output centre depends only on
 * the grid, the level's geotransform and the window, never on pixel values, so it is computed once and kept per
 * isolate (indexCache, bounded in bytes), shared by the bands and files of one layout (B04 and B08 of a tile) and
 * by warm requests over the same grid. The window is read in the file's own type where Float32 holds it exactly
 * (RasterReader.readNative: Uint16 for Sentinel-2), which halves the bytes the gather walks and turns the window
 * copy into a plain one. A reader that offers its decoded blocks (RasterReader.readBlocks: a COG of 8- or 16-bit
 * samples) is gathered from them through a block map instead (blockmap.ts: no window copy, runs of pixels per
 * block, values converted through a table); per pixel, a block index `slot << shift | offset` was tried before the
 * runs and measured slower than the copy-then-gather.
 */
import { Lru } from "../lru";
import type { NativeWindow, RasterReader } from "../reader";
import type { ValueScale, WarpedBand } from "../types";
import {
  blockMap,
  blockMapBytes,
  fillBlockMap,
  gatherBlocks,
  NEAREST_EPSILON as E,
  runsOf,
  type BlockLayout,
} from "./blockmap";
import type { SourceCoords } from "./coords";
import type { SourceWindow } from "./kernels";
import { hasValueTable, valueTable } from "./values";
import { INDEX_CACHE_BYTES } from "../memory";

export { INDEX_CACHE_BYTES };

/** The part of a SourceWindow that decides which window pixel lies under an output centre. */
export type WindowGeometry = Pick<SourceWindow, "x0" | "y0" | "width" | "height" | "imageWidth" | "imageHeight">;

/**
 * Index maps and block maps per coordinates and window geometry (and block size), within INDEX_CACHE_BYTES (4 bytes
 * per output pixel, plus a block map's runs; src/raster/memory.ts). Keys hold everything a map depends on, so a
 * changed grid or file layout never hits; a map larger than the budget is used once and not kept.
 */
export const indexCache = new Lru<Int32Array>(64, INDEX_CACHE_BYTES, blockMapBytes);

/** Window indices of the pixels under the centres of one output row (-1: outside the image). */
function centres(w: WindowGeometry, sx: Float64Array, sy: Float64Array, kc: Int32Array): void {
  const iw = w.imageWidth,
    ih = w.imageHeight,
    ww = w.width,
    x0 = w.x0,
    y0 = w.y0;
  for (let c = 0; c < kc.length; c++) {
    const x = sx[c]!;
    const y = sy[c]!;
    if (!(x >= 0 && y >= 0) || x + E > iw || y + E > ih) kc[c] = -1;
    else kc[c] = (Math.min(Math.trunc(y + E), ih - 1) - y0) * ww + (Math.min(Math.trunc(x + E), iw - 1) - x0);
  }
}

/**
 * Index maps that map output pixel o to window pixel o for the whole window (the grid is the window's own pixel
 * grid, e.g. a UTM request at the file's resolution over its pixel edges): warpNear takes the Float32 window as
 * the output instead of gathering it.
 */
const identityMaps = new WeakSet<Int32Array>();

/** Window index (row-major in `w`) of the source pixel under every output centre (width*height), -1 outside the image. */
export function centreIndex(coords: SourceCoords, w: WindowGeometry): Int32Array {
  const index = fillCentres(coords, w, new Int32Array(coords.width * coords.height));
  if (index.length === w.width * w.height && index.every((k, o) => k === o)) identityMaps.add(index);
  return index;
}

/** Writes the window index of every output centre (see centreIndex) into `index` (width*height); returns it. */
function fillCentres(coords: SourceCoords, w: WindowGeometry, index: Int32Array): Int32Array {
  const { width, height } = coords;
  const sx = new Float64Array(width);
  const sy = new Float64Array(width);
  for (let r = 0; r < height; r++) {
    coords.row(r, sx, sy);
    centres(w, sx, sy, index.subarray(r * width, (r + 1) * width));
  }
  return index;
}

/**
 * The uncached path's index map or block map (see warpNear) and the key of the map it holds (with a block map's
 * runs): one array, grown to the largest map it held, filled and gathered through without an await in between, so
 * concurrent warps (the files of a scene are read together) never see it half written; the next file of the same
 * layout (B08 after B04) reuses the map.
 */
let scratch: { key: string; buffer: Int32Array; index: Int32Array; runs: Int32Array } = {
  key: "",
  buffer: new Int32Array(0),
  index: new Int32Array(0),
  runs: new Int32Array(0),
};

/**
 * The map of `coords` and `w` named `key` in the scratch array, valid until the next call: an index map, or with
 * `blocks` a block map and its runs.
 */
function scratchMap(key: string, coords: SourceCoords, w: WindowGeometry, blocks?: BlockLayout) {
  if (scratch.key === key) return scratch;
  const n = coords.width * coords.height;
  const buffer = scratch.buffer.length < n ? new Int32Array(n) : scratch.buffer;
  scratch = { key: "", buffer, index: buffer.subarray(0, n), runs: new Int32Array(0) }; // no key while it is being written
  if (blocks) scratch.runs = fillBlockMap(coords, w, blocks, scratch.index);
  else fillCentres(coords, w, scratch.index);
  scratch.key = key;
  return scratch;
}

/** NEAREST through an identity map, in place: `data` (the Float32 window) gets 0 and `valid` 0 where it is NaN or `nodata`. */
function maskInPlace(data: Float32Array, nodata: number, valid: Uint8Array): void {
  for (let o = 0; o < data.length; o++) {
    const v = data[o]!;
    if (v !== v || v === nodata) data[o] = 0;
    else valid[o] = 1;
  }
}

/**
 * NEAREST for all bands from window-sized arrays (Float32, or an 8/16-bit integer type whose values Float32 holds
 * exactly, so that the comparison with the Float32 `nodata` and the stored value are the same as from Float32):
 * the value under each centre unless NaN or `nodata`.
 */
export function nearWindow(index: Int32Array, bands: NativeWindow[], nodata: number, out: WarpedBand[]): void {
  for (let b = 0; b < bands.length; b++) {
    const d = bands[b]!;
    const { data, valid } = out[b]!;
    for (let o = 0; o < index.length; o++) {
      const k = index[o]!;
      if (k < 0) continue;
      const v = d[k]!;
      if (v !== v || v === nodata) continue;
      data[o] = v;
      valid[o] = 1;
    }
  }
}

/** Resolves after the event loop ran once: the requests started before it are on their way. */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * warpNear without a cached index map: the window's read (`pending`, already started) is sent before the map is
 * computed, so its round trips overlap that work; after one turn of the event loop, in which the other files of the
 * scene (read together, src/pipeline/read.ts) send theirs and the requests leave, the map is computed (or taken
 * from the cache, when a file of the same layout computed it meanwhile) and kept.
 */
async function warpNearCold(
  pending: Promise<NativeWindow[]>,
  key: string,
  coords: SourceCoords,
  w: WindowGeometry,
  nodata: number,
  out: WarpedBand[],
): Promise<void> {
  pending.catch(() => undefined); // its failure is thrown below, not reported as unhandled meanwhile
  await nextTurn();
  let index = indexCache.get(key);
  if (!index) {
    index = centreIndex(coords, w);
    indexCache.set(key, index);
  }
  const windows = await pending;
  if (!identityMaps.has(index)) return nearWindow(index, windows, nodata, out);
  // the Float32 window is the output (a native window holds values Float32 holds exactly)
  for (const [b, o] of out.entries()) {
    const win = windows[b]!;
    maskInPlace((o.data = win instanceof Float32Array ? win : Float32Array.from(win)), nodata, o.valid);
  }
}

/**
 * warpNear from the reader's blocks (RasterReader.readBlocks) through a block map (blockmap.ts), each band's values
 * converted by its entry of `scales` as they are gathered. The map is cached as index maps are (on a miss the blocks'
 * read leaves first, as in warpNearCold), or with `cache` false computed into the scratch array after the read.
 */
async function warpNearBlocks(
  reader: RasterReader,
  levelIndex: number,
  bands: number[],
  w: WindowGeometry,
  coords: SourceCoords,
  key: string,
  nodata: number,
  out: WarpedBand[],
  cache: boolean,
  scales: readonly (ValueScale | null)[],
): Promise<void> {
  const level = reader.levels[levelIndex]!;
  const layout: BlockLayout = { blockWidth: level.blockWidth, blockHeight: level.blockHeight };
  const mapKey = [key, "blocks", layout.blockWidth, layout.blockHeight].join("|");
  const read = reader.readBlocks!(levelIndex, bands, { x0: w.x0, y0: w.y0, width: w.width, height: w.height });
  let offsets = cache ? indexCache.get(mapKey) : undefined;
  if (cache && !offsets) {
    read.catch(() => undefined); // its failure is thrown below, not reported as unhandled meanwhile
    await nextTurn();
    offsets = indexCache.get(mapKey);
    if (!offsets) indexCache.set(mapKey, (offsets = blockMap(coords, w, layout)));
  }
  const grids = await read;
  const map = offsets ? { index: offsets, runs: runsOf.get(offsets)! } : scratchMap(mapKey, coords, w, layout);
  for (const [b, o] of out.entries()) {
    const { table, bias } = valueTable(reader.sampleType, nodata, scales[b] ?? null)!;
    gatherBlocks(map.index, map.runs, grids[b]!, table, bias, nodata, o);
  }
}

/**
 * NEAREST warp of 0-based `bands` of `reader` level `levelIndex` through window `w` onto `out` (see the module
 * comment). `coordsKey` names `coords` (grid, level geotransform, error threshold); `nodata` is Float32 or NaN.
 * `cache` false: the index map is neither looked up nor kept (the strips of a large request: each is used once,
 * and kept they filled the cache with ~25 MB per 2500 x 2500 request, evicting the small requests' maps and
 * holding that memory against the isolate's 128 MB); it is computed into one reused array instead, after the read
 * (measured: a repeated 2500 x 2500 NDVI FLOAT32 request takes ~35 ms more, about 160 -> 195 ms, and its isolate holds
 * ~21 MiB less when idle).
 * `scales`: a conversion per band (ValueScale), applied here when the reader offers its blocks; returns whether it
 * was (else `out` holds the stored values).
 * @throws what the reader's `read` throws.
 */
export async function warpNear(
  reader: RasterReader,
  levelIndex: number,
  bands: number[],
  w: WindowGeometry,
  coords: SourceCoords,
  coordsKey: string,
  nodata: number,
  out: WarpedBand[],
  cache = true,
  scales: readonly (ValueScale | null)[] = [],
): Promise<boolean> {
  const win = { x0: w.x0, y0: w.y0, width: w.width, height: w.height };
  const readNative = () =>
    reader.readNative ? reader.readNative(levelIndex, bands, win) : reader.read(levelIndex, bands, win);
  const key = [coordsKey, w.x0, w.y0, w.width, w.height, w.imageWidth, w.imageHeight].join("|");
  if (reader.readBlocks && hasValueTable(reader.sampleType)) {
    await warpNearBlocks(reader, levelIndex, bands, w, coords, key, nodata, out, cache, scales);
    return true;
  }
  if (!cache) {
    const windows = await readNative();
    nearWindow(scratchMap(key, coords, w).index, windows, nodata, out);
    return false;
  }
  const index = indexCache.get(key);
  if (!index) {
    await warpNearCold(readNative(), key, coords, w, nodata, out);
    return false;
  }
  if (identityMaps.has(index)) {
    // The Float32 window is the output: no gather, no second copy.
    const windows = await reader.read(levelIndex, bands, win);
    for (const [b, o] of out.entries()) maskInPlace((o.data = windows[b]!), nodata, o.valid);
    return false;
  }
  nearWindow(index, await readNative(), nodata, out);
  return false;
}

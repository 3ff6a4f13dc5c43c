/**
 * Reads a pixel window of one COG level: only the blocks the window touches, all samples at once, with a single
 * `ByteSource.read` (which coalesces neighbouring byte ranges), decoded concurrently. Decoded blocks are kept in
 * a per-isolate LRU bounded in bytes (key: source id + level + block index), so warm requests over the same
 * area skip both R2 and decompression. A block being fetched is read once: a read needing it meanwhile (the
 * warp's own read after its prefetch, prefetchWindow; concurrent requests over one scene) joins that fetch.
 */
import type { ByteSource } from "../types";
import { decodeBlock, type SampleArray } from "./decode";
import { EngineError, invalidFile } from "../errors";
import { fileName } from "./limits";
import type { CogHeader } from "./header";
import type { LevelLayout } from "./limits";
import { Lru } from "../lru";
import type { BandBlocks, PixelWindow } from "../reader";
import { BLOCK_CACHE_BYTES } from "../memory";

export type { BandBlocks, PixelWindow };

/** Decoded blocks per isolate, within BLOCK_CACHE_BYTES (src/raster/memory.ts, the isolate's budgets). */
export const blockCache = new Lru<SampleArray>(4096, BLOCK_CACHE_BYTES, (a) => a.byteLength);

/** Blocks being fetched and decoded in this isolate, by block cache key (settled ones leave at once). */
const loading = new Map<string, Promise<SampleArray>>();

interface BlockRef {
  /** Index into the level's offsets / byteCounts. */
  index: number;
  bx: number;
  by: number;
  /** Sample stored in this block (planar 2) or -1 (pixel-interleaved block with all samples). */
  sample: number;
  key: string;
  data?: SampleArray;
}

/** The blocks a window needs, per requested sample (planar 2) or once for all samples (planar 1). */
function blocksFor(
  sourceId: string,
  levelIndex: number,
  level: LevelLayout,
  samples: number[],
  win: PixelWindow,
): BlockRef[] {
  const nbx = Math.ceil(level.width / level.blockWidth);
  const nby = Math.ceil(level.height / level.blockHeight);
  const [bx0, bx1] = [Math.floor(win.x0 / level.blockWidth), Math.floor((win.x0 + win.width - 1) / level.blockWidth)];
  const [by0, by1] = [
    Math.floor(win.y0 / level.blockHeight),
    Math.floor((win.y0 + win.height - 1) / level.blockHeight),
  ];
  const planes = level.planarConfiguration === 2 ? [...new Set(samples)] : [-1];
  const refs: BlockRef[] = [];
  for (const sample of planes)
    for (let by = by0; by <= by1; by++)
      for (let bx = bx0; bx <= bx1; bx++) {
        const index = (sample < 0 ? 0 : sample * nbx * nby) + by * nbx + bx;
        refs.push({ index, bx, by, sample, key: `${sourceId}|${levelIndex}|${index}` });
      }
  return refs;
}

/** Rows actually stored in block row `by` (strips at the bottom may be shorter than RowsPerStrip). */
function blockRows(level: LevelLayout, by: number): number {
  return level.tiled ? level.blockHeight : Math.min(level.blockHeight, level.height - by * level.blockHeight);
}

/** The invalid-file error of a block that does not decode (EngineErrors, e.g. an unsupported compression, as they are). */
function blockError(source: ByteSource, ref: BlockRef, e: unknown): EngineError {
  if (e instanceof EngineError) return e;
  return invalidFile(
    `GeoTIFF ${fileName(source)}: block ${ref.index} cannot be decoded (${e instanceof Error ? e.message : String(e)}).`,
  );
}

/**
 * Fetches (one coalesced read) and decodes (concurrently) the blocks that are neither cached nor being fetched,
 * and waits for those being fetched (`loading`); fills every ref's `data` (sparse blocks stay undefined).
 * @throws EngineError invalid-file for a block that does not decode (corrupt, truncated, a decompression bomb);
 *   the storage's Error when the read fails (also to a read that joined it).
 */
async function loadBlocks(source: ByteSource, header: CogHeader, level: LevelLayout, refs: BlockRef[]): Promise<void> {
  const perPixel = level.planarConfiguration === 1 ? header.samplesPerPixel : 1;
  const missing: BlockRef[] = [];
  const waits: Promise<void>[] = [];
  const join = (ref: BlockRef, block: Promise<SampleArray>) => waits.push(block.then((data) => void (ref.data = data)));
  for (const ref of refs) {
    ref.data = blockCache.get(ref.key);
    if (ref.data) continue;
    const pending = loading.get(ref.key);
    if (pending) join(ref, pending);
    else if ((level.byteCounts[ref.index] ?? 0) > 0) missing.push(ref);
  }
  if (missing.length > 0) {
    const bytes = source.read(
      missing.map((r) => ({ offset: level.offsets[r.index]!, length: level.byteCounts[r.index]! })),
    );
    missing.forEach((ref, i) => {
      const samples = level.blockWidth * blockRows(level, ref.by) * perPixel;
      const block = bytes
        .then((b) =>
          decodeBlock(header, level, b[i]!, samples).catch((e: unknown) => Promise.reject(blockError(source, ref, e))),
        )
        .then((data) => (blockCache.set(ref.key, data), data))
        .finally(() => loading.delete(ref.key));
      loading.set(ref.key, block);
      join(ref, block);
    });
  }
  await Promise.all(waits);
}

/**
 * Fetches and decodes into the block cache the blocks `win` of level `levelIndex` touches for `samples`, as
 * readWindow would, without building the window (a read of the same blocks meanwhile joins it).
 * @throws as readWindow.
 */
export async function prefetchWindow(
  source: ByteSource,
  header: CogHeader,
  levelIndex: number,
  samples: number[],
  win: PixelWindow,
): Promise<void> {
  const level = header.levels[levelIndex]!;
  await loadBlocks(source, header, level, blocksFor(source.id, levelIndex, level, samples, win));
}

/** Copies the part of one decoded block that lies inside the window into `out` (window-sized). */
function copyBlock(
  ref: BlockRef,
  level: LevelLayout,
  win: PixelWindow,
  out: SampleArray,
  sampleInBlock: number,
  stride: number,
): void {
  const data = ref.data!;
  const bx0 = ref.bx * level.blockWidth;
  const by0 = ref.by * level.blockHeight;
  const xa = Math.max(win.x0, bx0);
  const xb = Math.min(win.x0 + win.width, bx0 + level.blockWidth, level.width);
  const ya = Math.max(win.y0, by0);
  const yb = Math.min(win.y0 + win.height, by0 + level.blockHeight, level.height);
  for (let y = ya; y < yb; y++) {
    const dst = (y - win.y0) * win.width + (xa - win.x0);
    const src = (y - by0) * level.blockWidth + (xa - bx0);
    if (stride === 1) out.set(data.subarray(src, src + (xb - xa)), dst);
    else for (let x = 0; x < xb - xa; x++) out[dst + x] = data[(src + x) * stride + sampleInBlock]!;
  }
}

/** The array type a window is returned in: Float32, or the file's own type (`native`, see readWindow). */
type WindowArray = new (n: number) => SampleArray;

/**
 * Reads `win` of level `levelIndex` for the given 0-based samples. Returns one array per requested sample
 * (window-sized, row-major): Float32Array, or with `native` the decoded blocks' own typed array (Uint16Array for
 * a UINT16 file: half the bytes and a plain copy instead of a conversion). Empty (sparse) blocks read as `fill`
 * (the nodata value, else 0; with `native` the caller makes sure it is representable in the file's type).
 * @throws EngineError invalid-file when a block cannot be decoded; the storage's Error when it cannot be read.
 */
export async function readWindow(
  source: ByteSource,
  header: CogHeader,
  levelIndex: number,
  samples: number[],
  win: PixelWindow,
  fill = 0,
  native: WindowArray | null = null,
): Promise<SampleArray[]> {
  const level = header.levels[levelIndex]!;
  const refs = blocksFor(source.id, levelIndex, level, samples, win);
  await loadBlocks(source, header, level, refs);
  const interleaved = level.planarConfiguration === 1;
  const Out: WindowArray = native ?? Float32Array;
  return samples.map((sample) => {
    const out = new Out(win.width * win.height);
    if (refs.some((r) => !r.data)) out.fill(fill);
    for (const ref of refs) {
      if (!ref.data || (!interleaved && ref.sample !== sample)) continue;
      copyBlock(ref, level, win, out, interleaved ? sample : 0, interleaved ? header.samplesPerPixel : 1);
    }
    return out;
  });
}

/**
 * The decoded blocks `win` of level `levelIndex` touches, per requested sample, without copying them into a window
 * (see RasterReader.readBlocks): the block cache's arrays themselves, which callers must not write. Only for blocks
 * holding one sample per element (PlanarConfiguration 2, or one sample per pixel); empty (sparse) blocks are null.
 * @throws as readWindow.
 */
export async function readBlocks(
  source: ByteSource,
  header: CogHeader,
  levelIndex: number,
  samples: number[],
  win: PixelWindow,
): Promise<(SampleArray | null)[][]> {
  const level = header.levels[levelIndex]!;
  if (level.planarConfiguration === 1 && header.samplesPerPixel > 1)
    throw new RangeError("readBlocks needs one sample per block element (PlanarConfiguration 2 or one sample)");
  const refs = blocksFor(source.id, levelIndex, level, samples, win);
  await loadBlocks(source, header, level, refs);
  const interleaved = level.planarConfiguration === 1;
  return samples.map((sample) => refs.filter((r) => interleaved || r.sample === sample).map((r) => r.data ?? null));
}

/**
 * Limits on the sizes a (Cloud Optimized) GeoTIFF declares, checked before anything is allocated or looped over
 * them: a file is user data (BYOC buckets), and a 200-byte file must not be able to make the reader loop forever or
 * allocate gigabytes. Every breach is an EngineError invalid-file naming the limit (BYOC ingestion turns it into
 * the tile's failedIngestionCause; the HTTP layer into a 400).
 *
 * The figures leave room for every GDAL-written COG: GDAL writes one IFD per level plus one per mask level (a
 * 100 000 px image with 256 px tiles has 10 levels), 15-40 tags per IFD, tiles of 256-1024 px (BYOC recommends
 * 1024 at most), and Sentinel Hub's BYOC takes bands of 8-32 bits.
 */
import { invalidFile } from "../errors";
import type { ByteSource } from "../types";

/** One resolution level's block layout (a TIFF image file directory), as ./header.ts reads it and checkLevel checks it. */
export interface LevelLayout {
  width: number;
  height: number;
  /** True for tiled images, false for strips. */
  tiled: boolean;
  /** Block (tile, or strip: width x RowsPerStrip) size in pixels. */
  blockWidth: number;
  blockHeight: number;
  /** TIFF Compression tag value (1 none, 5 LZW, 8/32946 deflate, 50000 zstd, ...). */
  compression: number;
  predictor: number;
  /** 1 = pixel-interleaved blocks (all samples), 2 = one block set per sample. */
  planarConfiguration: number;
  /** Byte offset and length of every block (TileOffsets / TileByteCounts or the strip equivalents). */
  offsets: number[];
  byteCounts: number[];
}

/** The limits, each named in the message of the error that reports its breach. */
export const TIFF_LIMITS = {
  /** IFDs (images: levels and masks) followed along the file's chain of next-IFD offsets. */
  ifds: 64,
  /** Entries (tags) in one IFD. */
  ifdEntries: 512,
  /** Bytes of one tag's values (TileOffsets of `blocks` 8-byte BigTIFF offsets fit). */
  tagBytes: 2 * 1024 * 1024,
  /** Bytes of the values of all tags of all IFDs (what the parser reads and the header cache keeps). */
  headerBytes: 8 * 1024 * 1024,
  /** Blocks (tiles or strips, of every plane) of one image. */
  blocks: 262_144,
  /** Decoded bytes of one block: width x height x samples in the block x bytes per sample (4096 x 4096 x 1 byte). */
  blockBytes: 16 * 1024 * 1024,
} as const;

/**
 * A block's stored (compressed) bytes may exceed its decoded size a little (LZW of noise grows it by up to 12/8, DEFLATE
 * by 5 bytes per 64 KiB): at most twice the decoded size of a full block plus this many bytes.
 */
const STORED_SLACK = 4096;

/**
 * A block may decode to at most this many times a full block of its level (the last strip of a striped image is
 * sometimes written full); a stream that decodes to more (a "deflate bomb") is refused once it passes that size.
 */
export const DECODED_GROWTH = 2;

/** The file's name in messages: the source's id without its version (`#<etag>`). */
export const fileName = (source: ByteSource): string => source.id.replace(/#[^#/]*$/, "");

/** Throws invalid-file naming limit `name` of TIFF_LIMITS when `value` exceeds it. */
export function checkLimit(name: keyof typeof TIFF_LIMITS, value: number, what: string): void {
  const max = TIFF_LIMITS[name];
  if (!(value <= max))
    throw invalidFile(`${what} (${value}) exceeds the GeoTIFF limit ${name} = ${max}.`, { name: `tiff.${name}`, max });
}

/** Decoded bytes of a full block of `level`. */
export function fullBlockBytes(level: LevelLayout, samplesPerPixel: number, bytesPerSample: number): number {
  const perBlock = level.planarConfiguration === 1 ? samplesPerPixel : 1;
  return level.blockWidth * level.blockHeight * perBlock * bytesPerSample;
}

/**
 * Checks one image's layout against the file: sizes and block sizes of at least 1, at most TIFF_LIMITS.blocks
 * blocks of at most TIFF_LIMITS.blockBytes each, an offset and a byte count per block, and every stored block inside
 * the file (`fileSize` bytes) and no larger than its decoded size allows (see STORED_SLACK).
 * @throws EngineError invalid-file naming the first breach.
 */
export function checkLevel(
  level: LevelLayout,
  samplesPerPixel: number,
  bytesPerSample: number,
  fileSize: number,
  what: string,
): void {
  const dims: [string, number][] = [
    ["ImageWidth", level.width],
    ["ImageLength", level.height],
    [level.tiled ? "TileWidth" : "ImageWidth", level.blockWidth],
    [level.tiled ? "TileLength" : "RowsPerStrip", level.blockHeight],
    ["SamplesPerPixel", samplesPerPixel],
  ];
  for (const [tag, v] of dims)
    if (!(Number.isInteger(v) && v >= 1)) throw invalidFile(`${what}: ${tag} is ${v}; it must be a positive integer.`);
  const planes = level.planarConfiguration === 2 ? samplesPerPixel : 1;
  const blocks = Math.ceil(level.width / level.blockWidth) * Math.ceil(level.height / level.blockHeight) * planes;
  checkLimit("blocks", blocks, `${what}: the number of blocks`);
  const decoded = fullBlockBytes(level, samplesPerPixel, bytesPerSample);
  checkLimit("blockBytes", decoded, `${what}: the decoded size of one block`);
  if (level.offsets.length < blocks || level.byteCounts.length < blocks)
    throw invalidFile(
      `${what}: ${blocks} blocks but ${level.offsets.length} offsets and ${level.byteCounts.length} byte counts.`,
    );
  const stored = 2 * decoded + STORED_SLACK;
  for (let i = 0; i < blocks; i++) {
    const [offset, count] = [level.offsets[i]!, level.byteCounts[i]!];
    if (count === 0) continue; // a sparse block (GDAL's SPARSE_OK): read as nodata
    if (count > stored)
      throw invalidFile(
        `${what}: block ${i} stores ${count} bytes, more than a block of ${decoded} bytes can (at most ${stored}).`,
      );
    if (!(offset >= 0 && offset + count <= fileSize))
      throw invalidFile(
        `${what}: block ${i} (bytes ${offset}..${offset + count}) lies past the end of the file (${fileSize} bytes).`,
      );
  }
}

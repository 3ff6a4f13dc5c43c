/**
 * Decoding of one GeoTIFF block (tile or strip) into a typed array of the file's sample type.
 *
 * Compressions 1 (with a predictor), 5 (LZW), 8 / 32946 (DEFLATE) and 50000 (ZSTD) with predictors 1, 2 and 3 go
 * through the WebAssembly decode core (src/raster/codec: libdeflate, libzstd, C LZW and predictors). Measured
 * (shared machine, indicative): in Node against geotiff.js 2.8-4.7x faster for DEFLATE (+ predictor 2 / 3) and
 * about 20x for LZW (bench/bench-decode.mjs); under wrangler dev, all tiles of the sample bands, about as fast as
 * workerd's native inflate for plain DEFLATE (0.9-1.2x) and 1.3x with predictor 2; and ZSTD files become readable.
 * When that module was built as a stub (no clang), for PackBits, or with `path: "js"`, the JavaScript path
 * decodes (src/raster/codec/bounded.ts: DEFLATE through the runtime's native `DecompressionStream("deflate")`,
 * measured in workerd on a 383 KB -> 512 KB Sentinel-2 tile at about 2-2.5 ms against 5-7 ms for pako and 6-11 ms
 * for fflate; LZW and PackBits in JavaScript) and geotiff.js applies the predictor (BaseDecoder.decode).
 * Other compressions (JPEG, LERC, WebP, ...) are refused as unsupported.
 *
 * Every path is bounded: a block may decode to at most DECODED_GROWTH times a full block of its level
 * (./limits.ts), so a decompression bomb fails (or, for LZW / PackBits, is cut) once it passes that size.
 */
import { BaseDecoder } from "geotiff";
import { decodeCore, DecodeCore } from "../codec";
import { inflateAtMost, lzwDecode, unpackBits } from "../codec/bounded";
import { unsupported } from "../errors";
import type { CogHeader, SampleType } from "./header";
import type { LevelLayout } from "./limits";
import { DECODED_GROWTH, fullBlockBytes } from "./limits";

/** A decoded block: samples in the file's type (row-major; pixel-interleaved when PlanarConfiguration = 1). */
export type SampleArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array;

const ARRAYS: Record<
  SampleType,
  { new (b: ArrayBuffer, o: number, n: number): SampleArray; BYTES_PER_ELEMENT: number }
> = {
  UINT8: Uint8Array,
  INT8: Int8Array,
  UINT16: Uint16Array,
  INT16: Int16Array,
  UINT32: Uint32Array,
  INT32: Int32Array,
  FLOAT32: Float32Array,
  FLOAT64: Float64Array,
};

/** The JavaScript path's decompressors per Compression tag value, each bounded by `max` output bytes. */
const JS_DECOMPRESS: Record<number, (data: Uint8Array, max: number) => Uint8Array | Promise<Uint8Array>> = {
  1: (data) => data,
  5: lzwDecode,
  8: (data, max) => inflateAtMost(data, "deflate", max),
  32946: (data, max) => inflateAtMost(data, "deflate", max),
  32773: unpackBits,
};

/** A geotiff.js decoder (for its predictors) over one of JS_DECOMPRESS. */
class BoundedDecoder extends BaseDecoder {
  constructor(
    parameters: ReturnType<typeof decoderParameters>,
    private readonly decompress: (data: Uint8Array) => Uint8Array | Promise<Uint8Array>,
  ) {
    super(parameters);
  }
  override async decodeBlock(buffer: ArrayBufferLike): Promise<ArrayBufferLike> {
    const out = await this.decompress(new Uint8Array(buffer));
    return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out.buffer : out.slice().buffer;
  }
}

/** Decoder parameters as geotiff.js expects them (the predictor needs block width, height and sample sizes). */
function decoderParameters(header: CogHeader, level: LevelLayout) {
  const perBlock = level.planarConfiguration === 1 ? header.samplesPerPixel : 1;
  return {
    tileWidth: level.blockWidth,
    tileHeight: level.blockHeight,
    predictor: level.predictor,
    bitsPerSample: new Array<number>(perBlock).fill(header.bitsPerSample),
    planarConfiguration: level.planarConfiguration,
    samplesPerPixel: header.samplesPerPixel,
  };
}

/** Swaps the byte order of every sample in place (big-endian files). */
function swapBytes(buf: ArrayBuffer, bytesPerSample: number): void {
  const b = new Uint8Array(buf);
  for (let i = 0; i + bytesPerSample <= b.length; i += bytesPerSample) b.subarray(i, i + bytesPerSample).reverse();
}

/** Which decoder decodes: the WebAssembly core when it is built and handles the block (auto), or always one. */
export type DecodePath = "auto" | "wasm" | "js";

/**
 * The JavaScript path: JS_DECOMPRESS to at most `maxBytes`, geotiff.js's predictors.
 * @throws EngineError unsupported for another compression.
 */
async function decodeJs(
  header: CogHeader,
  level: LevelLayout,
  bytes: ArrayBuffer,
  maxBytes: number,
): Promise<ArrayBufferLike> {
  const decompress = JS_DECOMPRESS[level.compression];
  if (!decompress)
    throw unsupported(
      `GeoTIFF compression ${level.compression} is not supported; supported: none (1), LZW (5), DEFLATE (8, 32946), PackBits (32773), and ZSTD (50000) with the WebAssembly decode core.`,
    );
  return new BoundedDecoder(decoderParameters(header, level), (data) => decompress(data, maxBytes)).decode(bytes);
}

/** The WebAssembly core, when `path` allows it and it handles this block; null otherwise. */
function coreFor(header: CogHeader, level: LevelLayout, path: DecodePath): DecodeCore | null {
  if (path === "js") return null;
  const core = decodeCore();
  if (path === "wasm" && !core)
    throw new Error("the WebAssembly decode core was built as a stub (no clang): path 'wasm' unavailable");
  const bigEndianPredicted = !header.littleEndian && level.predictor !== 1 && header.bitsPerSample > 8;
  const handled = DecodeCore.supports(level.compression, level.predictor) && !bigEndianPredicted;
  if (path === "wasm" && !handled)
    throw new Error(
      `the WebAssembly decode core does not handle compression ${level.compression} / predictor ${level.predictor}`,
    );
  return handled ? core : null;
}

/**
 * Decodes one block's compressed bytes into `samples` values of the file's sample type, decompressing at most
 * DECODED_GROWTH full blocks of the level (./limits.ts).
 * `path`: "auto" (default) uses the WebAssembly core where it applies, "wasm" / "js" force one (tests, benches).
 * @throws EngineError unsupported for compressions no path decodes; Error for corrupt, short or oversized
 *   (decompression bomb) blocks, or big-endian files with a predictor.
 */
export async function decodeBlock(
  header: CogHeader,
  level: LevelLayout,
  bytes: ArrayBuffer,
  samples: number,
  path: DecodePath = "auto",
): Promise<SampleArray> {
  const Array_ = ARRAYS[header.sampleType];
  const core = level.compression === 1 && level.predictor === 1 ? null : coreFor(header, level, path);
  const maxBytes = DECODED_GROWTH * fullBlockBytes(level, header.samplesPerPixel, Array_.BYTES_PER_ELEMENT);
  let raw: ArrayBufferLike;
  if (level.compression === 1 && level.predictor === 1) raw = bytes;
  else if (core) {
    const perPixel = level.planarConfiguration === 1 ? header.samplesPerPixel : 1;
    const width = level.blockWidth;
    const rows = samples / (width * perPixel);
    const layout = {
      width,
      rows,
      samplesPerPixel: perPixel,
      bytesPerSample: Array_.BYTES_PER_ELEMENT,
      predictor: level.predictor,
    };
    raw = core.decode(level.compression, new Uint8Array(bytes), layout, maxBytes);
  } else raw = await decodeJs(header, level, bytes, maxBytes);
  if (!header.littleEndian && Array_.BYTES_PER_ELEMENT > 1) {
    if (level.predictor !== 1) throw new Error("big-endian GeoTIFFs with a predictor are not supported");
    raw = raw === bytes ? bytes.slice(0) : raw;
    swapBytes(raw as ArrayBuffer, Array_.BYTES_PER_ELEMENT);
  }
  if (raw.byteLength < samples * Array_.BYTES_PER_ELEMENT)
    throw new Error(`GeoTIFF block decoded to ${raw.byteLength} bytes, expected ${samples * Array_.BYTES_PER_ELEMENT}`);
  if (raw === bytes) raw = bytes.slice(0, samples * Array_.BYTES_PER_ELEMENT);
  return new Array_(raw as ArrayBuffer, 0, samples);
}

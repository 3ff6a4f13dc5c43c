/**
 * The WebAssembly decode core (wasm/decode_core, built to ./decode_core.wasm by `npm run build:wasm`): GeoTIFF
 * block decompression (DEFLATE with libdeflate 1.14, ZSTD with libzstd 1.5.4, TIFF LZW written from the TIFF 6.0
 * specification), the horizontal (2) and floating-point (3) predictors, and zlib compression (libdeflate).
 *
 * This file takes the compiled module as an argument, so that it also runs in Node (bench/bench-decode.mjs);
 * ./index.ts holds workerd's static import. One instance is kept per DecodeCore; its buffers grow to the largest
 * block seen and are reused (WebAssembly memory cannot shrink: past MAX_MEMORY the instance is dropped and a fresh
 * one made on the next call). Calls are synchronous, so concurrent requests of one isolate never interleave in it.
 */

import { DECODE_WASM_BYTES } from "../memory";

/** GeoTIFF Compression tag values the core decodes. */
export const CORE_COMPRESSIONS: ReadonlySet<number> = new Set([1, 5, 8, 32946, 50000]);
/** GeoTIFF Predictor tag values the core undoes. */
export const CORE_PREDICTORS: ReadonlySet<number> = new Set([1, 2, 3]);

/** Layout of a decoded block: `rows` rows of `width` pixels of `samplesPerPixel` samples of `bytesPerSample`. */
export interface BlockLayout {
  width: number;
  rows: number;
  samplesPerPixel: number;
  bytesPerSample: number;
  /** 1 none, 2 horizontal differencing, 3 floating point. */
  predictor: number;
}

type Fn = (...args: number[]) => number;
interface CoreExports {
  memory: WebAssembly.Memory;
  dc_buffer: Fn;
  dc_inflate_zlib: Fn;
  dc_inflate_raw: Fn;
  dc_zstd: Fn;
  dc_lzw: Fn;
  dc_deflate_zlib: Fn;
  dc_deflate_zlib_bound: Fn;
  dc_predictor_horizontal: Fn;
  dc_predictor_float: Fn;
  dc_predictor_float_encode: Fn;
}

/** Error codes of wasm/decode_core/decode_core.h. */
const ERR_SPACE = -2;
const ERRORS: Record<number, string> = {
  [-1]: "corrupt or truncated",
  [-2]: "larger than expected",
  [-3]: "out of memory decoding",
  [-4]: "unsupported parameters for",
};
const NAMES: Record<number, string> = { 1: "uncompressed", 5: "LZW", 8: "DEFLATE", 32946: "DEFLATE", 50000: "ZSTD" };
/** Memory past which an instance is dropped after its call (the next call starts a fresh one): WebAssembly memory
 * counts against the isolate's 128 MB (DECODE_WASM_BYTES, src/raster/memory.ts), and a few MB hold the usual blocks
 * (a 1024² FLOAT32 tile is 4 MB). */
const MAX_MEMORY = DECODE_WASM_BYTES;
const SLOT_IN = 0;
const SLOT_OUT = 1;

export class DecodeCore {
  private core: CoreExports | null = null;

  /** @param module the compiled decode_core.wasm (an empty stub module is rejected: check isStub first). */
  constructor(private readonly module: WebAssembly.Module) {
    if (DecodeCore.isStub(module)) throw new Error("decode_core.wasm is the empty stub (no clang when it was built)");
  }

  /** True for the empty module wasm/build.mjs writes when clang / wasi-libc were missing. */
  static isStub(module: WebAssembly.Module): boolean {
    return !WebAssembly.Module.exports(module).some((e) => e.name === "dc_inflate_zlib");
  }

  /** Bytes of WebAssembly memory the live instance holds (0 before the first call): buffers are reused. */
  memoryBytes(): number {
    return this.core?.memory.buffer.byteLength ?? 0;
  }

  /** Whether `decode` handles this Compression / Predictor pair. */
  static supports(compression: number, predictor: number): boolean {
    return CORE_COMPRESSIONS.has(compression) && CORE_PREDICTORS.has(predictor);
  }

  private exports(): CoreExports {
    return (this.core ??= new WebAssembly.Instance(this.module, {}).exports as unknown as CoreExports);
  }

  /** Drops the instance when its memory has grown past MAX_MEMORY. */
  private release(core: CoreExports): void {
    if (core.memory.buffer.byteLength > MAX_MEMORY) this.core = null;
  }

  /** Copies `bytes` into the input slot; returns its address. */
  private input(core: CoreExports, bytes: Uint8Array): number {
    const ptr = this.buffer(core, SLOT_IN, bytes.byteLength);
    new Uint8Array(core.memory.buffer, ptr, bytes.byteLength).set(bytes);
    return ptr;
  }

  private buffer(core: CoreExports, slot: number, size: number): number {
    const ptr = core.dc_buffer(slot, Math.max(size, 1));
    if (!ptr) throw new Error(`decode core: out of memory for a ${size}-byte buffer`);
    return ptr;
  }

  /**
   * Decodes one GeoTIFF block: decompresses `bytes` (Compression `compression`), undoes the predictor over
   * `layout` and returns exactly `layout.rows * width * samplesPerPixel * bytesPerSample` bytes, samples in
   * little-endian order. A stream that decodes to more keeps its first bytes (as libtiff does), up to `maxBytes`
   * (default: the expected size): DEFLATE and ZSTD streams that decode to more are refused once they pass it
   * (a decompression bomb is never inflated whole), LZW stops there.
   * @throws Error for a corrupt or truncated stream, a stream shorter than the block or longer than `maxBytes`, an
   *   unsupported compression, predictor or sample size.
   */
  decode(compression: number, bytes: Uint8Array, layout: BlockLayout, maxBytes?: number): ArrayBuffer {
    if (!DecodeCore.supports(compression, layout.predictor))
      throw new Error(`decode core: compression ${compression} / predictor ${layout.predictor} not supported`);
    const core = this.exports();
    const rowBytes = layout.width * layout.samplesPerPixel * layout.bytesPerSample;
    const expected = rowBytes * layout.rows;
    const out = this.decompress(core, compression, bytes, expected, Math.max(maxBytes ?? expected, expected));
    const { width, rows, samplesPerPixel: spp, bytesPerSample: bps, predictor } = layout;
    const r =
      predictor === 2
        ? core.dc_predictor_horizontal(out, width, rows, spp, bps)
        : predictor === 3
          ? core.dc_predictor_float(out, width, rows, spp, bps)
          : 0;
    if (r < 0) throw new Error(`decode core: ${ERRORS[r] ?? r} predictor ${predictor} (${bps}-byte samples)`);
    const result = core.memory.buffer.slice(out, out + expected);
    this.release(core);
    return result;
  }

  /**
   * Decompresses into the output slot (at least `expected` bytes, output buffers doubling from `expected` up to
   * `maxBytes` while the stream needs more room); returns its address.
   */
  private decompress(
    core: CoreExports,
    compression: number,
    bytes: Uint8Array,
    expected: number,
    maxBytes: number,
  ): number {
    const name = NAMES[compression] ?? `compression ${compression}`;
    const inPtr = this.input(core, bytes);
    if (compression === 1) {
      if (bytes.byteLength < expected)
        throw new Error(`GeoTIFF block decoded to ${bytes.byteLength} bytes, expected ${expected}`);
      return inPtr;
    }
    const fn = compression === 5 ? core.dc_lzw : compression === 50000 ? core.dc_zstd : core.dc_inflate_zlib;
    for (let cap = Math.max(expected, 1); ; cap = Math.min(cap * 2, maxBytes)) {
      const out = this.buffer(core, SLOT_OUT, cap);
      const n = fn(inPtr, bytes.byteLength, out, cap);
      if (n === ERR_SPACE && cap < maxBytes) continue;
      if (n === ERR_SPACE)
        throw new Error(
          `GeoTIFF block: ${name} data decodes to more than ${maxBytes} bytes (the block holds ${expected})`,
        );
      if (n < 0) throw new Error(`GeoTIFF block: ${ERRORS[n] ?? n} ${name} data (${bytes.byteLength} bytes)`);
      if (n < expected)
        throw new Error(`GeoTIFF block decoded to ${n} bytes, expected ${expected} (truncated ${name} data?)`);
      return out;
    }
  }

  /**
   * Inflates zlib-wrapped (RFC 1950) or raw (RFC 1951) DEFLATE data whose decompressed size is at most `maxSize`
   * bytes. Returns a new Uint8Array of the decompressed bytes.
   * @throws Error for corrupt or truncated data, or data decompressing to more than `maxSize` bytes.
   */
  inflate(data: Uint8Array, maxSize: number, format: "zlib" | "raw" = "zlib"): Uint8Array {
    const core = this.exports();
    const inPtr = this.input(core, data);
    const out = this.buffer(core, SLOT_OUT, maxSize);
    const n = (format === "raw" ? core.dc_inflate_raw : core.dc_inflate_zlib)(inPtr, data.byteLength, out, maxSize);
    if (n < 0)
      throw new Error(
        `decode core: ${ERRORS[n] ?? n} ${format} DEFLATE data (${data.byteLength} bytes, at most ${maxSize} expected)`,
      );
    const result = new Uint8Array(core.memory.buffer.slice(out, out + n));
    this.release(core);
    return result;
  }

  /**
   * zlib-wrapped DEFLATE (RFC 1950) of `data` at `level` (0-12, libdeflate's levels: 1 fastest, 6 zlib's default,
   * 10-12 optimal parsing). Returns a new Uint8Array. Throws Error for a level outside 0-12.
   */
  deflateZlib(data: Uint8Array, level: number): Uint8Array {
    const core = this.exports();
    const bound = core.dc_deflate_zlib_bound(level, data.byteLength);
    if (bound < 0) throw new Error(`decode core: zlib level ${level} not supported (0-12)`);
    const inPtr = this.input(core, data);
    const out = this.buffer(core, SLOT_OUT, bound);
    const n = core.dc_deflate_zlib(level, inPtr, data.byteLength, out, bound);
    if (n < 0) throw new Error(`decode core: zlib compression failed (${n})`);
    const result = new Uint8Array(core.memory.buffer.slice(out, out + n));
    this.release(core);
    return result;
  }

  /**
   * Applies the floating-point predictor (TIFF Predictor 3, the encoder side) to `data` laid out as `layout`
   * (little-endian samples): returns a new Uint8Array of the same length, ready to compress.
   */
  floatPredictorEncode(data: Uint8Array, layout: Omit<BlockLayout, "predictor">): Uint8Array {
    const core = this.exports();
    const ptr = this.input(core, data);
    const r = core.dc_predictor_float_encode(
      ptr,
      layout.width,
      layout.rows,
      layout.samplesPerPixel,
      layout.bytesPerSample,
    );
    if (r < 0)
      throw new Error(
        `decode core: ${ERRORS[r] ?? r} floating-point predictor (${layout.bytesPerSample}-byte samples)`,
      );
    const result = new Uint8Array(core.memory.buffer.slice(ptr, ptr + data.byteLength));
    this.release(core);
    return result;
  }
}

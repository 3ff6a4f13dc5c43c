/**
 * Decompressors in JavaScript whose output is bounded by the caller's size, for the paths that do not use the
 * WebAssembly decode core (./core.ts): GeoTIFF blocks when the core is a stub or does not handle the block
 * (src/raster/cog/decode.ts), and Zarr chunks (src/raster/zarr). A hostile stream (a "decompression bomb": a few
 * KB that inflate to gigabytes) is refused or cut once it passes the bound, never decompressed whole.
 *
 * - DEFLATE / zlib / gzip: the runtime's native `DecompressionStream` (workerd and Node), read chunk by chunk; the
 *   stream is cancelled as soon as the output passes the bound (the stream's backpressure keeps it from running
 *   ahead).
 * - TIFF LZW (Compression 5) and PackBits (Compression 32773): written from the TIFF 6.0 specification
 *   (sections 13 and 9), as wasm/decode_core/lzw.c for LZW; decoding stops when the output is full, as libtiff
 *   does (trailing codes are not needed).
 */

/** A stream format of `DecompressionStream`. */
export type InflateFormat = "deflate" | "deflate-raw" | "gzip";

/**
 * Inflates `data` (`format`: "deflate" = zlib-wrapped, RFC 1950; "deflate-raw", RFC 1951; "gzip", RFC 1952) to at
 * most `maxBytes` bytes.
 * @throws Error naming the bound when the data decompresses to more; the runtime's error for corrupt data.
 */
export async function inflateAtMost(data: Uint8Array, format: InflateFormat, maxBytes: number): Promise<Uint8Array> {
  let total = 0;
  const bound = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      total += chunk.byteLength;
      // erroring this stream cancels the decompressor upstream: it stops here
      if (total > maxBytes) controller.error(new Error(`${format} data decompresses to more than ${maxBytes} bytes`));
      else controller.enqueue(chunk);
    },
  });
  const inflated = new Blob([data as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new DecompressionStream(format))
    .pipeThrough(bound);
  return new Uint8Array(await new Response(inflated).arrayBuffer());
}

const CLEAR_CODE = 256;
const EOI_CODE = 257;
const FIRST_FREE = 258;
const MAX_CODES = 4096;

/**
 * Decodes a TIFF 6.0 LZW stream (MSB-first codes of 9 to 12 bits, widened one code early, ClearCode 256,
 * EoiCode 257) into at most `maxBytes` bytes; returns the bytes decoded (fewer when the stream ends early).
 * @throws Error for a corrupt stream or the pre-6.0 LSB-first variant.
 */
export function lzwDecode(data: Uint8Array, maxBytes: number): Uint8Array {
  if (data.length >= 2 && data[0] === 0 && (data[1]! & 1) === 1)
    throw new Error("LZW: old-style (pre-TIFF 6.0) LZW data are not supported");
  const prefix = new Uint16Array(MAX_CODES);
  const suffix = new Uint8Array(MAX_CODES);
  const first = new Uint8Array(MAX_CODES);
  const length = new Uint16Array(MAX_CODES);
  for (let i = 0; i < 256; i++) [suffix[i], first[i], length[i]] = [i, i, 1];
  const out = new Uint8Array(maxBytes);
  let [n, bit, next, old] = [0, 0, FIRST_FREE, -1];
  /** Writes entry `code` at n (cut at the capacity), walking its prefix chain back to front. */
  const write = (code: number): void => {
    const end = n + length[code]!;
    for (let i = end; i > n; i--, code = prefix[code]!) if (i <= maxBytes) out[i - 1] = suffix[code]!;
    n = Math.min(end, maxBytes);
  };
  while (n < maxBytes) {
    const width = next + 1 >= 2048 ? 12 : next + 1 >= 1024 ? 11 : next + 1 >= 512 ? 10 : 9;
    if (bit + width > data.length * 8) break;
    const byte = bit >> 3;
    const window = (data[byte]! << 16) | ((data[byte + 1] ?? 0) << 8) | (data[byte + 2] ?? 0);
    const code = (window >> (24 - (bit & 7) - width)) & ((1 << width) - 1);
    bit += width;
    if (code === EOI_CODE) break;
    if (code === CLEAR_CODE) {
      [next, old] = [FIRST_FREE, -1];
      continue;
    }
    if (old < 0 ? code > 255 : code > next || (code === next && next >= MAX_CODES))
      throw new Error(`LZW: corrupt data (code ${code})`);
    if (old >= 0 && next < MAX_CODES) {
      // new entry: old + the first byte of `code` (of `old` itself when code is the entry being made: KwKwK)
      [prefix[next], suffix[next], first[next], length[next]] = [
        old,
        code < next ? first[code]! : first[old]!,
        first[old]!,
        length[old]! + 1,
      ];
      next++;
    }
    write(code);
    old = code;
  }
  return out.subarray(0, n);
}

/**
 * Decodes PackBits (TIFF Compression 32773: a header byte n, then n + 1 literal bytes for n >= 0, or one byte
 * repeated 1 - n times for -127 <= n <= -1; -128 is a no-op) into at most `maxBytes` bytes.
 */
export function unpackBits(data: Uint8Array, maxBytes: number): Uint8Array {
  const out = new Uint8Array(maxBytes);
  let [i, n] = [0, 0];
  while (i < data.length && n < maxBytes) {
    const h = (data[i++]! << 24) >> 24;
    if (h >= 0) {
      const run = data.subarray(i, i + h + 1).subarray(0, maxBytes - n);
      out.set(run, n);
      [i, n] = [i + h + 1, n + run.length];
    } else if (h !== -128) {
      const end = Math.min(n + 1 - h, maxBytes);
      out.fill(data[i++] ?? 0, n, end);
      n = end;
    }
  }
  return out.subarray(0, n);
}

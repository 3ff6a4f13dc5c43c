/**
 * zlib compression for the encoders (RFC 1950 zlib stream around RFC 1951 DEFLATE data; TIFF Compression 8 and
 * PNG IDAT both store exactly this). Every encoder compresses through `zlibCompress`, so the compressor can be
 * swapped (e.g. for a WASM libdeflate) in this one file.
 *
 * Implementation: workerd's `node:zlib` (`nodejs_compat`), i.e. native zlib called synchronously. Measured in
 * workerd on 1024x1024 real 29RKH pixels in 256 KiB strips (test/raster/encode probe, 2 shared cores, medians of 5):
 *
 * | data (4 MiB)                  | fflate l1 | zlib l1 | zlib l6 | zlib Huffman-only |
 * |-------------------------------|-----------|---------|---------|-------------------|
 * | NDVI FLOAT32, no predictor    | 111-141 ms, 3.52 MB | 71-73 ms, 3.47 MB | 76 ms, 3.46 MB | 20 ms, 3.51 MB |
 * | B04+B08 UINT16, predictor 2   | 88-121 ms, 2.85 MB  | 64-68 ms, 2.82 MB | 78 ms, 2.76 MB | 22 ms, 2.91 MB |
 * | true colour UINT8 x4, pred. 2 | 61-79 ms, 1.48 MB   | 32-41 ms, 1.52 MB | 175 ms, 1.40 MB | 30 ms, 2.27 MB |
 *
 * Float mantissas and predicted 16-bit DNs hold almost no repeated strings: LZ77 matching (levels 1-9) costs
 * 3-4x the time for 1-6 % of size, while the entropy coding alone ("huffman", zlib's Z_HUFFMAN_ONLY strategy)
 * keeps nearly all of the gain. The price shows where pixels repeat: the NDVI FLOAT32 1024x1024 request over 29RKH
 * (EPSG:4326, nearest-upsampled from 100 m) encodes in 22-46 ms to 3.46 MB with Huffman coding, 138 ms to 3.13 MB at
 * zlib level 1 and 460-730 ms to 3.18 MB with fflate level 1 (Server-Timing `encode`, p50 of 15, same server).
 * A Worker pays for CPU, not for bytes sent, so the 10 % goes to the client.
 *
 * What GDAL users get: GTiff COMPRESS=DEFLATE writes ZLEVEL 6 by default (libdeflate or zlib). Any level and
 * strategy here is the same Compression 8 / zlib stream that every inflater decodes (GDAL, libtiff/Pillow,
 * tifffile's built-in zlib, geotiff.js, browsers); only the size differs.
 */
import { buf as adler32 } from "adler-32";
import { constants, deflateRawSync, deflateSync } from "node:zlib";

/**
 * zlib level 0 (stored) to 9 (smallest), "huffman": entropy coding only, no string matching (Z_HUFFMAN_ONLY), or
 * "rle": matches at distance 1 only (Z_RLE: runs, the strings a filtered image row mostly holds; PNG, ./png.ts).
 */
export type DeflateLevel = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | "huffman" | "rle";

/**
 * Compresses `bytes` into one zlib stream (2-byte header, DEFLATE blocks, Adler-32) at `level`.
 * @returns a new array (never a view of `bytes`).
 */
export function zlibCompress(bytes: Uint8Array, level: DeflateLevel): Uint8Array {
  const out = deflateSync(bytes, zlibOptions(level));
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** node:zlib options of a DeflateLevel. */
const zlibOptions = (level: DeflateLevel) =>
  level === "huffman"
    ? { level: 1, strategy: constants.Z_HUFFMAN_ONLY }
    : level === "rle"
      ? { level: 1, strategy: constants.Z_RLE }
      : { level };

/**
 * One zlib stream over `pieces`, compressed one piece at a time, so that neither the whole input nor the whole
 * output need exist at once (a 2500 x 2500 PNG's scanlines are 25 MB): each piece becomes DEFLATE blocks ending in
 * a sync flush (RFC 1951 3.2.3: BFINAL clear, so the blocks of the next piece continue the stream), the last one the
 * final block; the first part carries the zlib header (RFC 1950: 0x78 0x01, FLEVEL is informational only) and the
 * last the Adler-32 of all pieces. Pieces do not share a dictionary: a piece of 1 MiB loses a few bytes of matches
 * across its start. One piece gives the bytes of `zlibCompress`.
 * @returns the stream's parts, in order, as pieces are taken (an empty `pieces` gives the stream of no bytes).
 */
export function* zlibParts(pieces: Iterable<Uint8Array>, level: DeflateLevel): Generator<Uint8Array> {
  let adler = 1;
  let pending: Uint8Array | undefined;
  let first = true;
  const deflate = (bytes: Uint8Array, last: boolean): Uint8Array => {
    const raw = deflateRawSync(bytes, {
      ...zlibOptions(level),
      finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
    });
    const head = first ? 2 : 0;
    const out = new Uint8Array(head + raw.length + (last ? 4 : 0));
    if (first) out.set([0x78, 0x01]);
    out.set(raw, head);
    if (last) new DataView(out.buffer).setUint32(head + raw.length, adler >>> 0);
    first = false;
    return out;
  };
  let count = 0;
  for (const piece of pieces) {
    if (pending) {
      if (count === 1) adler = adler32(pending, adler);
      yield deflate(pending, false);
    }
    if (count++ > 0) adler = adler32(piece, adler);
    pending = piece;
  }
  // a lone piece: zlib's own stream (its Adler-32 computed natively, several times faster than adler-32's)
  if (count <= 1) yield zlibCompress(pending ?? new Uint8Array(0), level);
  else yield deflate(pending!, true);
}

/**
 * Raster strips and tiles, after their predictor: "huffman" for samples wider than a byte (FLOAT32, 16-bit,
 * see the table above), level 1 for 8-bit samples, where string matching pays (a third smaller). A wide-sample
 * strip that Huffman coding shrinks below a quarter (nodata runs, constant areas) is redone at level 1, which
 * encodes runs far better than 1 bit per byte.
 * @returns the zlib stream.
 */
export function compressSamples(bytes: Uint8Array, bytesPerSample: number): Uint8Array {
  if (bytesPerSample === 1) return zlibCompress(bytes, 1);
  const out = zlibCompress(bytes, "huffman");
  return out.length * 4 < bytes.length ? zlibCompress(bytes, 1) : out;
}

/**
 * PNG encoder (PNG spec, W3C 2nd edition / ISO 15948): 1 band -> greyscale, 2 -> greyscale+alpha, 3 -> RGB,
 * 4 -> RGBA; 8 bit for UINT8, 16 bit for UINT16. Sentinel Hub accepts PNG for UINT8/UINT16 (and AUTO) only.
 *
 * Rows with filter type 2 (Up), compressed by native zlib (./deflate.ts) with the RLE strategy (Z_RLE: matches of
 * the previous byte only, what a filtered image mostly holds), in an IDAT chunk per ~1 MiB of scanlines
 * (IDAT_BYTES), each compressed as it is filtered (./deflate.ts zlibParts), so the file's parts are all that is held
 * beside the samples. Measured on 29RKH renderings (node's zlib, 2 shared cores, ms / bytes): NDVI RGBA 512x512
 * Up + RLE 1.5 ms / 7.8 KB, Up + level 1 3.1 ms / 11.2 KB, Sub + RLE 1.5 ms / 9.8 KB, None + level 1 6.6 ms /
 * 12.9 KB, @jsquash/png (Rust `png` crate in wasm, used here before for 8-bit RGBA up to 512x512) 12.2 ms / 20.5 KB;
 * B08 greyscale 256x256 Up + RLE 1-3 ms / 34.7 KB, Up + level 1 6.7 ms / 37.1 KB. GDAL's PNG driver writes zlib
 * level 6 (smaller files, 4-8x the time).
 */
import { crc32 } from "node:zlib";
import { unsupported } from "../errors";
import { checkInput, type EncodeInput } from "./types";
import { concatBytes } from "./bytes";
import { zlibParts } from "./deflate";

/** Filtered scanline bytes per IDAT chunk (one piece of the zlib stream). */
const IDAT_BYTES = 1 << 20;

/** PNG colour type per band count (PNG spec 11.2.2, table 11.1). */
const COLOUR_TYPE: Record<number, number> = { 1: 0, 2: 4, 3: 2, 4: 6 };

const SIGNATURE = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);

/**
 * One chunk (PNG spec 5.3): length, type, data, then the CRC-32 of type + data (ISO 3309 / ITU-T V.42, the
 * zlib CRC: initial 0xFFFFFFFF, final XOR 0xFFFFFFFF, PNG spec Annex D) computed by the runtime's native zlib
 * (`node:zlib` crc32, unsigned).
 */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** Checks that a PNG can carry `input`; throws EngineError unsupported otherwise. */
function checkPng(input: EncodeInput): void {
  if (input.sampleType !== "UINT8" && input.sampleType !== "UINT16") {
    throw unsupported(
      `Output format image/png supports sampleType UINT8, UINT16 or AUTO, not ${input.sampleType}. ` +
        "Use image/tiff or change the sampleType in the evalscript's setup().",
    );
  }
  if (COLOUR_TYPE[input.bands] === undefined) {
    throw unsupported(
      `Output format image/png supports 1 to 4 bands (grey, grey+alpha, RGB, RGBA), the output has ${input.bands}. ` +
        "Use image/tiff for more bands.",
    );
  }
  checkInput(input);
}

/** Samples of one row as PNG bytes (16-bit samples big-endian, PNG spec 7.1). */
function rowBytes(input: EncodeInput, row: number, out: Uint8Array): void {
  const n = input.width * input.bands;
  const src = input.data.subarray(row * n, (row + 1) * n);
  if (input.sampleType === "UINT8") {
    out.set(src as Uint8Array);
    return;
  }
  for (let i = 0; i < n; i++) {
    out[2 * i] = src[i] >>> 8;
    out[2 * i + 1] = src[i] & 0xff;
  }
}

/**
 * Filter Up of one scanline (PNG spec 9.2: each byte minus the byte above, modulo 256) into `out`, four bytes at a
 * time: per byte lane, (a | 0x80) - (b & 0x7f) never borrows from the next lane, and XOR with the sign bits of
 * a ^ ~b restores the lane's top bit (SWAR subtraction). `cur`, `prev` and `out` are aligned arrays of the line.
 */
function filterUp(cur: Uint8Array, prev: Uint8Array, out: Uint8Array): void {
  const words = cur.length >>> 2;
  const [a, b, o] = [cur, prev, out].map((x) => new Uint32Array(x.buffer, x.byteOffset, words));
  for (let i = 0; i < words; i++) {
    const x = a[i]!,
      y = b[i]!;
    o[i] = ((x | 0x80808080) - (y & 0x7f7f7f7f)) ^ ((x ^ ~y) & 0x80808080);
  }
  for (let i = words << 2; i < cur.length; i++) out[i] = cur[i]! - prev[i]!;
}

/**
 * Scanlines, each prefixed by filter type 2 (Up: byte minus the byte above, PNG spec 9.2), in pieces of whole rows
 * of about IDAT_BYTES (at least one row; one piece up to 1.5 IDAT_BYTES), each made when it is taken.
 */
function* filteredRows(input: EncodeInput): Generator<Uint8Array> {
  const lineBytes = input.width * input.bands * (input.sampleType === "UINT16" ? 2 : 1);
  // the image in pieces of about IDAT_BYTES (a 512 x 512 RGBA image, 1.0005 MiB, in one: ./deflate.ts compresses a
  // lone piece with zlib's own Adler-32, several with one computed here)
  const pieces = Math.max(1, Math.round((input.height * (lineBytes + 1)) / IDAT_BYTES));
  const rowsPer = Math.ceil(input.height / pieces);
  let prev = new Uint8Array(lineBytes);
  let cur = new Uint8Array(lineBytes);
  const diff = new Uint8Array(lineBytes);
  for (let start = 0; start < input.height; start += rowsPer) {
    const rows = Math.min(rowsPer, input.height - start);
    const out = new Uint8Array(rows * (lineBytes + 1));
    for (let r = 0; r < rows; r++) {
      rowBytes(input, start + r, cur);
      const dst = r * (lineBytes + 1) + 1;
      out[dst - 1] = 2;
      filterUp(cur, prev, diff);
      out.set(diff, dst);
      [prev, cur] = [cur, prev];
    }
    yield out;
  }
}

/**
 * PNG of 1-4 bands, 8 or 16 bit, written here (checked input), as its parts in order (the signature, IHDR, the
 * IDAT chunks, IEND), or in one array when it has one IDAT chunk; see the module comment.
 */
export function writePngParts(input: EncodeInput): Uint8Array[] {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, input.width);
  view.setUint32(4, input.height);
  ihdr[8] = input.sampleType === "UINT16" ? 16 : 8;
  ihdr[9] = COLOUR_TYPE[input.bands];
  // bytes 10-12: compression 0 (deflate), filter method 0, interlace 0 (none)
  const idat = [...zlibParts(filteredRows(input), "rle")].map((z) => chunk("IDAT", z));
  const parts = [SIGNATURE, chunk("IHDR", ihdr), ...idat, chunk("IEND", new Uint8Array(0))];
  return idat.length === 1 ? [concatBytes(parts)] : parts; // a small file in one array (a body sent without a stream)
}

/**
 * Encodes a UINT8 or UINT16 raster of 1-4 bands as PNG.
 * @throws EngineError unsupported for another sampleType or band count.
 */
export async function encodePng(input: EncodeInput): Promise<Uint8Array> {
  const parts = await encodePngParts(input);
  return parts.length === 1 ? parts[0]! : concatBytes(parts);
}

/**
 * encodePng's file as its parts in order (see writePngParts).
 * @throws as encodePng.
 */
export async function encodePngParts(input: EncodeInput): Promise<Uint8Array[]> {
  checkPng(input);
  return writePngParts(input);
}

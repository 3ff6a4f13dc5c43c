/**
 * PNG encoder (PNG spec, W3C 2nd edition / ISO 15948): 1 band -> greyscale, 2 -> greyscale+alpha, 3 -> RGB,
 * 4 -> RGBA; 8 bit for UINT8, 16 bit for UINT16. Sentinel Hub accepts PNG for UINT8/UINT16 (and AUTO) only.
 *
 * 8-bit RGBA up to JSQUASH_MAX_PIXELS goes through @jsquash/png (Rust `png` crate in wasm, about 5 ms for
 * 512x512; it copies the image twice, into a clamped array and its wasm memory, which never shrinks, and a
 * 2500 x 2500 RGBA image made an isolate limited to 128 MB abort). Its wasm
 * `encode(data, width, height, bitDepth)` hard-codes colour type RGBA, so 1-3 band outputs would come back as
 * 4-channel images (sentinelhub-py would hand users (h, w, 4) arrays instead of (h, w) or (h, w, 3)), and its
 * 16-bit path stores samples in host (little-endian) byte order where PNG needs big-endian (0x0102 decodes as
 * 0x0201 with any other reader). Everything else is written here: rows with filter type 2 (Up), zlib level 1 (best speed/size on real S2 rows measured
 * against Sub/Paeth/None; native zlib through ./deflate.ts, twice as fast as fflate's level 1), an IDAT chunk per ~1 MiB of
 * scanlines (IDAT_BYTES), each compressed as it is filtered (./deflate.ts zlibParts), so the file's parts are all
 * that is held beside the samples.
 */
import encodeRgba, { init as initPngEncoder } from "@jsquash/png/encode";
// @ts-expect-error -- wrangler bundles a .wasm import as a WebAssembly.Module; the package's .d.ts next to the
// file describes the instance's exports instead.
import pngWasm from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm";
import { crc32 } from "node:zlib";
import { unsupported } from "../errors";
import { checkInput, type EncodeInput } from "./types";
import { concatBytes } from "./bytes";
import { zlibParts } from "./deflate";

/**
 * 8-bit RGBA images larger than this (pixels, 512 x 512) are written here, not by @jsquash/png: see the module docs
 * (its kept wasm memory grows to its largest image: ENCODER_WASM_BYTES of src/raster/memory.ts).
 */
export const JSQUASH_MAX_PIXELS = 1 << 18;

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
 * Scanlines, each prefixed by filter type 2 (Up: byte minus the byte above, PNG spec 9.2), in pieces of whole rows
 * of about IDAT_BYTES (at least one row), each made when it is taken.
 */
function* filteredRows(input: EncodeInput): Generator<Uint8Array> {
  const lineBytes = input.width * input.bands * (input.sampleType === "UINT16" ? 2 : 1);
  const rowsPer = Math.max(1, Math.floor(IDAT_BYTES / (lineBytes + 1)));
  let prev = new Uint8Array(lineBytes);
  let cur = new Uint8Array(lineBytes);
  for (let start = 0; start < input.height; start += rowsPer) {
    const rows = Math.min(rowsPer, input.height - start);
    const out = new Uint8Array(rows * (lineBytes + 1));
    for (let r = 0; r < rows; r++) {
      rowBytes(input, start + r, cur);
      const dst = r * (lineBytes + 1) + 1;
      out[dst - 1] = 2;
      for (let i = 0; i < lineBytes; i++) out[dst + i] = cur[i] - prev[i];
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
  const idat = [...zlibParts(filteredRows(input), 1)].map((z) => chunk("IDAT", z));
  const parts = [SIGNATURE, chunk("IHDR", ihdr), ...idat, chunk("IEND", new Uint8Array(0))];
  return idat.length === 1 ? [concatBytes(parts)] : parts; // a small file in one array (a body sent without a stream)
}

let pngEncoderReady: Promise<unknown> | undefined;

/** 8-bit RGBA through @jsquash/png, initialised once per isolate with the statically imported wasm module. */
async function jsquashRgba8(input: EncodeInput): Promise<Uint8Array> {
  pngEncoderReady ??= initPngEncoder(pngWasm as WebAssembly.Module);
  await pngEncoderReady;
  // jsquash reads `data.buffer` whole, so hand it a copy that owns its buffer exactly.
  const image = { data: new Uint8ClampedArray(input.data as Uint8Array), width: input.width, height: input.height };
  return new Uint8Array(await encodeRgba(image as unknown as Parameters<typeof encodeRgba>[0]));
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
 * encodePng's file as its parts in order (see writePngParts; one array from @jsquash/png).
 * @throws as encodePng.
 */
export async function encodePngParts(input: EncodeInput): Promise<Uint8Array[]> {
  checkPng(input);
  const jsquash = input.bands === 4 && input.sampleType === "UINT8" && input.width * input.height <= JSQUASH_MAX_PIXELS;
  return jsquash ? [await jsquashRgba8(input)] : writePngParts(input);
}

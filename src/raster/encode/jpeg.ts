/**
 * JPEG encoder through @jsquash/jpeg (MozJPEG in wasm, initialised with the statically imported encoder module).
 * Follows Sentinel Hub: UINT8 (or AUTO) only, `format.quality` 0-100 with default 90; 1 band -> greyscale JPEG,
 * 3 bands -> YCbCr (RGB) JPEG. JPEG has no alpha channel, so a 2nd band of 2 (grey + alpha) or the 4th of 4
 * (RGB + alpha, e.g. dataMask) is dropped. Sequential (not progressive) with Huffman tables fitted to the image
 * (optimize_coding): without them this MozJPEG build writes corrupt data at some qualities (a 2500-pixel-wide
 * Sentinel-2 strip at quality 30, 50 and 60 gave libjpeg's "bad Huffman code"; its trellis pass fits tables anyway).
 *
 * Images up to OPTIMIZE_MAX_PIXELS are encoded in one call. MozJPEG holds an image as RGBA twice (here and in its
 * memory) plus all its coefficients (optimize_coding's second pass), which a 2500 x 2500 image cannot spare in an
 * isolate of 128 MB; larger images go in strips of about STRIP_TARGET_PIXELS, joined into one file
 * with the standard tables (./jpegstrips.ts), so one strip at a time exists in both.
 * Each image gets a throwaway MozJPEG instance (instantiated from the compiled module, garbage after its call): a
 * kept one's WebAssembly memory (16.2 MiB to start) grows to its largest image and never shrinks. Encoding is
 * synchronous, so one instance at most is in use per isolate. What a call holds beside the values is
 * {@link jpegEncodeBytes}, counted by the admission of src/pipeline/admission.ts.
 * `baseline: true` (libjpeg's force_baseline) clamps quantisation values to 8 bits: without it, MozJPEG's
 * tables at low qualities need 16-bit DQT entries (quality 0 gave an extended SOF1 frame, and quality 50 a
 * "quantization tables are too coarse for baseline" warning). ITU T.81 allows only 8-bit tables in baseline
 * files and extended-frame support is optional in decoders; with it every quality gives a baseline SOF0 file.
 */
import jpegEncWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm";
import mozjpegEnc from "@jsquash/jpeg/codec/enc/mozjpeg_enc.js";
import { defaultOptions } from "@jsquash/jpeg/meta";
import { initEmscriptenModule } from "@jsquash/jpeg/utils";
import { invalidArgument, unsupported } from "../errors";
import { joinStrips } from "./jpegstrips";
import { checkInput, type EncodeInput } from "./types";

/** Bytes per pixel a one-call JPEG encode holds beside the values: the image as RGBA in JS and in MozJPEG's memory. */
const RGBA_TWICE = 8;

/**
 * Bytes a JPEG encode of `pixels` pixels holds beside the values (JS and WebAssembly memory): up to
 * OPTIMIZE_MAX_PIXELS the image as RGBA twice (RGBA_TWICE per pixel); above, one strip of it twice (about 4 MiB),
 * the encoder's initial memory (16.2 MiB) and the joined file's chunks (within the values' copy the admission
 * counts for the file).
 */
export function jpegEncodeBytes(pixels: number): number {
  return pixels <= OPTIMIZE_MAX_PIXELS ? pixels * RGBA_TWICE : STRIP_TARGET_PIXELS * RGBA_TWICE + ENCODER_MEMORY_BYTES;
}

/** MozJPEG's initial WebAssembly memory, rounded up (16.2 MiB; a strip fits in it). */
const ENCODER_MEMORY_BYTES = 17 * 1024 * 1024;

/** Sentinel Hub's default `output.responses[].format.quality` for image/jpeg. */
export const DEFAULT_JPEG_QUALITY = 90;

/** MozJPEG output colour spaces (J_COLOR_SPACE). */
const GRAYSCALE = 1;
const YCBCR = 3;

/** Images up to this many pixels are encoded in one call, larger ones in strips (see the module's docs). */
export const OPTIMIZE_MAX_PIXELS = 1 << 20;

function checkJpeg(input: EncodeInput, quality: number): void {
  if (input.sampleType !== "UINT8") {
    throw unsupported(
      `Output format image/jpeg supports sampleType UINT8 or AUTO, not ${input.sampleType}. ` +
        "Use image/png (UINT16) or image/tiff, or change the sampleType in the evalscript's setup().",
    );
  }
  if (input.bands > 4) {
    throw unsupported(
      `Output format image/jpeg supports 1 or 3 bands (plus an ignored alpha band), the output has ${input.bands}. Use image/tiff.`,
    );
  }
  if (!Number.isInteger(quality) || quality < 0 || quality > 100) {
    throw invalidArgument(`JPEG quality must be an integer from 0 to 100, got ${quality}.`);
  }
  checkInput(input);
}

/**
 * Rows `y0` to `y1` of the raster as RGBA pixels for the encoder, written into `out` (at least (y1 - y0) * width * 4
 * bytes; the part used is returned): grey replicated to R, G, B for 1-2 bands; alpha opaque (JPEG ignores it).
 */
function toRgba(input: EncodeInput, y0: number, y1: number, out: Uint8ClampedArray): Uint8ClampedArray {
  const { width, bands } = input;
  const data = input.data as Uint8Array;
  const grey = bands < 3;
  const n = (y1 - y0) * width;
  for (let p = 0, s = y0 * width * bands, o = 0; p < n; p++, s += bands, o += 4) {
    out[o] = data[s]!;
    out[o + 1] = grey ? data[s]! : data[s + 1]!;
    out[o + 2] = grey ? data[s]! : data[s + 2]!;
    out[o + 3] = 255;
  }
  return out.subarray(0, n * 4);
}

/**
 * Encodes a UINT8 raster of 1-4 bands as JPEG at `quality` (0-100, default 90): in one call up to
 * OPTIMIZE_MAX_PIXELS, else in strips of
 * about STRIP_TARGET_PIXELS joined into one file (./jpegstrips.ts).
 * @throws EngineError unsupported for another sampleType or more than 4 bands, invalid-argument for a quality outside 0-100.
 */
export async function encodeJpeg(input: EncodeInput, quality: number = DEFAULT_JPEG_QUALITY): Promise<Uint8Array> {
  checkJpeg(input, quality);
  const { width, height } = input;
  const large = width * height > OPTIMIZE_MAX_PIXELS;
  const options = {
    ...defaultOptions,
    quality,
    baseline: true,
    progressive: false,
    optimize_coding: true,
    color_space: input.bands < 3 ? GRAYSCALE : YCBCR,
  };
  const module = await initEmscriptenModule(mozjpegEnc, jpegEncWasm);
  if (!large)
    return new Uint8Array(
      module.encode(toRgba(input, 0, height, new Uint8ClampedArray(width * height * 4)), width, height, options).buffer,
    );
  const rows = stripRows(width);
  const rgba = new Uint8ClampedArray(width * rows * 4);
  return joinStrips(height, rows, (y0, y1) => module.encode(toRgba(input, y0, y1, rgba), width, y1 - y0, options));
}

/** Pixels of RGBA per strip of a large image (4 bytes each: 2 MiB in JS and as much in MozJPEG's memory). */
const STRIP_TARGET_PIXELS = 1 << 19;

/**
 * Rows per strip of an image `width` pixels wide: a multiple of 16, the tallest MCU (4:2:0 YCbCr), so that every
 * strip but the last holds whole MCU rows (./jpegstrips.ts); about STRIP_TARGET_PIXELS.
 */
function stripRows(width: number): number {
  return 16 * Math.max(1, Math.floor(STRIP_TARGET_PIXELS / width / 16));
}

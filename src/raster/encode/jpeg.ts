/**
 * JPEG encoder through @jsquash/jpeg (MozJPEG in wasm, initialised with the statically imported encoder module).
 * Follows Sentinel Hub: UINT8 (or AUTO) only, `format.quality` 0-100 with default 90; 1 band -> greyscale JPEG,
 * 3 bands -> YCbCr (RGB) JPEG. JPEG has no alpha channel, so a 2nd band of 2 (grey + alpha) or the 4th of 4
 * (RGB + alpha, e.g. dataMask) is dropped. Sequential (not progressive) with optimised Huffman tables.
 * `baseline: true` (libjpeg's force_baseline) clamps quantisation values to 8 bits: without it, MozJPEG's
 * tables at low qualities need 16-bit DQT entries (quality 0 gave an extended SOF1 frame, and quality 50 a
 * "quantization tables are too coarse for baseline" warning). ITU T.81 allows only 8-bit tables in baseline
 * files and extended-frame support is optional in decoders; with it every quality gives a baseline SOF0 file.
 */
import encodeJpegWasm, { init as initJpegEncoder } from "@jsquash/jpeg/encode";
import jpegEncWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm";
import { invalidArgument, unsupported } from "../errors";
import { checkInput, type EncodeInput } from "./types";

/** Sentinel Hub's default `output.responses[].format.quality` for image/jpeg. */
export const DEFAULT_JPEG_QUALITY = 90;

/** MozJPEG output colour spaces (J_COLOR_SPACE). */
const GRAYSCALE = 1;
const YCBCR = 3;

let encoderReady: Promise<void> | undefined;

function checkJpeg(input: EncodeInput, quality: number): void {
  if (input.sampleType !== "UINT8") {
    throw unsupported(
      `Output format image/jpeg supports sampleType UINT8 or AUTO, not ${input.sampleType}. ` +
        "Use image/png (UINT16) or image/tiff, or change the sampleType in the evalscript's setup().",
    );
  }
  if (input.bands > 4) {
    throw unsupported(`Output format image/jpeg supports 1 or 3 bands (plus an ignored alpha band), the output has ${input.bands}. Use image/tiff.`);
  }
  if (!Number.isInteger(quality) || quality < 0 || quality > 100) {
    throw invalidArgument(`JPEG quality must be an integer from 0 to 100, got ${quality}.`);
  }
  checkInput(input);
}

/** RGBA pixels for the encoder: grey replicated to R, G, B for 1-2 bands; alpha opaque (JPEG ignores it). */
function toRgba(input: EncodeInput): Uint8ClampedArray {
  const { width, height, bands } = input;
  const data = input.data as Uint8Array;
  const grey = bands < 3;
  const out = new Uint8ClampedArray(width * height * 4);
  for (let p = 0, s = 0, o = 0; p < width * height; p++, s += bands, o += 4) {
    out[o] = data[s];
    out[o + 1] = grey ? data[s] : data[s + 1];
    out[o + 2] = grey ? data[s] : data[s + 2];
    out[o + 3] = 255;
  }
  return out;
}

/**
 * Encodes a UINT8 raster of 1-4 bands as JPEG at `quality` (0-100, default 90).
 * @throws EngineError unsupported for another sampleType or more than 4 bands, invalid-argument for a quality outside 0-100.
 */
export async function encodeJpeg(input: EncodeInput, quality: number = DEFAULT_JPEG_QUALITY): Promise<Uint8Array> {
  checkJpeg(input, quality);
  // init(module) accepts a WebAssembly.Module at run time; its .d.ts only declares the options overload.
  encoderReady ??= (initJpegEncoder as unknown as (m: WebAssembly.Module) => Promise<void>)(jpegEncWasm);
  await encoderReady;
  const image = { data: toRgba(input), width: input.width, height: input.height } as unknown as Parameters<typeof encodeJpegWasm>[0];
  const out = await encodeJpegWasm(image, {
    quality,
    baseline: true,
    progressive: false,
    optimize_coding: true,
    color_space: input.bands < 3 ? GRAYSCALE : YCBCR,
  });
  return new Uint8Array(out);
}

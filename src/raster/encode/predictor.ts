/**
 * TIFF predictors applied to one strip before compression, in place on a copy of the strip's bytes.
 * - Predictor 2, horizontal differencing (TIFF 6.0, section 14): each sample minus the same band's sample of the
 *   previous pixel in the row, in the sample's own integer width (wrapping).
 * - No predictor (1) for FLOAT32. Predictor 3 (floating point, Adobe TIFF Technical Note 3) is NOT used: tifffile,
 *   sentinelhub-py's TIFF decoder, decodes it only with the optional `imagecodecs` package, so a plain
 *   `pip install sentinelhub` user could not open the file.
 * Byte order: samples are little-endian (the file's order), which is the runtime's typed-array order.
 */
import type { SampleType } from "./types";

/** The predictor this writer uses for a sample type: 1 (none) for FLOAT32, 2 for integers (see the module comment). */
export function predictorFor(sampleType: SampleType): 1 | 2 {
  return sampleType === "FLOAT32" ? 1 : 2;
}

/** Horizontal differencing of `rows` rows of `rowSamples` samples, `spp` samples per pixel, 8- or 16-bit. */
function horizontalDiff(
  bytes: Uint8Array,
  rows: number,
  rowSamples: number,
  spp: number,
  bytesPerSample: number,
): void {
  const a = bytesPerSample === 2 ? new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2) : bytes;
  for (let r = 0; r < rows; r++) {
    const base = r * rowSamples;
    for (let i = rowSamples - 1; i >= spp; i--) a[base + i] = a[base + i] - a[base + i - spp];
  }
}

/**
 * Applies the predictor of `sampleType` to a strip of `rows` rows; `bytes` holds `rows * rowSamples` samples.
 * Returns the predicted bytes (a new array for predictor 2; `bytes` itself, untouched, for predictor 1).
 */
export function predict(
  bytes: Uint8Array,
  sampleType: SampleType,
  rows: number,
  rowSamples: number,
  spp: number,
): Uint8Array {
  if (predictorFor(sampleType) === 1) return bytes;
  const copy = bytes.slice();
  horizontalDiff(copy, rows, rowSamples, spp, sampleType === "INT16" || sampleType === "UINT16" ? 2 : 1);
  return copy;
}

/**
 * Valid samples of one band of an evalscript output, gathered into a compact array that the reducers
 * (summary, percentiles, histogram) read. No HTTP here.
 */

/** Sample values as the evalscript runtime hands them over (raw floats, before any sampleType conversion). */
export type Samples = Float32Array | Float64Array;

/** Where one band lives in an output's values: value of pixel i is `values[offset + i * stride]`. */
export interface BandView {
  values: Samples;
  offset: number;
  stride: number;
}

/**
 * The counted pixels as a data mask band gives them (an evalscript's `dataMask` output): pixel i counts when the
 * band's value i is non-zero and not NaN and, when `geometry` is given, geometry[i] is non-zero. `pixels`: the
 * pixel count (the band's and geometry's length in pixels).
 */
export interface MaskBand {
  band: BandView;
  geometry: Uint8Array | null;
  pixels: number;
}

/** Which pixels count: bytes (non-zero counts, one per pixel) or a data mask band. */
export type PixelMask = Uint8Array | MaskBand;

/** The pixel count of a mask. */
export const pixelsOf = (mask: PixelMask): number => (mask instanceof Uint8Array ? mask.length : mask.pixels);

/** The mask as bytes (1 where a pixel counts): a data mask band's are computed, a new array. */
export function maskBytes(mask: PixelMask): Uint8Array {
  if (mask instanceof Uint8Array) return mask;
  const { band, geometry, pixels } = mask;
  const { values: v, offset, stride } = band;
  const out = new Uint8Array(pixels);
  for (let i = 0, j = offset; i < pixels; i++, j += stride) {
    const x = v[j]!;
    out[i] = x !== 0 && x === x && (!geometry || geometry[i] !== 0) ? 1 : 0;
  }
  return out;
}

/** Band `band` of `bands` band-interleaved values (pixel-major: v[i * bands + band]). */
export const interleavedBand = (values: Samples, bands: number, band: number): BandView => ({
  values,
  offset: band,
  stride: bands,
});

/** Band `band` of planar values (band-major: v[band * pixels + i]). */
export const planarBand = (values: Samples, pixels: number, band: number): BandView => ({
  values,
  offset: band * pixels,
  stride: 1,
});

/**
 * The values of `view` at the pixels where `mask` is non-zero, NaN values left out (a NaN sample has no value:
 * it counts as no data), as a prefix of `into` when given (the view's element type, at least `mask.length` long;
 * the view's own values when its offset is 0 and its stride 1: the gather never overtakes its reading), else of a
 * new array of the view's element type. `mask.length` is the pixel count.
 */
export function gatherValid(view: BandView, mask: Uint8Array, into?: Samples): Samples {
  const { values, offset, stride } = view;
  const n = mask.length;
  const out = into ?? (values instanceof Float64Array ? new Float64Array(n) : new Float32Array(n));
  let k = 0;
  for (let i = 0, j = offset; i < n; i++, j += stride) {
    const v = values[j]!;
    if (mask[i] !== 0 && v === v) out[k++] = v;
  }
  return out.subarray(0, k);
}

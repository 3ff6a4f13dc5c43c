/**
 * Reducers of the raster engine: per-band statistics, percentiles and histograms over the valid pixels of an
 * evalscript output. Pure typed-array code (no HTTP); src/statistics builds the API response from it.
 */
import {
  binEdges,
  edgeThresholds,
  histogram,
  histogramFromBelow,
  type Histogram,
  type HistogramSpec,
} from "./histogram";
import { firstPass, secondPass, type Gathered } from "./kernels";
export { Gathering } from "./kernels";
import { percentiles, SELECT_MIN, selectPercentiles, type Interpolation } from "./percentiles";
import { gatherValid, maskBytes, pixelsOf, type BandView, type PixelMask, type Samples } from "./samples";
import { summarize, summaryOf, type Summary } from "./summary";

export { binEdges, histogram, type Histogram, type HistogramSpec } from "./histogram";
export { INTERPOLATIONS, percentiles, type Interpolation } from "./percentiles";
export {
  gatherValid,
  interleavedBand,
  maskBytes,
  planarBand,
  type BandView,
  type MaskBand,
  type PixelMask,
  type Samples,
} from "./samples";
export { summarize, type Summary } from "./summary";

/** What to compute for one band besides the basic statistics. */
export interface BandCalculation {
  /** Percentiles to compute, each 0..100. */
  percentiles?: readonly number[];
  interpolation?: Interpolation;
  histogram?: HistogramSpec;
  /** Most bins a binWidth histogram may get (EngineError invalid-argument beyond). */
  maxBins?: number;
}

export interface BandReduction {
  summary: Summary;
  /** Pixels of the sample matrix (the mask length). */
  sampleCount: number;
  /** Pixels without a value: mask 0 or a NaN sample. */
  noDataCount: number;
  /** Same order as the requested percentiles. */
  percentiles?: number[];
  /** null when the histogram's edges are undefined (no explicit edges and no valid sample). */
  histogram?: Histogram | null;
}

/**
 * Reduces one band: the samples at the pixels `mask` counts (./samples.ts PixelMask) that are not NaN make the
 * statistics. The mask's pixel count is the number of pixels of the sample matrix. `scratch`: where the valid
 * samples are gathered (the view's element type, at least that many long; the band's own values when they may be
 * overwritten), else a new array.
 * Float32 values (evalscript outputs) take two passes in WebAssembly (./kernels.ts): gather (reading a data mask
 * band's values itself: no mask pass of its own, 29RKH reduce 13.5 -> 12.5 ms in workerd, bench/stats.workerd.ts)
 * + sum/min/max + the radix select's high-bit counts, then the squared deviations + its low-bit counts (+ a histogram's counts below
 * its edges, so that the histogram has no pass of its own); a radix select over more than GROUP buckets takes one
 * more pass per GROUP. 29RKH NDVI + SCL, 1098 x 1098, 3 percentiles and 20 bins: reduceEvaluation (its mask pass
 * included) 0.58-0.67 of the six JavaScript passes' time, e.g. 14.9 -> 8.7 ms CPU (bench/bench-stats-engine.mjs,
 * A/B alternated in one process, four runs on a loaded machine). Float64 values: JavaScript passes
 * (gatherValid, summarize, percentiles, histogram).
 */
export function reduceBand(
  view: BandView,
  mask: PixelMask,
  calc: BandCalculation = {},
  scratch?: Samples,
): BandReduction {
  const pixels = pixelsOf(mask);
  if (!(view.values instanceof Float32Array))
    return reduceSamples(gatherValid(view, maskBytes(mask), scratch), pixels, calc);
  // a data mask band of float32 values is read by the first pass itself (no pass of its own)
  const m = mask instanceof Uint8Array || mask.band.values instanceof Float32Array ? mask : maskBytes(mask);
  const g = firstPass(view.values, view.offset, view.stride, m, pixels, scratch as Float32Array, !!calc.percentiles);
  return reduceGathered(g, pixels, calc);
}

/**
 * reduceBand of float32 samples after their first pass (./kernels.ts firstPass or Gathering, the high-bit counts
 * taken when calc asks for percentiles), over `pixels` pixels.
 */
export function reduceGathered(g: Gathered, pixels: number, calc: BandCalculation = {}): BandReduction {
  const n = g.x.length;
  const mean = g.sum / n;
  const edges = calc.histogram ? binEdges(calc.histogram, g.min, g.max, calc.maxBins) : null;
  const method = calc.interpolation ?? "higher";
  // with percentiles, the histogram's counts come from the radix select's passes (no pass of its own)
  const thresholds = edges && calc.percentiles ? edgeThresholds(edges) : null;
  const joint =
    calc.percentiles && n >= SELECT_MIN
      ? selectPercentiles(g.x, g.hi!, calc.percentiles, method, thresholds ?? [], mean)
      : null;
  const ss = joint ? joint.ss : secondPass(g.x, mean, null).ss;
  const out: BandReduction = {
    summary: summaryOf(n, g.sum, g.min, g.max, ss),
    sampleCount: pixels,
    noDataCount: pixels - n,
  };
  if (calc.percentiles) out.percentiles = joint?.percentiles ?? percentiles(g.x, calc.percentiles, method);
  if (calc.histogram) out.histogram = edges ? histogramOf(g.x, edges, (thresholds && joint?.below) ?? null) : null;
  return out;
}

/** The histogram of x over edges, from the counts below the edges' thresholds when the select counted them. */
const histogramOf = (x: Samples, edges: Float64Array, below: number[] | null): Histogram =>
  below ? histogramFromBelow(edges, below, x.length) : histogram(x, edges);

/** reduceBand of gathered samples in JavaScript (any element type): summary, sorted percentiles, histogram pass. */
function reduceSamples(x: Samples, pixels: number, calc: BandCalculation): BandReduction {
  const summary = summarize(x);
  const out: BandReduction = { summary, sampleCount: pixels, noDataCount: pixels - x.length };
  if (calc.percentiles) out.percentiles = percentiles(x, calc.percentiles, calc.interpolation ?? "higher");
  if (calc.histogram) {
    const edges = binEdges(calc.histogram, summary.min, summary.max, calc.maxBins);
    out.histogram = edges ? histogram(x, edges) : null;
  }
  return out;
}

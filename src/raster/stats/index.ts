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
import { percentiles, percentilesWithCounts, type Interpolation } from "./percentiles";
import { gatherValid, type BandView, type Samples } from "./samples";
import { summarize, type Summary } from "./summary";

export { binEdges, histogram, type Histogram, type HistogramSpec } from "./histogram";
export { INTERPOLATIONS, percentiles, type Interpolation } from "./percentiles";
export { gatherValid, interleavedBand, planarBand, type BandView, type Samples } from "./samples";
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
 * Reduces one band: the samples at pixels where `mask` is non-zero (and that are not NaN) make the statistics.
 * `mask.length` is the number of pixels of the sample matrix. `scratch`: where the valid samples are gathered
 * (gatherValid's `into`; the band's own values when it may be overwritten), else a new array.
 * Passes: gather (band + mask -> compact float32), sum/min/max, squared deviations, radix-select counts (two
 * passes), histogram, each a tight typed-array loop; with percentiles, the histogram's counts come out of the radix
 * select's passes (./select.ts) and it has no pass of its own (29RKH NDVI + SCL, 1098 x 1098, 3 percentiles and 20
 * bins: reduceBand 13.1 -> 10.5 ms, separate processes on a loaded machine). Fusing gather + select counts,
 * deviations + histogram, deviations + select counts was measured slower in V8 in every case tried, by 5-95 %
 * (bench/bench-stats-kernels.mjs, 29RKH NDVI), so they stay separate.
 */
export function reduceBand(
  view: BandView,
  mask: Uint8Array,
  calc: BandCalculation = {},
  scratch?: Samples,
): BandReduction {
  const x = gatherValid(view, mask, scratch);
  const summary = summarize(x);
  const out: BandReduction = { summary, sampleCount: mask.length, noDataCount: mask.length - x.length };
  const edges = calc.histogram ? binEdges(calc.histogram, summary.min, summary.max, calc.maxBins) : null;
  // with percentiles, the histogram's counts come from the radix select's passes (no pass of its own)
  const thresholds = edges && calc.percentiles ? edgeThresholds(edges) : null;
  const method = calc.interpolation ?? "higher";
  const joint = thresholds ? percentilesWithCounts(x, calc.percentiles!, method, thresholds) : null;
  if (calc.percentiles) out.percentiles = joint?.percentiles ?? percentiles(x, calc.percentiles, method);
  if (calc.histogram)
    out.histogram = edges ? (joint ? histogramFromBelow(edges, joint.below, x.length) : histogram(x, edges)) : null;
  return out;
}

/**
 * Histograms as the Sentinel Hub Statistical API defines them: bins [e0, e1), [e1, e2), ..., [e(n-1), en]
 * (the last bin is closed), samples below e0 counted as underflow and above en as overflow. Counting equals
 * `numpy.histogram(x, bins=edges)` for the same edges.
 */
import { EngineError } from "../errors";
import type { Samples } from "./samples";

/** One of the Statistical API's ways to define bins (HistogramDefinition). */
export interface HistogramSpec {
  nBins?: number;
  binWidth?: number;
  lowEdge?: number;
  highEdge?: number;
  bins?: number[];
}

export interface Histogram {
  /** n + 1 ascending bin edges. */
  edges: Float64Array;
  /** n counts. */
  counts: Uint32Array;
  underflow: number;
  overflow: number;
}

/**
 * Bin edges of a spec. Explicit `bins` are used as given. Otherwise lowEdge/highEdge default to the samples'
 * min/max (Sentinel Hub: "if lowEdge and highEdge are not explicitly provided, min and max values are used");
 * `nBins` splits [low, high] into equal bins with edges low + i * (high - low) / nBins (the last edge is high);
 * `binWidth` makes ceil((high - low) / binWidth) bins (at least 1) with edges low + i * binWidth, the last one
 * at or above high. Returns null when the edges are undefined (no explicit edges and no samples).
 * The spec must be valid (checked by the request schema). Throws EngineError invalid-argument (limit "histogram
 * bins") when binWidth would make more than `maxBins` bins.
 */
export function binEdges(spec: HistogramSpec, min: number, max: number, maxBins = Infinity): Float64Array | null {
  if (spec.bins) return Float64Array.from(spec.bins);
  const low = spec.lowEdge ?? min;
  const high = spec.highEdge ?? max;
  if (!Number.isFinite(low) || !Number.isFinite(high)) return null;
  if (spec.nBins !== undefined) {
    const n = spec.nBins;
    const width = (high - low) / n;
    const edges = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) edges[i] = low + i * width;
    edges[n] = high;
    return edges;
  }
  const w = spec.binWidth!;
  const n = Math.max(1, Math.ceil((high - low) / w));
  if (n > maxBins) {
    const message = `binWidth ${w} splits [${low}, ${high}] into ${n} bins; at most ${maxBins} are allowed. Use a wider binWidth or set lowEdge/highEdge.`;
    throw new EngineError("invalid-argument", message, undefined, { name: "histogram bins", max: maxBins });
  }
  const edges = new Float64Array(n + 1);
  for (let i = 0; i <= n; i++) edges[i] = low + i * w;
  return edges;
}

/** Index of the bin [edges[b], edges[b+1]) holding v, for edges[0] <= v <= edges[n] (the last bin is closed). */
function binOf(edges: Float64Array, v: number): number {
  let lo = 0;
  let hi = edges.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (edges[mid]! <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Counts `x` into the bins of `edges` (ascending, length >= 2). */
export function histogram(x: Samples, edges: Float64Array): Histogram {
  const n = edges.length - 1;
  const low = edges[0]!;
  const high = edges[n]!;
  const counts = new Uint32Array(n);
  const scale = high > low ? n / (high - low) : 0;
  let underflow = 0;
  let overflow = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (v < low) {
      underflow++;
      continue;
    }
    if (v > high) {
      overflow++;
      continue;
    }
    // Equal-width guess (v >= low, so truncation is floor); exact edges decide, by binary search when the guess
    // misses (rounding at an edge, or explicit unequal bins).
    let b = ((v - low) * scale) | 0;
    if (b >= n) b = n - 1;
    if (v < edges[b]! || (b < n - 1 && v >= edges[b + 1]!)) b = binOf(edges, v);
    counts[b]++;
  }
  return { edges, counts, underflow, overflow };
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
/** The order key of a float32 value (./select.ts: unsigned, in the values' numeric order, -0 just below +0). */
function keyOfValue(f: number): number {
  F32[0] = f;
  const bits = U32[0]!;
  return bits & 0x80000000 ? ~bits >>> 0 : (bits | 0x80000000) >>> 0;
}
const KEY_NEG0 = keyOfValue(-0);
const KEY_POS0 = keyOfValue(0);

/**
 * The smallest key of the float32 values v with v >= e (`strict`: v > e): a float32 sample is at or above the
 * float64 edge e exactly when its key is at or above this threshold.
 */
export function thresholdKey(e: number, strict: boolean): number {
  const f = Math.fround(e);
  if (strict ? f > e : f >= e) return f === 0 ? KEY_NEG0 : keyOfValue(f);
  return f === 0 ? KEY_POS0 + 1 : keyOfValue(f) + 1;
}

/**
 * The threshold keys of a histogram's edges (./select.ts counts samples below each): edges[0..n-1] at or above,
 * edges[n] above (the last bin is closed). Null when the edges are not ascending (counting then takes the bins'
 * own pass, `histogram`).
 */
export function edgeThresholds(edges: Float64Array): number[] | null {
  const n = edges.length - 1;
  for (let i = 0; i < n; i++) if (!(edges[i]! <= edges[i + 1]!)) return null;
  return Array.from(edges, (e, i) => thresholdKey(e, i === n));
}

/**
 * The histogram of `count` float32 samples from the number of samples below each of edgeThresholds(edges): the
 * counts `histogram` makes (bin b holds edges[b] <= v < edges[b + 1], the last bin edges[n-1] <= v <= edges[n]).
 */
export function histogramFromBelow(edges: Float64Array, below: number[], count: number): Histogram {
  const n = edges.length - 1;
  const counts = new Uint32Array(n);
  for (let b = 0; b < n; b++) counts[b] = below[b + 1]! - below[b]!;
  return { edges, counts, underflow: below[0]!, overflow: count - below[n]! };
}

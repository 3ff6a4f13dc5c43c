/**
 * Percentiles with the interpolation methods of the Sentinel Hub Statistical API (`percentiles.interpolation`:
 * `higher` by default, `lower`, `nearest`, `linear`, `midpoint`), which are the definitions of
 * `numpy.percentile(a, q, method=...)`. Index rules and the linear blend follow numpy 1.24
 * (`lib/function_base.py`: `_QuantileMethods`, `_lerp`) so results equal numpy's on the same float64 values.
 */
import type { Samples } from "./samples";
import { firstPass } from "./kernels";
import { select } from "./select";

export const INTERPOLATIONS = ["higher", "lower", "nearest", "linear", "midpoint"] as const;
export type Interpolation = (typeof INTERPOLATIONS)[number];

/** numpy `_lerp`: a + (b - a) * t, computed from b's side when t >= 0.5 (fewer rounding steps). */
function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/** Round half to even (numpy `around`). */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The virtual index h = (n-1) * q/100 and the order statistics (0-based ranks) a method needs. */
function ranksFor(n: number, q: number, method: Interpolation): number[] {
  const h = (n - 1) * (q / 100);
  const lo = Math.floor(h);
  if (method === "lower") return [lo];
  if (method === "higher") return [Math.ceil(h)];
  if (method === "nearest") return [roundHalfEven(h)];
  return [lo, lo + 1];
}

/** The q-th percentile (q in 0..100) of n values, given their order statistics `at` (rank -> value). */
function percentileFrom(at: (rank: number) => number, n: number, q: number, method: Interpolation): number {
  const last = n - 1;
  const h = last * (q / 100);
  const get = (i: number) => at(Math.min(last, Math.max(0, i)));
  switch (method) {
    case "lower":
      return get(Math.floor(h));
    case "higher":
      return get(Math.ceil(h));
    case "nearest":
      return get(roundHalfEven(h));
    case "midpoint": {
      const lo = Math.floor(h);
      return lerp(get(lo), get(lo + 1), h % 1 === 0 ? 0 : 0.5);
    }
    case "linear": {
      const lo = Math.floor(h);
      return lerp(get(lo), get(lo + 1), h - lo);
    }
  }
}

/** Below this many float32 samples a sorted copy is as fast as the radix select. */
export const SELECT_MIN = 2048;

/** The clamped 0-based ranks the percentiles `ks` of n samples need with `method`. */
const ranksOf = (n: number, ks: readonly number[], method: Interpolation): number[] =>
  ks.flatMap((k) => ranksFor(n, k, method)).map((r) => Math.min(n - 1, Math.max(0, r)));

/**
 * Percentiles `ks` (each 0..100) of `x`, one value per k; NaN for every k when `x` is empty. Float32 samples
 * (the evalscript's output values) use an exact radix select (./select.ts), O(n); others a sorted copy.
 * `x` itself is not changed.
 */
export function percentiles(x: Samples, ks: readonly number[], method: Interpolation = "higher"): number[] {
  const n = x.length;
  if (n === 0) return ks.map(() => NaN);
  if (x instanceof Float32Array && n >= SELECT_MIN) {
    const { hi } = firstPass(x, 0, 1, null, n, x.slice(), true);
    return selectPercentiles(x, hi!, ks, method, [], 0).percentiles;
  }
  const sorted = x.slice().sort();
  return ks.map((k) => percentileFrom((r) => sorted[r]!, n, k, method));
}

/**
 * Percentiles `ks` of float32 samples `x` (at least SELECT_MIN, NaN-free) given `hi`, the counts of their keys'
 * high halves (./kernels.ts firstPass), and in the same passes (./select.ts `select`) the number of samples below
 * each threshold key (a histogram's counts; null when the thresholds spread over too many buckets) and the sum of
 * squared deviations from `mean`.
 */
export function selectPercentiles(
  x: Float32Array,
  hi: Uint32Array,
  ks: readonly number[],
  method: Interpolation,
  thresholds: number[],
  mean: number,
): { percentiles: number[]; below: number[] | null; ss: number } {
  const n = x.length;
  const sel = select(x, hi, ranksOf(n, ks, method), thresholds, mean);
  const values = ks.map((k) => percentileFrom((r) => sel.values.get(r)!, n, k, method));
  return { percentiles: values, below: sel.below, ss: sel.ss };
}

/**
 * Basic statistics of a set of samples: min, max, mean and standard deviation, in float64.
 */
import type { Samples } from "./samples";

export interface Summary {
  count: number;
  /** NaN when count is 0. */
  min: number;
  max: number;
  mean: number;
  /**
   * Sample standard deviation (Bessel-corrected, divisor n - 1; numpy `std(ddof=1)`), as Sentinel Hub's
   * Statistical API reports `stDev`; 0 for a single sample, NaN for none.
   */
  stDev: number;
}

/**
 * The summary of `count` samples from their float64 sum, min, max and sum of squared deviations from the mean
 * (sum / count).
 */
export function summaryOf(count: number, sum: number, min: number, max: number, ss: number): Summary {
  if (count === 0) return { count: 0, min: NaN, max: NaN, mean: NaN, stDev: NaN };
  return { count, min, max, mean: sum / count, stDev: count > 1 ? Math.sqrt(ss / (count - 1)) : 0 };
}

/**
 * Two passes over `x`: sum, min, max; then the sum of squared deviations from the mean (no cancellation of
 * sum-of-squares formulas). Float64 accumulation.
 */
export function summarize(x: Samples): Summary {
  const n = x.length;
  if (n === 0) return summaryOf(0, 0, NaN, NaN, 0);
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const v = x[i]!;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const d = x[i]! - mean;
    ss += d * d;
  }
  return summaryOf(n, sum, min, max, ss);
}

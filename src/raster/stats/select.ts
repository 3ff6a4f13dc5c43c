/**
 * Exact order statistics (the r-th smallest value, 0-based) of float32 samples without sorting: a two-level
 * radix select on the IEEE 754 bit patterns mapped to unsigned keys whose order is the numeric order
 * (flip all bits of negatives, set the sign bit of positives; Herf, "Radix tricks", 2001). One pass counts the
 * high 16 bits of every key (./kernels.ts firstPass, with the gather of the samples); one more pass per group of
 * buckets counts the low 16 bits of the keys in the buckets that hold a wanted rank (./kernels.ts secondPass,
 * with the squared deviations). O(n) for any number of ranks in few buckets; NaN must be absent. The same passes
 * count the samples below threshold keys (a histogram's edges, ./histogram.ts edgeThresholds).
 */

import { BUCKETS, GROUP, MAX_EDGE_KEYS, secondPass, seek } from "./kernels";

const valueBits = (key: number): number => (key & 0x80000000 ? (key & 0x7fffffff) >>> 0 : ~key >>> 0);

/** Bucket (high 16 bits) and rank within it of each wanted rank, from the high-bit histogram (one sweep). */
function locate(hi: Uint32Array, ranks: number[]): Map<number, { bucket: number; within: number }> {
  const out = new Map<number, { bucket: number; within: number }>();
  let at = { bucket: 0, before: 0 };
  for (const r of [...new Set(ranks)].sort((a, b) => a - b)) {
    at = seek(hi, r, at.bucket, at.before);
    out.set(r, { bucket: at.bucket, within: r - at.before });
  }
  return out;
}

/** Keys of thresholds in buckets that hold no wanted rank: at most this many buckets (else they are not counted). */
const EDGE_BUCKETS = 127 - GROUP;
/**
 * Threshold keys in one such bucket at most (else none is counted): a key in the bucket is compared with each, so
 * bins much narrower than a bucket (1/128 of the value's magnitude) would cost a comparison per bin and sample.
 */
const EDGE_KEYS_PER_BUCKET = 16;

/** The order statistics of float32 samples, the samples below threshold keys and the squared deviations. */
export interface Selection {
  /** rank -> value for each wanted rank. */
  values: Map<number, number>;
  /**
   * Per threshold key T (./histogram.ts thresholdKey): the number of samples whose key is below T; null when the
   * thresholds fall in more than EDGE_BUCKETS buckets without a wanted rank or more than EDGE_KEYS_PER_BUCKET in
   * one of them (then nothing is counted).
   */
  below: number[] | null;
  /** Sum of (x - mean)^2 in sample order (float64), from the first low-bit pass. */
  ss: number;
}

/**
 * The r-th smallest value of x for each r in `ranks` (each 0 <= r < x.length) given `hi`, the counts of the high
 * halves of x's keys (./kernels.ts firstPass); in the same passes (./kernels.ts secondPass: one per GROUP buckets
 * holding wanted ranks) the number of samples below each key of `thresholds` (the counts of a histogram,
 * ./histogram.ts): below the threshold's bucket from `hi`, within it from the bucket's low-bit histogram when a
 * rank is there too, else counted against the threshold in the first pass; and the squared deviations from `mean`.
 */
export function select(
  x: Float32Array,
  hi: Uint32Array,
  ranks: number[],
  thresholds: number[],
  mean: number,
): Selection {
  const where = locate(hi, ranks);
  const buckets = [...new Set([...where.values()].map((w) => w.bucket))];
  const spread = edgeBuckets(thresholds, new Set(buckets));
  const widest = spread.start.reduce((w, e, i) => (i > 0 ? Math.max(w, e - spread.start[i - 1]!) : w), 0);
  const counted =
    spread.buckets.length <= EDGE_BUCKETS && widest <= EDGE_KEYS_PER_BUCKET && spread.keys.length <= MAX_EDGE_KEYS;
  const edges = counted ? spread : edgeBuckets([], new Set());
  const below = counted ? cumulative(hi, thresholds) : null;
  const result = new Map<number, number>();
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  let ss = NaN;
  for (let g = 0; g === 0 || g < buckets.length; g += GROUP) {
    const group = buckets.slice(g, g + GROUP);
    const slot = new Int8Array(BUCKETS).fill(-1);
    group.forEach((b, s) => (slot[b] = s));
    if (g === 0) edges.buckets.forEach((b, e) => (slot[b] = GROUP + e));
    const first = g === 0 ? edges : edgeBuckets([], new Set());
    const low = secondPass(x, mean, { slot, slots: group.length, start: first.start, keys: first.keys });
    if (g === 0) {
      ss = low.ss;
      if (below) edges.of.forEach((j, q) => (below[j]! += low.count[q]!));
    }
    const lo = low.lo; // slot s's low-bit histogram at s * BUCKETS
    for (const [rank, w] of where) {
      const s = slot[w.bucket]!;
      if (s < 0 || s >= GROUP) continue;
      const l = seek(lo.subarray(s * BUCKETS, (s + 1) * BUCKETS), w.within).bucket;
      u32[0] = valueBits(((w.bucket << 16) | l) >>> 0);
      result.set(rank, f32[0]!);
    }
    if (below) countInRanked(thresholds, slot, lo, below);
  }
  return { values: result, below, ss };
}

/**
 * Adds to below[j] the samples of threshold j's bucket below it when the bucket has a low-bit histogram (slot s <
 * GROUP: lo at s * BUCKETS), from the histogram's prefix sums (one sweep per slot with thresholds).
 */
function countInRanked(thresholds: number[], slot: Int8Array, lo: Uint32Array, below: number[]): void {
  const prefix = new Map<number, Float64Array>();
  thresholds.forEach((t, j) => {
    const s = slot[t >>> 16]!;
    if (s < 0 || s >= GROUP) return;
    let p = prefix.get(s);
    if (!p) prefix.set(s, (p = prefixSums(lo.subarray(s * BUCKETS, (s + 1) * BUCKETS))));
    below[j]! += p[t & 0xffff]!;
  });
}

/** p[l] = sum of h[0..l) for l < h.length. */
function prefixSums(h: Uint32Array): Float64Array {
  const p = new Float64Array(h.length);
  for (let l = 1; l < h.length; l++) p[l] = p[l - 1]! + h[l - 1]!;
  return p;
}

/** Threshold keys counted in the first low-bit pass, by bucket (edgeBuckets). */
interface Edges {
  buckets: number[];
  of: number[];
  start: Int32Array;
  keys: Uint32Array;
}

/** Per threshold key: the samples in the buckets below its bucket (one sweep of the buckets). */
function cumulative(hi: Uint32Array, thresholds: number[]): number[] {
  const order = thresholds.map((_, j) => j).sort((a, b) => thresholds[a]! - thresholds[b]!);
  const ends = Int32Array.from(order, (j) => thresholds[j]! >>> 16);
  const sums = prefixAt(hi, ends);
  const out = new Array<number>(thresholds.length);
  order.forEach((j, q) => (out[j] = sums[q]!));
  return out;
}

/** Sums of hi[0..ends[q]) for ascending ends. */
function prefixAt(hi: Uint32Array, ends: Int32Array): Float64Array {
  const sums = new Float64Array(ends.length);
  let c = 0,
    b = 0;
  for (let q = 0; q < ends.length; q++) {
    for (const end = ends[q]!; b < end; b++) c += hi[b]!;
    sums[q] = c;
  }
  return sums;
}

/**
 * The thresholds counted in the first low-bit pass: those inside a bucket (low bits not 0) that holds no wanted
 * rank, grouped by bucket: keys[start[e]..start[e+1]) are bucket e's; of[q] the threshold of keys[q].
 */
function edgeBuckets(thresholds: number[], ranked: Set<number>): Edges {
  const by = new Map<number, number[]>();
  thresholds.forEach((t, j) => {
    if ((t & 0xffff) === 0 || ranked.has(t >>> 16)) return;
    const js = by.get(t >>> 16);
    if (js) js.push(j);
    else by.set(t >>> 16, [j]);
  });
  const buckets = [...by.keys()],
    of = [...by.values()].flat();
  const start = new Int32Array(buckets.length + 1);
  [...by.values()].forEach((js, e) => (start[e + 1] = start[e]! + js.length));
  return {
    buckets,
    of,
    start,
    keys: Uint32Array.from(of, (j) => thresholds[j]!),
  };
}

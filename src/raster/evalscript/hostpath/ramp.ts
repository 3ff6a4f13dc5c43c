/**
 * ColorRampVisualizer on the host path (./library.ts builds its tables, ./interpret.ts runs RAMPI / RAMPC): the
 * segment a value falls in and the colour components there, the same arithmetic as sandbox/lib.js.
 */

/** Buckets of a sorted ramp's value range (rampIndex's first guess of a segment, then a few fixed steps). */
const BUCKETS = 256;
/** At most this many steps after a bucket's first segment (else the binary search is used). */
export const MAX_STEPS = 6;

/**
 * Uniform buckets over [v[0], v[n-1]] of a sorted ramp: a value above v[0] falls in bucket
 * g = min(floor((value - v[0]) * scale), start.length - 1), a monotone function of the value in IEEE arithmetic,
 * so the values v[k] below it are those of the buckets below g (computed with the same expression) and some of
 * bucket g's own: `start[g]` is the count of the former (at least 1: v[0] is below), `steps` + 1 the most values a
 * bucket holds past its start; `padded` the values followed by +Infinity (the steps never read past).
 */
export interface Buckets {
  start: Int32Array;
  padded: Float64Array;
  scale: number;
  steps: number;
}

/**
 * A ramp table of ColorRampVisualizer: its rescaled values and its colours' components ([r, g, b] in [0, 1]),
 * exactly as sandbox/lib.js computes them in the constructor.
 */
export interface RampTable {
  values: Float64Array;
  /** One array per component (r, g, b), one value per stop. */
  colors: Float64Array[];
  /** The values are non-decreasing (a binary search finds the segment); else a linear search. */
  sorted: boolean;
  /** Sorted values over a range of positive width: the buckets rampIndex starts from. */
  buckets?: Buckets;
}

/** A ramp table from the values and [r, g, b] colours of the constructor. */
export function rampTable(values: number[], colors: number[][]): RampTable {
  const sorted = values.every((v, i) => i === 0 || values[i - 1]! <= v);
  const t: RampTable = {
    values: Float64Array.from(values),
    colors: [0, 1, 2].map((j) => Float64Array.from(colors, (c) => c[j]!)),
    sorted,
  };
  if (sorted) t.buckets = bucketsOf(t.values);
  return t;
}

/**
 * `count` buckets of sorted values v (a ramp's, or ./rampsteps.ts's thresholds), or undefined when their range is
 * empty or a bucket spans more than MAX_STEPS segments.
 */
export function bucketsOf(v: Float64Array, count = BUCKETS): Buckets | undefined {
  const n = v.length,
    scale = count / (v[n - 1]! - v[0]!);
  if (n < 3 || !Number.isFinite(scale) || scale <= 0) return undefined;
  const end = new Int32Array(count); // values in the buckets up to g (the same bucket expression as the search)
  for (const x of v) end[Math.min(Math.floor((x - v[0]!) * scale), count - 1)]!++;
  for (let g = 1; g < count; g++) end[g]! += end[g - 1]!;
  const start = new Int32Array(count);
  let span = 0;
  for (let g = 0; g < count; g++) {
    start[g] = Math.max(1, g === 0 ? 0 : end[g - 1]!);
    span = Math.max(span, end[g]! - start[g]!);
  }
  const steps = Math.max(0, span - 1);
  if (steps > MAX_STEPS) return undefined;
  const padded = new Float64Array(n + MAX_STEPS + 1).fill(Infinity);
  padded.set(v);
  return { start, padded, scale, steps };
}

/**
 * The segment of ColorRampVisualizer.prototype.process (sandbox/lib.js) that `value` falls in: 0 when
 * `!(value > v[0])` (NaN included), else the first i >= 1 with `value <= v[i]`, n when there is none. Sorted
 * values: the first such i is 1 + the count of v[i >= 1] below value, so each step adds, never branches on the
 * pixel: from the bucket's first segment a few fixed steps (1.75x faster than the binary search over 21 stops;
 * the values below value are a prefix of the bucket's, so the steps compare independent loads, not a chain),
 * else a branch-free binary search (1.9x faster than a branching one, whose mispredictions cost more than its
 * steps; measured in node 22).
 */
export function rampIndex(t: RampTable, value: number): number {
  const v = t.values,
    n = v.length;
  if (!(value > v[0]!)) return 0;
  if (!t.sorted) {
    for (let i = 1; i < n; i++) if (value <= v[i]!) return i;
    return n;
  }
  const b = t.buckets;
  if (b === undefined) return searchSorted(v, value);
  // the bucket's first segment, then its steps: each adds 1 while the next stop is below value (no branch)
  const g = Math.floor((value - v[0]!) * b.scale),
    p = b.padded;
  const s0 = b.start[g < b.start.length ? g : b.start.length - 1]!;
  let s = s0;
  for (let k = 0; k <= b.steps; k++) s += +(p[s0 + k]! < value);
  return s;
}

/** rampIndex of a sorted ramp (v) for value > v[0]: the branch-free binary search. */
function searchSorted(v: Float64Array, value: number): number {
  const n = v.length;
  if (!(value > v[0]!)) return 0;
  if (n === 1) return 1;
  let base = 1,
    len = n - 1;
  while (len > 1) {
    const half = len >> 1;
    base += half * +(v[base + half - 1]! < value);
    len -= half;
  }
  return base + +(v[base]! < value);
}

/** Component j of ColorRampVisualizer.prototype.process(value) in segment i (rampIndex): the same arithmetic. */
export function rampComponent(t: RampTable, value: number, i: number, j: number): number {
  const v = t.values,
    c = t.colors[j]!,
    n = v.length;
  if (i === 0) return c[0]!;
  if (i === n) return c[n - 1]!;
  const a = c[i - 1]!,
    b = c[i]!,
    s = (value - v[i - 1]!) / (v[i]! - v[i - 1]!);
  return a + (b - a) * s;
}

/**
 * rampIndex of the n values of `a` into `d`: the same steps written out in one loop with the table in locals (V8
 * in workerd does not inline rampIndex into a loop: 5x slower called per value, measured in vitest-pool-workers).
 * A bucket of at most 3 values past its start takes 3 comparisons unrolled (rampIndices3).
 */
export function rampIndices(d: Float64Array, a: Float64Array, t: RampTable, n: number): void {
  const b = t.buckets;
  if (b === undefined) {
    for (let i = 0; i < n; i++) d[i] = rampIndex(t, a[i]!);
    return;
  }
  if (b.steps <= 2) return rampIndices3(d, a, t.values[0]!, b, n);
  const v0 = t.values[0]!,
    { start, padded, scale, steps } = b,
    last = start.length - 1;
  for (let i = 0; i < n; i++) {
    const value = a[i]!;
    if (!(value > v0)) {
      d[i] = 0;
      continue;
    }
    const g = Math.floor((value - v0) * scale),
      s0 = start[g < last ? g : last]!;
    let s = s0;
    for (let k = 0; k <= steps; k++) s += +(padded[s0 + k]! < value);
    d[i] = s;
  }
}

/**
 * rampIndices over buckets of at most 3 values past their start (steps <= 2): always 3 comparisons, since a value
 * past the bucket's own is above the pixel's value (a later bucket's, by the bucket expression's monotony, or a
 * +Infinity pad) and adds nothing; the bucket as (value - v0) * scale truncated, which is its floor for the
 * non-negative values below `last`. 1.5-1.8x the general loop's speed (node 20, EO Browser's 21-stop ramp).
 */
function rampIndices3(d: Float64Array, a: Float64Array, v0: number, b: Buckets, n: number): void {
  const { start, padded, scale } = b,
    last = start.length - 1;
  for (let i = 0; i < n; i++) {
    const value = a[i]!;
    if (!(value > v0)) {
      d[i] = 0;
      continue;
    }
    const x = (value - v0) * scale,
      s0 = start[x < last ? x | 0 : last]!;
    d[i] = s0 + +(padded[s0]! < value) + +(padded[s0 + 1]! < value) + +(padded[s0 + 2]! < value);
  }
}

/** rampComponent j of the n values of `a` in their segments `seg` (rampIndices) into `d`: the same arithmetic. */
export function rampComponents(
  d: Float64Array,
  a: Float64Array,
  seg: Float64Array,
  t: RampTable,
  j: number,
  n: number,
): void {
  const v = t.values,
    c = t.colors[j]!,
    m = v.length,
    first = c[0]!,
    last = c[m - 1]!;
  for (let i = 0; i < n; i++) {
    const s = seg[i]!;
    if (s === 0) d[i] = first;
    else if (s === m) d[i] = last;
    else {
      const lo = c[s - 1]!,
        hi = c[s]!,
        f = (a[i]! - v[s - 1]!) / (v[s]! - v[s - 1]!);
      d[i] = lo + (hi - lo) * f;
    }
  }
}

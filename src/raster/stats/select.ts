/**
 * Exact order statistics (the r-th smallest value, 0-based) of float32 samples without sorting: a two-level
 * radix select on the IEEE 754 bit patterns mapped to unsigned keys whose order is the numeric order
 * (flip all bits of negatives, set the sign bit of positives; Herf, "Radix tricks", 2001). One pass counts the
 * high 16 bits of every key; one more pass per group of buckets counts the low 16 bits of the keys in the
 * buckets that hold a wanted rank. O(n) for any number of ranks in few buckets; NaN must be absent. The same
 * passes count the samples below threshold keys (a histogram's edges, ./histogram.ts edgeThresholds).
 */

const BUCKETS = 65536;
/** Low-16-bit histograms filled per pass over the data (256 KiB each). */
const GROUP = 8;

const valueBits = (key: number): number => (key & 0x80000000 ? (key & 0x7fffffff) >>> 0 : ~key >>> 0);

/** Bucket (high 16 bits) and rank within it of each wanted rank, from the high-bit histogram. */
function locate(hi: Uint32Array, ranks: number[]): Map<number, { bucket: number; within: number }> {
  const sorted = [...new Set(ranks)].sort((a, b) => a - b);
  const out = new Map<number, { bucket: number; within: number }>();
  let cum = 0;
  let j = 0;
  for (let b = 0; b < BUCKETS && j < sorted.length; b++) {
    const next = cum + hi[b]!;
    while (j < sorted.length && sorted[j]! < next) {
      out.set(sorted[j]!, { bucket: b, within: sorted[j]! - cum });
      j++;
    }
    cum = next;
  }
  return out;
}

/** Keys of thresholds in buckets that hold no wanted rank: at most this many buckets (else `counts` gives up). */
const EDGE_BUCKETS = 127 - GROUP;

/** The order statistics of float32 samples, and how many samples lie below each threshold key. */
export interface Selection {
  /** rank -> value for each wanted rank. */
  values: Map<number, number>;
  /** Per threshold key T (./histogram.ts thresholdKey): the number of samples whose key is below T. */
  below: number[];
}

/** The r-th smallest value for each r in `ranks` (each 0 <= r < x.length), as a map rank -> value. */
export function orderStatistics(x: Float32Array, ranks: number[]): Map<number, number> {
  return select(x, ranks, [])!.values;
}

/**
 * The r-th smallest value for each r in `ranks` (each 0 <= r < x.length) and, in the same passes, the number of
 * samples below each key of `thresholds` (the counts of a histogram, ./histogram.ts): below the threshold's bucket
 * from the high-bit histogram, within it from the bucket's low-bit histogram when a rank is there too, else counted
 * in the first low-bit pass. Null when the thresholds fall in more than EDGE_BUCKETS other buckets.
 */
export function select(x: Float32Array, ranks: number[], thresholds: number[]): Selection | null {
  const u16 = new Uint16Array(x.buffer, x.byteOffset, 2 * x.length);
  const n = x.length;
  const hi = new Uint32Array(BUCKETS);
  countHigh(u16, n, hi);
  const where = locate(hi, ranks);
  const buckets = [...new Set([...where.values()].map((w) => w.bucket))];
  const edges = edgeBuckets(thresholds, new Set(buckets));
  if (edges.buckets.length > EDGE_BUCKETS) return null;
  const result = new Map<number, number>();
  const below = cumulative(hi, thresholds);
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  for (let g = 0; g === 0 || g < buckets.length; g += GROUP) {
    const group = buckets.slice(g, g + GROUP);
    const slot = new Int8Array(BUCKETS).fill(-1);
    group.forEach((b, s) => (slot[b] = s));
    if (g === 0) edges.buckets.forEach((b, e) => (slot[b] = GROUP + e));
    const lo = new Uint32Array(group.length * BUCKETS); // slot s's low-bit histogram at s * BUCKETS
    // keys in threshold buckets are set aside and counted in batches: the loop stays one tight loop
    const side = new Uint32Array(g === 0 && edges.buckets.length > 0 ? SIDE : 1);
    countLow(u16, n, slot, lo, side, edges);
    for (const [rank, w] of where) {
      const s = slot[w.bucket]!;
      if (s < 0 || s >= GROUP) continue;
      let cum = 0;
      let low = 0;
      while (cum + lo[s * BUCKETS + low]! <= w.within) cum += lo[s * BUCKETS + low++]!;
      u32[0] = valueBits(((w.bucket << 16) | low) >>> 0);
      result.set(rank, f32[0]!);
    }
    thresholds.forEach((t, j) => {
      const s = slot[t >>> 16]!;
      if (s >= 0 && s < GROUP) for (let low = 0; low < (t & 0xffff); low++) below[j]! += lo[s * BUCKETS + low]!;
    });
  }
  edges.of.forEach((j, q) => (below[j]! += edges.count[q]!));
  return { values: result, below };
}

/**
 * The 16-bit halves of the float32 samples are read (Uint16Array; HI the index of the high half in a sample's
 * pair, 1 on little-endian machines), so that every value in the loops is a small integer: V8's interpreter and
 * baseline code, which run a request's first passes before the optimized code is ready, box every integer above
 * 2^30 (a 32-bit key) and were measured 5-10x slower on them. The key's high half of high half h is
 * `h ^ 0xffff` for a negative sample (all bits flipped), `h | 0x8000` else; its low half `l ^ 0xffff` or `l`.
 */
const HI = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1 ? 1 : 0;
const LO = 1 - HI;

/** Counts the high halves of the keys of the n samples into hi. */
function countHigh(u16: Uint16Array, n: number, hi: Uint32Array): void {
  for (let i = 0; i < n; i++) {
    const h = u16[2 * i + HI]!;
    hi[h & 0x8000 ? h ^ 0xffff : h | 0x8000]++;
  }
}

/**
 * Counts the low halves of the keys in the buckets of a slot below GROUP into lo (slot s at s * BUCKETS); keys in
 * buckets of a slot at or above GROUP go to `side`, counted against their thresholds (countBelow) whenever it is
 * full and at the end.
 */
function countLow(
  u16: Uint16Array,
  n: number,
  slot: Int8Array,
  lo: Uint32Array,
  side: Uint32Array,
  edges: Edges,
): void {
  let m = 0;
  for (let i = 0; i < n; i++) {
    const h = u16[2 * i + HI]!;
    const negative = h & 0x8000;
    const kh = negative ? h ^ 0xffff : h | 0x8000;
    const s = slot[kh]!;
    if (s < 0) continue;
    const l = u16[2 * i + LO]!;
    const kl = negative ? l ^ 0xffff : l;
    if (s < GROUP) lo[s * BUCKETS + kl]++;
    else {
      side[m++] = kh * BUCKETS + kl;
      if (m === side.length) {
        countBelow(side, m, slot, edges);
        m = 0;
      }
    }
  }
  countBelow(side, m, slot, edges);
}

/** Threshold keys counted in the low-bit pass, by bucket (edgeBuckets). */
interface Edges {
  buckets: number[];
  of: number[];
  start: Int32Array;
  keys: Uint32Array;
  count: Float64Array;
}

/** Keys set aside at most before they are counted against their bucket's thresholds. */
const SIDE = 4096;

/** Counts the first m keys of `side` against the thresholds of their buckets (slot GROUP + e). */
function countBelow(side: Uint32Array, m: number, slot: Int8Array, edges: Edges): void {
  const { start, keys, count } = edges;
  for (let i = 0; i < m; i++) {
    const k = side[i]!,
      e = slot[k >>> 16]! - GROUP;
    for (let j = start[e]!; j < start[e + 1]!; j++) if (k < keys[j]!) count[j]++;
  }
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
    if ((t & 0xffff) !== 0 && !ranked.has(t >>> 16)) by.set(t >>> 16, [...(by.get(t >>> 16) ?? []), j]);
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
    count: new Float64Array(of.length),
  };
}

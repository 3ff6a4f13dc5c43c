/**
 * The two passes of the Statistical API's reducers over one band's samples (src/raster/stats/kernels.ts drives
 * them chunk by chunk and documents the semantics). AssemblyScript (f64 / i32 / usize, load / store on linear
 * memory), compiled by wasm/build.mjs to src/raster/stats/stats_kernels.wasm (not committed). No imports, no
 * allocation (stub runtime). Float32 samples; their order keys are the IEEE 754 bits with all bits of negatives
 * flipped and the sign bit of positives set (Herf, "Radix tricks", 2001), as src/raster/stats/select.ts.
 */
// @ts-ignore: an AssemblyScript builtin (end of static data), exported for kernels.ts
export { __heap_base };

/** Sum, min and max of the samples gathered by the last `gather` call (float64). */
let sum: f64 = 0;
let lowest: f64 = 0;
let highest: f64 = 0;
export function gatheredSum(): f64 {
  return sum;
}
export function gatheredMin(): f64 {
  return lowest;
}
export function gatheredMax(): f64 {
  return highest;
}

// @ts-ignore: decorator
@inline function keyOf(a: f32): u32 {
  const b = reinterpret<u32>(a);
  return b & 0x80000000 ? ~b : b | 0x80000000;
}

/**
 * Gathers the values of pixels 0..n-1 at `values` (float32, pixel i at values + 4 * i * stride) where the pixel
 * counts and the value is not NaN, in order, to `out` (float32; may be `values` itself: a write never overtakes the
 * reads). A pixel counts when the byte at mask + i is non-zero (mask 0: every byte is) and, when dm is non-zero,
 * its data mask value (float32, at dm + 4 * i * dmStride) is non-zero and not NaN. Continues sum / min / max from
 * `sum0`, `min0`, `max0` in pixel order (float64 additions in the order JavaScript's `sum += v` makes them). Adds 1
 * to u32 hi[key >>> 16] per gathered value (65536 counts; scratch memory when the caller wants none: a test of `hi`
 * per sample was 0.3 ms of 4.5 per 1.2 Mpx). Returns the number gathered.
 */
export function gather(
  values: usize,
  stride: i32,
  mask: usize,
  dm: usize,
  dmStride: i32,
  n: i32,
  out: usize,
  hi: usize,
  sum0: f64,
  min0: f64,
  max0: f64,
): i32 {
  let k: i32 = 0;
  let s = sum0,
    lo = min0,
    up = max0;
  const step = <usize>stride << 2;
  const dmStep = <usize>dmStride << 2;
  let p = values;
  let q = dm;
  for (let i: i32 = 0; i < n; i++, p += step, q += dmStep) {
    const a = load<f32>(p);
    store<f32>(out + (<usize>k << 2), a);
    // validity without short-circuit branches (a data mask read that way was 1 ms of 4.8 per 1.2 Mpx more)
    let counts = <i32>(a == a);
    if (mask) counts &= <i32>(load<u8>(mask + <usize>i) != 0);
    if (dm) {
      const d = load<f32>(q);
      counts &= <i32>(d != 0) & <i32>(d == d);
    }
    if (counts) {
      k++;
      const f = <f64>a;
      s += f;
      lo = select<f64>(f, lo, f < lo);
      up = select<f64>(f, up, f > up);
      const h = hi + (<usize>(keyOf(a) >>> 16) << 2);
      store<u32>(h, load<u32>(h) + 1);
    }
  }
  sum = s;
  lowest = lo;
  highest = up;
  return k;
}

/**
 * `gather` for the common shape, in fewer instructions per pixel: values and data mask band both of stride 1, no mask
 * bytes, and min / max not in the loop (their two select chains) but from the gathered samples afterwards
 * (firstMin / firstMax, four lanes at a time). Same results as gather(values, 1, 0, dm, 1, n, out, hi, ...).
 */
export function gatherUnit(values: usize, dm: usize, n: i32, out: usize, hi: usize, sum0: f64, min0: f64, max0: f64): i32 {
  let k: i32 = 0;
  let s = sum0;
  for (let i: i32 = 0; i < n; i++) {
    const o = <usize>i << 2;
    const a = load<f32>(values + o);
    store<f32>(out + (<usize>k << 2), a);
    const d = load<f32>(dm + o);
    if (<i32>(a == a) & <i32>(d != 0) & <i32>(d == d)) {
      k++;
      s += <f64>a;
      const h = hi + (<usize>(keyOf(a) >>> 16) << 2);
      store<u32>(h, load<u32>(h) + 1);
    }
  }
  sum = s;
  // a later sample equal to the one kept never replaces it (the loops' `f < lo ? f : lo`)
  const lo = <f64>firstMin(out, k),
    up = <f64>firstMax(out, k);
  lowest = lo < min0 ? lo : min0;
  highest = up > max0 ? up : max0;
  return k;
}

/**
 * The smallest of the n float32 at x (NaN-free) as `for (v of x) if (v < m) m = v` from m = Infinity finds it: the
 * first one of the smallest value. Lanes keep their own first (f32x4.pmin is `b < a ? b : a`); equal non-zero
 * float32 are the same bits, so only a zero needs the first zero in order (-0 and +0 compare equal).
 */
function firstMin(x: usize, n: i32): f32 {
  let v = f32x4.splat(Infinity);
  let i: i32 = 0;
  for (; i + 4 <= n; i += 4) v = f32x4.pmin(v, v128.load(x + (<usize>i << 2)));
  let m: f32 = Infinity;
  const l0 = f32x4.extract_lane(v, 0),
    l1 = f32x4.extract_lane(v, 1),
    l2 = f32x4.extract_lane(v, 2),
    l3 = f32x4.extract_lane(v, 3);
  if (l0 < m) m = l0;
  if (l1 < m) m = l1;
  if (l2 < m) m = l2;
  if (l3 < m) m = l3;
  for (; i < n; i++) {
    const e = load<f32>(x + (<usize>i << 2));
    if (e < m) m = e;
  }
  return m == 0 ? firstZero(x, n) : m;
}

/** The largest of the n float32 at x as `for (v of x) if (v > m) m = v` from m = -Infinity finds it (see firstMin). */
function firstMax(x: usize, n: i32): f32 {
  let v = f32x4.splat(-Infinity);
  let i: i32 = 0;
  for (; i + 4 <= n; i += 4) v = f32x4.pmax(v, v128.load(x + (<usize>i << 2)));
  let m: f32 = -Infinity;
  const l0 = f32x4.extract_lane(v, 0),
    l1 = f32x4.extract_lane(v, 1),
    l2 = f32x4.extract_lane(v, 2),
    l3 = f32x4.extract_lane(v, 3);
  if (l0 > m) m = l0;
  if (l1 > m) m = l1;
  if (l2 > m) m = l2;
  if (l3 > m) m = l3;
  for (; i < n; i++) {
    const e = load<f32>(x + (<usize>i << 2));
    if (e > m) m = e;
  }
  return m == 0 ? firstZero(x, n) : m;
}

/** The first of the n float32 at x that is zero (-0 or +0); some is. */
function firstZero(x: usize, n: i32): f32 {
  for (let i: i32 = 0; i < n; i++) {
    const e = load<f32>(x + (<usize>i << 2));
    if (e == 0) return e;
  }
  return 0;
}

/**
 * Over the n float32 samples at x: returns ss0 plus the sum of (x - mean)^2 in sample order (float64) and counts the low
 * 16 bits of each key whose bucket (key >>> 16) has slot s = i8 slot[bucket] (-1: none): s < group adds 1 to u32
 * lo[s * 65536 + (key & 0xffff)]; s >= group is edge bucket e = s - group, whose threshold keys are u32
 * keys[start[e] .. start[e + 1]) (i32 start): adds 1 to u32 count[j] for each threshold key j above the key.
 */
export function deviations(
  x: usize,
  n: i32,
  mean: f64,
  slot: usize,
  group: i32,
  lo: usize,
  start: usize,
  keys: usize,
  count: usize,
  ss0: f64,
): f64 {
  let ss = ss0;
  for (let i: i32 = 0; i < n; i++) {
    const a = load<f32>(x + (<usize>i << 2));
    const d = <f64>a - mean;
    ss += d * d;
    const key = keyOf(a);
    const s = <i32>load<i8>(slot + <usize>(key >>> 16));
    if (s < 0) continue;
    if (s < group) {
      const q = lo + ((<usize>s << 18) | (<usize>(key & 0xffff) << 2));
      store<u32>(q, load<u32>(q) + 1);
      continue;
    }
    const e = <usize>(s - group) << 2;
    const end = load<i32>(start + e + 4);
    for (let j = load<i32>(start + e); j < end; j++) {
      const o = <usize>j << 2;
      if (key < load<u32>(keys + o)) store<u32>(count + o, load<u32>(count + o) + 1);
    }
  }
  return ss;
}

/** Sum of the counts before the index the last `seek` returned. */
let before: f64 = 0;
export function seekBefore(): f64 {
  return before;
}

/**
 * The first index l in [from, n) of the u32 counts at h whose running sum c0 + h[from] + ... + h[l] exceeds `rank`
 * (the bucket holding the sample of that 0-based rank, c0 being the sum of h[0..from)); n when none does.
 * `seekBefore` then gives c0 + h[from] + ... + h[l - 1].
 */
export function seek(h: usize, from: i32, n: i32, c0: f64, rank: f64): i32 {
  let c = c0;
  let l = from;
  for (; l < n; l++) {
    const next = c + <f64>load<u32>(h + (<usize>l << 2));
    if (next > rank) break;
    c = next;
  }
  before = c;
  return l;
}

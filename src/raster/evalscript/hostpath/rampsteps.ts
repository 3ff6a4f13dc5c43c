/**
 * ColorRampVisualizer components stored as integers (AUTO, UINT8, INT8, UINT16, INT16 outputs, written by
 * ./output.ts rampWriter) as a step function of the value: one search and a table lookup per pixel instead of the
 * interpolation's arithmetic.
 *
 * Within a segment (v[s-1], v[s]] a stored component is a monotone function of the value x: x - v[s-1], the
 * division by v[s] - v[s-1] > 0, the product with hi - lo, the sum with lo, Math.fround, x 255 and the stores'
 * rounding are each monotone in IEEE arithmetic. So it changes at a few points, found by bisection over the
 * doubles, evaluating the very function the writers compute (rampComponent of ./ramp.ts, then the writer's store):
 * the lookup gives the same stored values bit for bit. The steps of all components merged are thresholds
 * e[0] < ... < e[K-1] and K + 1 tuples: a value x takes tuple #{k : e[k] < x} (NaN: 0), which is rampIndex's
 * segment over the thresholds, found by the same bucketed search (./ramp.ts rampIndices).
 */
import { bucketsOf, rampComponent, type RampTable } from "./ramp";

/** Thresholds at most (above, the writer interpolates: ./ramp.ts rampComponents). */
const MAX_THRESHOLDS = 4096;
/**
 * Evaluations of a component at most while the steps are found (a bisection takes about 60 per threshold; EO
 * Browser's NDVI ramp in AUTO needs about 80,000): a bound of the work, else the writer interpolates.
 */
const MAX_EVALUATIONS = 1 << 19;
/** Buckets of the thresholds' search at most (Int32 each). */
const MAX_BUCKETS = 16384;

/** A ramp's stored components as steps: `search` holds the thresholds (its values), `stored[c]` each step's value. */
export interface RampSteps {
  search: RampTable;
  /** Per component asked for (in order), the stored value of each of the K + 1 steps. */
  stored: Float64Array[];
}

const f64 = new Float64Array(1),
  u32 = new Uint32Array(f64.buffer);
const LOW = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1 ? 0 : 1; // the low word of a double (endianness)

/** The least double above finite x. */
function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  f64[0] = x;
  const step = x > 0 ? 1 : -1;
  const low = u32[LOW]! + step;
  u32[LOW] = low >>> 0;
  if (low > 0xffffffff || low < 0) u32[1 - LOW] = u32[1 - LOW]! + step;
  return f64[0];
}

/** The largest x in [a, b) with f(x) === f(a), given f(b) !== f(a) and f monotone over [a, b]. */
function lastOf(f: (x: number) => number, a: number, b: number): number {
  const y = f(a);
  for (;;) {
    const up = nextUp(a);
    if (up >= b) return a;
    let mid = b - a < Infinity ? a + (b - a) / 2 : a / 2 + b / 2;
    if (!(mid > a && mid < b)) mid = up;
    if (f(mid) === y) a = mid;
    else b = mid;
  }
}

/**
 * The steps of components `comps` of ramp t stored by `store` (the target's writer for one value), or undefined
 * when the ramp is not sorted with finite values, or has more than MAX_THRESHOLDS steps, needs more than
 * MAX_EVALUATIONS evaluations or has no bucketed search.
 */
export function rampSteps(t: RampTable, comps: number[], store: (x: number) => number): RampSteps | undefined {
  const v = t.values,
    n = v.length;
  if (!t.sorted || !v.every(Number.isFinite)) return undefined;
  const at = (x: number, s: number) => comps.map((j) => store(rampComponent(t, x, s, j)));
  let evaluations = 0;
  const thresholds: number[] = [],
    tuples: number[][] = [at(v[0]!, 0)];
  /** Adds threshold e with the tuple above it: a repeated threshold keeps the last, an unchanged tuple none. */
  const add = (e: number, tuple: number[]) => {
    if (thresholds.at(-1) === e) thresholds.pop(), tuples.pop();
    if (tuple.every((x, c) => x === tuples.at(-1)![c])) return;
    thresholds.push(e);
    tuples.push(tuple);
  };
  for (let s = 1; s < n; s++) {
    if (!(v[s]! > v[s - 1]!)) continue; // no value falls in an empty segment
    const cuts: number[] = [];
    for (const j of comps) {
      const f = (x: number) => (evaluations++, store(rampComponent(t, x, s, j)));
      const end = f(v[s]!);
      for (let x = nextUp(v[s - 1]!); f(x) !== end; ) {
        const u = lastOf(f, x, v[s]!);
        cuts.push(u);
        x = nextUp(u);
        if (cuts.length > MAX_THRESHOLDS || evaluations > MAX_EVALUATIONS) return undefined;
      }
    }
    add(v[s - 1]!, at(nextUp(v[s - 1]!), s));
    for (const u of cuts.sort((x, y) => x - y)) add(u, at(nextUp(u), s));
    if (thresholds.length > MAX_THRESHOLDS) return undefined;
  }
  add(v[n - 1]!, at(nextUp(v[n - 1]!), n));
  if (thresholds.length === 0) thresholds.push(Infinity), tuples.push(tuples[0]!); // one value everywhere
  const values = Float64Array.from(thresholds);
  // more buckets while they cut the steps per pixel down to one (each step a comparison)
  let buckets = bucketsOf(values);
  for (let count = 512; (buckets?.steps ?? 2) > 1 && count <= MAX_BUCKETS && values.length >= 3; count *= 2) {
    const finer = bucketsOf(values, count);
    if (finer && !(finer.steps >= (buckets?.steps ?? Infinity))) buckets = finer;
  }
  if (buckets === undefined && values.length >= 3) return undefined;
  return {
    search: { values, colors: [], sorted: true, buckets },
    stored: comps.map((_, c) => Float64Array.from(tuples, (x) => x[c]!)),
  };
}

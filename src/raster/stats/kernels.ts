/**
 * The reducers' two passes over the float32 samples of one band, in WebAssembly (wasm/stats_kernels.ts, compiled to
 * ./stats_kernels.wasm by `npm run build:wasm`), chunk by chunk through a small kept instance:
 * - firstPass: gathers the valid samples (mask non-zero, not NaN) with their sum, min and max and, for a radix
 *   select (./select.ts), the counts of their keys' high 16 bits;
 * - secondPass: the sum of squared deviations from the mean and, in the same loop, the counts of the low 16 bits
 *   of the keys in the wanted buckets and of the keys below threshold keys in edge buckets (./select.ts).
 * Float64 additions happen in sample order, so sums equal JavaScript's `sum += v` loops bit for bit. Fused loops
 * like these were 5-95 % slower than separate passes in V8 (bench/bench-stats-kernels.mjs); in WebAssembly they
 * are not (figures: ./index.ts reduceBand).
 */
import statsModule from "./stats_kernels.wasm";
import { STATS_WASM_BYTES } from "../memory";
import type { MaskBand } from "./samples";

interface StatsExports {
  memory: WebAssembly.Memory;
  __heap_base: WebAssembly.Global;
  /** Arguments as wasm/stats_kernels.ts names them (addresses are byte offsets in memory). */
  gather(...args: number[]): number;
  gatherUnit(...args: number[]): number;
  gatheredSum(): number;
  gatheredMin(): number;
  gatheredMax(): number;
  deviations(...args: number[]): number;
  seek(h: number, from: number, n: number, c0: number, rank: number): number;
  seekBefore(): number;
}

/** High-bit (and low-bit) buckets of the 32-bit keys. */
export const BUCKETS = 65536;
/** Low-bit histograms one secondPass fills at most (256 KiB each). */
export const GROUP = 8;
/** Float32 values per chunk copied into WebAssembly memory (a chunk of a many-band output holds its other bands too). */
const CHUNK_VALUES = 65536;
/** Threshold keys in edge buckets at most (./select.ts counts at most 119 buckets x 16 keys in the passes). */
export const MAX_EDGE_KEYS = 2048;

/** Byte offsets of the buffers in the instance's memory, above __heap_base. */
function layout(base: number) {
  const hi = Math.ceil(base / 8) * 8;
  const lo = hi + 4 * BUCKETS;
  const slot = lo + 4 * GROUP * BUCKETS;
  const start = slot + BUCKETS;
  const keys = start + 4 * (MAX_EDGE_KEYS + 1);
  const count = keys + 4 * MAX_EDGE_KEYS;
  const chunk = count + 4 * MAX_EDGE_KEYS;
  const dm = chunk + 4 * CHUNK_VALUES;
  const mask = dm + 4 * CHUNK_VALUES;
  return { hi, lo, slot, start, keys, count, chunk, dm, mask, end: mask + CHUNK_VALUES };
}

let kept: { k: StatsExports; at: ReturnType<typeof layout> } | undefined;

/** The kept instance (its memory, about STATS_WASM_BYTES, is allocated once per isolate). */
function instance(): { k: StatsExports; at: ReturnType<typeof layout> } {
  if (kept) return kept;
  const k = new WebAssembly.Instance(statsModule, {}).exports as unknown as StatsExports;
  const at = layout(k.__heap_base.value as number);
  if (at.end > STATS_WASM_BYTES) throw new Error(`stats kernels: layout of ${at.end} bytes over STATS_WASM_BYTES`);
  const missing = at.end - k.memory.buffer.byteLength;
  if (missing > 0) k.memory.grow(Math.ceil(missing / 65536));
  return (kept = { k, at });
}

/** Views of the kept instance's chunk, mask bytes, data mask chunk and high-bit counts. */
function views() {
  const { k, at } = instance();
  const buf = k.memory.buffer;
  return {
    chunk: new Float32Array(buf, at.chunk, CHUNK_VALUES),
    bytes: new Uint8Array(buf, at.mask, CHUNK_VALUES),
    dm: new Float32Array(buf, at.dm, CHUNK_VALUES),
    hi: new Uint32Array(buf, at.hi, BUCKETS),
  };
}

/** The valid samples of a band gathered by firstPass, with their float64 sum, min and max (NaN-free). */
export interface Gathered {
  x: Float32Array;
  sum: number;
  min: number;
  max: number;
  /** Counts of the keys' high 16 bits (BUCKETS), when asked for: a view into the instance's memory, valid until the next firstPass. */
  hi: Uint32Array | null;
}

/** The samples gathered so far: how many, and their float64 sum, min and max. */
interface Tally {
  m: number;
  sum: number;
  min: number;
  max: number;
}
const newTally = (): Tally => ({ m: 0, sum: 0, min: Infinity, max: -Infinity });

/**
 * Gathers the c pixels of the chunk in the instance's memory (values at `at.chunk`, every `stride`-th float32; data
 * mask values at `at.dm` every `dmStride`-th, 0: none; mask bytes at `at.mask` when `masked`), appends their valid
 * samples to `out` from tally.m, and advances the tally; the keys' high halves are counted into `at.hi` when `high`,
 * else into scratch memory. gatherUnit (its SIMD min/max pass) when all is unit-stride with a data mask and no mask
 * bytes, else gather.
 */
function gatherChunk(
  c: number,
  stride: number,
  masked: boolean,
  dmStride: number,
  high: boolean,
  out: Float32Array,
  tally: Tally,
) {
  const { k, at } = instance();
  const h = high ? at.hi : at.lo,
    { sum, min, max } = tally;
  const got =
    stride === 1 && dmStride === 1 && !masked
      ? k.gatherUnit(at.chunk, at.dm, c, at.chunk, h, sum, min, max)
      : k.gather(at.chunk, stride, masked ? at.mask : 0, dmStride ? at.dm : 0, dmStride, c, at.chunk, h, sum, min, max);
  out.set(new Float32Array(k.memory.buffer, at.chunk, got), tally.m);
  tally.m += got;
  [tally.sum, tally.min, tally.max] = [k.gatheredSum(), k.gatheredMin(), k.gatheredMax()];
}

/**
 * The values[offset + i * stride] (i < n) where the pixel counts (mask[i] non-zero; all pixels when mask is null;
 * a data mask band: its value non-zero and not NaN, and the geometry's byte non-zero, computed chunk by chunk in
 * WebAssembly) and the value is not NaN, in order, as a prefix of `into` (at least n long; may be `values` itself
 * when offset is 0 and stride 1), else of a new Float32Array; `high`: with the counts of their keys' high halves.
 * A data mask band's values must be float32 (./samples.ts maskBytes makes bytes of others).
 */
export function firstPass(
  values: Float32Array,
  offset: number,
  stride: number,
  mask: Uint8Array | MaskBand | null,
  n: number,
  into: Float32Array | undefined,
  high: boolean,
): Gathered {
  const { bytes, dm: dmChunk, chunk, hi } = views();
  if (high) hi.fill(0);
  const out = into ?? new Float32Array(n);
  const band = mask instanceof Uint8Array || !mask ? null : mask.band;
  const own = mask instanceof Uint8Array ? mask : (mask?.geometry ?? null); // the mask bytes, if any
  const per = Math.max(1, Math.floor(CHUNK_VALUES / Math.max(stride, band?.stride ?? 1)));
  const tally = newTally();
  for (let i0 = 0; i0 < n; i0 += per) {
    const c = Math.min(per, n - i0);
    if (own) bytes.set(own.subarray(i0, i0 + c));
    if (band) dmChunk.set(stridedChunk(band.values as Float32Array, band.offset, band.stride, i0, c));
    chunk.set(stridedChunk(values, offset, stride, i0, c));
    // without `high`, the counts go to the low-bit histograms' memory (secondPass clears what it uses)
    gatherChunk(c, stride, !!own, band?.stride ?? 0, high, out, tally);
  }
  const { m, sum, min, max } = tally;
  return { x: out.subarray(0, m), sum, min, max, hi: high ? hi : null };
}

/**
 * firstPass over a band that comes piece by piece from an evaluation (src/stats/reduce.ts reducingSink): one band of
 * Float32 values and its data mask band (the same validity: data mask value non-zero and not NaN, geometry byte
 * non-zero, value not NaN), each piece evaluated straight into the instance's memory, chunk by chunk, and gathered
 * there (no output array of the whole grid, no copy into WebAssembly memory). Pieces come in pixel order; between
 * pieces other passes may use the instance (the high-bit counts are kept here meanwhile).
 */
export class Gathering {
  private readonly tally = newTally();
  /** The counts of the keys' high halves so far (with `high`). */
  private readonly hi: Uint32Array | null;
  /** The gathered samples (a prefix). */
  private readonly out: Float32Array;

  /**
   * @param n pixels of the grid; geometry its bytes (non-zero: the pixel counts) or null; high: count the keys'
   * high halves (for a radix select).
   */
  constructor(
    n: number,
    private readonly geometry: Uint8Array | null,
    high: boolean,
  ) {
    this.out = new Float32Array(n);
    this.hi = high ? new Uint32Array(BUCKETS) : null;
  }

  /**
   * Pixels offset..offset+n-1 of the grid: `fill(values, dataMask, from, to)` writes the values and data mask values
   * of pixels offset+from..offset+to-1 at the start of the two arrays (views into the instance's memory, at least
   * to - from long), which are then gathered.
   */
  piece(
    offset: number,
    n: number,
    fill: (values: Float32Array, dataMask: Float32Array, from: number, to: number) => void,
  ): void {
    const { chunk, bytes, dm, hi } = views();
    if (this.hi) hi.set(this.hi);
    const geometry = this.geometry;
    for (let c0 = 0; c0 < n; c0 += CHUNK_VALUES) {
      const c = Math.min(CHUNK_VALUES, n - c0);
      fill(chunk, dm, c0, c0 + c);
      if (geometry) bytes.set(geometry.subarray(offset + c0, offset + c0 + c));
      gatherChunk(c, 1, !!geometry, 1, !!this.hi, this.out, this.tally);
    }
    if (this.hi) this.hi.set(hi);
  }

  /** What firstPass gives for the pixels so far (hi: a view into the instance's memory, valid until the next pass). */
  result(): Gathered {
    const { k, at } = instance();
    const hi = this.hi ? new Uint32Array(k.memory.buffer, at.hi, BUCKETS) : null;
    if (hi) hi.set(this.hi!);
    const { m, sum, min, max } = this.tally;
    return { x: this.out.subarray(0, m), sum, min, max, hi };
  }
}

/** The values of pixels i0..i0+c-1 of a strided band: values[offset + i * stride], as one subarray. */
const stridedChunk = (values: Float32Array, offset: number, stride: number, i0: number, c: number) =>
  values.subarray(offset + i0 * stride, offset + (i0 + c - 1) * stride + 1);

/** Wanted buckets of a secondPass: slot[bucket] < GROUP a low-bit histogram, >= GROUP an edge bucket; -1 none. */
export interface LowPlan {
  slot: Int8Array;
  /** Low-bit histograms in use (slots 0..slots-1, at most GROUP): only these are cleared. */
  slots: number;
  /** Edge bucket e's threshold keys are keys[start[e] .. start[e + 1]). */
  start: Int32Array;
  keys: Uint32Array;
}

/** What a secondPass counted: views into the instance's memory, valid until its next call. */
export interface LowCounts {
  /** Sum of (x - mean)^2 in sample order (float64). */
  ss: number;
  /** Slot s's low-bit histogram at s * BUCKETS. */
  lo: Uint32Array;
  /** Per threshold key of the plan: the samples of its bucket below it. */
  count: Uint32Array;
}

/** The second pass over x (see the module docs); `plan` null: the squared deviations only. */
export function secondPass(x: Float32Array, mean: number, plan: LowPlan | null): LowCounts {
  const { k, at } = instance();
  const buf = k.memory.buffer;
  const slot = new Int8Array(buf, at.slot, BUCKETS);
  if (plan) slot.set(plan.slot);
  else slot.fill(-1);
  const lo = new Uint32Array(buf, at.lo, GROUP * BUCKETS);
  const edges = plan?.keys.length ?? 0;
  const count = new Uint32Array(buf, at.count, edges);
  if (plan) {
    lo.fill(0, 0, plan.slots * BUCKETS);
    count.fill(0);
    new Int32Array(buf, at.start, plan.start.length).set(plan.start);
    new Uint32Array(buf, at.keys, edges).set(plan.keys);
  }
  const chunk = new Float32Array(buf, at.chunk, CHUNK_VALUES);
  let ss = 0;
  for (let i0 = 0; i0 < x.length; i0 += CHUNK_VALUES) {
    const c = Math.min(CHUNK_VALUES, x.length - i0);
    chunk.set(x.subarray(i0, i0 + c));
    ss = k.deviations(at.chunk, c, mean, at.slot, GROUP, at.lo, at.start, at.keys, at.count, ss);
  }
  return { ss, lo, count };
}

/**
 * The bucket of counts `h` (a view into the instance's memory: firstPass's hi, a slot of secondPass's lo) holding
 * the sample of 0-based rank `rank` (< the sum of h), scanning from bucket `from` whose preceding counts sum to
 * `c0` (an earlier seek's bucket and `before`, for ascending ranks), and the counts before that bucket. A scan in
 * WebAssembly: the same loop in JavaScript, run once per request, took 1-7 ms in workerd (vitest pool) where
 * node optimised it to 0.2 ms.
 */
export function seek(h: Uint32Array, rank: number, from = 0, c0 = 0): { bucket: number; before: number } {
  const { k } = instance();
  if (h.buffer !== k.memory.buffer) throw new Error("stats kernels: seek needs counts in the instance's memory");
  const bucket = k.seek(h.byteOffset, from, h.length, c0, rank);
  return { bucket, before: k.seekBefore() };
}

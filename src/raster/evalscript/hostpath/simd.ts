/**
 * True colour with its dataMask in AUTO (./scaled.ts writeScaled3MaskPacked's output) written by a WebAssembly
 * SIMD kernel (wasm/hostpath_kernels.ts, compiled to ./hostpath_kernels.wasm by `npm run build:wasm`), chunk by
 * chunk through a small kept instance: the chunk's three bands and dataMask bytes are copied into its memory, the
 * kernel writes the chunk's pixels as 32-bit words there (bytes R, G, B, A in memory order: WebAssembly memory is
 * little-endian on every platform, and a Uint32Array copy keeps the bytes), and they are copied to the output.
 * Per 1024 x 1024 true colour evaluation (bench/hostpath.workerd.ts, HostPathRuntime.evaluate in workerd, median
 * of 40 rounds, before / after back to back twice): 7.0 / 5.6 ms with writeScaled3MaskPacked, 3.0 / 3.0 ms with
 * this writer called once over the grid (runProgram's `whole` block); called per 1024-pixel block it took 4.6 ms
 * (copies and calls per block). Chunks of 4 to 64 Ki pixels timed alike; 16 Ki keep the memory at 320 KiB.
 */
import hostpathModule from "./hostpath_kernels.wasm";
import { HOSTPATH_WASM_BYTES } from "../../memory";

interface HostPathExports {
  memory: WebAssembly.Memory;
  __heap_base: WebAssembly.Global;
  /** Arguments as wasm/hostpath_kernels.ts names them (addresses are byte offsets in memory). */
  scaled3Mask(b0: number, b1: number, b2: number, m: number, out: number, n: number, ...x: number[]): void;
  scaled3Mask32(b0: number, b1: number, b2: number, m: number, out: number, n: number, ...x: number[]): void;
}

/** Pixels per chunk copied into WebAssembly memory (17 bytes each: three Float32 bands, a mask byte, a word out). */
export const SIMD_CHUNK = 16384;

/** The kept instance and views of its buffers (the memory grows once, before the views are made). */
interface Kept {
  k: HostPathExports;
  at: { b0: number; b1: number; b2: number; out: number; m: number };
  bands: [Float32Array, Float32Array, Float32Array];
  out: Uint32Array;
  mask: Uint8Array;
}
let kept: Kept | undefined;

/** The kept instance (its memory, SIMD_CHUNK x 17 bytes above its static data, allocated once per isolate). */
function instance(): Kept {
  if (kept) return kept;
  const k = new WebAssembly.Instance(hostpathModule, {}).exports as unknown as HostPathExports;
  const base = Math.ceil((k.__heap_base.value as number) / 16) * 16,
    c = SIMD_CHUNK;
  const at = { b0: base, b1: base + 4 * c, b2: base + 8 * c, out: base + 12 * c, m: base + 16 * c };
  const end = at.m + c;
  if (end > HOSTPATH_WASM_BYTES) throw new Error(`host path kernels: layout of ${end} bytes over HOSTPATH_WASM_BYTES`);
  const missing = end - k.memory.buffer.byteLength;
  if (missing > 0) k.memory.grow(Math.ceil(missing / 65536));
  const buf = k.memory.buffer;
  const band = (at: number) => new Float32Array(buf, at, c);
  return (kept = {
    k,
    at,
    bands: [band(at.b0), band(at.b1), band(at.b2)],
    out: new Uint32Array(buf, at.out, c),
    mask: new Uint8Array(buf, at.m, c),
  });
}

/** Whether `table` (a dataMask value's stored byte, 0..255) is AUTO's: 0 for 0, 255 for every other value. */
export const autoMaskTable = (table: ArrayLike<number>): boolean =>
  table.length === 256 && Array.prototype.every.call(table, (v: number, i: number) => v === (i ? 255 : 0));

/**
 * Writes pixels p0..p0+n-1 of bands s[0..2] times x[0..2] and dataMask m as out[o..o+n-1], each a 32-bit word
 * whose bytes in memory are R, G, B, A: the AUTO store (Uint8ClampedArray, ToUint8Clamp: NaN and v <= 0 give 0,
 * v >= 255 gives 255, else v rounded to the nearest integer, ties to even) of v = Math.fround(s[k][i] * x[k]) * 255,
 * and A 255 where m[i] is not 0, else 0 (AUTO's stored dataMask, autoMaskTable) - bit for bit
 * ./scaled.ts writeScaled3MaskPacked with that table. Per lane the kernel promotes the float32 value to float64,
 * multiplies by x, demotes to float32 (round to nearest, ties to even, as Math.fround), promotes, multiplies by
 * 255 (exact), clamps to [0, 255] (NaN to 0) and rounds ties to even (adding 2^52); when every x is a float32
 * value (`f32`), one float32 multiplication gives the same demoted product. WebAssembly SIMD (IEEE 754 arithmetic
 * with subnormals, no flush to zero). `n` any count (the last chunk may be partial; the kernel runs its pixels
 * rounded up to 4 inside its buffers).
 */
export function writeScaled3MaskSimd(
  out: Uint32Array,
  s: Float32Array[],
  x: Float64Array,
  f32: boolean,
  m: Uint8Array,
  p0: number,
  o: number,
  n: number,
): void {
  const { k, at, bands, out: words, mask } = instance();
  const [b0, b1, b2] = s as [Float32Array, Float32Array, Float32Array],
    [x0, x1, x2] = x as unknown as [number, number, number];
  for (let d = 0; d < n; d += SIMD_CHUNK) {
    const c = Math.min(SIMD_CHUNK, n - d),
      a = p0 + d,
      e = a + c;
    bands[0].set(b0.subarray(a, e));
    bands[1].set(b1.subarray(a, e));
    bands[2].set(b2.subarray(a, e));
    mask.set(m.subarray(a, e));
    if (f32) k.scaled3Mask32(at.b0, at.b1, at.b2, at.m, at.out, c, x0, x1, x2);
    else k.scaled3Mask(at.b0, at.b1, at.b2, at.m, at.out, c, x0, x1, x2);
    out.set(c === SIMD_CHUNK ? words : words.subarray(0, c), o + d);
  }
}

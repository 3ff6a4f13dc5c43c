/**
 * True colour with its dataMask in AUTO (./scaled.ts scaled3Writer's 32-bit words) written by a WebAssembly
 * SIMD kernel (wasm/hostpath_kernels.ts, compiled to ./hostpath_kernels.wasm by `npm run build:wasm`), chunk by
 * chunk through a small kept instance: the chunk's three bands and dataMask bytes are copied into its memory, the
 * kernel writes the chunk's pixels as 32-bit words there (bytes R, G, B, A in memory order: WebAssembly memory is
 * little-endian on every platform, and a Uint32Array copy keeps the bytes), and they are copied to the output.
 * Per 1024 x 1024 true colour evaluation (bench/hostpath.workerd.ts, HostPathRuntime.evaluate in workerd, median
 * of 40 rounds, before / after back to back twice): 7.0 / 5.6 ms with the JavaScript loop it replaced (a 32-bit
 * store per pixel, since removed), 3.0 / 3.0 ms with
 * this writer called once over the grid (runProgram's `whole` block); called per 1024-pixel block it took 4.6 ms
 * (copies and calls per block). Chunks of 4 to 64 Ki pixels timed alike; 16 Ki keep the memory at 320 KiB.
 * NDI classes with the dataMask (`n < 0.1 ? [1, 0.8, 0.2, s.dataMask] : [...]`, ./output.ts packedWriter) go the
 * same way (writeNdiClassSimd: two bands and the mask in, words out, the 512 possible words in a 2 KiB table);
 * the NDI's operation is then dropped (./interpret.ts fusableOf). bench/hostpath.workerd.ts "NDVI UINT8", before /
 * after back to back, three pairs: 5.2 / 3.4, 8.0 (loaded) / 3.4, 5.4 / 2.8 ms median.
 * True colour in FLOAT32 (`[2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02]`, ./scaled.ts writeScaled3F32) likewise
 * (writeScaled3F32Simd: three bands in, the products interleaved R, G, B out, chunks of 8 Ki pixels; 4 Ki timed
 * slower, 3.6-4.0 against 3.2-3.4 ms): "true colour FLOAT32", before / after back to back, pairs with the floor
 * row alike: 4.6 / 2.8, 3.8 / 3.0, 4.4 / 3.0 ms median; least 3.4-3.6 / 2.6-2.8 ms in every pair.
 */
import hostpathModule from "./hostpath_kernels.wasm";
import { HOSTPATH_WASM_BYTES } from "../../memory";

interface HostPathExports {
  memory: WebAssembly.Memory;
  __heap_base: WebAssembly.Global;
  /** Arguments as wasm/hostpath_kernels.ts names them (addresses are byte offsets in memory). */
  scaled3Mask(
    b0: number,
    b1: number,
    b2: number,
    m: number,
    out: number,
    n: number,
    x0: number,
    x1: number,
    x2: number,
    f32: number,
  ): void;
  scaled3(
    b0: number,
    b1: number,
    b2: number,
    out: number,
    n: number,
    x0: number,
    x1: number,
    x2: number,
    f32: number,
  ): void;
  ndiClass(b0: number, b1: number, m: number, rows: number, out: number, n: number, c: number, mode: number): void;
}

/**
 * Pixels per chunk copied into WebAssembly memory (17 bytes each: three Float32 bands, a mask byte, a word out; the
 * NDI classes use two of the bands and a table of 512 words after them).
 */
export const SIMD_CHUNK = 16384;
/**
 * Pixels per chunk of writeScaled3F32Simd: 24 bytes each (three Float32 bands in, three Float32 values out), so
 * that the chunk fits in the bytes of SIMD_CHUNK's three bands (12 bytes each) and the memory stays as it is.
 */
export const SIMD_CHUNK_F32 = SIMD_CHUNK / 2;

/** The kept instance and views of its buffers (the memory grows once, before the views are made). */
interface Kept {
  k: HostPathExports;
  at: { b0: number; b1: number; b2: number; out: number; m: number; rows: number };
  bands: [Float32Array, Float32Array, Float32Array];
  out: Uint32Array;
  mask: Uint8Array;
  /** ndiClass's 512 words (writeNdiClassSimd). */
  rows: Uint32Array;
  /** writeScaled3F32Simd's buffers: three bands of SIMD_CHUNK_F32 values, then 3 x SIMD_CHUNK_F32 values out. */
  f32: { at: { b0: number; b1: number; b2: number; out: number }; bands: Float32Array[]; out: Float32Array };
}
let kept: Kept | undefined;

/**
 * The kept instance (its memory, SIMD_CHUNK x 17 bytes and 2 KiB of rows above its static data, allocated once
 * per isolate; writeScaled3F32Simd's buffers, SIMD_CHUNK_F32 x 24 bytes, lie in the first SIMD_CHUNK x 12).
 * @throws Error when that layout does not fit in HOSTPATH_WASM_BYTES.
 */
function instance(): Kept {
  if (kept) return kept;
  const k = new WebAssembly.Instance(hostpathModule, {}).exports as unknown as HostPathExports;
  const base = Math.ceil((k.__heap_base.value as number) / 16) * 16,
    c = SIMD_CHUNK;
  const at = {
    b0: base,
    b1: base + 4 * c,
    b2: base + 8 * c,
    out: base + 12 * c,
    m: base + 16 * c,
    rows: base + 17 * c,
  };
  const end = at.rows + 512 * 4;
  if (end > HOSTPATH_WASM_BYTES) throw new Error(`host path kernels: layout of ${end} bytes over HOSTPATH_WASM_BYTES`);
  const missing = end - k.memory.buffer.byteLength;
  if (missing > 0) k.memory.grow(Math.ceil(missing / 65536));
  const buf = k.memory.buffer;
  const band = (at: number) => new Float32Array(buf, at, c);
  const h = SIMD_CHUNK_F32,
    f = { b0: base, b1: base + 4 * h, b2: base + 8 * h, out: base + 12 * h };
  if (f.out + 12 * h > at.out) throw new Error("host path kernels: FLOAT32 chunk over the bands");
  return (kept = {
    k,
    at,
    bands: [band(at.b0), band(at.b1), band(at.b2)],
    out: new Uint32Array(buf, at.out, c),
    mask: new Uint8Array(buf, at.m, c),
    rows: new Uint32Array(buf, at.rows, 512),
    f32: {
      at: f,
      bands: [f.b0, f.b1, f.b2].map((a) => new Float32Array(buf, a, h)),
      out: new Float32Array(buf, f.out, 3 * h),
    },
  });
}

/**
 * Writes pixels p0..p0+n-1 of bands s[0..2] times x[0..2] and dataMask m as out[o..o+n-1], each a 32-bit word
 * whose bytes in memory are R, G, B, A: the AUTO store (Uint8ClampedArray, ToUint8Clamp: NaN and v <= 0 give 0,
 * v >= 255 gives 255, else v rounded to the nearest integer, ties to even) of v = Math.fround(s[k][i] * x[k]) * 255,
 * and A 255 where m[i] is not 0, else 0 (AUTO's stored dataMask) - bit for bit the Uint8ClampedArray store of
 * each band (./scaled.ts writeScaled3MaskAuto's bytes). Per lane the kernel promotes the float32 value to float64,
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
    k.scaled3Mask(at.b0, at.b1, at.b2, at.m, at.out, c, x0, x1, x2, f32 ? 1 : 0);
    out.set(c === SIMD_CHUNK ? words : words.subarray(0, c), o + d);
  }
}

/**
 * Writes pixels p0..p0+n-1 of bands s[0..2] times x[0..2] as out[o + 3 i + k] = Math.fround(s[k][p0 + i] * x[k])
 * (i = 0..n-1, k = 0..2: an output of exactly those three bands in FLOAT32) - bit for bit ./scaled.ts
 * writeScaled3F32 with bands = 3. Per lane the kernel (wasm/hostpath_kernels.ts scaled3) promotes the float32
 * value to float64, multiplies by x and demotes to float32 (round to nearest, ties to even, as the Float32Array
 * store); when every x is a float32 value (`f32`), one float32 multiplication gives the same value.
 * The products are interleaved R, G, B by shuffles in the kernel, chunks of SIMD_CHUNK_F32 pixels copied in and
 * out. `n` any count (the kernel runs a partial chunk's pixels rounded up to 4 inside its buffers).
 */
export function writeScaled3F32Simd(
  out: Float32Array,
  s: Float32Array[],
  x: Float64Array,
  f32: boolean,
  p0: number,
  o: number,
  n: number,
): void {
  const {
    k,
    f32: { at, bands, out: values },
  } = instance();
  const [x0, x1, x2] = x as unknown as [number, number, number];
  for (let d = 0, c = 0; d < n; d += c) {
    c = Math.min(SIMD_CHUNK_F32, n - d);
    for (let j = 0; j < 3; j++) bands[j]!.set(s[j]!.subarray(p0 + d, p0 + d + c));
    k.scaled3(at.b0, at.b1, at.b2, at.out, c, x0, x1, x2, f32 ? 1 : 0);
    out.set(c === SIMD_CHUNK_F32 ? values : values.subarray(0, 3 * c), o + 3 * d);
  }
}

/** The comparisons of writeNdiClassSimd (ndiClass's `mode`): v the NDI, c the constant. */
export const NDI_CLASS_MODES = { "v < c": 0, "v <= c": 1, "c < v": 2, "c <= v": 3 } as const;
/** Added to a mode of NDI_CLASS_MODES: v is the library's index(x, y) (0 where x + y == 0), not the NDI. */
export const NDI_CLASS_INDEX = 4;

/**
 * Writes pixels p0..p0+n-1 as out[o..o+n-1]: word i is rows[(t ? 256 : 0) | m[p0 + i]] where t is the comparison
 * `mode` (NDI_CLASS_MODES) of v and the constant c (false when either is NaN, as JavaScript's < and <=), with
 * v = (x - y) / (x + y), x = a[p0 + i] and y = b[p0 + i] as float64 (JavaScript's value: float32 promoted, IEEE 754
 * float64 subtraction, addition, division: +-Infinity or NaN where x + y is 0), or with NDI_CLASS_INDEX added
 * index(x, y) = x + y != 0 ? (x - y) / (x + y) : 0 - bit for bit ./output.ts packLess / packLessOrEqual over a
 * register of OP.NDIB (./output.ts ndib) or OP.INDEXB and a register holding c. `rows`: 512 words (a pixel's
 * stored bands, by comparison x dataMask value), copied byte for byte. The kernel (wasm/hostpath_kernels.ts
 * ndiClass) computes v in f64x2 lanes and looks the words up one by one. `n` any count.
 */
export function writeNdiClassSimd(
  out: Uint32Array,
  a: Float32Array,
  b: Float32Array,
  c: number,
  mode: number,
  m: Uint8Array,
  rows: Uint32Array,
  p0: number,
  o: number,
  n: number,
): void {
  const { k, at, bands, out: words, mask, rows: table } = instance();
  table.set(rows);
  for (let d = 0; d < n; d += SIMD_CHUNK) {
    const e = Math.min(SIMD_CHUNK, n - d),
      s = p0 + d;
    bands[0].set(a.subarray(s, s + e));
    bands[1].set(b.subarray(s, s + e));
    mask.set(m.subarray(s, s + e));
    k.ndiClass(at.b0, at.b1, at.m, at.rows, at.out, e, c, mode);
    out.set(e === SIMD_CHUNK ? words : words.subarray(0, e), o + d);
  }
}

/**
 * The host path's writers of bands that are a band times a constant (./fuse.ts `scaled` writes), as FLOAT32 or AUTO
 * (./output.ts outputWriter, bandWriter): one band, or three consecutive ones (true colour's `[2.5 * B04, 2.5 * B03,
 * 2.5 * B02]`) in one loop, as writeScaled writes each (not three strided loops: 1.2-1.4x faster, measured in node
 * 22), FLOAT32 and AUTO apart (one element kind per loop), with the dataMask after them in the same loop; an
 * output of just those bands (and, in AUTO, the dataMask) by the WebAssembly SIMD kernels of ./simd.ts.
 */
import type { Write } from "./fuse";
import { writeScaled3F32Simd, writeScaled3MaskSimd } from "./simd";
import { maskTable, rawOf, type OutputTarget, type Raw } from "./stored";

/** Band b times x as FLOAT32 (f = 1, out a Float32Array) or AUTO (f = 255, out a Uint8ClampedArray). */
export function writeScaled(
  out: Float32Array | Uint8ClampedArray,
  b: Float32Array,
  x: number,
  f: number,
  p0: number,
  o: number,
  n: number,
  bands: number,
): void {
  const end = o + n * bands;
  for (let q = o, i = p0; q < end; q += bands, i++) out[q] = Math.fround(b[i]! * x) * f;
}
/** A writer of three bands (./fuse.ts `scaled` writes: bands s[0..2] times x[0..2]) as bands 0..2 from value o. */
type Scaled3<T> = (out: T, s: Float32Array[], x: Float64Array, p0: number, o: number, n: number, bands: number) => void;
/**
 * Bands s[0..2] times x[0..2] as FLOAT32: out[o + bands i + k] = Math.fround(s[k][p0 + i] * x[k]) (the Float32Array
 * store rounds the float64 product), i = 0..n-1. The WebAssembly SIMD kernel (./simd.ts writeScaled3F32Simd) writes
 * an output of just these three bands (scaled3Writer); this loop is its fallback and reference.
 */
export const writeScaled3F32: Scaled3<Float32Array> = (out, s, x, p0, o, n, bands) => {
  const [b0, b1, b2] = s as [Float32Array, Float32Array, Float32Array],
    [x0, x1, x2] = x as unknown as [number, number, number];
  for (let q = o, i = p0, e = p0 + n; i < e; q += bands, i++) {
    out[q] = b0[i]! * x0;
    out[q + 1] = b1[i]! * x1;
    out[q + 2] = b2[i]! * x2;
  }
};
const writeScaled3Auto: Scaled3<Uint8ClampedArray> = (out, s, x, p0, o, n, bands) => {
  const [b0, b1, b2] = s as [Float32Array, Float32Array, Float32Array],
    [x0, x1, x2] = x as unknown as [number, number, number];
  for (let q = o, i = p0, e = p0 + n; i < e; q += bands, i++) {
    out[q] = Math.fround(b0[i]! * x0) * 255;
    out[q + 1] = Math.fround(b1[i]! * x1) * 255;
    out[q + 2] = Math.fround(b2[i]! * x2) * 255;
  }
};
/** writeScaled3F32 / writeScaled3Auto with the dataMask's stored values (`table`) as the fourth band, in the same loop. */
type Scaled3Mask<T> = (
  out: T,
  s: Float32Array[],
  x: Float64Array,
  m: Uint8Array,
  table: Raw,
  p0: number,
  o: number,
  n: number,
  bands: number,
) => void;
const writeScaled3MaskF32: Scaled3Mask<Float32Array> = (out, s, x, m, table, p0, o, n, bands) => {
  const [b0, b1, b2] = s as [Float32Array, Float32Array, Float32Array],
    [x0, x1, x2] = x as unknown as [number, number, number];
  for (let q = o, i = p0, e = p0 + n; i < e; q += bands, i++) {
    out[q] = b0[i]! * x0;
    out[q + 1] = b1[i]! * x1;
    out[q + 2] = b2[i]! * x2;
    out[q + 3] = table[m[i]!]!;
  }
};
const writeScaled3MaskAuto: Scaled3Mask<Uint8ClampedArray> = (out, s, x, m, table, p0, o, n, bands) => {
  const [b0, b1, b2] = s as [Float32Array, Float32Array, Float32Array],
    [x0, x1, x2] = x as unknown as [number, number, number];
  for (let q = o, i = p0, e = p0 + n; i < e; q += bands, i++) {
    out[q] = Math.fround(b0[i]! * x0) * 255;
    out[q + 1] = Math.fround(b1[i]! * x1) * 255;
    out[q + 2] = Math.fround(b2[i]! * x2) * 255;
    out[q + 3] = table[m[i]!]!;
  }
};
/**
 * The writer of the three `scaled` writes at writes[j..j+2] of target t, and of the dataMask after them when it
 * follows, or null when writes[j..j+2] are not three such writes or t is stored in another type than FLOAT32 or
 * AUTO. `write(p0, o, n)` as outputWriter's parts (o: index of the output's first value); `used`: the writes it
 * covers (3, or 4 with the dataMask). A FLOAT32 output (or one not converted) of just those three bands is written
 * by the WebAssembly SIMD kernel (./simd.ts writeScaled3F32Simd, `whole`) when no constant is NaN, else by
 * writeScaled3F32. An AUTO output of just those four bands, 4-byte aligned, is written a pixel per 32-bit word: by
 * the WebAssembly SIMD kernel (./simd.ts writeScaled3MaskSimd, `whole`: it takes any n; AUTO stores a dataMask
 * value as 0 or 255, which the kernel computes).
 */
export function scaled3Writer(
  t: OutputTarget,
  writes: Write[],
  j: number,
  mask: Uint8Array,
  bands: Float32Array[],
): { write: (p0: number, o: number, n: number) => void; used: number; whole?: true } | null {
  const three = writes.slice(j, j + 3);
  const direct = !t.convert || t.sampleType === "FLOAT32" || t.sampleType === "AUTO";
  if (!direct || three.length !== 3 || !three.every((w) => w.kind === "scaled")) return null;
  const q = writes.length,
    s = three.map((w) => bands[(w as { k: number }).k]!),
    x = Float64Array.from(three, (w) => (w as { x: number }).x),
    raw = rawOf(t.array),
    auto = t.convert && t.sampleType === "AUTO";
  const out = auto ? new Uint8ClampedArray(raw.buffer, raw.byteOffset, raw.length) : (t.array as Float32Array);
  if (writes[j + 3]?.kind !== "mask") {
    // a NaN constant stays with the loop: which of two NaN operands' payloads JavaScript keeps differs between V8's
    // tiers and builds (the kernel keeps the band's)
    if (!auto && q === 3 && out instanceof Float32Array && !x.some(Number.isNaN)) {
      const f32 = x.every((v) => Math.fround(v) === v);
      return { write: (p0, o, n) => writeScaled3F32Simd(out, s, x, f32, p0, o, n), used: 3, whole: true };
    }
    const write: (p0: number, o: number, n: number) => void = auto
      ? (p0, o, n) => writeScaled3Auto(out as Uint8ClampedArray, s, x, p0, o + j, n, q)
      : (p0, o, n) => writeScaled3F32(out as Float32Array, s, x, p0, o + j, n, q);
    return { write, used: 3 };
  }
  const table = maskTable(t);
  if (auto && q === 4 && raw.byteOffset % 4 === 0) {
    const out32 = new Uint32Array(raw.buffer, raw.byteOffset, raw.length >> 2),
      f32 = x.every((v) => Math.fround(v) === v);
    return { write: (p0, o, n) => writeScaled3MaskSimd(out32, s, x, f32, mask, p0, o / 4, n), used: 4, whole: true };
  }
  const write: (p0: number, o: number, n: number) => void = auto
    ? (p0, o, n) => writeScaled3MaskAuto(out as Uint8ClampedArray, s, x, mask, table, p0, o + j, n, q)
    : (p0, o, n) => writeScaled3MaskF32(out as Float32Array, s, x, mask, table, p0, o + j, n, q);
  return { write, used: 4 };
}

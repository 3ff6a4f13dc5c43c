/**
 * Stored values of the host path's outputs: how a register's values are stored in an output array (writerOf: the
 * Float32 value first, then AUTO as the Uint8ClampedArray store of value x 255, the integer types as
 * min(max(floor(v + 0.5))), as sandbox/values.js `toStored` converts them), and the stored values of given values
 * by that same writer (storer, storedMany, maskTable), which the writers of ./output.ts precompute for constants,
 * comparisons, ramps and the dataMask.
 */
import type { SampleArray } from "../sampletype";
import type { SampleType } from "../types";

/** A register: one value per pixel of a block. */
export type R = Float64Array;

/** One output array: Float32 values or the stored sampleType's array, band-interleaved. */
export interface OutputTarget {
  sampleType: SampleType;
  /** Convert to the stored sampleType (else Float32 values). */
  convert: boolean;
  array: Float32Array | SampleArray;
}

/**
 * Writers of a register (n pixels) as band j of `bands` from output pixel p, one per array type (each loop sees one
 * element kind): Float32 values; AUTO as the Uint8ClampedArray store of the Float32 value x 255; the integer types
 * as min(max(floor(f + 0.5), min), max) of the Float32 value f (sandbox/values.js toStored, equal to toSampleType).
 */
function writeF32(out: Float32Array, v: R, o: number, n: number, bands: number): void {
  // one band: TypedArray set converts as a store does (2.2x the loop's speed, node 22)
  if (bands === 1) return out.set(n === v.length ? v : v.subarray(0, n), o);
  for (let i = 0; i < n; i++) out[o + i * bands] = v[i]!;
}
function writeAuto(out: Uint8ClampedArray, v: R, o: number, n: number, bands: number): void {
  for (let i = 0; i < n; i++) out[o + i * bands] = Math.fround(v[i]!) * 255;
}
function writeU8(out: Uint8Array, v: R, o: number, n: number, bands: number): void {
  for (let i = 0; i < n; i++) out[o + i * bands] = Math.min(Math.max(Math.floor(Math.fround(v[i]!) + 0.5), 0), 255);
}
function writeI8(out: Int8Array, v: R, o: number, n: number, bands: number): void {
  for (let i = 0; i < n; i++) out[o + i * bands] = Math.min(Math.max(Math.floor(Math.fround(v[i]!) + 0.5), -128), 127);
}
function writeU16(out: Uint16Array, v: R, o: number, n: number, bands: number): void {
  for (let i = 0; i < n; i++) out[o + i * bands] = Math.min(Math.max(Math.floor(Math.fround(v[i]!) + 0.5), 0), 65535);
}
function writeI16(out: Int16Array, v: R, o: number, n: number, bands: number): void {
  for (let i = 0; i < n; i++)
    out[o + i * bands] = Math.min(Math.max(Math.floor(Math.fround(v[i]!) + 0.5), -32768), 32767);
}

/** The writer of a register into an output target: (register, first output value index, n, bands) => void. */
export function writerOf(t: OutputTarget): (v: R, o: number, n: number, bands: number) => void {
  const a = t.array;
  if (!t.convert || t.sampleType === "FLOAT32") return (v, o, n, bands) => writeF32(a as Float32Array, v, o, n, bands);
  switch (t.sampleType) {
    case "AUTO": {
      const c = new Uint8ClampedArray(a.buffer as ArrayBuffer, a.byteOffset, a.length);
      return (v, o, n, bands) => writeAuto(c, v, o, n, bands);
    }
    case "UINT8":
      return (v, o, n, bands) => writeU8(a as Uint8Array, v, o, n, bands);
    case "INT8":
      return (v, o, n, bands) => writeI8(a as Int8Array, v, o, n, bands);
    case "UINT16":
      return (v, o, n, bands) => writeU16(a as Uint16Array, v, o, n, bands);
    case "INT16":
      return (v, o, n, bands) => writeI16(a as Int16Array, v, o, n, bands);
  }
}

/** The raw elements of a stored array (stored values copy exactly): one element kind per element size. */
export type Raw = Uint8Array | Uint16Array | Float32Array;
export const rawOf = (a: Float32Array | SampleArray | Uint8ClampedArray): Raw =>
  a.BYTES_PER_ELEMENT === 4
    ? (a as Float32Array)
    : new (a.BYTES_PER_ELEMENT === 2 ? Uint16Array : Uint8Array)(a.buffer as ArrayBuffer, a.byteOffset, a.length);

/** The stored value (raw element) of a value in target t, by the very writer of its registers. */
export function storer(t: OutputTarget): (x: number) => number {
  const one = { ...t, array: new (t.array.constructor as new (n: number) => SampleArray)(1) };
  const write = writerOf(one),
    raw = rawOf(one.array),
    v = new Float64Array(1);
  return (x) => {
    v[0] = x;
    write(v, 0, 1, 1);
    return raw[0]!;
  };
}

/**
 * The stored values (raw elements, of t's element kind) of values xs in target t, by one call of the very writer
 * of its registers.
 */
export function storedMany(t: OutputTarget, xs: ArrayLike<number>): Raw {
  const many = { ...t, array: new (t.array.constructor as new (n: number) => SampleArray)(xs.length) };
  writerOf(many)(Float64Array.from(xs), 0, xs.length, 1);
  return rawOf(many.array);
}

/** The dataMask values 0..255. */
const MASK_VALUES = Float64Array.from({ length: 256 }, (_, m) => m);
/** maskTable's tables by stored type (`convert` and sampleType): the same for every target of that type. */
const MASK_TABLES = new Map<string, Raw>();

/** The stored value (raw element) of each dataMask value 0..255 in target t (cached per stored type). */
export function maskTable(t: OutputTarget): Raw {
  const key = `${t.convert} ${t.sampleType}`;
  let table = MASK_TABLES.get(key);
  if (!table) MASK_TABLES.set(key, (table = storedMany(t, MASK_VALUES)));
  return table;
}

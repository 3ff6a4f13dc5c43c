/**
 * The output side of the host path's interpreter (./interpret.ts): each output band written band-interleaved into
 * its output array, converted to the stored sampleType as the sandbox converts it (./stored.ts writerOf;
 * sandbox/values.js `toStored`: the Float32 value first, then AUTO as the Uint8ClampedArray store of value x 255,
 * the integer types as min(max(floor(v + 0.5))). A band that is a constant, the dataMask or a choice between two
 * constants (./fuse.ts) has its stored values computed once, by the same writer, and is written with no conversion
 * per pixel.
 */
import type { RampWrite, Write } from "./fuse";
import type { RampTable } from "./ramp";
import { rampMaskWriter, rampWriter } from "./rampwrite";
import { lutWriter } from "./lutwrite";
import { scaled3Writer, writeScaled } from "./scaled";
import type { FiniteTable } from "./finite";
import { NDI_CLASS_INDEX, NDI_CLASS_MODES, writeNdiClassSimd } from "./simd";
import { maskTable, rawOf, storedMany, storer, writerOf, type OutputTarget, type R, type Raw } from "./stored";

/** Pixels per call of a writer at most (./interpret.ts BLOCK). */
const BLOCK_MAX = 1024;

/** The pixels of one evaluation: band arrays by name (absent: zeros) and the dataMask. */
export interface ProgramInput {
  bands: Record<string, Float32Array>;
  dataMask: Uint8Array;
}

function writeConst(out: Raw, x: number, o: number, n: number, bands: number): void {
  const end = o + n * bands;
  for (let q = o; q < end; q += bands) out[q] = x;
}
function writeLess(out: Raw, a: R, b: R, xy: Raw, o: number, n: number, bands: number): void {
  const end = o + n * bands;
  for (let q = o, i = 0; q < end; q += bands, i++) out[q] = xy[+(a[i]! < b[i]!)]!;
}
function writeLessOrEqual(out: Raw, a: R, b: R, xy: Raw, o: number, n: number, bands: number): void {
  const end = o + n * bands;
  for (let q = o, i = 0; q < end; q += bands, i++) out[q] = xy[+(a[i]! <= b[i]!)]!;
}
function writeMask(out: Raw, table: Raw, m: Uint8Array, p0: number, o: number, n: number, bands: number): void {
  const end = o + n * bands;
  for (let q = o, i = p0; q < end; q += bands, i++) out[q] = table[m[i]!]!;
}

/** `(x - y) / (x + y)` of bands a and b at pixels p0.. as band values o, o + bands, ... (FLOAT32 stores). */
function writeNdi(
  out: Float32Array,
  a: Float32Array,
  b: Float32Array,
  p0: number,
  o: number,
  n: number,
  bands: number,
): void {
  for (let q = o, i = p0, e = p0 + n; i < e; q += bands, i++) {
    const x = a[i]!,
      y = b[i]!;
    out[q] = (x - y) / (x + y);
  }
}
/** The same values into register d (OP.NDIB of ./interpret.ts; before the conversions of the other sampleTypes). */
export function ndib(d: R, a: Float32Array, b: Float32Array, p0: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = a[p0 + i]!,
      y = b[p0 + i]!;
    d[i] = (x - y) / (x + y);
  }
}

/**
 * The writer of band j of `bands` of target t: (first input pixel p0, first output value index o, n) => void.
 * @param regs the program's registers; mask the input's dataMask; bands the band arrays (by LOADF's k); luts the
 * program's finite values (`lut` writes).
 */
export function bandWriter(
  t: OutputTarget,
  w: Exclude<Write, RampWrite>,
  regs: R[],
  mask: Uint8Array,
  bands: Float32Array[],
  luts: FiniteTable[],
): (p0: number, o: number, n: number, bands: number) => void {
  const raw = rawOf(t.array);
  switch (w.kind) {
    case "lut": {
      const table = luts[w.t]!;
      return lutWriter(table, storedMany(t, table.values), raw, bands, mask);
    }
    case "reg": {
      const write = writerOf(t),
        v = regs[w.r]!;
      return (_p0, o, n, bands) => write(v, o, n, bands);
    }
    case "const": {
      const x = storedMany(t, [w.x])[0]!;
      return (_p0, o, n, bands) => writeConst(raw, x, o, n, bands);
    }
    case "compare": {
      const xy = storedMany(t, [w.y, w.x]); // indexed by the comparison: no branch to mispredict
      const [a, b] = [regs[w.a]!, regs[w.b]!];
      const less = w.orEqual ? writeLessOrEqual : writeLess;
      return (_p0, o, n, q) => less(raw, a, b, xy, o, n, q);
    }
    case "scaled": {
      const b = bands[w.k]!;
      if (!t.convert || t.sampleType === "FLOAT32")
        return (p0, o, n, q) => writeScaled(t.array as Float32Array, b, w.x, 1, p0, o, n, q);
      if (t.sampleType === "AUTO") {
        const c = new Uint8ClampedArray(raw.buffer, raw.byteOffset, raw.length);
        return (p0, o, n, q) => writeScaled(c, b, w.x, 255, p0, o, n, q);
      }
      const write = writerOf(t),
        v = new Float64Array(BLOCK_MAX);
      return (p0, o, n, q) => {
        for (let i = 0; i < n; i++) v[i] = b[p0 + i]! * w.x;
        write(v, o, n, q);
      };
    }
    case "ndi": {
      const [x, y] = [bands[w.k]!, bands[w.j]!];
      if (!t.convert || t.sampleType === "FLOAT32")
        return (p0, o, n, q) => writeNdi(t.array as Float32Array, x, y, p0, o, n, q);
      const write = writerOf(t),
        v = new Float64Array(BLOCK_MAX);
      return (p0, o, n, q) => {
        ndib(v, x, y, p0, n);
        write(v, o, n, q);
      };
    }
    case "mask": {
      const table = maskTable(t);
      return (p0, o, n, bands) => writeMask(raw, table, mask, p0, o, n, bands);
    }
  }
}

/**
 * Pixels packed in 32 bits: each a row of `rows` by its comparison (256 when true) and dataMask value. One loop per
 * comparison (packLess, packLessOrEqual) on purpose: a comparison passed in as a function is a call per pixel, and
 * such calls in these loops cost workerd about twice the loop's own time.
 */
function packLess(
  out: Uint32Array,
  a: R,
  b: R,
  m: Uint8Array,
  rows: Uint32Array,
  p0: number,
  o: number,
  n: number,
): void {
  for (let i = 0; i < n; i++) out[o + i] = rows[(a[i]! < b[i]! ? 256 : 0) | m[p0 + i]!]!;
}
function packLessOrEqual(
  out: Uint32Array,
  a: R,
  b: R,
  m: Uint8Array,
  rows: Uint32Array,
  p0: number,
  o: number,
  n: number,
): void {
  for (let i = 0; i < n; i++) out[o + i] = rows[(a[i]! <= b[i]! ? 256 : 0) | m[p0 + i]!]!;
}
function packMask(out: Uint32Array, m: Uint8Array, rows: Uint32Array, p0: number, o: number, n: number): void {
  for (let i = 0; i < n; i++) out[o + i] = rows[m[p0 + i]!]!;
}

/**
 * The writer of an output whose every band is a constant, the dataMask or a choice between two constants on one
 * comparison (classes with the dataMask: `n < 0.1 ? [1, 0.8, 0.2, s.dataMask] : [0.2, 0.6, 0.2, s.dataMask]`)
 * and whose pixel's stored values fill 32 bits (4 bands of 1 byte, 2 of 2, 1 of 4): one 32-bit store per pixel
 * from the 512 possible pixels (comparison x dataMask value), each band's value stored by its own writer
 * (so in the platform's byte order). When the comparison is between an NDI register of `fusable` and a constant
 * register, the WebAssembly SIMD kernel computes the NDI from the bands and writes the same words (./simd.ts
 * writeNdiClassSimd): that writer is `whole` and covers the NDI's register. Else undefined (the bands are written
 * one by one).
 */
function packedWriter(
  t: OutputTarget,
  writes: Write[],
  regs: R[],
  mask: Uint8Array,
  bands: Float32Array[],
  fusable: Fusable | undefined,
): OutputWrite | undefined {
  const q = writes.length,
    raw = rawOf(t.array);
  if (q * raw.BYTES_PER_ELEMENT !== 4 || raw.byteOffset % 4 !== 0) return undefined;
  const cmp = writes.find((w) => w.kind === "compare");
  const fits = (w: Write) =>
    w.kind === "const" ||
    w.kind === "mask" ||
    (w.kind === "compare" && w.a === cmp!.a && w.b === cmp!.b && w.orEqual === cmp!.orEqual);
  if (!writes.every(fits)) return undefined;
  // per band, its stored value by row key: the mask's table, a constant's value, a comparison's two values
  const byKey = writes.map((w) =>
    w.kind === "mask" ? maskTable(t) : storedMany(t, w.kind === "compare" ? [w.y, w.x] : [(w as { x: number }).x]),
  );
  const rows = new (raw.constructor as new (n: number) => Raw)(512 * q);
  for (let key = 0; key < 512; key++)
    writes.forEach((w, j) => {
      rows[key * q + j] = byKey[j]![w.kind === "mask" ? key & 255 : w.kind === "compare" ? key >> 8 : 0]!;
    });
  const out = new Uint32Array(raw.buffer, raw.byteOffset, raw.byteLength >> 2),
    rows32 = new Uint32Array(rows.buffer);
  if (!cmp || cmp.kind !== "compare") return (p0, o, n) => packMask(out, mask, rows32, p0, (o / q) | 0, n);
  const f = fusedNdi(cmp, fusable);
  if (f) {
    const [x, y] = [bands[f.k]!, bands[f.j]!];
    const write = (p0: number, o: number, n: number) =>
      writeNdiClassSimd(out, x, y, f.c, f.mode, mask, rows32, p0, (o / q) | 0, n);
    return Object.assign(write, { whole: true as const, covers: [f.r] });
  }
  const [a, b] = [regs[cmp.a]!, regs[cmp.b]!];
  const pack = cmp.orEqual ? packLessOrEqual : packLess;
  return (p0, o, n) => pack(out, a, b, mask, rows32, p0, (o / q) | 0, n);
}

/**
 * An output's writer (outputWriter). `whole`: it reads no register and takes any number of pixels n. `covers`:
 * registers of `fusable` whose value it computes itself from the bands (runProgram drops their operations).
 */
export type OutputWrite = ((p0: number, o: number, n: number) => void) & { whole?: true; covers?: number[] };

/**
 * Registers an output's writer may compute itself instead of reading them (./interpret.ts fusableOf): `ndi`, each
 * register that one OP.NDIB operation (bands k, j: (x - y) / (x + y)) or OP.INDEXB (`index`: index(x, y)) writes,
 * no other operation writes or reads, and only the writes of one output read (a writer that covers one computes
 * every read of it in its output); `consts`, the program's constant registers and their values.
 */
export interface Fusable {
  ndi: Map<number, { k: number; j: number; index: boolean }>;
  consts: Map<number, number>;
}

/**
 * The NDI comparison a compare write makes when one side is a register of fusable.ndi and the other a constant
 * register: the NDI's register r and bands k, j, the constant c and writeNdiClassSimd's mode (./simd.ts
 * NDI_CLASS_MODES, plus NDI_CLASS_INDEX for index(x, y)); else undefined.
 */
function fusedNdi(
  w: Extract<Write, { kind: "compare" }>,
  fusable: Fusable | undefined,
): { r: number; k: number; j: number; c: number; mode: number } | undefined {
  if (!fusable) return undefined;
  const [ndiA, ndiB] = [fusable.ndi.get(w.a), fusable.ndi.get(w.b)];
  const [cA, cB] = [fusable.consts.get(w.a), fusable.consts.get(w.b)];
  const fused = (r: number, v: { k: number; j: number; index: boolean }, c: number, mode: number) => ({
    r,
    k: v.k,
    j: v.j,
    c,
    mode: mode + (v.index ? NDI_CLASS_INDEX : 0),
  });
  if (ndiA && cB !== undefined) return fused(w.a, ndiA, cB, NDI_CLASS_MODES[w.orEqual ? "v <= c" : "v < c"]);
  if (ndiB && cA !== undefined) return fused(w.b, ndiB, cA, NDI_CLASS_MODES[w.orEqual ? "c <= v" : "c < v"]);
  return undefined;
}

/**
 * The writer of a whole output (its bands' writes, in order) into target t: (first input pixel p0, index o of
 * its first output value, n) => void. An output of constants, the dataMask and one comparison's choices whose
 * pixel fills 32 bits is written a pixel per store (packedWriter); else three consecutive bands each a band times
 * a constant (and the dataMask after them) are written by one loop in FLOAT32 and AUTO (./scaled.ts
 * scaled3Writer), consecutive components of one ramp by rampWriter, every other band by its bandWriter. A writer
 * that reads no register and takes any n (true colour and its dataMask in AUTO, NDI classes, ./simd.ts) is marked
 * `whole`: runProgram then calls it once over the pixels when no operation is left to run.
 * @param ramps the program's ramp tables; luts its finite values; fusable the registers a writer may compute
 * itself (absent: none; a writer that does lists them in its `covers`).
 */
export function outputWriter(
  t: OutputTarget,
  writes: Write[],
  regs: R[],
  mask: Uint8Array,
  bands: Float32Array[],
  ramps: RampTable[],
  luts: FiniteTable[],
  fusable?: Fusable,
): OutputWrite {
  const packed = packedWriter(t, writes, regs, mask, bands, fusable) ?? rampMaskWriter(t, writes, regs, ramps, mask);
  if (packed) return packed;
  const q = writes.length,
    parts: ((p0: number, o: number, n: number) => void)[] = [];
  for (let j = 0; j < q; j++) {
    const scaled = scaled3Writer(t, writes, j, mask, bands);
    if (scaled?.whole && scaled.used === q) return Object.assign(scaled.write, { whole: true as const });
    if (scaled) {
      parts.push(scaled.write);
      j += scaled.used - 1;
      continue;
    }
    const w = writes[j]!;
    if (w.kind === "ramp") {
      const group = [w];
      for (let x = writes[j + 1]; x?.kind === "ramp" && x.r === w.r && x.t === w.t; x = writes[j + group.length])
        group.push(x);
      const write = rampWriter(t, group, regs, ramps),
        at = j;
      parts.push((_p0, o, n) => write(o + at, n, q));
      j += group.length - 1;
      continue;
    }
    const write = bandWriter(t, w, regs, mask, bands, luts),
      at = j;
    parts.push((p0, o, n) => write(p0, o + at, n, q));
  }
  return (p0, o, n) => {
    for (let k = 0; k < parts.length; k++) parts[k]!(p0, o, n);
  };
}

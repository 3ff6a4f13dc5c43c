/**
 * The vectorised interpreter of column programs (./program.ts): for each block of BLOCK pixels, each operation
 * is one loop over the block (a small kernel per operation code, so V8 keeps each loop monomorphic over
 * Float64Arrays), then the outputs' registers are written band-interleaved into the output arrays, converted
 * to the stored sampleType as the sandbox converts them (sandbox/values.js `toStored`: the Float32 value first,
 * then AUTO as the Uint8ClampedArray store of value x 255, the integer types as min(max(floor(v + 0.5))).
 * Memory: the program's registers (at most PROGRAM_LIMITS.regs x BLOCK x 8 bytes = 4 MiB) plus the outputs.
 */
import { OP, rampIndex, type Program } from "./program";
import { MATH1_KERNELS, MATH2_KERNELS } from "./mathkernels";
import type { Kernel } from "./kernel";
import type { SampleArray } from "../sampletype";
import type { SampleType } from "../types";

/** Pixels per block: 1024 doubles per register (8 KiB) keep a program's working set in the CPU caches. */
export const BLOCK = 1024;

type R = Float64Array;

/** One kernel per operation code (loads, Math and outputs have their own). */
const KERNELS: Record<number, Kernel> = {
  [OP.ADD]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! + b[i]!;
  },
  [OP.SUB]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! - b[i]!;
  },
  [OP.MUL]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! * b[i]!;
  },
  [OP.DIV]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! / b[i]!;
  },
  [OP.MOD]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! % b[i]!;
  },
  [OP.EXP]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! ** b[i]!;
  },
  [OP.NEG]: (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = -a[i]!;
  },
  [OP.TRUTHY]: (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i] ? 1 : 0;
  },
  [OP.NOT]: (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i] ? 0 : 1;
  },
  [OP.LT]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! < b[i]! ? 1 : 0;
  },
  [OP.LE]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! <= b[i]! ? 1 : 0;
  },
  [OP.GT]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! > b[i]! ? 1 : 0;
  },
  [OP.GE]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! >= b[i]! ? 1 : 0;
  },
  [OP.SEQ]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i] === b[i] ? 1 : 0;
  },
  [OP.SNE]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i] !== b[i] ? 1 : 0;
  },
  [OP.SELECT]: (d, a, b, c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i] ? b[i]! : c[i]!;
  },
  [OP.BAND]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! & b[i]!;
  },
  [OP.BOR]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! | b[i]!;
  },
  [OP.BXOR]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! ^ b[i]!;
  },
  [OP.SHL]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! << b[i]!;
  },
  [OP.SHR]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! >> b[i]!;
  },
  [OP.USHR]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = a[i]! >>> b[i]!;
  },
  [OP.BNOT]: (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = ~a[i]!;
  },
  [OP.INDEX]: (d, a, b, _c, n) => {
    for (let i = 0; i < n; i++) {
      const x = a[i]!,
        y = b[i]!;
      d[i] = x + y != 0 ? (x - y) / (x + y) : 0;
    }
  },
  [OP.ISNAN]: (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Number.isNaN(a[i]) ? 1 : 0;
  },
  [OP.ISFINITE]: (d, a, _b, _c, n) => {
    for (let i = 0; i < n; i++) d[i] = Number.isFinite(a[i]) ? 1 : 0;
  },
  // rampIndex and rampComponent of ./program.ts written out with the table in locals (the same comparisons and
  // arithmetic): called per pixel, the calls cost more than the search
  [OP.RAMPI]: (d, a, _b, _c, n, k, ramps) => {
    const t = ramps[k]!,
      v = t.values,
      m = v.length,
      v0 = v[0]!;
    if (!t.sorted) {
      for (let i = 0; i < n; i++) d[i] = rampIndex(t, a[i]!);
      return;
    }
    for (let i = 0; i < n; i++) {
      const x = a[i]!;
      // sorted values: the first i >= 1 with x <= v[i] is 1 + the count of v[1..] below x (no branch to mispredict)
      let s = 1;
      for (let j = 1; j < m; j++) s += v[j]! < x ? 1 : 0;
      d[i] = x > v0 ? s : 0;
    }
  },
  [OP.RAMPC]: (d, a, b, _c, n, k, ramps) => {
    const t = ramps[k >> 2]!,
      v = t.values,
      c = t.colors[k & 3]!,
      m = v.length,
      first = c[0]!,
      last = c[m - 1]!;
    for (let i = 0; i < n; i++) {
      const s = b[i]!;
      if (s === 0) d[i] = first;
      else if (s === m) d[i] = last;
      else {
        const lo = c[s - 1]!,
          hi = c[s]!,
          f = (a[i]! - v[s - 1]!) / (v[s]! - v[s - 1]!);
        d[i] = lo + (hi - lo) * f;
      }
    }
  },
};

/** The kernel of an operation. */
function kernelOf(code: number, k: number): Kernel {
  const f = code === OP.MATH1 ? MATH1_KERNELS[k] : code === OP.MATH2 ? MATH2_KERNELS[k] : KERNELS[code];
  if (!f) throw new Error(`column program: no kernel for operation ${code}`);
  return f;
}

/** Band values (Float32) of pixels p0.. into a register. */
function loadF32(d: R, src: Float32Array, p0: number, n: number): void {
  for (let i = 0; i < n; i++) d[i] = src[p0 + i]!;
}

/** dataMask values (Uint8) of pixels p0.. into a register. */
function loadMask(d: R, src: Uint8Array, p0: number, n: number): void {
  for (let i = 0; i < n; i++) d[i] = src[p0 + i]!;
}

/** The pixels of one evaluation: band arrays by name (absent: zeros) and the dataMask. */
export interface ProgramInput {
  bands: Record<string, Float32Array>;
  dataMask: Uint8Array;
}

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

/** The writer of an output target: (register, first output value index, n, bands) => void. */
function writerOf(t: OutputTarget): (v: R, o: number, n: number, bands: number) => void {
  const a = t.array;
  if (!t.convert || t.sampleType === "FLOAT32") return (v, o, n, bands) => writeF32(a as Float32Array, v, o, n, bands);
  switch (t.sampleType) {
    case "AUTO": {
      const c = new Uint8ClampedArray(a.buffer, a.byteOffset, a.length);
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

/**
 * Runs `program` over pixels [from, to) of `input` into `targets` (one per program output, in order; pixel p of
 * the input is pixel p - shift of the targets).
 */
export function runProgram(
  program: Program,
  input: ProgramInput,
  from: number,
  to: number,
  targets: OutputTarget[],
  shift = 0,
): void {
  const regs: R[] = Array.from({ length: program.regs }, () => new Float64Array(BLOCK));
  for (const [r, x] of program.consts) regs[r]!.fill(x);
  let zeros: Float32Array | undefined; // a band the scene lacks reads as 0 (as in the sandbox)
  const bands = program.bands.map((b) =>
    Object.hasOwn(input.bands, b) ? input.bands[b]! : (zeros ??= new Float32Array(to)),
  );
  const none = new Float64Array(0);
  const reg = (r: number) => (r < 0 ? none : regs[r]!);
  const steps = program.ops.map((o) => ({
    o,
    f: o.code === OP.LOADF || o.code === OP.LOADM ? undefined : kernelOf(o.code, o.k),
    d: regs[o.d]!,
    a: reg(o.a),
    b: reg(o.b),
    c: reg(o.c),
  }));
  const writes = program.outputs.flatMap((out, k) => {
    const write = writerOf(targets[k]!);
    return out.regs.map((r, j) => ({ v: regs[r]!, j, bands: out.regs.length, write }));
  });
  for (let p0 = from; p0 < to; p0 += BLOCK) {
    const n = Math.min(BLOCK, to - p0);
    for (const { o, f, d, a, b, c } of steps) {
      if (f) f(d, a, b, c, n, o.k, program.ramps);
      else if (o.code === OP.LOADM) loadMask(d, input.dataMask, p0, n);
      else loadF32(d, bands[o.k]!, p0, n);
    }
    for (const w of writes) w.write(w.v, (p0 - shift) * w.bands + w.j, n, w.bands);
  }
}

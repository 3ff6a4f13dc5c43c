/**
 * The vectorised interpreter of column programs (./program.ts): for each block of BLOCK pixels, each operation
 * is one loop over the block (a small kernel per operation code, so V8 keeps each loop monomorphic over
 * Float64Arrays), then the outputs' registers are written band-interleaved into the output arrays, converted
 * to the stored sampleType as the sandbox converts them (sandbox/values.js `toStored`: the Float32 value first,
 * then AUTO as the Uint8ClampedArray store of value x 255, the integer types as min(max(floor(v + 0.5))).
 * Memory: the program's registers (at most PROGRAM_LIMITS.regs x BLOCK x 8 bytes = 4 MiB) plus the outputs.
 */
import { OP, type Program } from "./program";
import { rampComponents, rampIndices } from "./ramp";
import { MATH1_KERNELS, MATH2_KERNELS } from "./mathkernels";
import type { Kernel } from "./kernel";
import { ndib, outputWriter, type Fusable } from "./output";
import type { OutputTarget } from "./stored";
import { lutStep } from "./finite";

/** Pixels per block: 1024 doubles per register (8 KiB) keep a program's working set in the CPU caches. */
export const BLOCK = 1024;

type R = Float64Array;

/** One kernel per operation code (loads, Math and outputs have their own). */
const KERNELS: Record<number, Kernel> = {
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
  // the ramp loops of ./ramp.ts (the table in locals: rampIndex called per pixel was 5x slower in workerd)
  [OP.RAMPI]: (d, a, _b, _c, n, k, ramps) => rampIndices(d, a, ramps[k]!, n),
  [OP.RAMPC]: (d, a, b, _c, n, k, ramps) => rampComponents(d, a, b, ramps[k >> 2]!, k & 3, n),
};

/** Operations exec runs through its switch. */
const SWITCHED = new Set<number>([
  OP.LOADF,
  OP.LOADM,
  OP.ADD,
  OP.SUB,
  OP.MUL,
  OP.DIV,
  OP.LT,
  OP.SELECT,
  OP.NDI,
  OP.NDIB,
  OP.INDEXB,
  OP.MULKB,
  OP.LUT,
]);

/** The kernel of an operation (undefined for those exec switches on). */
function kernelOf(code: number, k: number): Kernel | undefined {
  if (SWITCHED.has(code)) return undefined;
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

/**
 * The registers of `program` an output's writer may compute itself (./output.ts Fusable): each register written by
 * one OP.NDIB or OP.INDEXB operation and by no other operation, read by no operation and by the writes of one output only (so
 * that output's writer may compute the NDI from the bands and the operation be dropped), and the constant
 * registers no operation writes.
 */
export function fusableOf(program: Program): Fusable {
  const writers = new Map<number, number>(),
    read = new Set<number>();
  for (const o of program.ops) {
    writers.set(o.d, (writers.get(o.d) ?? 0) + 1);
    read.add(o.a).add(o.b).add(o.c);
  }
  const readers = new Map<number, Set<number>>(); // register -> outputs whose writes read it
  program.outputs.forEach((out, k) => {
    for (const w of out.writes) {
      const rs = w.kind === "reg" || w.kind === "ramp" ? [w.r] : w.kind === "compare" ? [w.a, w.b] : [];
      for (const r of rs) readers.set(r, (readers.get(r) ?? new Set()).add(k));
    }
  });
  const ndi: Fusable["ndi"] = new Map();
  for (const o of program.ops)
    if ((o.code === OP.NDIB || o.code === OP.INDEXB) && writers.get(o.d) === 1)
      if (!read.has(o.d) && readers.get(o.d)?.size === 1)
        ndi.set(o.d, { k: o.k, j: o.j!, index: o.code === OP.INDEXB });
  return { ndi, consts: new Map(program.consts.filter(([r]) => !writers.has(r))) };
}

/**
 * Runs `program` over pixels [from, to) of `input` into `targets` (one per program output, in order; pixel p of
 * the input is pixel p - shift of the targets), block by block of BLOCK pixels. One rule fuses operations into
 * writers: an output's writer that computes a register itself (its `covers`, only registers fusableOf offers:
 * written by one NDIB or INDEXB, read by that output alone) makes runProgram drop the operation writing it; and when no
 * operation is left and every writer is `whole` (./output.ts OutputWrite), the pixels are one block.
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
  const fusable = fusableOf(program);
  const writes = program.outputs.map((out, k) => ({
    bands: out.writes.length,
    write: outputWriter(targets[k]!, out.writes, regs, input.dataMask, bands, program.ramps, program.luts, fusable),
  }));
  const covered = new Set(writes.flatMap((w) => w.write.covers ?? []));
  const none = new Float64Array(0),
    noBand = new Float32Array(0);
  const reg = (r: number) => (r < 0 ? none : regs[r]!);
  const steps: Step[] = program.ops
    .filter((o) => !covered.has(o.d))
    .map((o) => ({
      code: o.code,
      k: o.k,
      f: kernelOf(o.code, o.k),
      d: regs[o.d]!,
      a: reg(o.a),
      b: reg(o.b),
      c: reg(o.c),
      x:
        o.code === OP.LOADF || o.code === OP.NDIB || o.code === OP.INDEXB || o.code === OP.MULKB ? bands[o.k]! : noBand,
      y: o.code === OP.NDIB || o.code === OP.INDEXB ? bands[o.j!]! : noBand,
      lut: o.code === OP.LUT ? lutStep(program.luts[o.k]!, bands, input.dataMask) : undefined,
    }));
  // no operation left and no writer reading registers: one block of them all (the writers' own chunks, ./simd.ts)
  const whole = steps.length === 0 && writes.every((w) => w.write.whole),
    block = whole ? Math.max(to - from, 1) : BLOCK;
  for (let p0 = from; p0 < to; p0 += block) {
    const n = Math.min(block, to - p0);
    for (let s = 0; s < steps.length; s++) exec(steps[s]!, input.dataMask, p0, n, program.ramps);
    for (let k = 0; k < writes.length; k++) writes[k]!.write(p0, (p0 - shift) * writes[k]!.bands, n);
  }
}

/** One operation bound to its registers (and band, for LOADF). */
interface Step {
  code: number;
  k: number;
  f: Kernel | undefined;
  d: R;
  a: R;
  b: R;
  c: R;
  /** Band arrays read (LOADF, NDIB, INDEXB, MULKB). */
  x: Float32Array;
  y: Float32Array;
  /** The loop of OP.LUT (./finite.ts). */
  lut: ((d: R, p0: number, n: number) => void) | undefined;
}

/** Runs one step over pixels p0..p0+n: the common operations through a switch (one call site each), others by table. */
function exec(s: Step, mask: Uint8Array, p0: number, n: number, ramps: Program["ramps"]): void {
  switch (s.code) {
    case OP.LOADF:
      return loadF32(s.d, s.x, p0, n);
    case OP.LOADM:
      return loadMask(s.d, mask, p0, n);
    case OP.ADD:
      return add(s.d, s.a, s.b, n);
    case OP.SUB:
      return sub(s.d, s.a, s.b, n);
    case OP.MUL:
      return mul(s.d, s.a, s.b, n);
    case OP.DIV:
      return div(s.d, s.a, s.b, n);
    case OP.LT:
      return lt(s.d, s.a, s.b, n);
    case OP.SELECT:
      return select(s.d, s.a, s.b, s.c, n);
    case OP.NDI:
      return ndi(s.d, s.a, s.b, n);
    case OP.NDIB:
      return ndib(s.d, s.x, s.y, p0, n);
    case OP.INDEXB:
      return indexb(s.d, s.x, s.y, p0, n);
    case OP.MULKB:
      return mulkb(s.d, s.x, s.b[0]!, p0, n);
    case OP.LUT:
      return s.lut!(s.d, p0, n);
    default:
      return s.f!(s.d, s.a, s.b, s.c, n, s.k, ramps);
  }
}
function add(d: R, a: R, b: R, n: number): void {
  for (let i = 0; i < n; i++) d[i] = a[i]! + b[i]!;
}
function sub(d: R, a: R, b: R, n: number): void {
  for (let i = 0; i < n; i++) d[i] = a[i]! - b[i]!;
}
function mul(d: R, a: R, b: R, n: number): void {
  for (let i = 0; i < n; i++) d[i] = a[i]! * b[i]!;
}
function div(d: R, a: R, b: R, n: number): void {
  for (let i = 0; i < n; i++) d[i] = a[i]! / b[i]!;
}
function lt(d: R, a: R, b: R, n: number): void {
  for (let i = 0; i < n; i++) d[i] = a[i]! < b[i]! ? 1 : 0;
}
function select(d: R, a: R, b: R, c: R, n: number): void {
  for (let i = 0; i < n; i++) d[i] = a[i] ? b[i]! : c[i]!;
}
function ndi(d: R, a: R, b: R, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = a[i]!,
      y = b[i]!;
    d[i] = (x - y) / (x + y);
  }
}
/** index(x, y) of bands a and b at pixels p0..p0+n-1 into register d (OP.INDEXB; the library's `index`). */
export function indexb(d: R, a: Float32Array, b: Float32Array, p0: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = a[p0 + i]!,
      y = b[p0 + i]!;
    d[i] = x + y != 0 ? (x - y) / (x + y) : 0;
  }
}
function mulkb(d: R, a: Float32Array, k: number, p0: number, n: number): void {
  for (let i = 0; i < n; i++) d[i] = a[p0 + i]! * k;
}

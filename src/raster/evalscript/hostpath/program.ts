/**
 * The column program of a pure evalscript (see ./index.ts): data, never code. A program is a list of operations
 * over registers (each a Float64Array of one block of pixels); ./interpret.ts runs each operation as one loop over
 * the block. `Builder` makes programs: registers holding a constant are folded at build time with the very
 * function the interpreter's loop applies (`SCALAR`), identical operations are shared (the same `sample.B04`
 * read twice is one load), and `finish` maps the virtual registers onto as few physical ones as their lifetimes
 * allow.
 *
 * Semantics are JavaScript's number semantics (float64, NaN, +-Infinity, -0): every kernel is the JS expression
 * the sandbox would evaluate for that operator or library call, so both evaluators agree bit for bit.
 */
import type { FiniteTable } from "./finite";
import { fuse, type Write } from "./fuse";
import { OP, type Operation } from "./ops";
import { rampComponent, rampIndex, type RampTable } from "./ramp";

export { OP };

/** One-argument Math functions (MATH1's k). */
export const MATH1 = [
  "abs",
  "sqrt",
  "cbrt",
  "exp",
  "expm1",
  "log",
  "log1p",
  "log2",
  "log10",
  "sin",
  "cos",
  "tan",
  "asin",
  "acos",
  "atan",
  "sinh",
  "cosh",
  "tanh",
  "asinh",
  "acosh",
  "atanh",
  "floor",
  "ceil",
  "round",
  "trunc",
  "sign",
  "fround",
] as const;
/** Two-argument Math functions (MATH2's k); min and max of more arguments are chained (associative in JS). */
export const MATH2 = ["pow", "atan2", "min", "max"] as const;

type Fn1 = (x: number) => number;
type Fn2 = (x: number, y: number) => number;
const M1: Fn1[] = MATH1.map((n) => Math[n] as Fn1);
const M2: Fn2[] = MATH2.map((n) => Math[n] as Fn2);

export { rampComponent, rampIndex, rampTable, type RampTable } from "./ramp";

/** The value of each operation for one pixel (constant folding; the interpreter's loops apply the same expressions). */
export function scalar(code: number, a: number, b: number, c: number, k: number, ramps: RampTable[]): number {
  switch (code) {
    case OP.ADD:
      return a + b;
    case OP.SUB:
      return a - b;
    case OP.MUL:
      return a * b;
    case OP.DIV:
      return a / b;
    case OP.MOD:
      return a % b;
    case OP.EXP:
      return a ** b;
    case OP.NEG:
      return -a;
    case OP.TRUTHY:
      return a ? 1 : 0;
    case OP.NOT:
      return a ? 0 : 1;
    case OP.LT:
      return a < b ? 1 : 0;
    case OP.LE:
      return a <= b ? 1 : 0;
    case OP.GT:
      return a > b ? 1 : 0;
    case OP.GE:
      return a >= b ? 1 : 0;
    case OP.SEQ:
      return a === b ? 1 : 0;
    case OP.SNE:
      return a !== b ? 1 : 0;
    case OP.SELECT:
      return a ? b : c;
    case OP.MATH1:
      return M1[k]!(a);
    case OP.MATH2:
      return M2[k]!(a, b);
    case OP.BAND:
      return a & b;
    case OP.BOR:
      return a | b;
    case OP.BXOR:
      return a ^ b;
    case OP.SHL:
      return a << b;
    case OP.SHR:
      return a >> b;
    case OP.USHR:
      return a >>> b;
    case OP.BNOT:
      return ~a;
    case OP.INDEX:
      return a + b != 0 ? (a - b) / (a + b) : 0;
    case OP.ISNAN:
      return Number.isNaN(a) ? 1 : 0;
    case OP.ISFINITE:
      return Number.isFinite(a) ? 1 : 0;
    case OP.RAMPI:
      return rampIndex(ramps[k]!, a);
    case OP.RAMPC:
      return rampComponent(ramps[k >> 2]!, a, b, k & 3);
  }
  throw new Error(`column program: no operation ${code}`);
}

export type { Operation };

/** One output of the program: its id and the register of each band. */
export interface ProgramOutput {
  id: string;
  regs: number[];
}

/** One output of a finished program: its id and how each band is written (./fuse.ts). */
export interface FinishedOutput {
  id: string;
  writes: Write[];
}

/** A finished program (physical registers). */
export interface Program {
  ops: Operation[];
  /** Registers in all. */
  regs: number;
  /** Registers holding a constant for the whole run: [register, value]. */
  consts: [number, number][];
  /** Band names of LOADF's k. */
  bands: string[];
  ramps: RampTable[];
  /** Tables of OP.LUT (./finite.ts). */
  luts: FiniteTable[];
  outputs: FinishedOutput[];
  /** Upper bound of the budget ticks the sandbox would charge a pixel (function calls and array elements, x 8). */
  ticks: number;
}

/** Bounds of a program: operations per pixel and registers (memory: regs x block x 8 bytes). */
export const PROGRAM_LIMITS = { ops: 4096, regs: 512 } as const;

/** Thrown when a script leaves the subset or a bound; the script then runs in the sandbox. */
export class NotPure extends Error {}

/** Makes a program: virtual registers, constant folding, shared operations. */
export class Builder {
  private readonly ops: Operation[] = [];
  private readonly constOf = new Map<string, number>();
  private readonly known = new Map<number, number>();
  private readonly shared = new Map<string, number>();
  private next = 0;
  readonly bands: string[] = [];
  readonly ramps: RampTable[] = [];

  /** The register holding constant x. */
  constant(x: number): number {
    const key = Object.is(x, -0) ? "-0" : String(x);
    let r = this.constOf.get(key);
    if (r === undefined) {
      r = this.next++;
      this.constOf.set(key, r);
      this.known.set(r, x);
    }
    return r;
  }

  /** The constant register r holds, or undefined for a column. */
  valueOf(r: number): number | undefined {
    return this.known.get(r);
  }

  /** d = code(a, b, c; k), folded when every operand is constant. */
  op(code: number, a = -1, b = -1, c = -1, k = 0): number {
    const va = a < 0 ? 0 : this.known.get(a),
      vb = b < 0 ? 0 : this.known.get(b),
      vc = c < 0 ? 0 : this.known.get(c);
    if (code !== OP.LOADF && code !== OP.LOADM && va !== undefined && vb !== undefined && vc !== undefined) {
      return this.constant(scalar(code, va, vb, vc, k, this.ramps));
    }
    if (code === OP.SELECT && va !== undefined) return va ? b : c;
    if (code === OP.SELECT && b === c) return b;
    const key = `${code},${a},${b},${c},${k}`;
    const seen = this.shared.get(key);
    if (seen !== undefined) return seen;
    if (this.ops.length >= PROGRAM_LIMITS.ops)
      throw new NotPure(`more than ${PROGRAM_LIMITS.ops} operations per pixel`);
    const d = this.next++;
    this.ops.push({ code, d, a, b, c, k });
    this.shared.set(key, d);
    return d;
  }

  /** The register of band `name` (loaded once). */
  band(name: string): number {
    if (name === "dataMask") return this.op(OP.LOADM);
    let k = this.bands.indexOf(name);
    if (k < 0) k = this.bands.push(name) - 1;
    return this.op(OP.LOADF, -1, -1, -1, k);
  }

  /** Index of a ramp table (RAMP's k = index * 4 + component). */
  ramp(t: RampTable): number {
    const k = this.ramps.indexOf(t);
    return k >= 0 ? k : this.ramps.push(t) - 1;
  }

  /**
   * The program computing `outputs`: common shapes become superinstructions and direct output writes
   * (./fuse.ts), operations no output needs are dropped, and virtual registers are mapped onto physical ones (a register is reused once its last reader has run; constants keep theirs).
   * @throws NotPure when more than PROGRAM_LIMITS.regs registers are live at once.
   */
  finish(outputs: ProgramOutput[], ticks: number): Program {
    const all = [...this.ops];
    const luts: FiniteTable[] = [];
    const writes = fuse(
      all,
      outputs.map((o) => o.regs),
      this.known,
      { luts, scalar: (code, a, b, c, k) => scalar(code, a, b, c, k, this.ramps) },
    );
    const written = writes.flat().flatMap((w) => ("r" in w ? [w.r] : "a" in w ? [w.a, w.b] : []));
    const needed = new Set<number>(written);
    const kept: Operation[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      const o = all[i]!;
      if (!needed.has(o.d)) continue;
      kept.push(o);
      for (const r of [o.a, o.b, o.c]) if (r >= 0) needed.add(r);
    }
    kept.reverse();
    const last = new Map<number, number>();
    kept.forEach((o, i) => [o.a, o.b, o.c].forEach((r) => r >= 0 && last.set(r, i)));
    for (const r of written) last.set(r, Infinity);
    const phys = new Map<number, number>();
    const consts: [number, number][] = [];
    let count = 0;
    for (const r of needed) {
      const x = this.known.get(r);
      if (x !== undefined) {
        phys.set(r, count);
        consts.push([count++, x]);
      }
    }
    const free: number[] = [];
    const keptLuts: FiniteTable[] = []; // the tables of the operations kept, renumbered
    const ops = kept.map((o, i) => {
      const m = (r: number) => (r < 0 ? -1 : phys.get(r)!);
      const op = { ...o, a: m(o.a), b: m(o.b), c: m(o.c) };
      if (o.code === OP.LUT) op.k = keptLuts.push(luts[o.k]!) - 1;
      for (const r of [o.a, o.b, o.c])
        if (r >= 0 && last.get(r) === i && !this.known.has(r) && !free.includes(phys.get(r)!)) free.push(phys.get(r)!);
      const d = free.length > 0 && !(last.get(o.d) === undefined) ? free.pop()! : count++;
      phys.set(o.d, d);
      op.d = d;
      return op;
    });
    if (count > PROGRAM_LIMITS.regs) throw new NotPure(`more than ${PROGRAM_LIMITS.regs} registers`);
    return {
      ops,
      regs: count,
      consts,
      bands: this.bands,
      ramps: this.ramps,
      luts: keptLuts,
      outputs: outputs.map((o, k) => ({
        id: o.id,
        writes: writes[k]!.map((w) =>
          "r" in w
            ? { ...w, r: phys.get(w.r)! }
            : "a" in w
              ? { ...w, a: phys.get(w.a)!, b: phys.get(w.b)! }
              : w.kind === "lut"
                ? { ...w, t: keptLuts.push(luts[w.t]!) - 1 }
                : w,
        ),
      })),
      ticks,
    };
  }
}

/**
 * Finite-domain fusion of column programs (./program.ts, applied by ./fuse.ts): operations whose value depends on
 * at most two inputs through equality tests become one table lookup (OP.LUT) that reads the inputs directly.
 * The shapes users write for masks are the case: `[3, 8, 9, 10].indexOf(s.SCL)` (a chain of `===` and choices),
 * `s.SCL === 6 || s.SCL == 11`, `includes`, and what they feed (`< 0`, `!`, `&&` with `s.dataMask`, `? 1 : 0`).
 *
 * The inputs are the dataMask (a Uint8: every value is its own class) and bands tested with `===` against integer
 * constants in [0, MAX_KEY) (the value of `band === k` is the same for every value but k: values are split into
 * classes, one per integer 0..size-1 and one for every other value, NaN, -0 aside: `-0 === 0`). An operation whose
 * operands are constants or such finite values is itself a finite value over the union of their inputs (at most
 * two): its value is computed for each combination of classes with the very function the interpreter's loop
 * applies (`scalar` of ./program.ts), so that the lookup is the JavaScript expression bit for bit, and classes
 * with equal values in every combination are merged. Operations nothing reads any more are dropped by
 * Builder.finish, so a chain of N operations costs one pass over the pixels instead of N.
 */
import { OP, type Operation } from "./ops";

/** Integer keys compared with a band below this value become table entries (a class table of this many bytes). */
export const MAX_KEY = 4096;
/** Combinations of classes of a finite value at most (before merging). */
const MAX_COMBINATIONS = 4096;
/** The input of a domain that is the dataMask (else a band index, LOADF's k). */
export const MASK = -1;

/** One input of a finite value and its classes. */
export interface Domain {
  /** LOADF's k of the band, or MASK. */
  src: number;
  /** Class of each integer value 0..cls.length-1. */
  cls: Uint8Array;
  /** Class of every other value (never used for the dataMask, whose values are 0..255). */
  other: number;
  /** Classes in all. */
  n: number;
}

/** A finite value: the value of each combination of its domains' classes, row-major (first domain slowest). */
export interface FiniteTable {
  doms: Domain[];
  values: Float64Array;
}

/** The function applied per pixel by an operation (code, operand values a, b, c, table index k). */
export type Scalar = (code: number, a: number, b: number, c: number, k: number) => number;

/** Class of value v in domain d (v = -1: "any other value"). */
const classOf = (d: Domain, v: number): number => (v >= 0 && v < d.cls.length ? d.cls[v]! : d.other);

/** Representative values of the classes a refinement may split: 0..size-1, and -1 (other) for a band. */
function representatives(src: number, size: number): number[] {
  const reps = Array.from({ length: size }, (_, i) => i);
  if (src !== MASK) reps.push(-1);
  return reps;
}

/** The identity over the dataMask's values. */
function maskTable(): FiniteTable {
  const cls = Uint8Array.from({ length: 256 }, (_, i) => i);
  return { doms: [{ src: MASK, cls, other: 0, n: 256 }], values: Float64Array.from({ length: 256 }, (_, i) => i) };
}

/** `band k === key` (or !== with `negate`) as a finite value: class 1 the key, class 0 every other value. */
function keyTable(k: number, key: number, negate: boolean): FiniteTable {
  const cls = new Uint8Array(key + 1);
  cls[key] = 1;
  return { doms: [{ src: k, cls, other: 0, n: 2 }], values: Float64Array.of(negate ? 1 : 0, negate ? 0 : 1) };
}

/** Merges the classes of each domain that have equal values in every combination; drops single-class domains. */
function compress(t: FiniteTable): FiniteTable {
  let doms = t.doms,
    values = t.values;
  for (let j = 0; j < doms.length; j++) {
    const stride = doms.slice(j + 1).reduce((a, d) => a * d.n, 1);
    const outer = values.length / (stride * doms[j]!.n);
    const key = (c: number) => {
      const parts: number[] = [];
      for (let o = 0; o < outer; o++)
        for (let s = 0; s < stride; s++) parts.push(values[(o * doms[j]!.n + c) * stride + s]!);
      return parts.map((x) => (Object.is(x, -0) ? "-0" : String(x))).join(",");
    };
    const ids = new Map<string, number>();
    const remap = Array.from({ length: doms[j]!.n }, (_, c) => {
      const k = key(c);
      if (!ids.has(k)) ids.set(k, ids.size);
      return ids.get(k)!;
    });
    if (ids.size === doms[j]!.n) continue;
    const n = ids.size;
    const first = remap.map((_, c) => c).filter((c) => remap.indexOf(remap[c]!) === c);
    const next = new Float64Array(outer * n * stride);
    for (let o = 0; o < outer; o++)
      first.forEach((c, m) => {
        for (let s = 0; s < stride; s++) next[(o * n + m) * stride + s] = values[(o * doms[j]!.n + c) * stride + s]!;
      });
    const d = doms[j]!;
    const merged: Domain = { src: d.src, cls: d.cls.map((c) => remap[c]!), other: remap[d.other] ?? 0, n };
    doms = n === 1 ? doms.filter((_, i) => i !== j) : doms.map((x, i) => (i === j ? merged : x));
    values = next;
    if (n === 1) j--;
  }
  return { doms, values };
}

/**
 * The finite value of `code` over `operands` (each a constant or a finite value), or undefined when its inputs
 * are more than two or its combinations more than MAX_COMBINATIONS.
 */
function combine(
  code: number,
  k: number,
  operands: (number | FiniteTable | undefined)[],
  scalar: Scalar,
): FiniteTable | undefined {
  const tables = operands.filter((x): x is FiniteTable => typeof x === "object");
  const srcs = [...new Set(tables.flatMap((t) => t.doms.map((d) => d.src)))].sort((a, b) => a - b);
  if (srcs.length > 2) return undefined;
  // per input: the classes of the refinement (the operands' classes of each representative value)
  const doms: Domain[] = [];
  const reps: number[][] = [];
  for (const src of srcs) {
    const mine = tables.flatMap((t) => t.doms.filter((d) => d.src === src));
    const size = Math.max(...mine.map((d) => d.cls.length));
    const ids = new Map<string, number>();
    const rep: number[] = [];
    const idOf = (v: number) => {
      const key = mine.map((d) => classOf(d, v)).join(",");
      if (!ids.has(key)) ids.set(key, ids.size), rep.push(v);
      return ids.get(key)!;
    };
    const cls = new Uint8Array(size);
    for (const v of representatives(src, size)) if (v >= 0) cls[v] = idOf(v);
    const other = src === MASK ? 0 : idOf(-1);
    if (ids.size > 256) return undefined;
    doms.push({ src, cls, other, n: ids.size });
    reps.push(rep);
  }
  const total = doms.reduce((a, d) => a * d.n, 1);
  if (total > MAX_COMBINATIONS) return undefined;
  const values = new Float64Array(total);
  const at = new Array<number>(doms.length).fill(0); // representative value per input of the combination
  /** The value of an operand (a constant, a finite value, an absent operand 0) at the current combination. */
  const valueOf = (x: number | FiniteTable | undefined): number => {
    if (x === undefined) return 0;
    if (typeof x === "number") return x;
    let i = 0;
    for (const d of x.doms) i = i * d.n + classOf(d, at[srcs.indexOf(d.src)]!);
    return x.values[i]!;
  };
  for (let c = 0; c < total; c++) {
    let rest = c;
    for (let j = doms.length - 1; j >= 0; j--) {
      at[j] = reps[j]![rest % doms[j]!.n]!;
      rest = Math.floor(rest / doms[j]!.n);
    }
    values[c] = scalar(code, valueOf(operands[0]), valueOf(operands[1]), valueOf(operands[2]), k);
  }
  return compress({ doms, values });
}

/** Codes a finite value may go through: those of `scalar` (no loads, no superinstructions). */
const PURE = new Set<number>(Object.values(OP).filter((c) => c !== OP.LOADF && c !== OP.LOADM && c < OP.NDI));

/**
 * Rewrites the finite-valued operations of `ops` (virtual registers, in order; replaced in place, same
 * destination) into OP.LUT over `tables` (appended to). Operations reading the dataMask or a band only through
 * the rewritten ones are left without a reader (Builder.finish drops them).
 * @param known constant registers and their values; scalar the value of an operation on constants.
 */
export function fuseFinite(ops: Operation[], known: Map<number, number>, tables: FiniteTable[], scalar: Scalar): void {
  const finite = new Map<number, FiniteTable>();
  const def = new Map<number, Operation>(ops.map((o) => [o.d, o]));
  const operand = (r: number): number | FiniteTable | undefined | null =>
    r < 0 ? undefined : known.has(r) ? known.get(r)! : (finite.get(r) ?? null);
  ops.forEach((o, i) => {
    if (o.code === OP.LOADM) return void finite.set(o.d, maskTable());
    let t: FiniteTable | undefined;
    if (o.code === OP.SEQ || o.code === OP.SNE) t = bandKey(o, def, known);
    if (!t && PURE.has(o.code)) {
      const xs = [o.a, o.b, o.c].map(operand);
      if (xs.every((x) => x !== null) && xs.some((x) => typeof x === "object"))
        t = combine(o.code, o.k, xs as (number | FiniteTable | undefined)[], scalar);
    }
    if (!t || t.doms.length === 0) return;
    finite.set(o.d, t);
    ops[i] = { code: OP.LUT, d: o.d, a: -1, b: -1, c: -1, k: tables.push(t) - 1 };
  });
}

/** `band === key` / `!==` of a band and an integer constant in [0, MAX_KEY), as a finite value. */
function bandKey(o: Operation, def: Map<number, Operation>, known: Map<number, number>): FiniteTable | undefined {
  const [x, y] = known.has(o.a) ? [o.b, o.a] : [o.a, o.b];
  const key = known.get(y),
    load = def.get(x);
  if (key === undefined || load?.code !== OP.LOADF || !(key >= 0 && key < MAX_KEY && Number.isInteger(key)))
    return undefined;
  return keyTable(load.k, Object.is(key, -0) ? 0 : key, o.code === OP.SNE);
}

type R = Float64Array;

/** Value table of a one-band finite value over values 0..size-1 (and `other`). */
function lutBand(d: R, x: Float32Array, tab: Float64Array, other: number, p0: number, n: number): void {
  const size = tab.length;
  for (let i = 0; i < n; i++) {
    const v = x[p0 + i]!,
      t = v >>> 0;
    d[i] = t === v && t < size ? tab[t]! : other;
  }
}
function lutMask(d: R, m: Uint8Array, tab: Float64Array, p0: number, n: number): void {
  for (let i = 0; i < n; i++) d[i] = tab[m[p0 + i]!]!;
}
/** Two inputs: the first a class table over the dataMask (cm) or a band (x, cx, ox), the second a band (y, cy, oy). */
function lutMaskBand(d: R, m: Uint8Array, cm: Uint8Array, t: Table2, p0: number, n: number): void {
  const { y, cy, oy, ny, values } = t,
    size = cy.length;
  for (let i = 0; i < n; i++) {
    const v = y[p0 + i]!,
      u = v >>> 0;
    d[i] = values[cm[m[p0 + i]!]! * ny + (u === v && u < size ? cy[u]! : oy)]!;
  }
}
function lutBandBand(d: R, x: Float32Array, cx: Uint8Array, ox: number, t: Table2, p0: number, n: number): void {
  const { y, cy, oy, ny, values } = t,
    sx = cx.length,
    sy = cy.length;
  for (let i = 0; i < n; i++) {
    const v = x[p0 + i]!,
      u = v >>> 0,
      w = y[p0 + i]!,
      z = w >>> 0;
    d[i] = values[(u === v && u < sx ? cx[u]! : ox) * ny + (z === w && z < sy ? cy[z]! : oy)]!;
  }
}
/** The second input of a two-input lookup and the values. */
interface Table2 {
  y: Float32Array;
  cy: Uint8Array;
  oy: number;
  ny: number;
  values: Float64Array;
}

/**
 * The loop of OP.LUT with table t over the pixels of one evaluation: (register d, first pixel p0, n pixels) => void.
 * @param bands the band arrays by LOADF's k; mask the dataMask.
 */
export function lutStep(
  t: FiniteTable,
  bands: Float32Array[],
  mask: Uint8Array,
): (d: Float64Array, p0: number, n: number) => void {
  const [a, b] = t.doms as [Domain, Domain | undefined];
  if (!b) {
    const tab = Float64Array.from(a.cls, (c) => t.values[c]!);
    if (a.src === MASK) return (d, p0, n) => lutMask(d, mask, tab, p0, n);
    const x = bands[a.src]!,
      other = t.values[a.other]!;
    return (d, p0, n) => lutBand(d, x, tab, other, p0, n);
  }
  const t2: Table2 = { y: bands[b.src]!, cy: b.cls, oy: b.other, ny: b.n, values: t.values };
  if (a.src === MASK) return (d, p0, n) => lutMaskBand(d, mask, a.cls, t2, p0, n);
  const x = bands[a.src]!;
  return (d, p0, n) => lutBandBand(d, x, a.cls, a.other, t2, p0, n);
}

/**
 * The values of the compile-time evaluation of an evalscript (./compile.ts): each JavaScript value a pure script
 * handles, with its type known before any pixel is seen. Numbers and booleans are registers of the program (a
 * constant or a column); arrays are tuples of values, objects maps of values, functions the script's own (to be
 * inlined) or the library's. A value whose type would depend on the pixel (a conditional between a number and an
 * array, say) is not representable: the script then runs in the sandbox.
 */
import type { AnyNode } from "../compile/ast";
import { Builder, NotPure, OP, type RampTable } from "./program";

/** A cell of a scope: a variable and whether pixel code may assign it. */
export interface Cell {
  v: Value;
  /**
   * false for constants, and for top-level variables while a pixel is evaluated unless a script function assigns
   * them (./statements.ts pixelGlobals: their writes carry over to the next pixel).
   */
  writable: boolean;
  /** false until a let/const declaration ran (reading it then is a ReferenceError in JS). */
  ready: boolean;
}

/** A lexical scope. */
export interface Scope {
  cells: Map<string, Cell>;
  parent: Scope | null;
}

/** A script function with the scope it closes over. */
export interface Closure {
  node: AnyNode;
  scope: Scope;
}

/** Library visualizers the program evaluates (sandbox/lib.js classes built from constants). */
export type Visualizer =
  | { kind: "ramp"; table: RampTable }
  | { kind: "identity" }
  | {
      kind: "highlight";
      single: boolean;
      compress: boolean;
      min: number;
      max: number;
      gain: number;
      offset: number;
      gamma: number;
    };

export type Value =
  | { t: "num"; r: number }
  | { t: "bool"; r: number }
  | { t: "undef" }
  | { t: "null" }
  | { t: "str"; s: string }
  | { t: "arr"; items: Value[] }
  | { t: "obj"; props: Map<string, Value> }
  | { t: "fn"; fn: Closure }
  | { t: "lib"; name: string; self?: Value }
  | { t: "viz"; viz: Visualizer }
  | { t: "sample" }
  | { t: "opaque" }
  /** A global a pixel writes, before this pixel wrote it: the previous pixel's value, refused when read. */
  | { t: "stale" };

export const UNDEF: Value = { t: "undef" };
export const STALE: Value = { t: "stale" };

/** Refuses the script (it runs in the sandbox): `why` names the construct. */
export function refuse(why: string): never {
  throw new NotPure(why);
}

/** The number a value converts to (ToNumber), as a register; only for primitive values. */
export function toNum(b: Builder, v: Value): number {
  switch (v.t) {
    case "num":
    case "bool":
      return v.r;
    case "undef":
      return b.constant(NaN);
    case "null":
      return b.constant(0);
    case "str":
      return b.constant(Number(v.s));
    default:
      return refuse(`a ${v.t} used as a number`);
  }
}

/** The truthiness of a value, as a register (1 or 0, or a number's own truthiness). */
export function truth(b: Builder, v: Value): number {
  switch (v.t) {
    case "num":
      return b.op(OP.TRUTHY, v.r);
    case "bool":
      return v.r;
    case "undef":
    case "null":
      return b.constant(0);
    case "str":
      return b.constant(v.s ? 1 : 0);
    case "sample":
    case "opaque":
      return refuse("an argument of evaluatePixel used as a condition");
    default:
      return b.constant(1);
  }
}

/** The constant a register holds, or undefined. */
export const known = (b: Builder, r: number): number | undefined => b.valueOf(r);

/**
 * `c ? x : y` for every pixel (c a truthiness register): same-typed values are merged part by part; values of
 * different types are refused (the type would depend on the pixel).
 */
export function select(b: Builder, c: number, x: Value, y: Value): Value {
  const k = known(b, c);
  if (k !== undefined) return k ? x : y;
  if (x === y) return x;
  if (x.t === "stale" || y.t === "stale") return STALE; // some pixels did not write it: reading it is refused
  if ((x.t === "num" || x.t === "bool") && x.t === y.t)
    return { t: x.t, r: b.op(OP.SELECT, c, x.r, (y as { r: number }).r) };
  if (x.t === "arr" && y.t === "arr" && x.items.length === y.items.length)
    return { t: "arr", items: x.items.map((v, i) => select(b, c, v, y.items[i]!)) };
  if (x.t === "obj" && y.t === "obj" && [...x.props.keys()].join("\0") === [...y.props.keys()].join("\0")) {
    return { t: "obj", props: new Map([...x.props].map(([key, v]) => [key, select(b, c, v, y.props.get(key)!)])) };
  }
  if ((x.t === "undef" || x.t === "null") && x.t === y.t) return x;
  if (x.t === "str" && y.t === "str" && x.s === y.s) return x;
  if (x.t === "fn" && y.t === "fn" && x.fn.node === y.fn.node && x.fn.scope === y.fn.scope) return x;
  return refuse(`a value that is a ${x.t} on some pixels and a ${y.t} on others`);
}

/** `x === y` (strict) as a register. */
export function strictEquals(b: Builder, x: Value, y: Value): number {
  if ((x.t === "num" || x.t === "bool") && x.t === y.t) return b.op(OP.SEQ, x.r, (y as { r: number }).r);
  if (x.t === "str" && y.t === "str") return b.constant(x.s === y.s ? 1 : 0);
  const prim = (v: Value) => v.t === "num" || v.t === "bool" || v.t === "undef" || v.t === "null" || v.t === "str";
  if (prim(x) && prim(y)) return b.constant(x.t === y.t ? 1 : 0);
  return refuse("=== between objects");
}

/** `x == y` (loose) as a register, for primitive values. */
export function looseEquals(b: Builder, x: Value, y: Value): number {
  const nullish = (v: Value) => v.t === "undef" || v.t === "null";
  if (nullish(x) || nullish(y)) return b.constant(nullish(x) && nullish(y) ? 1 : 0);
  if (x.t === "str" && y.t === "str") return b.constant(x.s === y.s ? 1 : 0);
  if ((x.t === "num" || x.t === "bool" || x.t === "str") && (y.t === "num" || y.t === "bool" || y.t === "str"))
    return b.op(OP.SEQ, toNum(b, x), toNum(b, y));
  return refuse("== between objects");
}

/** A constant JS value as a program value (setup's literals, library constants). */
export function fromConstant(b: Builder, x: unknown): Value {
  if (typeof x === "number") return { t: "num", r: b.constant(x) };
  if (typeof x === "boolean") return { t: "bool", r: b.constant(x ? 1 : 0) };
  if (typeof x === "string") return { t: "str", s: x };
  if (x === undefined) return UNDEF;
  if (x === null) return { t: "null" };
  if (Array.isArray(x)) return { t: "arr", items: x.map((v) => fromConstant(b, v)) };
  if (typeof x === "object")
    return { t: "obj", props: new Map(Object.entries(x).map(([k, v]) => [k, fromConstant(b, v)])) };
  return refuse(`a constant of type ${typeof x}`);
}

/**
 * A program value as a plain JS value when it is constant (numbers, booleans, strings, arrays, objects), else
 * undefined (`NOT_CONSTANT`).
 */
export const NOT_CONSTANT = Symbol("not constant");
export function toConstant(b: Builder, v: Value): unknown {
  switch (v.t) {
    case "num":
    case "bool": {
      const x = known(b, v.r);
      return x === undefined ? NOT_CONSTANT : v.t === "bool" ? x !== 0 : x;
    }
    case "undef":
      return undefined;
    case "null":
      return null;
    case "str":
      return v.s;
    case "arr": {
      const out = v.items.map((i) => toConstant(b, i));
      return out.includes(NOT_CONSTANT) ? NOT_CONSTANT : out;
    }
    case "obj": {
      const out: Record<string, unknown> = {};
      for (const [k, x] of v.props) {
        const c = toConstant(b, x);
        if (c === NOT_CONSTANT) return NOT_CONSTANT;
        out[k] = c;
      }
      return out;
    }
    default:
      return NOT_CONSTANT;
  }
}

/**
 * JavaScript's operators and member accesses over the compiler's symbolic values (./values.ts), lowered to
 * operations of the column program (./program.ts): what `-x`, `x * y`, `a === b`, `typeof v`, `s.B04` or
 * `arr.length` mean for a value whose kind is known at compile time. ./compile.ts walks the AST and calls these;
 * anything without a lowering here refuses (NotPure: the sandbox runs the script).
 */
import { type Builder, OP } from "./program";
import { libraryMember } from "./library";
import { looseEquals, refuse, strictEquals, toNum, truth, UNDEF, type Value } from "./values";

const BINARY: Record<string, number> = {
  "-": OP.SUB,
  "*": OP.MUL,
  "/": OP.DIV,
  "%": OP.MOD,
  "**": OP.EXP,
  "&": OP.BAND,
  "|": OP.BOR,
  "^": OP.BXOR,
  "<<": OP.SHL,
  ">>": OP.SHR,
  ">>>": OP.USHR,
};
const RELATION: Record<string, number> = { "<": OP.LT, "<=": OP.LE, ">": OP.GT, ">=": OP.GE };
const PROTO = new Set(Object.getOwnPropertyNames(Object.prototype));

/** `typeof` of each kind of value (library values are refused). */
const TYPES: Partial<Record<Value["t"], string>> = {
  num: "number",
  bool: "boolean",
  undef: "undefined",
  str: "string",
  null: "object",
  arr: "object",
  obj: "object",
  fn: "function",
  viz: "object",
  sample: "object",
};

/** The unary operator `op` (acorn's UnaryExpression operator) applied to v. */
export function unaryOp(b: Builder, op: string, v: Value): Value {
  switch (op) {
    case "-":
      return { t: "num", r: b.op(OP.NEG, toNum(b, v)) };
    case "+":
      return { t: "num", r: toNum(b, v) };
    case "!":
      return { t: "bool", r: b.op(OP.NOT, truth(b, v)) };
    case "~":
      return { t: "num", r: b.op(OP.BNOT, toNum(b, v)) };
    case "void":
      return UNDEF;
    case "typeof":
      return TYPES[v.t] ? { t: "str", s: TYPES[v.t]! } : refuse("typeof of a library value");
  }
  return refuse(`the operator ${op}`);
}

/** The binary operator `op` applied to x and y (arithmetic on primitives only: no string concatenation). */
export function binaryOp(b: Builder, op: string, x: Value, y: Value): Value {
  const prim = (v: Value) => v.t === "num" || v.t === "bool" || v.t === "undef" || v.t === "null";
  switch (op) {
    case "===":
      return { t: "bool", r: strictEquals(b, x, y) };
    case "!==":
      return { t: "bool", r: b.op(OP.NOT, strictEquals(b, x, y)) };
    case "==":
      return { t: "bool", r: looseEquals(b, x, y) };
    case "!=":
      return { t: "bool", r: b.op(OP.NOT, looseEquals(b, x, y)) };
  }
  if (!prim(x) || !prim(y)) return refuse(`${op} on a ${prim(x) ? y.t : x.t}`);
  if (op === "+") return { t: "num", r: b.op(OP.ADD, toNum(b, x), toNum(b, y)) };
  if (op in BINARY) return { t: "num", r: b.op(BINARY[op]!, toNum(b, x), toNum(b, y)) };
  if (op in RELATION) return { t: "bool", r: b.op(RELATION[op]!, toNum(b, x), toNum(b, y)) };
  return refuse(`the operator ${op}`);
}

/**
 * Member `key` of o: a band of the sample (`bands`: setup's inputs; others are undefined), an array's element,
 * length or method, an object's property, a library member, a visualizer's process.
 */
export function memberOf(b: Builder, bands: Set<string>, o: Value, key: string): Value {
  switch (o.t) {
    case "sample":
      if (bands.has(key)) return { t: "num", r: b.band(key) };
      return PROTO.has(key) || key === "__proto__" ? refuse(`sample.${key}`) : UNDEF;
    case "arr": {
      if (key === "length") return { t: "num", r: b.constant(o.items.length) };
      if (/^(0|[1-9][0-9]*)$/.test(key)) return o.items[Number(key)] ?? UNDEF;
      if (key === "concat" || key === "includes" || key === "indexOf") return { t: "lib", name: key, self: o };
      return refuse(`an array's ${key}`);
    }
    case "obj":
      if (o.props.has(key)) return o.props.get(key)!;
      return PROTO.has(key) || key === "__proto__" ? refuse(`an object's ${key}`) : UNDEF;
    case "lib": {
      const m = o.self ? undefined : libraryMember(b, o.name, key);
      return m ?? refuse(`${o.name}.${key}`);
    }
    case "viz":
      return key === "process" ? { t: "lib", name: "process", self: o } : refuse(`a visualizer's ${key}`);
    case "num":
    case "bool": {
      // a primitive's property: its prototype's (refused) or undefined
      const proto = o.t === "num" ? Number.prototype : Boolean.prototype;
      return key in proto || key === "__proto__" ? refuse(`.${key} of a ${o.t}`) : UNDEF;
    }
  }
  return refuse(`.${key} of a ${o.t}`);
}

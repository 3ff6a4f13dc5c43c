/**
 * The evalscript library (sandbox/lib.js) on program values: each function here builds the operations that compute
 * what the library computes, with the same arithmetic in the same order (the sandbox's functions are the
 * reference; the differential test compares both). Only constant arguments build visualizers and colour stops.
 */
import { Builder, MATH1, MATH2, OP, rampTable } from "./program";
import {
  fromConstant,
  NOT_CONSTANT,
  refuse,
  strictEquals,
  toConstant,
  toNum,
  UNDEF,
  type Value,
  type Visualizer,
} from "./values";

/** Library globals the program knows (sandbox/library.ts LIBRARY_NAMES and the JS globals pure code uses). */
export const LIBRARY_GLOBALS = new Set([
  "index",
  "inverse",
  "colorBlend",
  "valueInterpolate",
  "isNaN",
  "isFinite",
  "Math",
  "Object",
  "Number",
  "ColorRampVisualizer",
  "Identity",
  "DefaultVisualizer",
  "HighlightCompressVisualizer",
  "HighlightCompressVisualizerSingle",
  "JAVA_DOUBLE_MAX_VAL",
  "SampleType",
  "Mosaicking",
  "NaN",
  "Infinity",
  "undefined",
]);

const JAVA_DOUBLE_MAX_VAL = 1.7976931348623157e308;
const SAMPLE_TYPES = {
  AUTO: "AUTO",
  UINT8: "UINT8",
  UINT16: "UINT16",
  INT8: "INT8",
  INT16: "INT16",
  FLOAT32: "FLOAT32",
};
const MOSAICKINGS = { SIMPLE: "SIMPLE", ORBIT: "ORBIT", TILE: "TILE" };

/** The value of library global `name`. */
export function libraryGlobal(b: Builder, name: string): Value {
  switch (name) {
    case "NaN":
      return { t: "num", r: b.constant(NaN) };
    case "Infinity":
      return { t: "num", r: b.constant(Infinity) };
    case "undefined":
      return UNDEF;
    case "JAVA_DOUBLE_MAX_VAL":
      return { t: "num", r: b.constant(JAVA_DOUBLE_MAX_VAL) };
    case "SampleType":
      return fromConstant(b, SAMPLE_TYPES);
    case "Mosaicking":
      return fromConstant(b, MOSAICKINGS);
    default:
      return { t: "lib", name };
  }
}

const MATH_CONSTANTS: Record<string, number> = {
  PI: Math.PI,
  E: Math.E,
  LN2: Math.LN2,
  LN10: Math.LN10,
  LOG2E: Math.LOG2E,
  LOG10E: Math.LOG10E,
  SQRT2: Math.SQRT2,
  SQRT1_2: Math.SQRT1_2,
};

/** `lib.<name>` of a library object (Math.sqrt, Object.keys, Number.isNaN), or undefined when it has none. */
export function libraryMember(b: Builder, lib: string, name: string): Value | undefined {
  if (lib === "Math" && name in MATH_CONSTANTS) return { t: "num", r: b.constant(MATH_CONSTANTS[name]!) };
  if (
    lib === "Math" &&
    ((MATH1 as readonly string[]).includes(name) || (MATH2 as readonly string[]).includes(name) || name === "hypot")
  )
    return { t: "lib", name: `Math.${name}` };
  if (lib === "Object" && name === "keys") return { t: "lib", name: "Object.keys" };
  if (lib === "Number" && (name === "isNaN" || name === "isFinite")) return { t: "lib", name: `Number.${name}` };
  return undefined;
}

/** A constant argument (visualizer stops, ramps) as a JS value; refuses a column. */
function constantOf(b: Builder, v: Value | undefined, what: string): unknown {
  const c = v === undefined ? undefined : toConstant(b, v);
  if (c === NOT_CONSTANT) refuse(`${what} is not a constant`);
  return c;
}

const num = (b: Builder, r: number): Value => ({ t: "num", r });
const isNumber = (x: unknown): x is number => typeof x === "number";

/** sandbox/lib.js toUnitRgb of a constant colour: [r, g, b] in [0, 1]. */
function unitRgb(c: unknown): number[] {
  if (Array.isArray(c)) {
    if (c.length < 3 || !c.slice(0, 3).every(isNumber)) refuse("a colour array of fewer than 3 numbers");
    return c.slice(0, 3) as number[];
  }
  if (!isNumber(c)) refuse("a colour that is not a number or an array");
  return [(c >>> 16) & 255, (c >>> 8) & 255, c & 255].map((x) => x / 255);
}

/** `new name(...args)` of a library visualizer with constant arguments. */
export function construct(b: Builder, name: string, args: Value[]): Value {
  const c = args.map((a, i) => constantOf(b, a, `argument ${i + 1} of new ${name}`));
  const optNum = (x: unknown, d: number) =>
    x === undefined ? d : isNumber(x) ? x : refuse(`a ${name} argument that is not a number`);
  switch (name) {
    case "ColorRampVisualizer": {
      const [stops, minVal, maxVal] = c;
      if (!Array.isArray(stops) || stops.length === 0 || !stops.every((s) => Array.isArray(s) && isNumber(s[0])))
        return refuse("ColorRampVisualizer stops that are not [number, colour] pairs");
      const ramps = [...(stops as [number, unknown][])].sort((x, y) => x[0] - y[0]);
      const lo = ramps[0]![0],
        hi = ramps[ramps.length - 1]![0];
      const min = minVal === undefined ? lo : optNum(minVal, lo),
        max = maxVal === undefined ? hi : optNum(maxVal, hi);
      const scale = hi === lo ? 0 : (max - min) / (hi - lo);
      const table = rampTable(
        ramps.map(([v]) => min + (v - lo) * scale),
        ramps.map(([, col]) => unitRgb(col)),
      );
      return { t: "viz", viz: { kind: "ramp", table } };
    }
    case "Identity":
      return { t: "viz", viz: { kind: "identity" } };
    case "DefaultVisualizer":
    case "HighlightCompressVisualizer":
    case "HighlightCompressVisualizerSingle": {
      const [minValue, maxValue, gain, offset, gamma] = [
        optNum(c[0], 0),
        optNum(c[1], 1),
        optNum(c[2], 1),
        optNum(c[3], 0),
        optNum(c[4], 1),
      ];
      const single = name === "HighlightCompressVisualizerSingle";
      return {
        t: "viz",
        viz: {
          kind: "highlight",
          single,
          compress: name !== "DefaultVisualizer",
          min: minValue,
          max: maxValue,
          gain,
          offset,
          gamma,
        },
      };
    }
  }
  return refuse(`new ${name}`);
}

/** `viz.process(value)` (the other arguments are the EO Browser overrides' component index: no overrides here). */
function processOf(b: Builder, viz: Visualizer, value: Value): Value {
  if (viz.kind === "identity") return value.t === "arr" ? value : { t: "arr", items: [value] };
  const x = toNum(b, value);
  if (viz.kind === "ramp") {
    const k = b.ramp(viz.table);
    const segment = b.op(OP.RAMPI, x, -1, -1, k);
    return { t: "arr", items: [0, 1, 2].map((j) => num(b, b.op(OP.RAMPC, x, segment, -1, k * 4 + j))) };
  }
  const C = (v: number) => b.constant(v);
  const max = MATH2.indexOf("max"),
    min = MATH2.indexOf("min"),
    pow = MATH2.indexOf("pow");
  const clamp = (r: number, lo: number, hi: number) =>
    b.op(OP.MATH2, b.op(OP.MATH2, r, C(hi), -1, min), C(lo), -1, max);
  const factor = 1.0 / (viz.max - viz.min);
  let v = b.op(OP.ADD, b.op(OP.MUL, b.op(OP.MUL, C(viz.gain), b.op(OP.SUB, x, C(viz.min))), C(factor)), C(viz.offset));
  if (!viz.compress)
    return num(
      b,
      viz.gamma != 1.0 ? b.op(OP.MATH2, b.op(OP.MATH2, C(0), v, -1, max), C(viz.gamma), -1, pow) : clamp(v, 0.0, 1.0),
    );
  if (viz.gamma != 1.0) v = b.op(OP.MATH2, b.op(OP.MATH2, C(0), v, -1, max), C(viz.gamma), -1, pow);
  const hp = 0.92,
    hf = (1.0 - hp) / (2.0 - hp);
  if (0 < viz.max && viz.max < 1)
    v = b.op(
      OP.SELECT,
      b.op(OP.GT, v, C(hp)),
      clamp(b.op(OP.ADD, C(hp), b.op(OP.MUL, b.op(OP.SUB, v, C(hp)), C(hf))), 0.0, 1.0),
      v,
    );
  const out = num(b, clamp(v, 0.0, 1.0));
  return viz.single ? { t: "arr", items: [out] } : out;
}

/** colorBlend / valueInterpolate(value, limits, colors) with constant limits and colours (sandbox/lib.js). */
function blend(b: Builder, value: Value, limitsV: Value, colorsV: Value): Value {
  const limits = constantOf(b, limitsV, "colorBlend limits"),
    colors = constantOf(b, colorsV, "colorBlend colours");
  if (!Array.isArray(limits) || !Array.isArray(colors)) return value;
  if (!limits.every(isNumber) || colors.length < limits.length || colors.length === 0)
    return refuse("colorBlend limits and colours that do not pair up");
  const shape = (c: unknown) =>
    isNumber(c)
      ? -1
      : Array.isArray(c) && c.every(isNumber)
        ? c.length
        : refuse("a colorBlend colour that is not a number or an array of numbers");
  const w = shape(colors[0]);
  if (!colors.every((c) => shape(c) === w)) return refuse("colorBlend colours of different shapes");
  const comp = (c: unknown, j: number) => (w < 0 ? (c as number) : (c as number[])[j]!);
  const x = toNum(b, value);
  const parts = Array.from({ length: Math.max(w, 1) }, (_, j) => {
    // built from the last case backwards: select(first test, its value, the rest)
    let r = b.constant(comp(colors[colors.length - 1], j));
    for (let i = limits.length - 1; i >= 1; i--) {
      const t = b.op(OP.DIV, b.op(OP.SUB, x, b.constant(limits[i - 1]!)), b.constant(limits[i]! - limits[i - 1]!));
      const mixed = b.op(
        OP.ADD,
        b.op(OP.MUL, b.constant(comp(colors[i - 1], j)), b.op(OP.SUB, b.constant(1), t)),
        b.op(OP.MUL, b.constant(comp(colors[i], j)), t),
      );
      r = b.op(OP.SELECT, b.op(OP.LE, x, b.constant(limits[i]!)), mixed, r);
    }
    const first = limits.length === 0 ? b.constant(1) : b.op(OP.NOT, b.op(OP.GT, x, b.constant(limits[0]!)));
    return b.op(OP.SELECT, first, b.constant(comp(colors[0], j)), r);
  });
  return w < 0 ? num(b, parts[0]!) : { t: "arr", items: parts.map((r) => num(b, r)) };
}

/** A call of library function `name` (`self` for methods of visualizers and arrays). */
export function callLibrary(b: Builder, fn: { name: string; self?: Value }, args: Value[]): Value {
  const a = (i: number) => args[i] ?? UNDEF;
  const n = (i: number) => toNum(b, a(i));
  const name = fn.name;
  if (name.startsWith("Math.")) {
    const f = name.slice(5);
    if (f === "min" || f === "max") {
      if (args.length === 0) return num(b, b.constant(f === "min" ? Infinity : -Infinity));
      return num(
        b,
        args
          .slice(1)
          .reduce((r, _, i) => b.op(OP.MATH2, r, n(i + 1), -1, MATH2.indexOf(f)), b.op(OP.ADD, n(0), b.constant(-0))),
      );
    }
    const k1 = (MATH1 as readonly string[]).indexOf(f);
    if (k1 >= 0) return num(b, b.op(OP.MATH1, n(0), -1, -1, k1));
    const k2 = (MATH2 as readonly string[]).indexOf(f);
    if (k2 >= 0) return num(b, b.op(OP.MATH2, n(0), n(1), -1, k2));
    return refuse(`Math.${f}`);
  }
  switch (name) {
    case "index":
      return num(b, b.op(OP.INDEX, n(0), n(1)));
    case "inverse": {
      const x = n(0);
      return num(
        b,
        b.op(
          OP.SELECT,
          b.op(OP.SNE, x, b.constant(0)),
          b.op(OP.DIV, b.constant(1), x),
          b.constant(JAVA_DOUBLE_MAX_VAL),
        ),
      );
    }
    case "colorBlend":
    case "valueInterpolate":
      return blend(b, a(0), a(1), a(2));
    case "isNaN":
      return { t: "bool", r: b.op(OP.ISNAN, n(0)) };
    case "isFinite":
      return { t: "bool", r: b.op(OP.ISFINITE, n(0)) };
    case "Number.isNaN":
      return a(0).t === "num" ? { t: "bool", r: b.op(OP.ISNAN, n(0)) } : { t: "bool", r: b.constant(0) };
    case "Number.isFinite":
      return a(0).t === "num" ? { t: "bool", r: b.op(OP.ISFINITE, n(0)) } : { t: "bool", r: b.constant(0) };
    case "Object.keys": {
      const o = a(0);
      if (o.t === "obj") return { t: "arr", items: [...o.props.keys()].map((s) => ({ t: "str", s })) };
      return refuse("Object.keys of something else than an object literal");
    }
    case "process": {
      const self = fn.self!;
      if (self.t !== "viz") return refuse("process of something else than a visualizer");
      return processOf(b, self.viz, a(0));
    }
  }
  return arrayMethod(b, name, fn.self, args);
}

/** concat / includes / indexOf of an array value. */
function arrayMethod(b: Builder, name: string, self: Value | undefined, args: Value[]): Value {
  if (self?.t !== "arr") return refuse(`${name}()`);
  if (name === "concat")
    return { t: "arr", items: [...self.items, ...args.flatMap((v) => (v.t === "arr" ? v.items : [v]))] };
  const x = args[0] ?? UNDEF;
  if (name === "includes" || name === "indexOf") {
    const eq = (item: Value) => {
      if (name === "includes" && item.t === "num" && x.t === "num" && Number.isNaN(b.valueOf(item.r) ?? NaN)) {
        return b.op(
          OP.SELECT,
          b.op(OP.SEQ, item.r, x.r),
          b.constant(1),
          b.op(OP.MUL, b.op(OP.ISNAN, item.r), b.op(OP.ISNAN, x.r)),
        );
      }
      return strictEquals(b, item, x);
    };
    if (name === "includes")
      return {
        t: "bool",
        r: self.items.reduceRight((r, item) => b.op(OP.SELECT, eq(item), b.constant(1), r), b.constant(0)),
      };
    return num(
      b,
      self.items.reduceRight((r, item, i) => b.op(OP.SELECT, eq(item), b.constant(i), r), b.constant(-1)),
    );
  }
  return refuse(`array method ${name}`);
}

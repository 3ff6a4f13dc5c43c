/**
 * Rewrites of evaluatePixel's returned literals in the column copy (specialize.ts): `return [a, b, ...]` and
 * `return {id: [a, ...], ...}` (also as branches of `c ? x : y`) in evaluatePixel's own body (not in nested
 * functions).
 *
 * Direct writes: when every returned literal of the copy is an array literal with elements (`[a, b]`) or an
 * object of them, with at most {@link INLINE_ELEMENTS} elements in all (else none writes directly: a larger copy
 * is not inlined into the loop, and a loop getting both kinds of values measured slower), each literal evaluates
 * its elements in source order into temporaries (extra parameters of the copy; numeric constants stay as they
 * are). When the block's outputs fit the literal (its flag, set by the generated `${base}u(S, V, B)` at the
 * start of each loop: one output of exactly that many bands for an array; several outputs whose ids are exactly
 * the object's keys, each with its array's length in bands) and every element is a number, it stores them
 * straight into the outputs' Float32 values at pixel `${base}i` and gives the sentinel `${base}T`, which the loop
 * (columnloop.ts) takes as "written"; otherwise an out-of-line `${base}f<n>` fills arrays / objects made once per
 * script instance and returns those, which the loop writes as before. Why both guards: a number is stored into a
 * Float32Array exactly as the general path's writer stores it (same rounding; a NaN stays a NaN, its payload as
 * V8 gives it, as for `return x`), while other types convert with ToNumber, which may run script code or throw
 * (in the writer, outside the script's try/catch), and a shape that does not fit must reach the writers for
 * their error. The stores happen before the loop's budget checks, which only ever end the evaluation (the values
 * of a failed evaluation are never read). A previous helper measured with callgrind ndvi_scl at 1085
 * instructions per pixel, ~720 of them the script and the loop (the rest: the writer this skips).
 *
 * Other literals (no elements, holes, spreads, computed / shorthand / accessor keys, values that are not
 * array literals) keep the reused-value rewrite `(Pr0[0]=a,Pr0[1]=b,Pr0)`: same order, values, lengths and
 * keys, one allocation per pixel less.
 */
import type { AnyNode } from "../compile/ast";
import { forEachChild } from "../compile/ast";
import type { Copy } from "../compile/instrument";
import { FUNCTION_TYPES } from "./samplecheck";

/** The rewrites of a copy's returned literals and the declarations they need (emitted after the copy). */
export interface Reuse {
  replace: Copy["replace"];
  /** Declarations of the reused arrays, flags, targets and the setup function `${base}u`. */
  decls: string;
  /** The temporaries the rewrites assign: extra parameters of the copy (never passed), so that they are locals. */
  temps: string[];
}

/** Plain keys of an object literal whose values can be written into a reused object, or undefined. */
function plainKeys(o: AnyNode): string[] | undefined {
  const keys: string[] = [];
  for (const p of o.properties as AnyNode[]) {
    const key = p.key as AnyNode | undefined;
    if (p.type !== "Property" || p.kind !== "init" || p.computed || p.method || p.shorthand || !key) return undefined;
    const name = key.type === "Identifier" ? (key.name as string) : typeof key.value === "string" ? key.value : undefined;
    if (name === undefined || name === "__proto__" || keys.includes(name)) return undefined;
    keys.push(name);
  }
  return keys.length ? keys : undefined;
}

/** The elements of an array literal when it has some and no holes or spreads, else undefined. */
function plainElements(a: AnyNode): AnyNode[] | undefined {
  if (a.type !== "ArrayExpression") return undefined;
  const parts = a.elements as (AnyNode | null)[];
  return parts.length && parts.every((e) => e && e.type !== "SpreadElement") ? (parts as AnyNode[]) : undefined;
}

/** The texts between consecutive values, from `start` to `end` (undefined when one holds a paren or a slash). */
function gapsOf(values: AnyNode[], start: number, end: number, source: string): string[] | undefined {
  // punctuation and keys only (a parenthesised value's parens lie outside its node; a slash may start a comment)
  const gaps = values.map((v, k) => source.slice(k ? values[k - 1]!.end : start, v.start)).concat(source.slice(values[values.length - 1]!.end, end));
  return gaps.some((g) => /[()/]/.test(g)) ? undefined : gaps;
}

/** Elements written inline per copy at most (NDVI + SCL: 2, the bench's NDVI: 8, landslide's 5 literals: 15). */
const INLINE_ELEMENTS = 8;

/** Whether an element is a numeric literal or its negation (a number: needs no type check). */
function isConstant(v: AnyNode): boolean {
  const lit = v.type === "UnaryExpression" && v.operator === "-" ? (v.argument as AnyNode) : v;
  return lit.type === "Literal" && typeof lit.value === "number";
}

/** Builds the rewrites and declarations of one copy (see the module docstring). */
class Rewriter {
  readonly replace: Copy["replace"] = [];
  decls = "";
  /** Setup statements of `${base}u` and the target variables it sets. */
  private setup = "";
  private targets: string[] = [];
  private n = 0;
  /** Temporaries needed (the largest literal) and elements written inline so far. */
  private temps = 0;
  private inlined = 0;
  /** Whether a returned literal was left to the reused values (then none writes directly: see returnRewrites). */
  mixed = false;
  constructor(private readonly base: string, private readonly source: string, private readonly allowDirect: boolean) {}

  /** A fresh generated name `${base}<kind><n>`. */
  private fresh(kind: string): string {
    return `${this.base}${kind}${this.n++}`;
  }

  /** Replaces the gaps around `values` (gaps as from {@link gapsOf}): before value k `open(k)`, after the last `close`. */
  private swapGaps(values: AnyNode[], start: number, end: number, open: (k: number) => string, close: string): void {
    values.forEach((v, k) => this.replace.push({ start: k ? values[k - 1]!.end : start, end: v.start, text: open(k) }));
    this.replace.push({ start: values[values.length - 1]!.end, end, text: close });
  }

  /** A reused array of `m` values, declared once. */
  private reused(m: number): string {
    const name = this.fresh("r");
    this.decls += `var ${name}=[${Array.from({ length: m }, () => "0").join(",")}];`;
    return name;
  }

  /**
   * Direct writes of `arrays` (elements per array; `keys` for an object literal, else one array), inline:
   * numeric constants (`0.2`, `-1`: numbers, no side effect) are written as they are, other elements go through
   * temporaries (extra parameters of the copy: locals, not boxed); the reused values are filled by an
   * out-of-line function `${base}f<n>` (rare). Refused (false) past {@link INLINE_ELEMENTS} elements in all:
   * a larger copy is no longer inlined into the loop by V8, which costs more than the writer it saves.
   */
  private direct(node: AnyNode, arrays: AnyNode[][], keys: string[] | undefined): boolean {
    const values = arrays.flat();
    if (this.inlined + values.length > INLINE_ELEMENTS || !gapsOf(values, node.start as number, node.end as number, this.source)) return false;
    this.inlined += values.length;
    const b = this.base;
    const constant = values.map((v) => isConstant(v));
    const expr = (k: number): string => (constant[k] ? this.source.slice(values[k]!.start, values[k]!.end) : `${b}t${k}`);
    this.temps = Math.max(this.temps, values.length);
    const flag = this.fresh("d"), fill = this.fresh("f");
    const targets = arrays.map(() => this.fresh("v"));
    this.targets.push(...targets);
    const writes: string[] = [], stores: string[] = [];
    const object = keys ? this.fresh("r") : "";
    let last = object, at = 0;
    arrays.forEach((a, j) => {
      const m = a.length, first = at, r = this.reused(m);
      a.forEach((_, e) => writes.push(`${targets[j]}[${m === 1 ? `${b}i` : `${b}i*${m}${e ? `+${e}` : ""}`}]=${expr(first + e)}`));
      stores.push(...a.map((_, e) => `${r}[${e}]=a${first + e};`), ...(keys ? [`${object}[${JSON.stringify(keys[j])}]=${r};`] : []));
      if (!keys) last = r;
      at += m;
    });
    const guard = [flag, ...values.flatMap((_, k) => (constant[k] ? [] : [`typeof ${b}t${k}==="number"`]))].join("&&");
    const open = (k: number): string => `${k ? "," : " ("}${constant[k] ? "" : `${b}t${k}=`}`;
    this.swapGaps(values, node.start as number, node.end as number, open, `,${guard}?(${writes.join(",")},${b}T):${fill}(${values.map((_, k) => expr(k)).join(",")}))`);
    this.decls += `var ${fill}=function(${values.map((_, k) => `a${k}`).join(",")}){"use strict";${stores.join("")}return ${last};};`;
    if (keys) {
      this.decls += `var ${object}={${keys.map((k) => `${JSON.stringify(k)}:0`).join(",")}};`;
      this.setup += `R=${b}m(S.outputs,${JSON.stringify(keys)},${JSON.stringify(arrays.map((x) => x.length))});${flag}=B===0&&R!==null;if(R){${targets.map((v, j) => `${v}=R[${j}];`).join("")}}`;
    } else {
      this.setup += `${flag}=B===${arrays[0]!.length};if(${flag})${targets[0]}=V;`;
    }
    this.decls += `var ${flag}=false,${targets.join(",")};`;
    return true;
  }

  /** The reused-value rewrite of an array or object literal (see the module docstring). */
  private reuse(node: AnyNode): void {
    const parts = node.type === "ArrayExpression" ? (node.elements as (AnyNode | null)[]) : (node.properties as AnyNode[]);
    const keys = node.type === "ObjectExpression" ? plainKeys(node) : undefined;
    if (node.type === "ArrayExpression" ? !plainElements(node) : !keys) return;
    const values = keys ? parts.map((p) => p!.value as AnyNode) : (parts as AnyNode[]);
    if (!gapsOf(values, node.start as number, node.end as number, this.source)) return;
    const name = this.fresh("r");
    const slot = (k: number): string => (keys ? `${name}[${JSON.stringify(keys[k])}]=` : `${name}[${k}]=`);
    this.decls += `var ${name}=${keys ? `{${keys.map((k) => `${JSON.stringify(k)}:0`).join(",")}}` : `[${values.map(() => "0").join(",")}]`};`;
    this.swapGaps(values, node.start as number, node.end as number, (k) => (k ? "," : "(") + slot(k), `,${name})`);
    if (keys) for (const v of values) this.returned(v);
  }

  /** Rewrites a returned value: a literal (direct when it can be), or the branches of a conditional. */
  returned(value: AnyNode): void {
    if (value.type === "ConditionalExpression") for (const branch of [value.consequent, value.alternate] as AnyNode[]) this.returned(branch);
    if (value.type !== "ArrayExpression" && value.type !== "ObjectExpression") return;
    const keys = value.type === "ObjectExpression" ? plainKeys(value) : undefined;
    const arrays = keys ? (value.properties as AnyNode[]).map((p) => plainElements(p.value as AnyNode)) : [plainElements(value)];
    if (this.allowDirect && (value.type === "ArrayExpression" || keys) && arrays.every((a) => a) && this.direct(value, arrays as AnyNode[][], keys)) return;
    this.mixed = true;
    this.reuse(value);
  }

  /** The declarations with the temporaries, the sentinel and the setup function `${base}u(S, V, B)`. */
  finish(): Reuse {
    const b = this.base;
    const temps = Array.from({ length: this.temps }, (_, k) => `${b}t${k}`);
    if (!this.setup) return { replace: this.replace, decls: this.decls, temps };
    const clear = this.targets.map((v) => `${v}=null;`).join("");
    return {
      replace: this.replace,
      temps,
      decls:
        this.decls +
        `var ${b}i=0,${b}T={};` +
        `var ${b}m=function(O,K,N){"use strict";var R=[],j,k;if(O.length!==K.length)return null;` +
        `for(j=0;j<K.length;j++){for(k=0;k<O.length&&O[k].id!==K[j];k++);if(k===O.length||O[k].bands!==N[j])return null;R[j]=O[k].values;}return R;};` +
        `var ${b}u=function(S,V,B){"use strict";var R;${clear}${this.setup}};` +
        `var ${b}w=function(){"use strict";${clear}};`,
    };
  }
}

/**
 * The rewrites of evaluatePixel's returned literals (see the module docstring).
 * @param fn evaluatePixel's acorn node; `base` the reserved prefix; `source` the script's text.
 * @returns the replacements (inside fn's body) and the declarations to emit after the copy; when any literal
 *   writes directly, the declarations define `${base}u(S, V, B)` (call at loop start), `${base}w()` (call at loop
 *   end: drops the references to the outputs), `${base}i` must be set to the pixel index before each call and a
 *   value `=== ${base}T` means "already written".
 */
export function returnRewrites(fn: AnyNode, base: string, source: string): Reuse & { direct: boolean } {
  const pass = (allowDirect: boolean): Rewriter => {
    const rw = new Rewriter(base, source, allowDirect);
    const go = (node: AnyNode): void => {
      if (node !== fn && FUNCTION_TYPES.has(node.type)) return;
      if (node.type === "ReturnStatement" && node.argument) rw.returned(node.argument as AnyNode);
      forEachChild(node, go);
    };
    go(fn);
    return rw;
  };
  // all or nothing: a loop that gets both written pixels and returned arrays measured slower than either
  // (landslide_detection: 5 literals, 2 of them within the limit, 21-26 -> 31-33 CPU ms/Mpx)
  let rw = pass(true);
  if (rw.mixed) rw = pass(false);
  const out = rw.finish();
  return { ...out, direct: out.decls.includes(`var ${base}u=`) };
}

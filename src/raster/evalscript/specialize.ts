/**
 * Specialised evaluatePixel: the column function. When the host can prove, on the script's acorn AST, that
 * evaluatePixel's only contact with the pixel is reading `sample.<band>` values of its first parameter (or
 * destructuring band names from it), the compiled module gets an edited copy of evaluatePixel that takes the
 * band values as parameters, and a `column` control object: `bind(arrays)` points it at one block's band arrays
 * (in `bands` order) and `loop` runs the block's pixels in the script's scope (columnloop.ts). The sandbox (sandbox/pixels.js `pixels`) then skips
 * filling a sample object and the 5-argument call per pixel; budget ticks, the per-call budget reset, the total
 * and the output writes are the general loop's (pixels.js `generalLoop`) statement for statement, so results
 * (values, NaN, conversions, errors, budget stops) are those of the general path.
 *
 * Refused (the general path runs; `reason` says why): evaluatePixel not declared exactly once as a top-level
 * function (or assigned), async / generator, `this`, `arguments`, `new.target`, a reference to evaluatePixel
 * itself, a second parameter that is used (scenes, inputMetadata, customData, outputMetadata), the sample used
 * other than as `sample.<name>` / `sample["name"]` reads (passed on, stored, written, deleted, called, iterated,
 * captured by a nested function, redeclared), names that live on Object.prototype, and destructuring with
 * defaults, nesting, computed keys or rest. Whether a script qualifies at run time (SIMPLE mosaicking, one
 * scene, no data fusion) is decided by the sandbox.
 */
import type { Node } from "acorn";
import type { AnyNode } from "./ast";
import { forEachChild, walk } from "./ast";
import { patternNames, scanNames } from "./globals";
import type { Copy } from "./instrument";
import { columnCopy, type ColumnNames } from "./columnloop";

export type { ColumnNames } from "./columnloop";

/** The column function of a script: the band names its parameters take and the copy instrument() emits. */
export interface ColumnPlan {
  bands: string[];
  copy: Copy;
}


/** Property names of Object.prototype: a sample read of these would find the prototype's value. */
const PROTO = new Set(Object.getOwnPropertyNames(Object.prototype));

const FUNCTION_TYPES = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** A refusal: thrown inside the analysis, caught by {@link columnPlan}. */
class Refused extends Error {}
const refuse = (why: string): never => {
  throw new Refused(why);
};

/** The top-level `function evaluatePixel` when it is the only binding and never assigned; refuses otherwise. */
function findEvaluatePixel(program: AnyNode): AnyNode {
  const top = (program.body as AnyNode[]).filter((s) => s.type === "FunctionDeclaration" && (s.id as AnyNode).name === "evaluatePixel");
  if (top.length !== 1) refuse(top.length ? "evaluatePixel is declared more than once" : "evaluatePixel is not a top-level function declaration");
  if (scanNames(program).assigned.has("evaluatePixel")) refuse("evaluatePixel is assigned");
  const bound: string[] = [];
  const add = { add: (name: string) => bound.push(name) };
  walk(program, (n) => {
    if (n.type === "VariableDeclarator") patternNames(n.id as AnyNode, add);
    if ((FUNCTION_TYPES.has(n.type) || n.type.startsWith("Class")) && n.id) patternNames(n.id as AnyNode, add);
    if (Array.isArray(n.params)) for (const p of n.params as AnyNode[]) patternNames(p, add);
    if (n.type === "CatchClause") patternNames(n.param as AnyNode, add);
  });
  if (bound.filter((b) => b === "evaluatePixel").length !== 1) refuse("evaluatePixel is declared more than once");
  const fn = top[0]!;
  if (fn.async || fn.generator) refuse("evaluatePixel is async or a generator");
  return fn;
}

/** The band name a member expression `sample.<name>` / `sample["name"]` reads, or undefined. */
function memberName(m: AnyNode): string | undefined {
  const prop = m.property as AnyNode;
  if (!m.computed && prop.type === "Identifier") return prop.name as string;
  if (m.computed && prop.type === "Literal" && typeof prop.value === "string") return prop.value;
  return undefined;
}

/** A node and the key it sits under in its parent. */
type Step = [AnyNode, string];

/**
 * Whether the member read `m` (path: `up[0]` its parent, `up[1]` the grandparent, each with the key of the
 * node below) is used as a value only: never written, deleted, called, iterated, spread or destructured.
 */
function readOnly(m: Step, up: (Step | undefined)[]): boolean {
  const [, key] = m;
  const [parent] = up[0] ?? [];
  if (!parent) return true;
  const t = parent.type;
  if ((t === "AssignmentExpression" && key === "left") || t === "UpdateExpression" || (t === "UnaryExpression" && parent.operator === "delete")) return false;
  if (t.endsWith("Pattern") || t === "RestElement" || t === "Property" || t === "TaggedTemplateExpression" || t === "SpreadElement" || t === "ChainExpression") {
    return t === "Property" && key === "value" && up[1]?.[0].type === "ObjectExpression";
  }
  if ((t === "CallExpression" || t === "NewExpression") && key === "callee") return false;
  if ((t === "ForInStatement" || t === "ForOfStatement") && key !== "body") return false;
  if (t === "VariableDeclarator" && (parent.id as AnyNode).type !== "Identifier") return false;
  if (t === "AssignmentExpression" && (parent.left as AnyNode).type.endsWith("Pattern")) return false;
  // `sample.B04.foo()`: V8 quotes the callee's text in "... is not a function"
  const [grand] = up[1] ?? [];
  const called = grand && (grand.type === "CallExpression" || grand.type === "NewExpression") && up[0]![1] === "callee";
  return !(t === "MemberExpression" && key === "object" && (called || grand?.type === "TaggedTemplateExpression"));
}

/**
 * Band reads of an identifier sample parameter `name` in the body: the replacements of every `sample.<band>`
 * by the band's parameter, and the band names in parameter order.
 */
function identifierReads(fn: AnyNode, name: string, param: (k: number) => string): { bands: string[]; replace: Copy["replace"] } {
  const bands: string[] = [];
  const replace: Copy["replace"] = [];
  const path: Step[] = [];
  const go = (n: AnyNode, key: string, nested: boolean): void => {
    const parent = path[path.length - 1]?.[0] ?? null;
    if (n.type === "Identifier" && n.name === name && parent !== fn) {
      if (declaresName(parent, key)) refuse(`evaluatePixel redeclares its sample parameter "${name}"`);
      if (referenceOf(parent, key)) {
        if (nested) refuse(`a function inside evaluatePixel captures the sample "${name}"`);
        const m = path[path.length - 1]!;
        const band = parent!.type === "MemberExpression" && key === "object" ? memberName(parent!) : undefined;
        if (band === undefined || !readOnly(m, [path[path.length - 2], path[path.length - 3]])) refuse(`evaluatePixel uses the sample "${name}" other than reading sample.<band>`);
        if (PROTO.has(band!)) refuse(`evaluatePixel reads sample.${band}, a name of Object.prototype`);
        if (!bands.includes(band!)) bands.push(band!);
        replace.push({ start: parent!.start, end: parent!.end, text: param(bands.indexOf(band!)) });
      }
    }
    path.push([n, key]);
    const inner = nested || (n !== fn && FUNCTION_TYPES.has(n.type));
    forEachChild(n, (c, k) => go(c, k, inner));
    path.pop();
  };
  go(fn, "", false);
  return { bands, replace };
}

/** Whether identifier child `key` of `parent` declares a binding (variable, function, class, parameter, catch). */
function declaresName(parent: AnyNode | null, key: string): boolean {
  if (!parent) return false;
  if (parent.type === "VariableDeclarator" && key === "id") return true;
  if ((FUNCTION_TYPES.has(parent.type) || parent.type.startsWith("Class")) && (key === "id" || key === "params")) return true;
  return parent.type === "CatchClause" && key === "param";
}

/** Whether identifier child `key` of `parent` is a variable reference (not a property name, label or key). */
function referenceOf(parent: AnyNode | null, key: string): boolean {
  if (!parent) return true;
  if (parent.type === "MemberExpression" && !parent.computed && key === "property") return false;
  if ((parent.type === "Property" || parent.type === "PropertyDefinition" || parent.type === "MethodDefinition") && key === "key" && !parent.computed) {
    return parent.type === "Property" && parent.shorthand === true;
  }
  return !["LabeledStatement", "BreakStatement", "ContinueStatement", "MetaProperty"].includes(parent.type);
}

/** Band names of a destructured sample parameter `{B04, B08: nir}`: [band, local] pairs; refuses other shapes. */
function destructured(p: AnyNode): [string, string][] {
  const out: [string, string][] = [];
  for (const prop of p.properties as AnyNode[]) {
    if (prop.type !== "Property" || prop.computed) refuse("evaluatePixel destructures its sample with rest or computed keys");
    const key = prop.key as AnyNode;
    const band = key.type === "Identifier" ? (key.name as string) : typeof key.value === "string" ? key.value : undefined;
    const value = prop.value as AnyNode;
    if (band === undefined || value.type !== "Identifier") refuse("evaluatePixel destructures its sample with defaults or nested patterns");
    if (PROTO.has(band!)) refuse(`evaluatePixel reads sample.${band}, a name of Object.prototype`);
    if (out.some(([, local]) => local === value.name)) refuse("evaluatePixel destructures a name twice");
    out.push([band!, value.name as string]);
  }
  return out;
}

/** Refuses `this`, `arguments`, `new.target`, references to evaluatePixel and used extra parameters in the body. */
function checkBody(fn: AnyNode): void {
  const extra = new Set((fn.params as AnyNode[]).slice(1).map((p) => (p.type === "Identifier" ? (p.name as string) : refuse("evaluatePixel has a destructured second parameter"))));
  walk(fn, (n, parent, key) => {
    if (n.type === "ThisExpression") refuse("evaluatePixel uses this");
    if (n.type === "MetaProperty") refuse("evaluatePixel uses new.target");
    if (n.type !== "Identifier" || !referenceOf(parent, key) || (parent === fn && (key === "params" || key === "id"))) return;
    if (n.name === "arguments") refuse("evaluatePixel uses arguments");
    if (n.name === "evaluatePixel") refuse("evaluatePixel refers to itself");
    if (extra.has(n.name as string)) refuse(`evaluatePixel uses its parameter "${n.name}" (scenes, metadata or outputMetadata)`);
  });
}

/** Reused-value rewrites of evaluatePixel's return literals (see {@link returnRewrites}). */
interface Reuse {
  replace: Copy["replace"];
  /** Declarations of the reused arrays and objects, e.g. `var Pr0=[0,0,0];`. */
  decls: string;
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

/**
 * Rewrites of `return [a, b, ...]` and `return {id: [a, ...], ...}` (also as branches of `c ? x : y`) in
 * evaluatePixel's own body (the copy only)
 * into stores to arrays / objects made once per script instance: `(Pr0[0]=a,Pr0[1]=b,Pr0)`. The elements are
 * evaluated in the same order and the loop reads the same values, lengths and keys (sandbox/pixels.js put / putAll), so
 * nothing observable changes; what goes is one allocation per pixel. Literals with holes, spreads, computed,
 * shorthand or accessor keys are left as they are.
 */
function returnRewrites(fn: AnyNode, base: string, source: string): Reuse {
  const replace: Copy["replace"] = [];
  let decls = "";
  let n = 0;
  const rewrite = (node: AnyNode): void => {
    const parts = node.type === "ArrayExpression" ? (node.elements as (AnyNode | null)[]) : (node.properties as AnyNode[]);
    const keys = node.type === "ObjectExpression" ? plainKeys(node) : undefined;
    if (node.type === "ArrayExpression" ? parts.length === 0 || parts.some((e) => !e || e.type === "SpreadElement") : !keys) return;
    const values = keys ? parts.map((p) => p!.value as AnyNode) : (parts as AnyNode[]);
    // the text between values: punctuation and keys only (a parenthesised value's parens lie outside its node)
    const gaps = values.map((v, k) => source.slice(k ? values[k - 1]!.end : node.start, v.start)).concat(source.slice(values[values.length - 1]!.end, node.end));
    if (gaps.some((g) => /[()/]/.test(g))) return;
    const name = `${base}r${n++}`;
    const slot = (k: number): string => (keys ? `${name}[${JSON.stringify(keys[k])}]=` : `${name}[${k}]=`);
    decls += `var ${name}=${keys ? `{${keys.map((k) => `${JSON.stringify(k)}:0`).join(",")}}` : `[${values.map(() => "0").join(",")}]`};`;
    values.forEach((v, k) => replace.push({ start: k ? values[k - 1]!.end : node.start, end: v.start, text: (k ? "," : "(") + slot(k) }));
    replace.push({ start: values[values.length - 1]!.end, end: node.end, text: `,${name})` });
    if (keys) for (const v of values) returned(v);
  };
  const returned = (value: AnyNode): void => {
    if (value.type === "ArrayExpression" || value.type === "ObjectExpression") rewrite(value);
    if (value.type === "ConditionalExpression") for (const branch of [value.consequent, value.alternate] as AnyNode[]) returned(branch);
  };
  const go = (node: AnyNode): void => {
    if (node !== fn && FUNCTION_TYPES.has(node.type)) return;
    if (node.type === "ReturnStatement" && node.argument) returned(node.argument as AnyNode);
    forEachChild(node, go);
  };
  go(fn);
  return { replace, decls };
}

/**
 * The column plan of a parsed script, or why there is none.
 * @param program the acorn Program of the user's script.
 * @param source the script's text.
 * @param names the reserved prefix for generated identifiers.
 * @returns `{plan}` (bands in parameter order and the copy to emit after the script) or `{reason}`.
 */
export function columnPlan(program: Node, source: string, names: ColumnNames): { plan?: ColumnPlan; reason?: string } {
  try {
    const fn = findEvaluatePixel(program as AnyNode);
    const params = fn.params as AnyNode[];
    if (params.length === 0) refuse("evaluatePixel takes no sample parameter");
    checkBody(fn);
    const first = params[0]!;
    const param = (k: number): string => `${names.base}b${k}`;
    let bands: string[];
    let replace: Copy["replace"] = [];
    let locals: string[];
    if (first.type === "Identifier") {
      ({ bands, replace } = identifierReads(fn, first.name as string, param));
      locals = bands.map((_, k) => param(k));
    } else if (first.type === "ObjectPattern") {
      const pairs = destructured(first);
      bands = pairs.map(([b]) => b);
      locals = pairs.map(([, l]) => l);
    } else {
      return refuse("evaluatePixel's sample parameter has a default value or is an array pattern");
    }
    const reuse = returnRewrites(fn, names.base, source);
    const body = fn.body as AnyNode;
    const copy = columnCopy(names, { start: body.start, end: body.end }, fn.start as number, locals, bands, [...replace, ...reuse.replace]);
    copy.tail += reuse.decls;
    return { plan: { bands, copy } };
  } catch (err) {
    if (err instanceof Refused) return { reason: err.message };
    throw err;
  }
}

/**
 * Straight-line evaluatePixel bodies: those whose every call ticks the budget exactly once (the instrumented
 * entry tick, instrument.ts) and makes no charge, so that the column loop (columnloop.ts) can skip the
 * per-pixel budget bookkeeping when the block's pixels fit in what is left of the request's total.
 *
 * Proven on the acorn AST of evaluatePixel (its column copy): every value the body computes is a primitive, so
 * no operator can call script code (valueOf, toString, getters, Proxy traps: each such call would tick) or a
 * guarded native (harden.js charges): the body holds only
 * - statements: expressions, `return`, `if`, blocks, and at its top level `var` / `let` / `const` of plain
 *   identifiers bound once in the whole script;
 * - values: the sample's band reads (`sample.B04`, replaced by band values: numbers, or undefined for a band
 *   the block lacks), literals other than regular expressions and BigInts, those locals, `NaN`, `Infinity`,
 *   `undefined`, `Math.PI` / `Math.E`...;
 * - operators other than `in`, `instanceof` and `delete`; assignments and updates of the locals;
 * - calls of `Math.<function>` and of the sandbox's `index(a, b)` (sandbox/lib.js: pure, not instrumented),
 *   without spread arguments, when the script binds neither `Math` nor `index`;
 * - returned array literals (holes allowed, no spread) and object literals of plain keys (no `__proto__` key,
 *   no computed keys, methods, accessors or spread), also as branches of `c ? x : y`, whose values are the
 *   above (returns.ts writes or reuses them; the writers read only their own elements).
 * Anything else (loops, functions, other calls, script globals, member reads, helpers the sample is passed
 * to) is not straight-line: the loop keeps its per-pixel bookkeeping.
 */
import type { AnyNode } from "./ast";

/** Globals that name primitives (when the script does not bind them). */
const PRIMITIVE_GLOBALS = new Set(["NaN", "Infinity", "undefined"]);
/** Math functions (ECMA-262 sec. 21.3.2): natives that convert their arguments with ToNumber. */
const MATH_FUNCTIONS = new Set([
  "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "atan2", "cbrt", "ceil", "clz32", "cos", "cosh", "exp", "expm1", "floor",
  "fround", "hypot", "imul", "log", "log1p", "log10", "log2", "max", "min", "pow", "round", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
]);
const MATH_CONSTANTS = new Set(["E", "LN10", "LN2", "LOG10E", "LOG2E", "PI", "SQRT1_2", "SQRT2"]);
const MATH = new Set(["Math"]);
/** sandbox/lib.js functions that only compute on their (primitive) arguments. */
const PURE_LIB = new Set(["index"]);

/** The checker of one evaluatePixel body (see the module docstring). */
class Straight {
  constructor(
    private readonly sample: string | undefined,
    private readonly locals: ReadonlySet<string>,
    private readonly bound: ReadonlyMap<string, number>,
  ) {}

  /** A global the script does not bind. */
  private global(n: AnyNode, names: ReadonlySet<string>): boolean {
    return n.type === "Identifier" && names.has(n.name as string) && !this.bound.has(n.name as string);
  }

  /** `Math.<name>` (not computed, not optional) with name in `names`. */
  private math(n: AnyNode, names: ReadonlySet<string>): boolean {
    const p = n.property as AnyNode;
    return n.type === "MemberExpression" && !n.computed && !n.optional && this.global(n.object as AnyNode, MATH) && names.has(p.name as string);
  }

  private call(n: AnyNode): boolean {
    const callee = n.callee as AnyNode;
    const args = n.arguments as AnyNode[];
    if (n.optional || !(this.math(callee, MATH_FUNCTIONS) || this.global(callee, PURE_LIB))) return false;
    return args.every((a) => a.type !== "SpreadElement" && this.expr(a));
  }

  private local(n: AnyNode): boolean {
    return n.type === "Identifier" && this.locals.has(n.name as string);
  }

  /** An expression whose value is a primitive and whose evaluation calls no script code and no guarded native. */
  expr(n: AnyNode): boolean {
    const all = (xs: AnyNode[]) => xs.every((x) => this.expr(x));
    switch (n.type) {
      case "Literal":
        return n.regex === undefined && n.bigint === undefined;
      case "Identifier":
        return this.local(n) || this.global(n, PRIMITIVE_GLOBALS);
      case "MemberExpression": {
        const o = n.object as AnyNode;
        const sampleRead = !n.computed && !n.optional && o.type === "Identifier" && this.sample !== undefined && o.name === this.sample;
        return sampleRead || this.math(n, MATH_CONSTANTS);
      }
      case "CallExpression":
        return this.call(n);
      case "BinaryExpression":
        return n.operator !== "in" && n.operator !== "instanceof" && all([n.left as AnyNode, n.right as AnyNode]);
      case "LogicalExpression":
        return all([n.left as AnyNode, n.right as AnyNode]);
      case "ConditionalExpression":
        return all([n.test as AnyNode, n.consequent as AnyNode, n.alternate as AnyNode]);
      case "UnaryExpression":
        return n.operator !== "delete" && this.expr(n.argument as AnyNode);
      case "UpdateExpression":
        return this.local(n.argument as AnyNode);
      case "AssignmentExpression":
        return this.local(n.left as AnyNode) && this.expr(n.right as AnyNode);
      case "SequenceExpression":
        return all(n.expressions as AnyNode[]);
      default:
        return false;
    }
  }

  /** A returned value: an expression above, or an array / object literal of them, or a conditional of those. */
  returned(n: AnyNode): boolean {
    if (n.type === "ConditionalExpression") return this.expr(n.test as AnyNode) && this.returned(n.consequent as AnyNode) && this.returned(n.alternate as AnyNode);
    if (n.type === "ArrayExpression") return (n.elements as (AnyNode | null)[]).every((e) => e === null || (e.type !== "SpreadElement" && this.expr(e)));
    if (n.type === "ObjectExpression") return (n.properties as AnyNode[]).every((p) => this.property(p));
    return this.expr(n);
  }

  private property(p: AnyNode): boolean {
    const key = p.key as AnyNode;
    const name = key.type === "Identifier" ? key.name : key.value;
    if (p.type !== "Property" || p.kind !== "init" || p.computed || p.method || name === "__proto__") return false;
    const value = p.value as AnyNode;
    return value.type === "ArrayExpression" ? this.returned(value) : this.expr(value);
  }

  /** A statement; `top` for the statements of the function body itself (where declarations may be). */
  stmt(n: AnyNode, top: boolean): boolean {
    switch (n.type) {
      case "ExpressionStatement":
        return this.expr(n.expression as AnyNode);
      case "ReturnStatement":
        return !n.argument || this.returned(n.argument as AnyNode);
      case "IfStatement":
        return this.expr(n.test as AnyNode) && this.stmt(n.consequent as AnyNode, false) && (!n.alternate || this.stmt(n.alternate as AnyNode, false));
      case "BlockStatement":
        return (n.body as AnyNode[]).every((s) => this.stmt(s, false));
      case "EmptyStatement":
        return true;
      case "VariableDeclaration":
        return top && (n.declarations as AnyNode[]).every((d) => this.local(d.id as AnyNode) && (!d.init || this.expr(d.init as AnyNode)));
      default:
        return false;
    }
  }
}

/**
 * Whether evaluatePixel `fn` is straight-line (see the module docstring).
 * @param fn evaluatePixel's FunctionDeclaration node.
 * @param sample its sample parameter's name (undefined when it destructures the sample).
 * @param paramLocals the locals its destructuring pattern binds (empty otherwise).
 * @param bound how many times each name is bound in the whole script (samplereads.ts bindingCounts).
 */
export function isStraightLine(fn: AnyNode, sample: string | undefined, paramLocals: string[], bound: ReadonlyMap<string, number>): boolean {
  const body = fn.body as AnyNode;
  const declared = (body.body as AnyNode[]).flatMap((s) => (s.type === "VariableDeclaration" ? (s.declarations as AnyNode[]).map((d) => d.id as AnyNode) : []));
  const names = [...paramLocals, ...declared.map((id) => (id.type === "Identifier" ? (id.name as string) : ""))];
  if (names.some((name) => !name || bound.get(name) !== 1)) return false;
  const check = new Straight(sample, new Set(names), bound);
  return (body.body as AnyNode[]).every((s) => check.stmt(s, true));
}

/**
 * Compile-time evaluation of a pure evalscript into a column program (./program.ts): the script's top level runs
 * here on constants (its declarations, visualizers, setup()), then evaluatePixel runs once on a symbolic sample
 * whose bands are program registers; every helper it calls is inlined (depth at most MAX_DEPTH: recursion is
 * refused), every operation on pixel values becomes an operation of the program. Anything outside the subset
 * (loops, writes to top-level or undeclared variables, strings in arithmetic, objects whose type depends on the
 * pixel, library calls with non-constant stops, the other script functions...) throws NotPure with the reason:
 * the script then runs in the sandbox, unchanged.
 */
import { parse } from "acorn";
import type { AnyNode } from "../compile/ast";
import { walk } from "../compile/ast";
import { OVERRIDE_NAMES } from "../compile/wrapper";
import { Builder, NotPure, OP, type Program, type ProgramOutput } from "./program";
import { callLibrary, construct, LIBRARY_GLOBALS, libraryGlobal } from "./library";
import { binaryOp, memberOf, unaryOp } from "./operators";
import {
  declare,
  exec,
  hoistBlock,
  idName,
  lookup,
  pixelGlobals,
  run,
  Trail,
  varNames,
  type Activation,
  type Evaluator,
} from "./statements";
import {
  fromConstant,
  NOT_CONSTANT,
  refuse,
  select,
  toConstant,
  toNum,
  truth,
  UNDEF,
  type Closure,
  type Scope,
  type Value,
} from "./values";
import type { EvalOutputSpec, EvalSetup } from "../types";

/** Inlined calls nested at most this deep (a recursive helper is refused when it reaches it). */
const MAX_DEPTH = 24;

/** Script functions that make the runtime do more than evaluatePixel over one sample: the sandbox runs those scripts. */
const SANDBOX_FUNCTIONS = ["preProcessScenes", "filterScenes", "updateOutput", "updateOutputMetadata"];

class Compiler implements Evaluator {
  readonly b = new Builder();
  act: Activation = { returned: null, value: null, done: false };
  scope: Scope = { cells: new Map(), parent: null };
  serial = 0;
  readonly trail = new Trail();
  depth = 0;
  /** Calls and array elements made (a bound of the sandbox's budget ticks). */
  work = 1;
  /** Bands the sample has (setup's inputs), when a pixel is evaluated. */
  bands: Set<string> = new Set();

  closure(node: AnyNode): Value {
    if (node.async || node.generator) refuse("an async function or a generator");
    return { t: "fn", fn: { node, scope: this.scope } };
  }

  test(node: AnyNode): number {
    if (node.type === "LogicalExpression" && (node.operator === "&&" || node.operator === "||")) {
      const a = this.test(node.left as AnyNode);
      const k = this.b.valueOf(a);
      if (k !== undefined) return (node.operator === "&&") === !!k ? this.test(node.right as AnyNode) : a;
      const c = this.test(node.right as AnyNode);
      return node.operator === "&&"
        ? this.b.op(OP.SELECT, a, c, this.b.constant(0))
        : this.b.op(OP.SELECT, a, this.b.constant(1), c);
    }
    if (node.type === "UnaryExpression" && node.operator === "!")
      return this.b.op(OP.NOT, this.test(node.argument as AnyNode));
    return truth(this.b, this.expr(node));
  }

  expr(n: AnyNode): Value {
    const b = this.b;
    switch (n.type) {
      case "Literal":
        if (n.regex || n.bigint !== undefined) return refuse("a regex or BigInt literal");
        return fromConstant(b, n.value);
      case "Identifier":
        return this.identifier(n.name as string);
      case "ArrayExpression":
        this.work += (n.elements as unknown[]).length;
        return {
          t: "arr",
          items: (n.elements as (AnyNode | null)[]).flatMap((e) =>
            e === null ? refuse("an array hole") : this.spread(e),
          ),
        };
      case "ObjectExpression": {
        const props = new Map<string, Value>();
        for (const p of n.properties as AnyNode[]) {
          if (p.type !== "Property" || p.kind !== "init" || p.method || p.computed)
            return refuse("an object literal with computed keys, methods or spread");
          const key = p.key as AnyNode;
          props.set(
            key.type === "Identifier" ? (key.name as string) : String(key.value),
            this.expr(p.value as AnyNode),
          );
        }
        return { t: "obj", props };
      }
      case "UnaryExpression":
        return unaryOp(b, n.operator as string, this.expr(n.argument as AnyNode));
      case "BinaryExpression":
        return binaryOp(b, n.operator as string, this.expr(n.left as AnyNode), this.expr(n.right as AnyNode));
      case "LogicalExpression": {
        const a = this.expr(n.left as AnyNode);
        if (n.operator === "??") return a.t === "undef" || a.t === "null" ? this.expr(n.right as AnyNode) : a;
        const t = truth(b, a),
          k = b.valueOf(t);
        if (k !== undefined) return (n.operator === "&&") === !!k ? this.expr(n.right as AnyNode) : a;
        const r = this.expr(n.right as AnyNode);
        return n.operator === "&&" ? select(b, t, r, a) : select(b, t, a, r);
      }
      case "ConditionalExpression": {
        const c = this.test(n.test as AnyNode),
          k = b.valueOf(c);
        if (k !== undefined) return this.expr((k ? n.consequent : n.alternate) as AnyNode);
        return select(b, c, this.expr(n.consequent as AnyNode), this.expr(n.alternate as AnyNode));
      }
      case "MemberExpression":
        return this.member(this.expr(n.object as AnyNode), this.key(n));
      case "CallExpression":
        return this.call(n);
      case "NewExpression": {
        const callee = n.callee as AnyNode;
        const v = callee.type === "Identifier" ? this.identifier(callee.name as string) : UNDEF;
        if (v.t !== "lib") return refuse("new of something else than a library visualizer");
        return construct(b, v.name, this.args(n.arguments as AnyNode[]));
      }
      case "AssignmentExpression":
        return this.assign(n);
      case "UpdateExpression": {
        const cell = this.target(n.argument as AnyNode);
        const old = toNum(b, read(cell, (n.argument as AnyNode).name as string));
        const next = b.op(n.operator === "++" ? OP.ADD : OP.SUB, old, b.constant(1));
        this.trail.assign(cell, { t: "num", r: next });
        return { t: "num", r: n.prefix ? next : old };
      }
      case "SequenceExpression": {
        let last: Value = UNDEF;
        for (const e of n.expressions as AnyNode[]) last = this.expr(e);
        return last;
      }
      case "ArrowFunctionExpression":
      case "FunctionExpression":
        return this.closure(n);
      case "ParenthesizedExpression":
        return this.expr(n.expression as AnyNode);
    }
    return refuse(`a ${n.type}`);
  }

  private spread(e: AnyNode): Value[] {
    if (e.type !== "SpreadElement") return [this.expr(e)];
    const v = this.expr(e.argument as AnyNode);
    return v.t === "arr" ? v.items : refuse("spread of something else than an array");
  }

  private args(nodes: AnyNode[]): Value[] {
    return nodes.flatMap((e) => this.spread(e));
  }

  private identifier(name: string): Value {
    const cell = lookup(this.scope, name);
    if (cell) return read(cell, name);
    if (LIBRARY_GLOBALS.has(name)) return libraryGlobal(this.b, name);
    return refuse(`the global ${name}`);
  }

  member(o: Value, key: string): Value {
    return memberOf(this.b, this.bands, o, key);
  }

  /** A member access's key: a name, or a constant computed key. */
  private key(n: AnyNode): string {
    if (n.optional) refuse("optional chaining");
    const p = n.property as AnyNode;
    if (!n.computed) return p.name as string;
    const k = toConstant(this.b, this.expr(p));
    if (typeof k === "string" || typeof k === "number") return String(k);
    return refuse("a computed key that is not a constant");
  }

  private call(n: AnyNode): Value {
    if (n.optional) refuse("optional call");
    const callee = n.callee as AnyNode;
    const f =
      callee.type === "MemberExpression"
        ? this.member(this.expr(callee.object as AnyNode), this.key(callee))
        : this.expr(callee);
    const args = this.args(n.arguments as AnyNode[]);
    this.work += 1 + args.length + (f.t === "lib" && f.self?.t === "arr" ? f.self.items.length : 0);
    if (f.t === "lib") return callLibrary(this.b, f, args);
    if (f.t === "fn") return this.inline(f.fn, args);
    return refuse(`a call of a ${f.t}`);
  }

  /** The cell an assignment writes; refuses constants and globals no script function assigns (pixelGlobals). */
  private target(t: AnyNode): import("./values").Cell {
    if (t.type !== "Identifier") return refuse("an assignment to a property or pattern");
    const cell = lookup(this.scope, t.name as string);
    if (!cell || !cell.writable) return refuse(`an assignment to ${t.name}, a constant or a global`);
    if (!cell.ready) return refuse(`${t.name} assigned before its declaration`);
    return cell;
  }

  private assign(n: AnyNode): Value {
    const cell = this.target(n.left as AnyNode);
    const op = n.operator as string;
    const left = (n.left as AnyNode).name as string;
    const v =
      op === "=" ? this.expr(n.right as AnyNode) : this.compound(op.slice(0, -1), read(cell, left), n.right as AnyNode);
    this.trail.assign(cell, v);
    return v;
  }

  private compound(op: string, old: Value, right: AnyNode): Value {
    if (op === "&&" || op === "||" || op === "??") return refuse(`the operator ${op}=`);
    return binaryOp(this.b, op, old, this.expr(right));
  }

  /** A call of a script function, inlined: parameters bound, body run as its own activation. */
  inline(fn: Closure, args: Value[]): Value {
    if (++this.depth > MAX_DEPTH) refuse("calls nested too deep (recursion?)");
    this.work++;
    const node = fn.node,
      outer = { scope: this.scope, act: this.act };
    this.scope = { cells: new Map(), parent: fn.scope };
    this.act = { returned: null, value: null, done: false };
    try {
      (node.params as AnyNode[]).forEach((p, i) => this.bind(p, args[i] ?? UNDEF));
      const body = node.body as AnyNode;
      if (node.expression) return this.expr(body);
      const statements = body.body as AnyNode[];
      for (const name of varNames(statements))
        if (!this.scope.cells.has(name)) declare(this, this.scope, name, UNDEF, true, this.trail);
      hoistBlock(this, statements, this.trail, true);
      run(this, statements, this.trail);
      if (!this.act.done) exec(this, { type: "ReturnStatement", argument: null } as unknown as AnyNode, this.trail);
      return this.act.value ?? UNDEF;
    } finally {
      this.depth--;
      this.scope = outer.scope;
      this.act = outer.act;
    }
  }

  /** Binds one parameter: a name, a name with a default, or `{a, b}` of band names. */
  private bind(p: AnyNode, v: Value): void {
    if (p.type === "AssignmentPattern")
      return this.bind(p.left as AnyNode, v.t === "undef" ? this.expr(p.right as AnyNode) : v);
    if (p.type === "ObjectPattern") {
      for (const q of p.properties as AnyNode[]) {
        if (q.type !== "Property" || q.computed || (q.value as AnyNode).type !== "Identifier")
          refuse("a parameter pattern");
        declare(
          this,
          this.scope,
          (q.value as AnyNode).name as string,
          this.member(v, (q.key as AnyNode).name as string),
          true,
          this.trail,
        );
      }
      return;
    }
    declare(this, this.scope, idName(p), v, true, this.trail);
  }

  /** Runs the script's top level; afterwards top-level variables are read-only for pixel code. */
  topLevel(program: AnyNode): void {
    const statements = program.body as AnyNode[];
    const names = new Set<string>();
    walk(program, (n) => {
      if (n.type === "Identifier") names.add(n.name as string);
    });
    for (const name of [...OVERRIDE_NAMES, ...SANDBOX_FUNCTIONS])
      if (names.has(name)) refuse(`the script names ${name}`);
    for (const name of varNames(statements)) declare(this, this.scope, name, UNDEF, true, this.trail);
    hoistBlock(this, statements, this.trail, true);
    run(this, statements, this.trail);
    if (this.act.done) refuse("a top-level return");
    for (const cell of this.scope.cells.values()) cell.writable = false;
    this.trail.writes.length = 0;
  }

  /** The top-level function `name`. */
  fn(name: string): Closure {
    const v = this.scope.cells.get(name)?.v;
    return v?.t === "fn" ? v.fn : refuse(`${name} is not a function`);
  }
}

/** The value of variable `name` (its cell); refuses one read before its declaration or before this pixel wrote it. */
function read(cell: import("./values").Cell, name: string): Value {
  if (!cell.ready) return refuse(`${name} read before its declaration`);
  return cell.v.t === "stale"
    ? refuse(`${name} read before the pixel writes it (it holds the previous pixel's)`)
    : cell.v;
}

/** Parses a script that compileEvalscript accepted. */
function parsed(source: string): AnyNode {
  return parse(source, { ecmaVersion: "latest", sourceType: "script" }) as unknown as AnyNode;
}

/**
 * What setup() returns when the script's top level and setup() are pure and setup's value is a constant, else
 * why not (the sandbox then runs setup()).
 */
export function setupLiteral(source: string): { value: unknown } | { reason: string } {
  try {
    const c = new Compiler();
    c.topLevel(parsed(source));
    const v = toConstant(c.b, c.inline(c.fn("setup"), []));
    return v === NOT_CONSTANT ? { reason: "setup() returns a value that is not a constant" } : { value: v };
  } catch (err) {
    if (err instanceof NotPure) return { reason: err.message };
    throw err;
  }
}

/** setupLiteral's value, or undefined. */
export function literalSetup(source: string): unknown {
  const r = setupLiteral(source);
  return "value" in r ? r.value : undefined;
}

/** The program's registers for one output from evaluatePixel's value `v` (as sandbox/pixels.js `put` writes it). */
function outputRegs(c: Compiler, o: EvalOutputSpec, v: Value, single: boolean): number[] {
  const nums = (items: Value[]) =>
    items.map((x) =>
      x.t === "num" || x.t === "bool" || x.t === "undef" || x.t === "null"
        ? toNum(c.b, x)
        : refuse(`an output value that is a ${x.t}`),
    );
  if ((v.t === "num" || v.t === "bool") && o.bands === 1) return [v.r];
  if (v.t === "arr" && v.items.length === o.bands) return nums(v.items);
  if (single && v.t === "obj" && !v.props.has("length") && v.props.has(o.id))
    return outputRegs(c, o, v.props.get(o.id)!, false);
  return refuse(`evaluatePixel's value does not fit output "${o.id}" (the sandbox reports the error)`);
}

/**
 * The column program of a pure script for its (normalized) setup: SIMPLE mosaicking, one input without a
 * datasource. With `wanted`, the program computes only those outputs (in setup order; the others' operations are
 * dropped), though every output's value is still checked as the sandbox checks it.
 * @throws NotPure (the reason) when the script is outside the subset.
 */
export function compileProgram(source: string, setup: EvalSetup, wanted?: string[]): Program {
  if (
    setup.mosaicking !== "SIMPLE" ||
    setup.inputs.some((i) => i.datasource !== undefined || i.mosaicking !== undefined)
  )
    refuse("mosaicking other than SIMPLE, or data fusion");
  const c = new Compiler(),
    program = parsed(source);
  c.topLevel(program);
  pixelGlobals(c.scope, program, LIBRARY_GLOBALS);
  c.bands = new Set(setup.inputs.flatMap((i) => i.bands));
  c.work = 1;
  const opaque: Value = { t: "opaque" };
  const v = c.inline(c.fn("evaluatePixel"), [{ t: "sample" }, opaque, opaque, opaque, opaque]);
  const outputs: ProgramOutput[] = setup.outputs.map((o) => ({ id: o.id, regs: [] }));
  if (setup.outputs.length === 1) outputs[0]!.regs = outputRegs(c, setup.outputs[0]!, v, true);
  else if (v.t !== "obj") refuse("several outputs but evaluatePixel does not return an object");
  else
    setup.outputs.forEach(
      (o, k) =>
        (outputs[k]!.regs = outputRegs(c, o, v.props.get(o.id) ?? refuse(`no value for output "${o.id}"`), false)),
    );
  return c.b.finish(
    outputs.filter((o) => !wanted || wanted.includes(o.id)),
    8 * c.work,
  );
}

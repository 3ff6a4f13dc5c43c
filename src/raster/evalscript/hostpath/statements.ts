/**
 * Statements of the compile-time evaluation (./compile.ts holds the expressions): declarations, assignments'
 * trail, `if` / `switch` / `return` over pixel-dependent conditions. A condition known at compile time runs one
 * branch; a pixel-dependent one runs both, then merges what each assigned and returned with `select` (the
 * script is pure, so running a branch for pixels that do not take it changes nothing they see). An activation
 * (one inlined call) tracks which pixels have returned (`returned`, a truthiness register) and with what.
 */
import type { AnyNode } from "../compile/ast";
import { OP, type Builder } from "./program";
import { known, refuse, select, STALE, strictEquals, UNDEF, type Cell, type Scope, type Value } from "./values";

/** The return state of one inlined call. */
export interface Activation {
  /** Truthiness register of the pixels that returned so far, null when none did. */
  returned: number | null;
  /** What they returned (meaningful where `returned`). */
  value: Value | null;
  /** Every pixel has returned: the rest of the body is dead code. */
  done: boolean;
}

/** The evaluator the statements run on (./compile.ts). */
export interface Evaluator {
  readonly b: Builder;
  act: Activation;
  scope: Scope;
  expr(node: AnyNode): Value;
  test(node: AnyNode): number;
  closure(node: AnyNode): Value;
  /** Serial number of the next cell (cells born after a branch began are the branch's own). */
  serial: number;
}

/** One assignment, for rolling a branch back. */
interface Write {
  cell: Cell;
  old: Value;
}

/** The trail of assignments since the outermost open branch. */
export class Trail {
  readonly writes: Write[] = [];
  readonly born = new WeakMap<Cell, number>();

  assign(cell: Cell, v: Value): void {
    this.writes.push({ cell, old: cell.v });
    cell.v = v;
  }

  /** Undoes the writes after `mark`; returns each written cell's last value (in first-written order). */
  rollback(mark: number): Map<Cell, Value> {
    const last = new Map<Cell, Value>();
    for (let i = mark; i < this.writes.length; i++) last.set(this.writes[i]!.cell, this.writes[i]!.cell.v);
    for (const [cell] of last) cell.v = this.firstOld(cell, mark);
    this.writes.length = mark;
    return last;
  }

  private firstOld(cell: Cell, mark: number): Value {
    for (let i = mark; i < this.writes.length; i++) if (this.writes[i]!.cell === cell) return this.writes[i]!.old;
    return cell.v;
  }
}

/** Declares `name` in `scope` (a fresh cell, writable by the code declaring it). */
export function declare(ev: Evaluator, scope: Scope, name: string, v: Value, ready: boolean, trail: Trail): Cell {
  const cell: Cell = { v, writable: true, ready };
  trail.born.set(cell, ev.serial++);
  scope.cells.set(name, cell);
  return cell;
}

/** Names of `var` declarations in a function body, nested blocks included, nested functions excluded. */
export function varNames(statements: AnyNode[]): string[] {
  const out: string[] = [];
  const visit = (n: AnyNode | null | undefined): void => {
    if (!n || typeof n !== "object") return;
    if (n.type === "VariableDeclaration") {
      if (n.kind === "var") for (const d of n.declarations as AnyNode[]) out.push(idName(d.id as AnyNode));
      for (const d of n.declarations as AnyNode[]) visit(d.init as AnyNode);
      return;
    }
    if (n.type === "FunctionDeclaration" || n.type === "FunctionExpression" || n.type === "ArrowFunctionExpression")
      return;
    for (const key of Object.keys(n)) {
      if (key === "loc") continue;
      const v = n[key];
      for (const c of Array.isArray(v) ? v : [v])
        if (c && typeof c === "object" && typeof (c as AnyNode).type === "string") visit(c as AnyNode);
    }
  };
  statements.forEach(visit);
  return out;
}

/**
 * Makes the globals that script functions assign (top-level variables, or undeclared names: sloppy-mode globals)
 * writable by pixel code, each holding STALE: its value is the previous pixel's, so a pixel may read it only after
 * writing it (a read of STALE is refused). Call after the top level ran, before evaluatePixel. Top-level `const`
 * names, and names of `reserved` (the library's globals) that the script does not declare, are left alone (their
 * assignment is refused: a TypeError in JavaScript for a const).
 */
export function pixelGlobals(top: Scope, program: AnyNode, reserved: Set<string>): void {
  const names = new Set<string>();
  const visit = (n: AnyNode, inFunction: boolean): void => {
    const target = n.type === "AssignmentExpression" ? n.left : n.type === "UpdateExpression" ? n.argument : null;
    if (inFunction && (target as AnyNode | null)?.type === "Identifier") names.add((target as AnyNode).name as string);
    const fn =
      n.type === "FunctionDeclaration" || n.type === "FunctionExpression" || n.type === "ArrowFunctionExpression";
    for (const key of Object.keys(n)) {
      const v = n[key];
      for (const c of Array.isArray(v) ? v : [v])
        if (key !== "loc" && c && typeof c === "object" && typeof (c as AnyNode).type === "string")
          visit(c as AnyNode, inFunction || fn);
    }
  };
  visit(program, false);
  for (const s of program.body as AnyNode[])
    if (s.type === "VariableDeclaration" && s.kind === "const")
      for (const d of s.declarations as AnyNode[]) names.delete(idName(d.id as AnyNode));
  for (const name of names) {
    const cell = top.cells.get(name);
    if (cell) Object.assign(cell, { v: STALE, writable: true, ready: true });
    else if (!reserved.has(name)) top.cells.set(name, { v: STALE, writable: true, ready: true });
  }
}

/** The name of a declared identifier; refuses destructuring patterns. */
export function idName(id: AnyNode): string {
  if (id.type !== "Identifier") refuse("a destructuring declaration");
  return id.name as string;
}

/** let / const / class declarations and function declarations of a block, made before its statements run. */
export function hoistBlock(ev: Evaluator, statements: AnyNode[], trail: Trail, functionsAllowed: boolean): void {
  for (const s of statements) {
    if (s.type === "VariableDeclaration" && s.kind !== "var") {
      // a const is never assigned again (JavaScript throws a TypeError: the sandbox reports it)
      for (const d of s.declarations as AnyNode[])
        declare(ev, ev.scope, idName(d.id as AnyNode), UNDEF, false, trail).writable = s.kind !== "const";
    } else if (s.type === "ClassDeclaration") {
      refuse("a class");
    } else if (s.type === "FunctionDeclaration") {
      if (!functionsAllowed) refuse("a function declared in a block");
      declare(ev, ev.scope, (s.id as AnyNode).name as string, ev.closure(s), true, trail);
    }
  }
}

/** Runs statements in order until every pixel has returned (or a `break` of a switch case when `breakable`). */
export function run(ev: Evaluator, statements: AnyNode[], trail: Trail, breakable = false): boolean {
  for (const s of statements) {
    if (ev.act.done) return false;
    if (breakable && s.type === "BreakStatement" && !s.label) return true;
    exec(ev, s, trail);
  }
  return false;
}

/** `return v` for the pixels still running. */
function doReturn(ev: Evaluator, v: Value): void {
  const act = ev.act;
  act.value = act.returned === null || act.value === null ? v : select(ev.b, act.returned, act.value, v);
  act.done = true;
}

/** A block scope around `f`. */
function inBlock(ev: Evaluator, statements: AnyNode[], trail: Trail, f: () => void): void {
  const outer = ev.scope;
  ev.scope = { cells: new Map(), parent: outer };
  try {
    hoistBlock(ev, statements, trail, false);
    f();
  } finally {
    ev.scope = outer;
  }
}

/** One statement. */
export function exec(ev: Evaluator, s: AnyNode, trail: Trail): void {
  switch (s.type) {
    case "EmptyStatement":
    case "FunctionDeclaration":
      return;
    case "ExpressionStatement":
      ev.expr(s.expression as AnyNode);
      return;
    case "VariableDeclaration":
      for (const d of s.declarations as AnyNode[]) {
        const name = idName(d.id as AnyNode);
        const cell = lookup(ev.scope, name);
        if (!cell) return refuse(`the declaration of ${name}`);
        if (d.init) trail.assign(cell, ev.expr(d.init as AnyNode));
        else if (s.kind !== "var") trail.assign(cell, UNDEF);
        cell.ready = true;
      }
      return;
    case "ReturnStatement":
      doReturn(ev, s.argument ? ev.expr(s.argument as AnyNode) : UNDEF);
      return;
    case "BlockStatement":
      inBlock(ev, s.body as AnyNode[], trail, () => void run(ev, s.body as AnyNode[], trail));
      return;
    case "IfStatement": {
      const c = ev.test(s.test as AnyNode);
      branch(
        ev,
        trail,
        c,
        () => exec(ev, s.consequent as AnyNode, trail),
        () => s.alternate && exec(ev, s.alternate as AnyNode, trail),
      );
      return;
    }
    case "SwitchStatement":
      return switchStatement(ev, s, trail);
    case "TryStatement":
      // pure code cannot throw: the handler never runs (a finally block, which may override returns, is refused)
      if (s.finalizer) refuse("try ... finally");
      exec(ev, s.block as AnyNode, trail);
      return;
  }
  refuse(`a ${s.type}`);
}

/** The cell `name` resolves to in `scope`'s chain, or undefined. */
export function lookup(scope: Scope | null, name: string): Cell | undefined {
  for (let s = scope; s; s = s.parent) {
    const c = s.cells.get(name);
    if (c) return c;
  }
  return undefined;
}

/** `if (c) f1 else f2` with c a truthiness register: one branch when c is known, else both, merged. */
export function branch(ev: Evaluator, trail: Trail, c: number, f1: () => void, f2: () => void): void {
  const k = known(ev.b, c);
  if (k !== undefined) return void (k ? f1() : f2());
  const b = ev.b,
    start = { ...ev.act },
    mark = trail.writes.length,
    serial = ev.serial;
  const arm = (f: () => void) => {
    ev.act = { ...start };
    f();
    const act = ev.act;
    return { act, writes: trail.rollback(mark) };
  };
  const one = arm(f1),
    two = arm(f2);
  ev.act = start;
  const old = (cell: Cell) => cell.v;
  const cells = new Set(
    [...one.writes.keys(), ...two.writes.keys()].filter((cell) => (trail.born.get(cell) ?? -1) < serial),
  );
  for (const cell of cells) {
    const x1 = one.writes.get(cell) ?? old(cell),
      x2 = two.writes.get(cell) ?? old(cell);
    trail.assign(cell, one.act.done ? x2 : two.act.done ? x1 : select(b, c, x1, x2));
  }
  const mask = (a: Activation) => (a.done ? b.constant(1) : (a.returned ?? b.constant(0)));
  const v1 = one.act.value,
    v2 = two.act.value;
  const value = v1 && v2 ? select(b, c, v1, v2) : (v1 ?? v2);
  if (one.act.done && two.act.done) {
    ev.act = { returned: null, value, done: true };
    return;
  }
  const returned = b.op(OP.SELECT, c, mask(one.act), mask(two.act));
  ev.act = known(b, returned) === 0 ? start : { returned, value, done: false };
}

/** `switch`: the case tests in order (===), first match or default, falling through until a `break`. */
function switchStatement(ev: Evaluator, s: AnyNode, trail: Trail): void {
  const disc = ev.expr(s.discriminant as AnyNode);
  const cases = s.cases as AnyNode[];
  const body = cases.flatMap((c) => c.consequent as AnyNode[]);
  inBlock(ev, body, trail, () => {
    const from = (k: number) => {
      for (let i = k; i < cases.length; i++)
        if (run(ev, cases[i]!.consequent as AnyNode[], trail, true) || ev.act.done) return;
    };
    const tests = cases.map((c, i) => ({ test: c.test as AnyNode | null, i })).filter((c) => c.test !== null);
    const fallback = cases.findIndex((c) => c.test === null);
    const chain = (j: number): void => {
      if (j === tests.length) return fallback < 0 ? undefined : from(fallback);
      const t = tests[j]!;
      const eq = strictEquals(ev.b, disc, ev.expr(t.test!));
      branch(
        ev,
        trail,
        eq,
        () => from(t.i),
        () => chain(j + 1),
      );
    };
    chain(0);
  });
}

/**
 * Execution-budget instrumentation of an evalscript (why: workerd does not enforce `limits.cpuMs` locally and
 * `Date.now()` does not advance inside a busy loop, so a `while(true){}` would freeze the whole runtime).
 *
 * Every loop body (while, do-while, for, for-in, for-of) and every function body gets a "tick" that decrements
 * the budget counter and calls the stop function when it drops below zero. Counter and stop function are
 * closure variables of the wrapper with per-compile names (see compile.ts): script code cannot name them (their
 * prefix is reserved) and there is no eval in the sandbox. Text is only inserted, never removed, and never
 * contains a newline, so line numbers of the user's script stay the same; columns are mapped back with
 * {@link SourceMap}.
 */
import type { Node } from "acorn";
import { walk, type AnyNode } from "./ast";

/** Names of the budget counter (a number) and stop function the ticks use. */
export interface TickNames {
  counter: string;
  stop: string;
}

/** The statement tick (`if(--k<0)s();`) and the expression tick (`--k<0&&s(),`) for `names`. */
export function ticks(names: TickNames): { statement: string; expression: string } {
  return {
    statement: `if(--${names.counter}<0)${names.stop}();`,
    expression: `--${names.counter}<0&&${names.stop}(),`,
  };
}

/**
 * Text inserted before original offset `at`. `rank` orders insertions at the same offset; `anchor` is the
 * user offset reported for a position inside the text (the loop or function it guards).
 */
interface Insertion {
  at: number;
  text: string;
  rank: number;
  anchor?: number;
}

const LOOPS = new Set(["WhileStatement", "DoWhileStatement", "ForStatement", "ForInStatement", "ForOfStatement"]);
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/**
 * Order of insertions at the same offset (highest rank first): closings before openings; among closings the
 * inner node (starts later) first; among openings the enclosing node (ends later) first.
 */
const open = (at: number, text: string, end: number, anchor: number): Insertion => ({ at, text, rank: end, anchor });
const close = (at: number, text: string, start: number): Insertion => ({ at, text, rank: 1e13 + start });

/** Offset right after the directive prologue (`"use strict";`) of a function body block. */
function afterDirectives(body: AnyNode): number {
  let at = body.start + 1;
  for (const stmt of body.body as AnyNode[]) {
    if (stmt.type !== "ExpressionStatement" || typeof stmt.directive !== "string") break;
    at = stmt.end;
  }
  return at;
}

/** Insertions that guard one loop or function node with the statement / expression ticks. */
function guardNode(node: AnyNode, tick: { statement: string; expression: string }): Insertion[] {
  const body = node.body as AnyNode;
  const at = node.start;
  if (LOOPS.has(node.type)) {
    if (body.type === "BlockStatement") return [open(body.start + 1, tick.statement, body.end, at)];
    return [open(body.start, "{" + tick.statement, body.end, at), close(body.end, "}", body.start)];
  }
  if (FUNCTIONS.has(node.type)) {
    if (body.type === "BlockStatement") return [open(afterDirectives(body), tick.statement, body.end, at)];
    return [open(body.start, "(" + tick.expression, body.end, at), close(body.end, ")", body.start)];
  }
  return [];
}

/**
 * Maps offsets of the generated text back to the user's source. The generated text is the source with
 * insertions; each kept chunk of the source is recorded with its offsets in both texts and its length.
 */
export class SourceMap {
  private readonly genLineStarts: number[];
  private readonly userLineStarts: number[];

  constructor(
    /** [generated offset, user offset, length] of each kept chunk, ascending by generated offset. */
    private readonly chunks: [number, number, number][],
    /** [generated start, generated end, user anchor] of inserted texts that report an anchor, ascending. */
    private readonly anchors: [number, number, number][],
    generated: string,
    user: string,
  ) {
    this.genLineStarts = lineStarts(generated);
    this.userLineStarts = lineStarts(user);
  }

  /**
   * User-script position of a generated position (both 1-based line and column, as V8 stack traces give
   * them). A position inside an inserted tick maps to the start of the loop or function it guards; inside
   * other inserted text, to the user offset where the text was inserted (or its anchor).
   */
  toUser(line: number, column: number): { line: number; column: number } {
    const g = (this.genLineStarts[line - 1] ?? 0) + column - 1;
    const anchor = this.anchors.find(([from, to]) => g >= from && g < to);
    if (anchor) return offsetToLineColumn(this.userLineStarts, anchor[2]);
    const lo = lastAtOrBelow(this.chunks.length, (i) => this.chunks[i]![0], g);
    const [genStart, userStart, length] = this.chunks[lo]!;
    const u = userStart + Math.min(Math.max(0, g - genStart), length);
    return offsetToLineColumn(this.userLineStarts, u);
  }
}

/** Offsets at which each line starts (line 1 at index 0). Line breaks as ECMAScript defines them. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 0x2028 || c === 0x2029) starts.push(i + 1);
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

/** 1-based line and column of an offset, given the line starts. */
export function offsetToLineColumn(starts: number[], offset: number): { line: number; column: number } {
  const i = lastAtOrBelow(starts.length, (k) => starts[k]!, offset);
  return { line: i + 1, column: offset - starts[i]! + 1 };
}

/** Largest index i < n with key(i) <= v (keys ascending; 0 when none is). Binary search. */
function lastAtOrBelow(n: number, key: (i: number) => number, v: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (key(mid) <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Builds the generated text piece by piece, recording the chunks and anchors of its SourceMap. */
class Emitter {
  readonly parts: string[] = [];
  readonly chunks: [number, number, number][] = [];
  readonly anchors: [number, number, number][] = [];
  length = 0;

  text(t: string, anchor?: number): void {
    if (anchor !== undefined && t) this.anchors.push([this.length, this.length + t.length, anchor]);
    this.parts.push(t);
    this.length += t.length;
  }

  /** Source [from, to) with `insertions` (sorted) whose offset lies in [from, to]. */
  range(source: string, from: number, to: number, insertions: Insertion[]): void {
    let at = from;
    for (const ins of insertions) {
      if (ins.at < from || ins.at > to) continue;
      this.source(source, at, ins.at);
      this.text(ins.text, ins.anchor);
      at = ins.at;
    }
    this.source(source, at, to);
  }

  private source(source: string, from: number, to: number): void {
    if (to <= from) return;
    this.chunks.push([this.length, from, to - from]);
    this.parts.push(source.slice(from, to));
    this.length += to - from;
  }
}

/**
 * Instruments `source` (already parsed into `program`): returns the guarded code, with `prefix` put in front
 * (on line 1, it must not contain a newline) and `suffix` appended, and the map back to `source` positions. Ticks use the counter and stop function named by `names`.
 */
export function instrument(
  source: string,
  program: Node,
  prefix: string,
  suffix: string,
  names: TickNames,
): { code: string; map: SourceMap } {
  if (/[\r\n\u2028\u2029]/.test(prefix)) throw new Error("instrument: prefix must be a single line");
  const tick = ticks(names);
  const insertions: Insertion[] = [];
  walk(program, (n) => {
    if (LOOPS.has(n.type) || FUNCTIONS.has(n.type)) insertions.push(...guardNode(n, tick));
  });
  insertions.sort((a, b) => a.at - b.at || b.rank - a.rank);
  const out = new Emitter();
  out.text(prefix);
  out.range(source, 0, source.length, insertions);
  out.text(suffix);
  const code = out.parts.join("");
  return { code, map: new SourceMap(out.chunks, out.anchors, code, source) };
}

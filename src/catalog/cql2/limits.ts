/**
 * Size limits of CQL2 filters, checked before anything is compiled or sent to D1. Each one answers a 400 that names
 * the limit. They exist because D1 (SQLite) refuses larger inputs with an internal error: expression trees deeper
 * than 100 (SQLITE_MAX_EXPR_DEPTH as D1 sets it) and LIKE/GLOB patterns over 50 bytes
 * (SQLITE_LIMIT_LIKE_PATTERN_LENGTH as D1 sets it: "LIKE or GLOB pattern too complex"); see
 * https://developers.cloudflare.com/d1/platform/limits/. The others bound the work of parsing and compiling.
 *
 * | limit | value | counted on |
 * |---|---|---|
 * | MAX_FILTER_CHARS | 16384 | the CQL2 text, or the CQL2 JSON serialized (JSON.stringify) |
 * | MAX_FILTER_DEPTH | 20 | nesting of operators ({op, args}), boolean and scalar alike; a bare literal is depth 0 |
 * | MAX_FILTER_NODES | 500 | operators, property references and literals (a geometry literal counts as 1) |
 * | MAX_LIKE_WILDCARDS | 10 | unescaped `%` and `_` of one LIKE pattern |
 * | MAX_LIKE_PATTERN_BYTES | 50 | UTF-8 bytes of the pattern as sent to SQLite GLOB (after translation) |
 */
import { badRequest } from "../../http/errors";

export const MAX_FILTER_CHARS = 16384;
export const MAX_FILTER_DEPTH = 20;
export const MAX_FILTER_NODES = 500;
export const MAX_LIKE_WILDCARDS = 10;
export const MAX_LIKE_PATTERN_BYTES = 50;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Throws 400 when a filter's text (CQL2 text, or CQL2 JSON serialized) is longer than MAX_FILTER_CHARS. */
export function checkFilterSize(text: string, lang: "cql2-text" | "cql2-json"): void {
  if (text.length > MAX_FILTER_CHARS) {
    throw badRequest(`The ${lang} filter has ${text.length} characters; the limit is ${MAX_FILTER_CHARS}.`);
  }
}

/** A GeoJSON geometry or BBOX literal: counted as one node, its coordinates are not walked. */
const isSpatialLiteral = (v: Record<string, unknown>): boolean =>
  "coordinates" in v || "geometries" in v || "bbox" in v;

const logicalOp = (node: Record<string, unknown>): string | undefined => {
  const op = typeof node.op === "string" ? node.op.toLowerCase() : undefined;
  return op === "and" || op === "or" ? op : undefined;
};

/**
 * The operands of an n-ary and/or with nested operators of the same kind spliced in (`a OR b OR c` parses as
 * or(or(a, b), c)). Iterative; keeps the order of the operands.
 */
export function flattenLogical(op: "and" | "or", args: unknown[]): unknown[] {
  const out: unknown[] = [];
  const stack = [...args].reverse();
  while (stack.length > 0) {
    const a = stack.pop();
    if (isObject(a) && logicalOp(a) === op && Array.isArray(a.args)) stack.push(...[...a.args].reverse());
    else out.push(a);
  }
  return out;
}

/**
 * Walks a CQL2 JSON expression (an unvalidated tree) and throws 400 when it nests operators deeper than
 * MAX_FILTER_DEPTH or holds more than MAX_FILTER_NODES nodes. An and/or directly inside the same operator adds no
 * level (it is flattened when compiled). Iterative, so any input depth is safe to walk.
 */
export function checkFilterShape(root: unknown): void {
  const stack: [unknown, number, string | undefined][] = [[root, 0, undefined]];
  let nodes = 0;
  while (stack.length > 0) {
    const [node, depth, parentOp] = stack.pop()!;
    if (Array.isArray(node)) {
      for (const v of node) stack.push([v, depth, parentOp]);
      continue;
    }
    if (++nodes > MAX_FILTER_NODES) {
      throw badRequest(
        `The filter has more than ${MAX_FILTER_NODES} operators, properties and values; simplify it (e.g. use 'in' lists).`,
      );
    }
    if (!isObject(node) || isSpatialLiteral(node) || !("op" in node)) continue;
    const op = logicalOp(node);
    const level = op !== undefined && op === parentOp ? depth : depth + 1;
    if (level > MAX_FILTER_DEPTH)
      throw badRequest(`The filter nests operators deeper than ${MAX_FILTER_DEPTH} levels; flatten it.`);
    stack.push([node.args, level, op]);
  }
}

/** Throws 400 when a CQL2 LIKE pattern has more than MAX_LIKE_WILDCARDS unescaped wildcards (`%`, `_`). */
export function checkLikeWildcards(pattern: string): void {
  const wildcards = pattern.replace(/\\./gs, "").replace(/[^%_]/g, "").length;
  if (wildcards > MAX_LIKE_WILDCARDS) {
    throw badRequest(
      `The LIKE pattern '${pattern.slice(0, 60)}' has ${wildcards} wildcards (% and _); the limit is ${MAX_LIKE_WILDCARDS}.`,
    );
  }
}

/** Throws 400 when the translated GLOB pattern exceeds D1's MAX_LIKE_PATTERN_BYTES. */
export function checkGlobLength(like: string, glob: string): void {
  const bytes = new TextEncoder().encode(glob).length;
  if (bytes > MAX_LIKE_PATTERN_BYTES) {
    throw badRequest(
      `The LIKE pattern '${like.slice(0, 60)}' is too long: ${bytes} bytes as matched (literal *, ? and [ take 3); ` +
        `the limit is ${MAX_LIKE_PATTERN_BYTES}.`,
    );
  }
}

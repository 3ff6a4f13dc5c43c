/**
 * CQL2 JSON (OGC 21-065) boolean expressions -> BoolNode tree with parametrised SQL leaves (the SQL is built by
 * src/storage/filters.ts).
 * Supported: and, or, not, =, <>, <, <=, >, >=, between, like, in, isNull, s_intersects, t_after, t_before,
 * t_during, t_equals, t_intersects, t_disjoint, boolean literals; property names are checked against the
 * collection's queryables (unknown -> 400). Nested and/or of the same kind are flattened; the size limits of
 * limits.ts are checked by the caller (query.ts) before compiling, the LIKE limits here.
 */
import type { Geometry } from "geojson";
import { badRequest } from "../../http/errors";
import { geometryBBox, geometrySchema, type BBox } from "../geometry";
import { checkGlobLength, checkLikeWildcards, flattenLogical } from "./limits";
import { parseDate, parseInstant } from "../time";
import { scalar, unify, type Lookup } from "./scalar";
import { and, type BoolNode, type Sql } from "../../storage/condition";
import {
  betweenSql,
  comparisonSql,
  datetimeBoundsSql,
  globSql,
  inListSql,
  isNullSql,
  isParamSql,
} from "../../storage/filters";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

type Comparison = "=" | "<>" | "<" | "<=" | ">" | ">=";
const COMPARISON: Record<string, Comparison> = {
  "=": "=",
  "<>": "<>",
  "!=": "<>",
  "<": "<",
  "<=": "<=",
  ">": ">",
  ">=": ">=",
};

const leaf = (sql: Sql): BoolNode => ({ kind: "sql", sql });

function arity(op: string, args: unknown[], n: number): void {
  if (args.length !== n)
    throw badRequest(`Operator '${op}' takes ${n} argument${n > 1 ? "s" : ""}; got ${args.length}.`);
}

/**
 * CQL2 LIKE pattern -> SQLite GLOB pattern (case-sensitive, as CQL2 LIKE is). CQL2 (OGC 21-065, "like predicate"):
 * `%` any run of characters, `_` exactly one character, `\` makes the next character literal (a trailing `\` is
 * literal). GLOB's own wildcards `*`, `?` and `[` are literal in LIKE, so they become the one-character sets
 * `[*]`, `[?]`, `[[]`; `]` outside a set is literal in GLOB.
 */
export function globPattern(like: string): string {
  const literal = (c: string): string => (c === "*" || c === "?" || c === "[" ? `[${c}]` : c);
  let out = "";
  for (let i = 0; i < like.length; i++) {
    const c = like[i]!;
    if (c === "\\" && i + 1 < like.length) out += literal(like[++i]!);
    else if (c === "%") out += "*";
    else if (c === "_") out += "?";
    else out += literal(c);
  }
  return out;
}

function like(args: unknown[], lookup: Lookup): BoolNode {
  arity("like", args, 2);
  const [value, pattern] = args.map((a) => scalar(a, lookup));
  if (value!.type !== "string" || typeof pattern!.literal !== "string") {
    throw badRequest("like compares a string property with a string pattern, e.g. platform LIKE 'sentinel-2%'.");
  }
  checkLikeWildcards(pattern!.literal);
  const glob = globPattern(pattern!.literal);
  checkGlobLength(pattern!.literal, glob);
  return leaf(globSql(value!, glob));
}

/**
 * `in`: the value equals one of the listed literals. An empty list (allowed by the CQL2 JSON schema, not by the
 * text grammar) matches nothing, so its negation matches every item.
 */
function inList(args: unknown[], lookup: Lookup): BoolNode {
  arity("in", args, 2);
  const value = scalar(args[0], lookup);
  const list = Array.isArray(args[1]) ? args[1] : [args[1]];
  if (list.length === 0) return { kind: "const", value: false };
  const items = unify([value, ...list.map((x) => scalar(x, lookup))]).slice(1);
  if (items.some((s) => !isParamSql(s))) throw badRequest("The list of 'in' must hold literal values.");
  return leaf(
    inListSql(
      value,
      items.map((s) => s.params[0]),
    ),
  );
}

/** A spatial literal: GeoJSON geometry, {bbox: [...]} or {op: "bbox", args: [...]}. */
function spatialLiteral(node: unknown): Geometry {
  if (isObject(node) && (Array.isArray(node.bbox) || node.op === "bbox")) {
    const b = (Array.isArray(node.bbox) ? node.bbox : node.args) as unknown[];
    if (!Array.isArray(b) || (b.length !== 4 && b.length !== 6) || b.some((x) => typeof x !== "number")) {
      throw badRequest("A BBOX literal needs 4 or 6 numbers.");
    }
    const [w, s, e, n] = (b.length === 6 ? [b[0], b[1], b[3], b[4]] : b) as number[];
    return {
      type: "Polygon",
      coordinates: [
        [
          [w!, s!],
          [e!, s!],
          [e!, n!],
          [w!, n!],
          [w!, s!],
        ],
      ],
    };
  }
  const parsed = geometrySchema.safeParse(node);
  if (!parsed.success)
    throw badRequest(`Invalid geometry literal in s_intersects: ${JSON.stringify(node).slice(0, 80)}.`);
  return parsed.data as Geometry;
}

function spatial(args: unknown[], lookup: Lookup): BoolNode {
  arity("s_intersects", args, 2);
  const isProp = (a: unknown): boolean => isObject(a) && "property" in a;
  const propIndex = args.findIndex(isProp);
  if (propIndex < 0 || isProp(args[1 - propIndex]))
    throw badRequest("s_intersects compares the geometry property with a geometry literal.");
  const name = (args[propIndex] as { property: unknown }).property;
  if (typeof name !== "string" || lookup(name).type !== "geometry")
    throw badRequest(`Property '${String(name)}' is not a geometry.`);
  const geometry = spatialLiteral(args[1 - propIndex]);
  let bbox: BBox;
  try {
    bbox = geometryBBox(geometry);
  } catch (e) {
    throw badRequest(
      `Invalid geometry literal in s_intersects: ${(e as Error).message} (coordinates are lon, lat in CRS84).`,
    );
  }
  return { kind: "spatial", geometry, bbox };
}

/** A temporal literal as [start, end] in ms (an instant has start = end; open interval ends are ±Infinity). */
function temporal(node: unknown): [number, number] {
  const one = (v: unknown, open?: number): number => {
    if (v === ".." && open !== undefined) return open;
    const text = isObject(v) ? (v.timestamp ?? v.date) : v;
    const t = typeof text === "string" ? (parseInstant(text) ?? parseDate(text)) : null;
    if (t === null) throw badRequest(`Invalid temporal literal ${JSON.stringify(v)} in the filter.`);
    return t;
  };
  if (isObject(node) && Array.isArray(node.interval) && node.interval.length === 2) {
    return [one(node.interval[0], -Infinity), one(node.interval[1], Infinity)];
  }
  const t = one(node);
  return [t, t];
}

/** Joins the comparisons of the item datetime whose bound is finite; `empty` is the value when none is left. */
function bounds(parts: [">" | "<" | ">=" | "<=" | "=", number][], join: " AND " | " OR ", empty: boolean): BoolNode {
  const kept = parts.filter(([, v]) => Number.isFinite(v));
  if (kept.length === 0) return { kind: "const", value: empty };
  return leaf(datetimeBoundsSql(kept, join));
}

/** Temporal operators on the item's instant `datetime` against an instant or interval [lo, hi]. */
const TEMPORAL: Record<string, (lo: number, hi: number) => BoolNode> = {
  t_after: (_lo, hi) => bounds([[">", hi]], " AND ", false),
  t_before: (lo) => bounds([["<", lo]], " AND ", false),
  t_during: (lo, hi) =>
    bounds(
      [
        [">", lo],
        ["<", hi],
      ],
      " AND ",
      true,
    ),
  t_equals: (lo, hi) => (lo === hi ? bounds([["=", lo]], " AND ", false) : { kind: "const", value: false }),
  t_intersects: (lo, hi) =>
    bounds(
      [
        [">=", lo],
        ["<=", hi],
      ],
      " AND ",
      true,
    ),
  t_disjoint: (lo, hi) =>
    bounds(
      [
        ["<", lo],
        [">", hi],
      ],
      " OR ",
      false,
    ),
};

function temporalOp(op: string, args: unknown[], lookup: Lookup): BoolNode {
  arity(op, args, 2);
  const prop = args[0];
  if (!isObject(prop) || !("property" in prop) || scalar(prop, lookup).type !== "datetime") {
    throw badRequest(`${op} compares the datetime property with a timestamp, date or interval.`);
  }
  const [lo, hi] = temporal(args[1]);
  return TEMPORAL[op]!(lo, hi);
}

/**
 * Compiles a CQL2 JSON boolean expression. `lookup` resolves property names (throwing 400 for unknown ones).
 * Throws a 400 ApiError for anything unsupported or ill-typed, naming the offending part.
 */
export function compileFilter(node: unknown, lookup: Lookup): BoolNode {
  if (typeof node === "boolean") return { kind: "const", value: node };
  if (!isObject(node) || typeof node.op !== "string") {
    throw badRequest(
      `The filter must be a boolean expression {"op": ..., "args": [...]}; got ${JSON.stringify(node)?.slice(0, 80)}.`,
    );
  }
  const op = node.op.toLowerCase();
  const args = node.args === undefined ? [] : node.args;
  if (!Array.isArray(args)) throw badRequest(`The 'args' of operator '${node.op}' must be an array.`);
  if (op === "and" || op === "or") {
    // sentinelhub-js sends and/or with fewer than two arguments; empty and = true, empty or = false.
    if (args.length === 0) return { kind: "const", value: op === "and" };
    const parts = flattenLogical(op, args).map((a) => compileFilter(a, lookup));
    return parts.length === 1 ? parts[0]! : op === "and" ? and(parts) : { kind: "or", args: parts };
  }
  if (op === "not") {
    arity("not", args, 1);
    return { kind: "not", arg: compileFilter(args[0], lookup) };
  }
  if (Object.hasOwn(COMPARISON, op)) {
    arity(node.op, args, 2);
    const [a, b] = unify(args.map((x) => scalar(x, lookup)));
    return leaf(comparisonSql(a!, COMPARISON[op]!, b!));
  }
  if (op === "between") {
    // CQL2 1.0 JSON: [value, low, high]; drafts (and stac-api-validator 0.6.8) also send [value, [low, high]]
    const bounds = args.length === 2 && Array.isArray(args[1]) && args[1].length === 2 ? [args[0], ...args[1]] : args;
    arity("between", bounds, 3);
    const [v, lo, hi] = unify(bounds.map((x) => scalar(x, lookup)));
    return leaf(betweenSql(v!, lo!, hi!));
  }
  if (op === "isnull") {
    arity("isNull", args, 1);
    const v = scalar(args[0], lookup);
    return leaf(isNullSql(v));
  }
  if (op === "like") return like(args, lookup);
  if (op === "in") return inList(args, lookup);
  if (op === "s_intersects") return spatial(args, lookup);
  if (Object.hasOwn(TEMPORAL, op)) return temporalOp(op, args, lookup);
  throw badRequest(
    `Unsupported filter operator '${node.op}'. Supported: and, or, not, =, <>, <, <=, >, >=, between, like, in, isNull, ` +
      `s_intersects, ${Object.keys(TEMPORAL).join(", ")}.`,
  );
}

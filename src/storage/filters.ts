/**
 * SQL of the predicates a catalog filter (CQL2) is made of, over the `items` table: literals become bound
 * parameters, properties are the expressions of properties.ts, and these builders join them. The catalog's CQL2
 * compiler (src/catalog/cql2) checks names, types and limits and calls these; it writes no SQL itself.
 */
import type { Sql } from "./condition";

/** A bound parameter. */
export const paramSql = (value: unknown): Sql => ({ text: "?", params: [value] });

/** True when `s` is a single bound parameter (a literal value). */
export const isParamSql = (s: Sql): boolean => s.text === "?" && s.params.length === 1;

/** A property expression (from properties.ts, or a queryable's `sql`), no parameters. */
export const columnSql = (expression: string): Sql => ({ text: expression, params: [] });

const join = (text: string, ...parts: Sql[]): Sql => ({ text, params: parts.flatMap((p) => p.params) });

/** `(a op b)` for the arithmetic operators + - * /. */
export function arithmeticSql(a: Sql, op: "+" | "-" | "*" | "/", b: Sql): Sql {
  return join(`(${a.text} ${op} ${b.text})`, a, b);
}

/** `lower(a)`: SQLite's ASCII lower-casing (CQL2 casei of ASCII text). */
export const lowerSql = (a: Sql): Sql => join(`lower(${a.text})`, a);

/** `a op b` for = <> < <= > >= (SQL three-valued: NULL when either side is NULL). */
export function comparisonSql(a: Sql, op: "=" | "<>" | "<" | "<=" | ">" | ">=", b: Sql): Sql {
  return join(`${a.text} ${op} ${b.text}`, a, b);
}

/** `v BETWEEN lo AND hi` (inclusive). */
export const betweenSql = (v: Sql, lo: Sql, hi: Sql): Sql =>
  join(`${v.text} BETWEEN ${lo.text} AND ${hi.text}`, v, lo, hi);

/** `v IS NULL`. */
export const isNullSql = (v: Sql): Sql => join(`${v.text} IS NULL`, v);

/** `v GLOB pattern`: a case-sensitive SQLite GLOB pattern (see catalog/cql2/compile.ts globPattern). */
export const globSql = (v: Sql, pattern: string): Sql => join(`${v.text} GLOB ?`, v, paramSql(pattern));

/** `v IN (values)`, the values bound as one JSON array (one parameter however long the list). */
export const inListSql = (v: Sql, values: unknown[]): Sql =>
  join(`${v.text} IN (SELECT value FROM json_each(?))`, v, paramSql(JSON.stringify(values)));

/** Comparisons of the item's acquisition time (ms since epoch) with bounds in ms, joined with AND / OR. */
export function datetimeBoundsSql(bounds: [">" | "<" | ">=" | "<=" | "=", number][], joiner: " AND " | " OR "): Sql {
  return { text: bounds.map(([op]) => `datetime ${op} ?`).join(joiner), params: bounds.map(([, ms]) => ms) };
}

/**
 * Item queries over D1 for the catalog: candidate rows of one collection in (datetime, id) order under a compiled
 * Condition (condition.ts), the exact per-row decision for spatial conditions, distinct values of an expression,
 * and single items. Paging semantics (tokens, page sizes) stay with the caller; this module only reads rows.
 */
import type { Geometry } from "geojson";
import type { Env } from "../env";
import type { Condition, Sql } from "./condition";
import type { StacItem } from "./items";

/** The rows a query selects: one collection, optional ids, an inclusive time range and a compiled condition. */
export interface ItemQuery {
  collection: string;
  /** Item ids to restrict to (looked up by primary key rather than by scanning the time index). */
  ids?: string[];
  /** Acquisition time bounds in ms since epoch, inclusive; an absent bound is open. */
  time: { start?: number; end?: number };
  condition: Condition;
}

/** One candidate row: the item JSON, its datetime (ms) and the condition's selected columns `c0`, `c1`, ... */
export interface ItemRow {
  doc: string;
  dt: number;
  [column: string]: unknown;
}

/** A keyset position in (datetime, id) order that advances as rows are consumed (src/catalog/paging.ts Cursor). */
export interface RowCursor {
  datetime: number | undefined;
  skip: number;
  consume(datetime: number): void;
}

/**
 * FROM/WHERE head of a query's candidate rows: with ids, a primary-key lookup per id (CROSS JOIN keeps json_each as
 * the outer loop); otherwise a walk of the covering index items_search (migration 0002) in (datetime, id) order,
 * over one datetime range: the request's bounds, the lower one raised to `from` when resuming (a single lower
 * bound, so that SQLite seeks to it). The caller appends " AND <condition>".
 */
function rowSource(q: ItemQuery, from?: number): Sql {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (q.ids) {
    parts.push("FROM (SELECT DISTINCT value AS wanted FROM json_each(?)) AS j CROSS JOIN items ON items.collection = ? AND items.id = j.wanted WHERE 1");
    params.push(JSON.stringify(q.ids), q.collection);
  } else {
    parts.push("FROM items INDEXED BY items_search WHERE collection = ?");
    params.push(q.collection);
  }
  const lower = Math.max(q.time.start ?? -Infinity, from ?? -Infinity);
  if (lower > -Infinity) {
    parts.push("datetime >= ?");
    params.push(lower);
  }
  if (q.time.end !== undefined) {
    parts.push("datetime <= ?");
    params.push(q.time.end);
  }
  return { text: parts.join(" AND "), params };
}

/**
 * Rows matching the query's WHERE (exact, or a superset when the condition has a `test`) in (datetime, id) order
 * from a position: `datetime >= from`, skipping `skip` rows, at most `take`.
 */
export async function fetchRows(env: Pick<Env, "DB">, q: ItemQuery, from: number | undefined, skip: number, take: number): Promise<ItemRow[]> {
  const { where, columns } = q.condition;
  const src = rowSource(q, from);
  const cols = columns.map((c, i) => `, ${c.text} AS c${i}`).join("");
  const sql =
    `SELECT items.doc AS doc, k.dt AS dt${cols} FROM (` +
    `SELECT items.rowid AS r, datetime AS dt, items.id AS iid ${src.text} AND ${where.text} ` +
    `ORDER BY datetime, items.id LIMIT ? OFFSET ?) AS k JOIN items ON items.rowid = k.r ORDER BY k.dt, k.iid`;
  const params = [...columns.flatMap((c) => c.params), ...src.params, ...where.params, take, skip];
  const { results } = await env.DB.prepare(sql).bind(...params).all<ItemRow>();
  return results;
}

const columnValues = (row: ItemRow, n: number): unknown[] => Array.from({ length: n }, (_, i) => row[`c${i}`]);

/**
 * Walks candidate rows in order from the cursor's position, calling `visit` for each row that passes the exact
 * test, until `visit` returns false or the rows run out. Reads in growing batches (2 x (pageSize + 1), at least 20,
 * doubling up to 400). The cursor is left just after the last row visited.
 */
export async function scanMatches(
  env: Pick<Env, "DB">,
  q: ItemQuery,
  pageSize: number,
  cursor: RowCursor,
  visit: (row: ItemRow, item: StacItem) => boolean,
): Promise<void> {
  const test = q.condition.test;
  let batch = Math.max(2 * (pageSize + 1), 20);
  for (;;) {
    const rows = await fetchRows(env, q, cursor.datetime, cursor.skip, batch);
    for (const row of rows) {
      cursor.consume(row.dt);
      const item = JSON.parse(row.doc) as StacItem;
      if (test && !test(columnValues(row, q.condition.columns.length), (item.geometry as Geometry) ?? null)) continue;
      if (!visit(row, item)) return;
    }
    if (rows.length < batch) return;
    batch = Math.min(batch * 2, 400);
  }
}

/**
 * Distinct non-null values of the SQL expression `expr` over the rows of an exact query (no `test`), ascending,
 * `take` values from `offset`.
 */
export async function distinctValues(env: Pick<Env, "DB">, q: ItemQuery, expr: string, offset: number, take: number): Promise<unknown[]> {
  const src = rowSource(q);
  const { where } = q.condition;
  const sql = `SELECT DISTINCT ${expr} AS v ${src.text} AND ${where.text} AND v IS NOT NULL ORDER BY v LIMIT ? OFFSET ?`;
  const { results } = await env.DB.prepare(sql).bind(...src.params, ...where.params, take, offset).all<{ v: unknown }>();
  return results.map((r) => r.v);
}

/**
 * Item queries over D1 for the catalog: candidate rows of one or more collections in a requested order under a
 * compiled Condition (condition.ts), the exact per-row decision for spatial conditions, counts of the matching
 * rows, distinct values of an expression and the newest item of each collection. Paging semantics (tokens, page
 * sizes) stay with the caller; this module only reads rows.
 *
 * Every read is index-backed: one collection walks an index of (collection, ...) in the requested order (the
 * covering index items_search of migration 0002 for datetime orders), so a page costs its own rows plus the rows
 * it skips. Several collections are read the same way, one index walk per collection in one D1 batch, and merged
 * here (a single `collection IN (...)` walk would have to sort every match before the first page).
 */
import type { Geometry } from "geojson";
import type { Env } from "../env";
import type { Condition, Sql } from "./condition";
import type { StacItem } from "./stac";

/** Item fields a search can be ordered by (STAC names). */
export type SortField = "datetime" | "eo:cloud_cover" | "id" | "collection";

/** One term of an order. */
export interface SortTerm {
  field: SortField;
  descending: boolean;
}

/** The rows a query selects: collections, optional ids, an inclusive time range and a compiled condition. */
export interface ItemQuery {
  /** Catalog collection ids to read (none: no rows). */
  collections: string[];
  /** Item ids to restrict to (looked up by primary key rather than by scanning the time index). */
  ids?: string[];
  /** Acquisition time bounds in ms since epoch, inclusive; an absent bound is open. */
  time: { start?: number; end?: number };
  condition: Condition;
  /** Requested order (empty: datetime ascending); see {@link fullOrder} for the tie-breakers. */
  sort: SortTerm[];
}

/** One candidate row: the item JSON, its datetime (ms) and the condition's selected columns `c0`, `c1`, ... */
export interface ItemRow {
  doc: string;
  dt: number;
  [column: string]: unknown;
}

/**
 * A position in the query's order that advances as rows are consumed (src/catalog/paging.ts): a keyset position
 * (`datetime` set: the rows from that datetime on, in the order's direction, after skipping `skip`), or, with
 * `datetime` undefined, the first `skip` rows.
 */
export interface RowCursor {
  datetime: number | undefined;
  skip: number;
  consume(datetime: number): void;
}

/** Key columns of a candidate row: rowid, datetime, id, collection, cloud cover. */
interface RowKey {
  r: number;
  dt: number;
  iid: string;
  col: string;
  cc: number | null;
  [column: string]: unknown;
}

/** Each sort field: its SQL over `items` and its key column in the candidate subquery. */
const SORT_SQL: Record<SortField, { sql: string; key: "dt" | "cc" | "iid" | "col" }> = {
  datetime: { sql: "datetime", key: "dt" },
  "eo:cloud_cover": { sql: "cloud_cover", key: "cc" },
  id: { sql: "items.id", key: "iid" },
  collection: { sql: "items.collection", key: "col" },
};

const KEY_COLUMNS = "items.rowid AS r, datetime AS dt, items.id AS iid, items.collection AS col, cloud_cover AS cc";

/** At most this many collections are read as separate index walks (D1 counts each statement of a batch). */
const MAX_WALKS = 40;

/**
 * The total order of a query: the requested terms (default: datetime ascending), then datetime, id and
 * collection in the direction of the first term, so that equal keys never tie and paging is deterministic.
 */
export function fullOrder(sort: SortTerm[]): SortTerm[] {
  const out = sort.length ? [...sort] : [{ field: "datetime" as const, descending: false }];
  const descending = out[0]!.descending;
  for (const field of ["datetime", "id", "collection"] as const)
    if (!out.some((t) => t.field === field)) out.push({ field, descending });
  return out;
}

/** True when the order starts with datetime: pages can resume from a (datetime, skip) keyset position. */
export const datetimeFirst = (sort: SortTerm[]): boolean => fullOrder(sort)[0]!.field === "datetime";

const orderSql = (order: SortTerm[], keys: boolean): string =>
  order
    .map((t) => `${keys ? `k.${SORT_SQL[t.field].key}` : SORT_SQL[t.field].sql} ${t.descending ? "DESC" : "ASC"}`)
    .join(", ");

/** Compares two values as SQLite orders them: NULL first, numbers, then text in BINARY (UTF-8 byte) order. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return -1;
  if (typeof b === "number") return 1;
  const [x, y] = [String(a), String(b)];
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    // code point order at the first differing unit is UTF-8 byte order (code units differ for U+E000.. vs astral)
    if (x.charCodeAt(i) !== y.charCodeAt(i)) return x.codePointAt(i)! - y.codePointAt(i)!;
  }
  return x.length - y.length;
}

const compareKeys =
  (order: SortTerm[]) =>
  (a: RowKey, b: RowKey): number => {
    for (const t of order) {
      const c = compareValues(a[SORT_SQL[t.field].key], b[SORT_SQL[t.field].key]);
      if (c !== 0) return t.descending ? -c : c;
    }
    return 0;
  };

/**
 * The index to walk for an order (SQLite's planner would often pick a covering index and sort every row in it):
 * items_search for datetime orders (its (collection, datetime, id) prefix is the order), items_cc (collection,
 * cloud_cover) for cloud cover without time bounds (ordered walk, ties sorted as they come), else the planner's.
 */
function indexHint(q: ItemQuery): string {
  const first = fullOrder(q.sort)[0]!.field;
  if (first === "datetime") return " INDEXED BY items_search";
  if (first === "eo:cloud_cover" && q.time.start === undefined && q.time.end === undefined)
    return " INDEXED BY items_cc";
  return "";
}

/**
 * FROM/WHERE head of a query's candidate rows in `collections`: with ids, a primary-key lookup per id (CROSS JOIN
 * keeps json_each as the outer loop); otherwise an index walk (indexHint) over one datetime range: the request's
 * bounds, the bound on the reading side moved to `from` when resuming a datetime order (so that SQLite seeks to
 * it). The caller appends " AND <condition>".
 */
function rowSource(q: ItemQuery, collections: string[], from?: number, hint = true): Sql {
  const one = collections.length === 1;
  const inList = one ? "= ?" : "IN (SELECT value FROM json_each(?))";
  const list = one ? collections[0] : JSON.stringify(collections);
  const parts: string[] = [];
  const params: unknown[] = [];
  if (q.ids) {
    parts.push(
      `FROM (SELECT DISTINCT value AS wanted FROM json_each(?)) AS j CROSS JOIN items ON items.collection ${inList} AND items.id = j.wanted WHERE 1`,
    );
    params.push(JSON.stringify(q.ids), list);
  } else {
    parts.push(`FROM items${hint ? indexHint(q) : ""} WHERE collection ${inList}`);
    params.push(list);
  }
  const descending = fullOrder(q.sort)[0]!.descending;
  const lower = Math.max(q.time.start ?? -Infinity, !descending ? (from ?? -Infinity) : -Infinity);
  const upper = Math.min(q.time.end ?? Infinity, descending ? (from ?? Infinity) : Infinity);
  if (lower > -Infinity) {
    parts.push("datetime >= ?");
    params.push(lower);
  }
  if (upper < Infinity) {
    parts.push("datetime <= ?");
    params.push(upper);
  }
  return { text: parts.join(" AND "), params };
}

const columnsSql = (q: ItemQuery): Sql => ({
  text: q.condition.columns.map((c, i) => `, ${c.text} AS c${i}`).join(""),
  params: q.condition.columns.flatMap((c) => c.params),
});

/** One statement: rows of all `collections` in order (SQLite sorts the matches when they are several). */
async function statementRows(
  env: Pick<Env, "DB">,
  q: ItemQuery,
  from: number | undefined,
  skip: number,
  take: number,
): Promise<ItemRow[]> {
  const order = fullOrder(q.sort);
  const src = rowSource(q, q.collections, from);
  const cols = columnsSql(q);
  const { where } = q.condition;
  const sql =
    `SELECT items.doc AS doc, k.dt AS dt${cols.text} FROM (` +
    `SELECT ${KEY_COLUMNS} ${src.text} AND ${where.text} ORDER BY ${orderSql(order, false)} LIMIT ? OFFSET ?) AS k ` +
    `JOIN items ON items.rowid = k.r ORDER BY ${orderSql(order, true)}`;
  const { results } = await env.DB.prepare(sql)
    .bind(...cols.params, ...src.params, ...where.params, take, skip)
    .all<ItemRow>();
  return results;
}

/** One index walk per collection (keys only, in one batch), merged here; then the page's documents by rowid. */
async function mergedRows(
  env: Pick<Env, "DB">,
  q: ItemQuery,
  from: number | undefined,
  skip: number,
  take: number,
): Promise<ItemRow[]> {
  const order = fullOrder(q.sort);
  const { where } = q.condition;
  const walk = (c: string) => {
    const src = rowSource(q, [c], from);
    const sql = `SELECT ${KEY_COLUMNS} ${src.text} AND ${where.text} ORDER BY ${orderSql(order, false)} LIMIT ?`;
    return env.DB.prepare(sql).bind(...src.params, ...where.params, skip + take);
  };
  const walks = await env.DB.batch<RowKey>(q.collections.map(walk));
  const keys = walks
    .flatMap((w) => w.results)
    .sort(compareKeys(order))
    .slice(skip, skip + take);
  if (keys.length === 0) return [];
  const cols = columnsSql(q);
  const { results } = await env.DB.prepare(
    `SELECT items.rowid AS r, items.doc AS doc${cols.text} FROM items WHERE items.rowid IN (SELECT value FROM json_each(?))`,
  )
    .bind(...cols.params, JSON.stringify(keys.map((k) => k.r)))
    .all<ItemRow & { r: number }>();
  const byRow = new Map(results.map((row) => [row.r, row]));
  return keys.flatMap((k) => {
    const row = byRow.get(k.r);
    return row ? [{ ...row, dt: k.dt }] : []; // a row deleted between the two reads is left out
  });
}

/**
 * Rows matching the query's WHERE (exact, or a superset when the condition has a `test`) in the query's order
 * from a position: with `from`, the rows from that datetime on (datetime orders only), skipping `skip` rows; at
 * most `take`.
 */
export async function fetchRows(
  env: Pick<Env, "DB">,
  q: ItemQuery,
  from: number | undefined,
  skip: number,
  take: number,
): Promise<ItemRow[]> {
  if (q.collections.length === 0 || take <= 0) return [];
  if (q.collections.length === 1 || q.collections.length > MAX_WALKS) return statementRows(env, q, from, skip, take);
  return mergedRows(env, q, from, skip, take);
}

const columnValues = (row: Record<string, unknown>, n: number): unknown[] =>
  Array.from({ length: n }, (_, i) => row[`c${i}`]);

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

/** Limits of {@link countMatches}. */
export interface CountLimits {
  /** Most rows a count query reads; a larger count is not computed. */
  rows: number;
  /** Most candidate footprints decided one by one for a spatial condition. */
  tests: number;
}

/**
 * The number of rows matching the query, or undefined when it would take more than `limits`. An exact condition
 * is one count over the same WHERE as the pages (its index walk, stopping after `limits.rows` rows). A spatial
 * condition counts the rows it surely matches in SQL (`condition.sure`, e.g. items whose bbox lies inside a
 * search box) and decides the others (at most `limits.tests`) one by one on their footprints.
 */
export async function countMatches(
  env: Pick<Env, "DB">,
  q: ItemQuery,
  limits: CountLimits,
): Promise<number | undefined> {
  if (q.collections.length === 0) return 0;
  const src = rowSource(q, q.collections, undefined, false);
  const { where, sure, test } = q.condition;
  const count = (cond: Sql) =>
    env.DB.prepare(`SELECT count(*) AS n FROM (SELECT 1 ${src.text} AND ${cond.text} LIMIT ?)`).bind(
      ...src.params,
      ...cond.params,
      limits.rows + 1,
    );
  if (!test || !sure) {
    const n = (await count(where).first<{ n: number }>())!.n;
    return n > limits.rows ? undefined : n;
  }
  const cols = columnsSql(q);
  const doubtful = env.DB.prepare(
    `SELECT json_extract(items.doc, '$.geometry') AS g${cols.text} ${src.text} AND ${where.text} AND NOT ifnull(${sure.text}, 0) LIMIT ?`,
  ).bind(...cols.params, ...src.params, ...where.params, ...sure.params, limits.tests + 1);
  const [surely, others] = await env.DB.batch<Record<string, unknown>>([
    count({ text: `${where.text} AND ${sure.text}`, params: [...where.params, ...sure.params] }),
    doubtful,
  ]);
  const n = surely!.results[0]!.n as number;
  if (n > limits.rows || others!.results.length > limits.tests) return undefined;
  const k = q.condition.columns.length;
  return (
    n +
    others!.results.filter((row) =>
      test(columnValues(row, k), row.g ? (JSON.parse(row.g as string) as Geometry) : null),
    ).length
  );
}

/**
 * Distinct non-null values of the SQL expression `expr` over the rows of an exact query (no `test`), ascending,
 * `take` values from `offset`.
 */
export async function distinctValues(
  env: Pick<Env, "DB">,
  q: ItemQuery,
  expr: string,
  offset: number,
  take: number,
): Promise<unknown[]> {
  if (q.collections.length === 0) return [];
  const src = rowSource(q, q.collections, undefined, false);
  const { where } = q.condition;
  const sql = `SELECT DISTINCT ${expr} AS v ${src.text} AND ${where.text} AND v IS NOT NULL ORDER BY v LIMIT ? OFFSET ?`;
  const { results } = await env.DB.prepare(sql)
    .bind(...src.params, ...where.params, take, offset)
    .all<{ v: unknown }>();
  return results.map((r) => r.v);
}

/** The newest item (latest datetime, then greatest id) of each of `collections` that has items: one index seek each. */
export async function newestItems(
  env: Pick<Env, "DB">,
  collections: string[],
): Promise<{ collection: string; id: string }[]> {
  if (collections.length === 0) return [];
  const { results } = await env.DB.prepare(
    "SELECT c.value AS collection, (SELECT items.id FROM items INDEXED BY items_search WHERE items.collection = c.value " +
      "ORDER BY datetime DESC, items.id DESC LIMIT 1) AS id FROM json_each(?) AS c",
  )
    .bind(JSON.stringify(collections))
    .all<{ collection: string; id: string | null }>();
  return results.filter((r): r is { collection: string; id: string } => r.id !== null);
}

/**
 * Keyset ("seek") paging in SQL for the paged lists of src/http/paging.ts: the WHERE / ORDER BY / LIMIT that read
 * `count + 1` rows after (or, backwards, before) a cursor's sort key, using SQLite row-value comparison
 * (`(a, b) > (?, ?)`, SQLite >= 3.15; D1 and Durable Object SQLite have it). String columns compare with SQLite's
 * BINARY collation (UTF-8 bytes), which orders like JavaScript's code units except for characters above U+FFFF
 * against U+E000..U+FFFF. A list's `search` (parsed by src/http/paging.ts parseSearch) becomes SQL with
 * {@link searchSql}.
 */

/** The part of a page request (src/http/paging.ts PageRequest) the SQL needs; declared here so storage imports no HTTP. */
export interface SeekPage {
  count: number;
  cursor: { after?: readonly (string | number)[]; before?: readonly (string | number)[] };
}

/** SQL fragments to splice after `SELECT ... FROM t [WHERE <other filters> AND]`, with their bound parameters. */
export interface KeysetSql {
  /** `(c1, c2) > (?, ?)`, or `1` on the first page; AND it with the query's own filters. */
  where: string;
  /** `c1 ASC, c2 ASC` (reversed when reading backwards); follows ORDER BY. */
  orderBy: string;
  /** count + 1 (the extra row tells whether another page follows). */
  limit: number;
  params: (string | number)[];
}

const COLUMN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The keyset fragments of a page for a sort over `columns` (the last one unique, e.g. `["created", "id"]`), all
 * ascending or (`descending`) all descending, as Sentinel Hub's `sort=created:desc` asks.
 * @throws Error when a column name is not a plain identifier (column names come from code, never from a request)
 *   or the cursor's key has another length than `columns` (parsePageRequest's `keyLength` rejects such tokens with 400).
 */
export function keysetSql(columns: readonly string[], page: SeekPage, descending = false): KeysetSql {
  if (columns.length === 0 || !columns.every((c) => COLUMN.test(c)))
    throw new Error(`keysetSql: bad column list ${JSON.stringify(columns)}`);
  const key = page.cursor.before ?? page.cursor.after;
  if (key && key.length !== columns.length)
    throw new Error(`keysetSql: a key of ${key.length} values for ${columns.length} columns`);
  const backward = page.cursor.before !== undefined;
  // reading order: the sort order, reversed when reading backwards
  const ascending = descending === backward;
  const orderBy = columns.map((c) => `${c} ${ascending ? "ASC" : "DESC"}`).join(", ");
  if (!key) return { where: "1", orderBy, limit: page.count + 1, params: [] };
  const row = (xs: readonly string[]) => `(${xs.join(", ")})`;
  return {
    where: `${row(columns)} ${ascending ? ">" : "<"} ${row(columns.map(() => "?"))}`,
    orderBy,
    limit: page.count + 1,
    params: [...key],
  };
}

/**
 * The SQL condition of a parsed `search` (OR-groups of lower-case AND-words, src/http/paging.ts parseSearch) on
 * the text expression `expr` (code, never a request's): each word a substring of `lower(expr)`; `1` (no condition)
 * for an empty search. SQLite's lower() folds ASCII letters only.
 */
export function searchSql(search: readonly (readonly string[])[], expr: string): { text: string; params: string[] } {
  if (search.length === 0) return { text: "1", params: [] };
  const text = search.map((g) => `(${g.map(() => `instr(lower(${expr}), ?) > 0`).join(" AND ")})`).join(" OR ");
  return { text: `(${text})`, params: search.flat() };
}

/**
 * SQLite in the Worker: sql.js 1.16 (SQLite compiled to WebAssembly with Emscripten, MIT), opened read-only on bytes.
 *
 * workerd refuses to compile WebAssembly from bytes at run time, so the package's wasm is imported statically (the
 * bundler hands it over as a compiled WebAssembly.Module) and given to Emscripten's `instantiateWasm` hook, which
 * instantiates it synchronously with the glue's imports. The browser build of the glue is used: it does not try to
 * `require("fs")` when nodejs_compat makes `process` look like Node. The module is initialised once per isolate.
 */
import initSqlJs from "sql.js/dist/sql-wasm-browser.js";
import sqlWasm from "sql.js/dist/sql-wasm-browser.wasm";
import type { Database, SqlJsStatic } from "sql.js";

let sqlJs: Promise<SqlJsStatic> | null = null;

/**
 * The sql.js module of this isolate (instantiated on first use). The browser glue reads `self.location.href` when
 * `WorkerGlobalScope` exists, as it does in workerd, which has no `location`: an empty one is set first (the glue only
 * derives a script folder from it, for files it never loads here, since the wasm is handed over). @jsquash/png's glue
 * used to set the same as a side effect; without it every GeoPackage read threw "reading 'href'".
 */
function loadSqlJs(): Promise<SqlJsStatic> {
  const scope = globalThis as { location?: { href: string } };
  scope.location ??= { href: "" };
  sqlJs ??= initSqlJs({
    instantiateWasm(
      imports: WebAssembly.Imports,
      done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
    ) {
      const instance = new WebAssembly.Instance(sqlWasm, imports);
      done(instance, sqlWasm);
      return instance.exports;
    },
  }).catch((e: unknown) => {
    sqlJs = null;
    throw e;
  });
  return sqlJs;
}

/**
 * Opens an SQLite database image (the bytes of a .sqlite / .gpkg file) in memory. The caller closes it
 * (`db.close()`). sql.js does not check the bytes here: a non-SQLite image fails at the first query
 * ("file is not a database").
 */
export async function openSqlite(bytes: Uint8Array): Promise<Database> {
  const SQL = await loadSqlJs();
  return new SQL.Database(bytes);
}

/** A row of a query as column name -> value (numbers, strings, blobs as Uint8Array, null). */
export type SqlRow = Record<string, number | string | Uint8Array | null>;

/**
 * A step budget shared by the queries on one database: `steps` left (one per row a query returns). sql.js 1.16
 * exports no `sqlite3_progress_handler` (nor `sqlite3_interrupt`), and workerd's clock does not advance during
 * synchronous work, so the work is bounded by steps: with only ordinary tables read (no views, virtual tables or
 * generated columns: checked before a query touches a table, src/vector/geopackage.ts), one step reads one row.
 */
export interface StepBudget {
  steps: number;
  /** Thrown (by queryRows) when the budget is spent. */
  exceeded: () => Error;
}

/**
 * All rows of `sql` with its `?` parameters bound, as objects keyed by column name.
 * @throws `budget.exceeded()` when the query would return more rows than the budget has steps left.
 */
export function queryRows(db: Database, sql: string, params: (string | number)[] = [], budget?: StepBudget): SqlRow[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const rows: SqlRow[] = [];
    while (stmt.step()) {
      if (budget && --budget.steps < 0) throw budget.exceeded();
      rows.push(stmt.getAsObject() as SqlRow);
    }
    return rows;
  } finally {
    stmt.free();
  }
}

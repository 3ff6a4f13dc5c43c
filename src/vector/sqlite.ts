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

/** The sql.js module of this isolate (instantiated on first use). */
function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= initSqlJs({
    instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
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

/** All rows of `sql` with its `?` parameters bound, as objects keyed by column name. */
export function queryRows(db: Database, sql: string, params: (string | number)[] = []): SqlRow[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const rows: SqlRow[] = [];
    while (stmt.step()) rows.push(stmt.getAsObject() as SqlRow);
    return rows;
  } finally {
    stmt.free();
  }
}

/** Types of sql.js's browser build (the package's types describe its main entry, which is the same API). */
declare module "sql.js/dist/sql-wasm-browser.js" {
  import type initSqlJs from "sql.js";
  const init: typeof initSqlJs;
  export default init;
}

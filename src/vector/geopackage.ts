/**
 * GeoPackage reader (OGC GeoPackage Encoding Standard 1.3): the feature layers of a .gpkg file held in memory.
 *
 * API (stable; used by batch and statistical batch inputs):
 * - `readGeoPackage(bytes, {layer?, geometryTypes?})` -> {@link GeoPackageLayer}: one feature layer (the first
 *   feature layer of gpkg_contents in insertion order by default, or the named one), its EPSG code, and every
 *   feature in fid order: `{fid, geometry (GeoJSON in the layer CRS), envelope, properties}`.
 * - `listGeoPackageLayers(bytes)` -> {@link GeoPackageLayerInfo}[]: the feature layers, first one first.
 * - `readGeoPackageObject(store, key, options)`: the same as readGeoPackage for an object of a bucket (ObjectStore).
 * Geometries keep the layer's CRS (no reprojection): x = easting / longitude, y = northing / latitude, as GeoPackage
 * stores them (GDAL writes EPSG:4326 as lon, lat). By default only Polygon and MultiPolygon features are accepted,
 * as Sentinel Hub's Batch and Statistical Batch APIs require.
 *
 * SQLite runs in sql.js (./sqlite.ts); geometry blobs are decoded by ./gpkgbinary.ts.
 * Only ordinary tables are read (a view, a virtual table or a generated column of the file is refused before any query
 * touches it) and every query of a file shares a step budget (MAX_SQLITE_STEPS): a hostile file cannot make SQLite
 * run the file author's SQL, nor run unbounded.
 * Every failure caused by the file (not SQLite, not a GeoPackage, no such layer, CRS without an EPSG code, a geometry
 * of a refused type, a view, virtual table or generated column where a table is read) throws EngineError invalid-argument with a message naming the file's problem.
 */
import type { Geometry } from "geojson";
import { EngineError } from "../raster/errors";
import type { ObjectStore } from "../buckets/types";
import { decodeGpkgGeometry } from "./gpkgbinary";
import { openSqlite, queryRows, type SqlRow, type StepBudget } from "./sqlite";

/** Largest GeoPackage read (bytes): the whole file is held in memory twice (the bytes and SQLite's copy). */
export const MAX_GEOPACKAGE_BYTES = 32 * 1024 * 1024;

/**
 * Most SQLite steps (rows returned) spent on one file, over all its queries: the layer list, the table checks and
 * the features. It bounds the CPU a hostile file can take (see ./sqlite.ts StepBudget); a layer of more features
 * than this cannot be read.
 */
export const MAX_SQLITE_STEPS = 500_000;

/** A feature layer as listed in gpkg_contents / gpkg_geometry_columns. */
export interface GeoPackageLayerInfo {
  name: string;
  geometryColumn: string;
  /** geometry_type_name of gpkg_geometry_columns (e.g. POLYGON, MULTIPOLYGON, GEOMETRY). */
  geometryType: string;
  /** srs_id of the layer in gpkg_spatial_ref_sys. */
  srsId: number;
  /** The EPSG code of the layer CRS. */
  epsg: number;
}

/** One feature: its fid (the table's integer primary key), geometry and attribute columns. */
export interface GeoPackageFeature {
  fid: number;
  /** GeoJSON geometry in the layer CRS; null when the feature has no (or an empty) geometry. */
  geometry: Geometry | null;
  /** [minX, minY, maxX, maxY] from the geometry blob's header, null when the header carries no envelope. */
  envelope: [number, number, number, number] | null;
  /** Every other column (not the fid, not the geometry) in table order: numbers, strings, Uint8Array blobs or null. */
  properties: Record<string, number | string | Uint8Array | null>;
}

/** A feature layer with its features in ascending fid order. */
export interface GeoPackageLayer extends GeoPackageLayerInfo {
  fidColumn: string;
  /** Attribute columns in table order (the keys of each feature's properties). */
  columns: string[];
  features: GeoPackageFeature[];
}

/** Options of readGeoPackage. */
export interface ReadGeoPackageOptions {
  /** Layer (table) name; default: the first feature layer of gpkg_contents. */
  layer?: string;
  /** Accepted GeoJSON geometry types; default ["Polygon", "MultiPolygon"]. Null geometries are always accepted. */
  geometryTypes?: readonly Geometry["type"][];
  /** Step budget of the file (default MAX_SQLITE_STEPS). */
  maxSteps?: number;
}

const DEFAULT_TYPES: readonly Geometry["type"][] = ["Polygon", "MultiPolygon"];
const REQUIRED_TABLES = ["gpkg_spatial_ref_sys", "gpkg_contents", "gpkg_geometry_columns"];

function invalid(message: string): EngineError {
  return new EngineError("invalid-argument", message);
}

/** An open GeoPackage: its queries share one step budget. */
interface Gpkg {
  rows(sql: string, params?: (string | number)[]): SqlRow[];
}

/** Runs `read` on the opened database, mapping SQLite's errors on a non-database to invalid-argument. */
async function withGeoPackage<T>(bytes: Uint8Array, read: (db: Gpkg) => T, maxSteps = MAX_SQLITE_STEPS): Promise<T> {
  if (bytes.byteLength > MAX_GEOPACKAGE_BYTES) {
    throw invalid(`The GeoPackage has ${bytes.byteLength} bytes; at most ${MAX_GEOPACKAGE_BYTES} are supported.`);
  }
  if (!isSqlite(bytes))
    throw invalid('The file is not a GeoPackage (not an SQLite 3 database: no "SQLite format 3" header).');
  let db: Awaited<ReturnType<typeof openSqlite>>;
  try {
    db = await openSqlite(bytes);
  } catch (e) {
    throw invalid(`The file is not a GeoPackage (not an SQLite database: ${e instanceof Error ? e.message : e}).`);
  }
  const budget: StepBudget = {
    steps: maxSteps,
    exceeded: () =>
      invalid(
        `The GeoPackage needs more than ${maxSteps} SQLite steps (rows) to read; at most that many are read from one file.`,
      ),
  };
  const gpkg: Gpkg = { rows: (sql, params) => queryRows(db, sql, params, budget) };
  try {
    checkGeoPackage(gpkg);
    return read(gpkg);
  } catch (e) {
    if (e instanceof EngineError) throw e;
    throw invalid(`The file is not a readable GeoPackage (${e instanceof Error ? e.message : e}).`);
  } finally {
    db.close();
  }
}

const SQLITE_MAGIC = "SQLite format 3\0";

/** True when the bytes start with the SQLite 3 file header string (sqlite.org/fileformat.html, 1.3). */
function isSqlite(bytes: Uint8Array): boolean {
  return bytes.length >= 100 && [...SQLITE_MAGIC].every((c, i) => bytes[i] === c.charCodeAt(0));
}

/**
 * What `name` is in the schema: "table" (an ordinary table), "view", "virtual" (CREATE VIRTUAL TABLE), or undefined
 * when absent. Reads sqlite_master only (never the object itself; SQLite names are case-insensitive).
 */
function schemaType(db: Gpkg, name: string): "table" | "view" | "virtual" | undefined {
  const [row] = db.rows(
    "SELECT type, sql FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
    [name],
  );
  if (!row) return undefined;
  if (row.type === "view") return "view";
  return /^\s*CREATE\s+VIRTUAL\s/i.test(String(row.sql ?? "")) ? "virtual" : "table";
}

/**
 * Checks that `table` is an ordinary table whose columns are all stored, before any query reads it: a view or a
 * virtual table runs SQL (or a module) of the file's author on every read, a generated column an expression per
 * row. Triggers never run: nothing is written.
 * @throws EngineError invalid-argument naming the table and what it is (`what`: "table" or "feature layer").
 */
function checkOrdinaryTable(db: Gpkg, table: string, what = "table"): void {
  const type = schemaType(db, table);
  if (type === undefined) throw invalid(`The file is not a GeoPackage: SQLite table ${table} missing.`);
  if (type !== "table") {
    throw invalid(
      `The GeoPackage's ${what} ${table} is a ${type === "view" ? "view" : "virtual table"}, not an ordinary table: only ordinary tables are read.`,
    );
  }
  const generated = db
    .rows(`PRAGMA table_xinfo(${ident(table)})`)
    .filter((c) => Number(c.hidden) === 2 || Number(c.hidden) === 3);
  if (generated.length) {
    throw invalid(
      `The GeoPackage's ${what} ${table} has generated column(s) ${generated.map((c) => String(c.name)).join(", ")}: only stored columns are read.`,
    );
  }
}

/** @throws EngineError invalid-argument when a table every GeoPackage with features has is missing or not a table. */
function checkGeoPackage(db: Gpkg): void {
  db.rows("PRAGMA trusted_schema = OFF"); // defence in depth: no function of the file's schema runs as trusted
  const missing = REQUIRED_TABLES.filter((t) => schemaType(db, t) === undefined);
  if (missing.length) throw invalid(`The file is not a GeoPackage: SQLite table(s) ${missing.join(", ")} missing.`);
  for (const t of REQUIRED_TABLES) checkOrdinaryTable(db, t);
}

/** Feature layers in gpkg_contents order (its rowid: the order they were added), with their EPSG codes. */
function layerInfos(db: Gpkg): GeoPackageLayerInfo[] {
  const rows = db.rows(
    `SELECT c.table_name AS name, g.column_name AS geometryColumn, g.geometry_type_name AS geometryType,
            g.srs_id AS srsId, s.organization AS org, s.organization_coordsys_id AS code
       FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name
       LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = g.srs_id
      WHERE c.data_type = 'features' ORDER BY c.rowid`,
  );
  return rows.map((r) => ({
    name: String(r.name),
    geometryColumn: String(r.geometryColumn),
    geometryType: String(r.geometryType),
    srsId: Number(r.srsId),
    epsg: epsgOf(r),
  }));
}

/** EPSG code of a gpkg_spatial_ref_sys row; NaN when it is not an EPSG CRS (checked when the layer is read). */
function epsgOf(r: SqlRow): number {
  return typeof r.org === "string" && r.org.toUpperCase() === "EPSG" && Number(r.code) > 0 ? Number(r.code) : NaN;
}

/**
 * The feature layers of a GeoPackage, first one first.
 * @throws EngineError invalid-argument when the bytes are not a GeoPackage.
 */
export function listGeoPackageLayers(bytes: Uint8Array): Promise<GeoPackageLayerInfo[]> {
  return withGeoPackage(bytes, layerInfos);
}

/** The layer asked for (or the first). @throws EngineError invalid-argument when there is none or no EPSG CRS. */
function chooseLayer(db: Gpkg, name: string | undefined): GeoPackageLayerInfo {
  const layers = layerInfos(db);
  const names = layers.map((l) => l.name);
  const layer = name === undefined ? layers[0] : layers.find((l) => l.name === name);
  if (!layer) {
    throw invalid(
      name === undefined
        ? "The GeoPackage has no feature layer (no row of gpkg_contents with data_type 'features')."
        : `The GeoPackage has no feature layer "${name}"; its feature layers: ${names.join(", ") || "none"}.`,
    );
  }
  if (Number.isNaN(layer.epsg)) {
    throw invalid(
      `Layer "${layer.name}" of the GeoPackage has srs_id ${layer.srsId}, which is not an EPSG CRS; use a layer in an EPSG CRS.`,
    );
  }
  return layer;
}

/** Quotes an SQL identifier. */
function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Column names of a table in order, and its integer primary key (the fid). */
function tableColumns(db: Gpkg, table: string): { fid: string; columns: string[] } {
  checkOrdinaryTable(db, table, "feature layer");
  const info = db.rows(`PRAGMA table_info(${ident(table)})`);
  const pk = info.find((c) => Number(c.pk) === 1 && String(c.type).toUpperCase().startsWith("INT"));
  if (!pk) throw invalid(`Layer "${table}" of the GeoPackage has no INTEGER PRIMARY KEY column (feature id).`);
  return { fid: String(pk.name), columns: info.map((c) => String(c.name)) };
}

function readLayer(db: Gpkg, options: ReadGeoPackageOptions): GeoPackageLayer {
  const info = chooseLayer(db, options.layer);
  const types = options.geometryTypes ?? DEFAULT_TYPES;
  const { fid, columns } = tableColumns(db, info.name);
  const attributes = columns.filter((c) => c !== fid && c !== info.geometryColumn);
  const rows = db.rows(`SELECT * FROM ${ident(info.name)} ORDER BY ${ident(fid)}`);
  const features = rows.map((row): GeoPackageFeature => {
    const id = Number(row[fid]);
    const where = `Feature ${id} of layer "${info.name}"`;
    const blob = row[info.geometryColumn];
    if (blob != null && !(blob instanceof Uint8Array))
      throw invalid(`${where}: the geometry column holds a ${typeof blob}, not a geometry blob.`);
    const decoded = blob ? decodeGpkgGeometry(blob, where) : { geometry: null, envelope: null };
    if (decoded.geometry && !types.includes(decoded.geometry.type)) {
      throw invalid(`${where} is a ${decoded.geometry.type}; accepted geometry types: ${types.join(", ")}.`);
    }
    const properties: GeoPackageFeature["properties"] = {};
    for (const c of attributes) properties[c] = row[c] ?? null;
    return { fid: id, geometry: decoded.geometry, envelope: decoded.envelope, properties };
  });
  return { ...info, fidColumn: fid, columns: attributes, features };
}

/**
 * Reads one feature layer of a GeoPackage (see the module note for the shapes).
 * @throws EngineError invalid-argument when the bytes are not a GeoPackage (or larger than MAX_GEOPACKAGE_BYTES),
 *   the layer does not exist, its CRS has no EPSG code, or a geometry is unreadable or of a type not accepted.
 */
export function readGeoPackage(bytes: Uint8Array, options: ReadGeoPackageOptions = {}): Promise<GeoPackageLayer> {
  return withGeoPackage(bytes, (db) => readLayer(db, options), options.maxSteps);
}

/**
 * readGeoPackage for the object `key` of a bucket.
 * @throws EngineError invalid-argument when the object does not exist (naming bucket and key), is larger than
 *   MAX_GEOPACKAGE_BYTES, or is not a readable GeoPackage (see readGeoPackage).
 */
export async function readGeoPackageObject(
  store: ObjectStore,
  key: string,
  options: ReadGeoPackageOptions = {},
): Promise<GeoPackageLayer> {
  const head = await store.head(key);
  if (!head) throw invalid(`GeoPackage s3://${store.bucket}/${key} does not exist.`);
  if (head.size > MAX_GEOPACKAGE_BYTES) {
    throw invalid(
      `GeoPackage s3://${store.bucket}/${key} has ${head.size} bytes; at most ${MAX_GEOPACKAGE_BYTES} are supported.`,
    );
  }
  const object = await store.get(key);
  if (!object) throw invalid(`GeoPackage s3://${store.bucket}/${key} does not exist.`);
  const bytes = new Uint8Array(await new Response(object.body).arrayBuffer());
  return readGeoPackage(bytes, options);
}

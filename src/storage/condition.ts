/**
 * Query conditions over the `items` table (the catalog's CQL2 filters compile to them): a boolean tree of exact
 * SQL leaves, spatial leaves (tested on item geometries) and the logical operators between them, compiled to
 * SQL over `items` plus, when spatial leaves are present, an exact test run on each candidate.
 *
 * Spatial leaves cannot be decided in SQL: there the WHERE clause is a superset (the leaf's bbox overlaps the item's
 * bbox) and each candidate row is then decided exactly. For the exact test every non-spatial leaf is selected as a
 * column, so SQL (with its three-valued logic) decides them and JS only combines them with the spatial results.
 * Superset/subset rules: sup(not x) = not sub(x), sub(not x) = not sup(x); a spatial leaf has sup = bbox overlap,
 * sub = false; an exact leaf has sup = sub = itself.
 */
import booleanIntersects from "@turf/boolean-intersects";
import type { Geometry } from "geojson";

/** A longitude/latitude box [west, south, east, north] in CRS84 degrees; west > east when it crosses the antimeridian. */
export type BBox = [number, number, number, number];

/** A parametrised SQL fragment (`?` placeholders, values in order). */
export interface Sql {
  text: string;
  params: unknown[];
}

/**
 * A query condition: SQL leaves, spatial leaves (item geometry intersects `geometry`, CRS84; `rect`: the geometry
 * is its `bbox`, a lon/lat box such as a search's `bbox`) and logic.
 */
export type BoolNode =
  | { kind: "sql"; sql: Sql }
  | { kind: "spatial"; geometry: Geometry; bbox: BBox; rect?: boolean }
  | { kind: "and" | "or"; args: BoolNode[] }
  | { kind: "not"; arg: BoolNode }
  | { kind: "const"; value: boolean };

/** The conjunction of `args` (the node itself when there is one). */
export const and = (args: BoolNode[]): BoolNode => (args.length === 1 ? args[0]! : { kind: "and", args });

/** True when the tree holds a spatial leaf (then SQL alone cannot decide it). */
export function hasSpatial(node: BoolNode): boolean {
  switch (node.kind) {
    case "spatial":
      return true;
    case "and":
    case "or":
      return node.args.some(hasSpatial);
    case "not":
      return hasSpatial(node.arg);
    default:
      return false;
  }
}

/** True when two geometries share at least one point (turf booleanIntersects). */
export function intersects(a: Geometry, b: Geometry): boolean {
  return booleanIntersects(a, b);
}

/** East edge of an item's bbox, unwrapped: max_lon + 360 when the bbox crosses the antimeridian (min_lon > max_lon). */
export const EAST_SQL = "(CASE WHEN max_lon < min_lon THEN max_lon + 360 ELSE max_lon END)";

/**
 * SQL test that an item's bbox overlaps `[w, s, e, n]` (w > e crosses the antimeridian). An item covers the
 * longitudes [min_lon, EAST]; overlap is tested for the query interval shifted by 0 and, where it can matter,
 * by +-360. Only stored columns of the covering index items_search are used (migration 0002).
 */
export function bboxOverlapSql([w, s, e, n]: BBox): Sql {
  const qe = w > e ? e + 360 : e;
  return {
    text: `(min_lat <= ? AND max_lat >= ? AND ((min_lon <= ? AND ${EAST_SQL} >= ?) OR ${EAST_SQL} >= ? OR min_lon <= ?))`,
    params: [n, s, qe, w, w + 360, qe - 360],
  };
}

const TRUE: Sql = { text: "1", params: [] };
const FALSE: Sql = { text: "0", params: [] };

/**
 * Joins parts with AND / OR as a balanced tree of parenthesised pairs, so that n parts add ceil(log2 n) levels to
 * SQLite's expression tree (a flat `a OR b OR c ...` is n levels deep, and D1 refuses depths over 100).
 */
function join(parts: Sql[], op: " AND " | " OR "): Sql {
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 0) return op === " AND " ? TRUE : FALSE;
  const half = Math.ceil(parts.length / 2);
  const [a, b] = [join(parts.slice(0, half), op), join(parts.slice(half), op)];
  return { text: `(${a.text}${op}${b.text})`, params: [...a.params, ...b.params] };
}

const negate = (x: Sql): Sql => ({ text: `(NOT ${x.text})`, params: x.params });

/**
 * SQL test that an item's bbox lies inside the box `[w, s, e, n]` (w > e crosses the antimeridian): then the item's
 * footprint, which its bbox bounds, surely intersects the box. The item's longitudes [min_lon, EAST] must fit in
 * the query's, unshifted or shifted by +360 (items east of the antimeridian in a box crossing it).
 */
export function bboxWithinSql([w, s, e, n]: BBox): Sql {
  const qe = w > e ? e + 360 : e;
  return {
    text: `(min_lat >= ? AND max_lat <= ? AND ((min_lon >= ? AND ${EAST_SQL} <= ?) OR (min_lon + 360 >= ? AND ${EAST_SQL} + 360 <= ?)))`,
    params: [s, n, w, qe, w, qe],
  };
}

/**
 * SQL that is true at least whenever `node` is (`superset`) or at most whenever it is (`!superset`). A spatial
 * leaf's superset is bbox overlap; its subset is bbox inside for a box (`rect`), else nothing.
 */
function bound(node: BoolNode, superset: boolean): Sql {
  switch (node.kind) {
    case "sql":
      return { text: `(${node.sql.text})`, params: node.sql.params };
    case "const":
      return node.value ? TRUE : FALSE;
    case "spatial":
      return superset ? bboxOverlapSql(node.bbox) : node.rect ? bboxWithinSql(node.bbox) : FALSE;
    case "not":
      return negate(bound(node.arg, !superset));
    default:
      return join(
        node.args.map((a) => bound(a, superset)),
        node.kind === "and" ? " AND " : " OR ",
      );
  }
}

/** Three-valued truth: true, false or null (unknown), as in SQL. */
type Truth = boolean | null;

function evaluate(node: BoolNode, leaves: Map<BoolNode, number>, values: unknown[], geometry: Geometry | null): Truth {
  switch (node.kind) {
    case "sql": {
      const v = values[leaves.get(node)!];
      return v === null || v === undefined ? null : Boolean(v);
    }
    case "const":
      return node.value;
    case "spatial":
      return geometry !== null && intersects(node.geometry, geometry);
    case "not": {
      const v = evaluate(node.arg, leaves, values, geometry);
      return v === null ? null : !v;
    }
    default: {
      const vs = node.args.map((a) => evaluate(a, leaves, values, geometry));
      const decisive = node.kind === "and" ? false : true;
      if (vs.includes(decisive)) return decisive;
      return vs.includes(null) ? null : !decisive;
    }
  }
}

function collectLeaves(node: BoolNode, out: BoolNode[]): void {
  if (node.kind === "sql") out.push(node);
  else if (node.kind === "not") collectLeaves(node.arg, out);
  else if (node.kind === "and" || node.kind === "or") node.args.forEach((a) => collectLeaves(a, out));
}

/** A compiled query condition. */
export interface Condition {
  /** WHERE clause: exact when `test` is absent, else a superset of the matching rows. */
  where: Sql;
  /** Boolean SQL expressions to SELECT (in order) for `test`. */
  columns: Sql[];
  /** Exact decision for a candidate row, from the selected columns and the item geometry. */
  test?: (columns: unknown[], geometry: Geometry | null) => boolean;
  /** With `test`: SQL true only for rows that surely match (a subset; NULL or false: decide with `test`). */
  sure?: Sql;
}

/**
 * Compiles top-level conjuncts: those without spatial leaves go to WHERE as they are; the others contribute their
 * superset to WHERE and are decided per row by `test` (their subset makes `sure`, which counts skip testing).
 */
export function compileCondition(conjuncts: BoolNode[]): Condition {
  const exact = conjuncts.filter((c) => !hasSpatial(c));
  const spatial = conjuncts.filter(hasSpatial);
  const where = join([...exact.map((c) => bound(c, true)), ...spatial.map((c) => bound(c, true))], " AND ");
  if (spatial.length === 0) return { where: exact.length ? where : TRUE, columns: [] };
  const leafNodes: BoolNode[] = [];
  spatial.forEach((c) => collectLeaves(c, leafNodes));
  const index = new Map(leafNodes.map((n, i) => [n, i]));
  const columns = leafNodes.map((n) => bound(n, true));
  const test = (values: unknown[], geometry: Geometry | null): boolean =>
    spatial.every((c) => evaluate(c, index, values, geometry) === true);
  const sure = join([...exact.map((c) => bound(c, true)), ...spatial.map((c) => bound(c, false))], " AND ");
  return { where, columns, test, sure };
}

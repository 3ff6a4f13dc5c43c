/**
 * A BYOC tile's `tileGeometry` given at creation (the spec's BYOC tile: a Polygon or MultiPolygon, optional, in any
 * CRS named by its GeoJSON `crs` member (CRS84 without one), stored in CRS84 and returned in the tile's CRS). When
 * given it is the tile's footprint (its item's geometry); when omitted ingestion sets the files' common extent.
 * Sentinel Hub documents tileGeometry as read-only (always the files' extent): the spec wins (docs/byoc.md).
 */
import { areaGeometrySchema, type AreaGeometry } from "../pipeline/input";
import { crsFromEpsg, parseCrs, transformer } from "../raster/crs";
import type { Crs } from "../raster/types";
import { badRequest } from "../http/errors";

/** The GeoJSON `crs` member naming EPSG code `epsg` (Sentinel Hub's form of it). */
export const crsMember = (epsg: number) => ({ type: "name", properties: { name: `urn:ogc:def:crs:EPSG::${epsg}` } });

const rings = (g: AreaGeometry): number[][][] => (g.type === "Polygon" ? g.coordinates : g.coordinates.flat());

/** `g` with every position moved from CRS `from` to `to` (proj4; NaN where a position does not transform). */
export function reproject(g: AreaGeometry, from: Crs, to: Crs): AreaGeometry {
  const move = transformer(from, to);
  const ring = (r: number[][]): number[][] => {
    const xs = Float64Array.from(r, (p) => p[0]!),
      ys = Float64Array.from(r, (p) => p[1]!);
    move(xs, ys);
    return Array.from(xs, (x, i) => [x, ys[i]!]);
  };
  return g.type === "Polygon"
    ? { type: "Polygon", coordinates: g.coordinates.map(ring) }
    : { type: "MultiPolygon", coordinates: g.coordinates.map((p) => p.map(ring)) };
}

/** The CRS of a geometry's `crs` member (CRS84 without one). @throws ApiError 400 naming tileGeometry.crs. */
function crsOf(raw: Record<string, unknown>): Crs {
  if (raw.crs === undefined || raw.crs === null) return crsFromEpsg(4326);
  const name = (raw.crs as { properties?: { name?: unknown } }).properties?.name;
  if (typeof name !== "string")
    throw badRequest(
      "tileGeometry.crs: a GeoJSON crs member {type: 'name', properties: {name: <CRS URI>}} is required.",
      { "tileGeometry.crs": "properties.name must be a CRS URI" },
    );
  try {
    return parseCrs(name);
  } catch (e) {
    throw badRequest(`tileGeometry.crs: ${e instanceof Error ? e.message : String(e)}`, {
      "tileGeometry.crs": `unsupported CRS ${name.slice(0, 100)}`,
    });
  }
}

/**
 * Validates a given tileGeometry and returns it in CRS84 (lon, lat).
 * @throws ApiError 400 naming tileGeometry: not a Polygon / MultiPolygon (or too many vertices), a ring that is not
 *   closed, an unsupported CRS, a position that does not transform or lies outside lon -180..180 / lat -90..90.
 */
export function givenTileGeometry(raw: Record<string, unknown>): AreaGeometry {
  const parsed = areaGeometrySchema.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues
      .map((i) => [i.path.length ? `tileGeometry.${i.path.join(".")}` : "tileGeometry", i.message].join(": "))
      .join("; ");
    throw badRequest(`Invalid request: ${why}`, { tileGeometry: why });
  }
  const open = rings(parsed.data).find((r) => r[0]![0] !== r.at(-1)![0] || r[0]![1] !== r.at(-1)![1]);
  if (open)
    throw badRequest(
      `tileGeometry: every linear ring must be closed (its last position equal to its first); a ring starts at ${JSON.stringify(open[0])}.`,
      { tileGeometry: "a ring is not closed" },
    );
  const g = reproject(parsed.data, crsOf(raw), crsFromEpsg(4326));
  const out = rings(g)
    .flat()
    .find(([x, y]) => !(Math.abs(x!) <= 180 && Math.abs(y!) <= 90));
  if (out)
    throw badRequest(
      "tileGeometry: a position lies outside its CRS's range (CRS84 without a crs member: lon -180..180, lat -90..90).",
      { tileGeometry: "a position is outside its CRS's range" },
    );
  return g;
}

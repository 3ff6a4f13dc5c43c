/**
 * GeoJSON geometries of catalog queries (the `intersects` member and CQL2 spatial literals), in CRS84 (lon, lat).
 * Validation with zod and bounding boxes for the SQL prefilter (the exact test is src/storage/condition.ts).
 */
import { z } from "zod";
import type { Geometry } from "geojson";
import { countPositions, MAX_GEOMETRY_VERTICES, tooManyVertices } from "../raster/grid/vertices";
import type { BBox } from "../storage/condition";

export type { BBox };

const position = z.array(z.number()).min(2).max(3);
const ring = z.array(position).min(4);
const point = z.object({ type: z.literal("Point"), coordinates: position });
const multiPoint = z.object({ type: z.literal("MultiPoint"), coordinates: z.array(position) });
const lineString = z.object({ type: z.literal("LineString"), coordinates: z.array(position).min(2) });
const multiLineString = z.object({
  type: z.literal("MultiLineString"),
  coordinates: z.array(z.array(position).min(2)),
});
const polygon = z.object({ type: z.literal("Polygon"), coordinates: z.array(ring).min(1) });
const multiPolygon = z.object({ type: z.literal("MultiPolygon"), coordinates: z.array(z.array(ring).min(1)) });
const simple = z.discriminatedUnion("type", [point, multiPoint, lineString, multiLineString, polygon, multiPolygon]);
const collection = z.object({ type: z.literal("GeometryCollection"), geometries: z.array(simple).min(1) });

/**
 * Any GeoJSON geometry (RFC 7946): Point ... MultiPolygon and GeometryCollection (of simple geometries), with at most
 * MAX_GEOMETRY_VERTICES positions in all (raster/grid/vertices.ts).
 */
export const geometrySchema = z.union([simple, collection]).check((ctx) => {
  const g = ctx.value;
  const n = countPositions(g.type === "GeometryCollection" ? g.geometries.map((c) => c.coordinates) : g.coordinates);
  if (n > MAX_GEOMETRY_VERTICES) ctx.issues.push({ code: "custom", message: tooManyVertices(n), input: g });
});

/** Visits every position of a geometry. */
function eachPosition(g: Geometry, visit: (p: number[]) => void): void {
  if (g.type === "GeometryCollection") return g.geometries.forEach((c) => eachPosition(c, visit));
  const walk = (c: unknown): void => {
    if (typeof (c as number[])[0] === "number") visit(c as number[]);
    else (c as unknown[]).forEach(walk);
  };
  walk(g.coordinates);
}

/**
 * Bounding box of a geometry. Throws RangeError for positions outside lon [-180, 180] / lat [-90, 90].
 */
export function geometryBBox(g: Geometry): BBox {
  const box: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  eachPosition(g, ([x, y]) => {
    if (!(Math.abs(x!) <= 180 && Math.abs(y!) <= 90))
      throw new RangeError(`position [${x}, ${y}] is outside lon/lat bounds`);
    box[0] = Math.min(box[0], x!);
    box[1] = Math.min(box[1], y!);
    box[2] = Math.max(box[2], x!);
    box[3] = Math.max(box[3], y!);
  });
  return box;
}

/** A box as a GeoJSON geometry: a Polygon, or a MultiPolygon split at the antimeridian when west > east. */
export function bboxGeometry([w, s, e, n]: BBox): Geometry {
  const rect = (a: number, b: number): number[][][] => [
    [
      [a, s],
      [b, s],
      [b, n],
      [a, n],
      [a, s],
    ],
  ];
  if (w <= e) return { type: "Polygon", coordinates: rect(w, e) };
  return { type: "MultiPolygon", coordinates: [rect(w, 180), rect(-180, e)] };
}

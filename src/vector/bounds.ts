/** Bounding boxes of GeoJSON polygons. */
import type { MultiPolygon, Polygon } from "geojson";

/** [minX, minY, maxX, maxY] of every position of a Polygon / MultiPolygon (in its own CRS and axis order). */
export function polygonBounds(g: Polygon | MultiPolygon): [number, number, number, number] {
  const polys = g.type === "Polygon" ? [g.coordinates] : g.coordinates;
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of polys.flat(2) as [number, number][]) {
    b[0] = Math.min(b[0], x);
    b[1] = Math.min(b[1], y);
    b[2] = Math.max(b[2], x);
    b[3] = Math.max(b[3], y);
  }
  return b;
}

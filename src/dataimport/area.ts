/**
 * Geodesic areas of request bounds (orders' and subscriptions' `sqkm`): the bounds (a bbox or a Polygon /
 * MultiPolygon, in the CRS of bounds.properties.crs, CRS84 by default) are brought to longitude/latitude with the
 * raster engine's CRS transforms, and their area on the WGS84 ellipsoid is computed by GeographicLib
 * (geographiclib-geodesic: C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 2013), each ring's edges
 * taken as geodesics (a bbox's edges are densified first, so it keeps its outline along parallels and meridians).
 */
import { Geodesic } from "geographiclib-geodesic";
import { crsFromEpsg, parseCrs, transformer } from "../raster/crs";
import type { AreaGeometry } from "../pipeline/input";

/** Request bounds as the process-like schema gives them. */
export interface Bounds {
  bbox?: number[];
  geometry?: AreaGeometry;
  properties?: { crs?: string };
}

/** Points added along each bbox edge, so a bbox in a projected CRS keeps its curved outline in lon/lat. */
const EDGE_POINTS = 20;

function bboxRing([x0, y0, x1, y1]: number[]): number[][] {
  const ring: number[][] = [];
  const edge = (ax: number, ay: number, bx: number, by: number) => {
    for (let i = 0; i < EDGE_POINTS; i++)
      ring.push([ax + ((bx - ax) * i) / EDGE_POINTS, ay + ((by - ay) * i) / EDGE_POINTS]);
  };
  edge(x0!, y0!, x1!, y0!);
  edge(x1!, y0!, x1!, y1!);
  edge(x1!, y1!, x0!, y1!);
  edge(x0!, y1!, x0!, y0!);
  ring.push([x0!, y0!]);
  return ring;
}

/** The bounds as a lon/lat MultiPolygon's coordinates (the geometry when given, else the bbox). */
export function lonLatPolygons(b: Bounds): number[][][][] {
  const polys: number[][][][] = b.geometry
    ? b.geometry.type === "Polygon"
      ? [b.geometry.coordinates as number[][][]]
      : (b.geometry.coordinates as number[][][][])
    : [[bboxRing(b.bbox!)]];
  const crs = b.properties?.crs;
  if (!crs) return polys;
  const move = transformer(parseCrs(crs), crsFromEpsg(4326));
  return polys.map((p) =>
    p.map((ring) => {
      const xs = Float64Array.from(ring, (c) => c[0]!),
        ys = Float64Array.from(ring, (c) => c[1]!);
      move(xs, ys);
      return Array.from(xs, (x, i) => [x, ys[i]!]);
    }),
  );
}

/** The area of one lon/lat ring on the WGS84 ellipsoid, m2 (either orientation; the closing vertex may repeat). */
function ringArea(ring: number[][]): number {
  const poly = Geodesic.WGS84.Polygon(false);
  const open =
    ring.length > 1 && ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1] ? ring.slice(0, -1) : ring;
  for (const [lon, lat] of open) poly.AddPoint(lat!, lon!);
  return Math.abs(poly.Compute(false, true).area ?? 0);
}

/** The geodesic area of the bounds in km2 (outer rings less their holes). @throws EngineError unsupported for an unknown CRS. */
export function boundsSqkm(b: Bounds): number {
  const m2 = lonLatPolygons(b).reduce(
    (sum, [outer, ...holes]) => sum + ringArea(outer!) - holes.reduce((h, r) => h + ringArea(r), 0),
    0,
  );
  return m2 / 1e6;
}

/** [minLon, minLat, maxLon, maxLat] of the bounds. */
export function lonLatBbox(b: Bounds): [number, number, number, number] {
  const pts = lonLatPolygons(b).flat(2);
  return [
    Math.min(...pts.map((p) => p[0]!)),
    Math.min(...pts.map((p) => p[1]!)),
    Math.max(...pts.map((p) => p[0]!)),
    Math.max(...pts.map((p) => p[1]!)),
  ];
}

/**
 * Geometry for tile selection: areas and tiles meet in longitude / latitude (EPSG:4326, x = lon), where turf's planar
 * booleanIntersects decides. Straight edges of a projected CRS become curves there, so edges are densified before
 * they are transformed (proj4 through src/raster/crs): area edges every MAX_STEP units of their CRS (at most
 * MAX_PIECES pieces), tile edges in TILE_PIECES pieces. Over a 20 km UTM tile the densified edge is within a few
 * millimetres of the true curve.
 */
import booleanIntersects from "@turf/boolean-intersects";
import type { MultiPolygon, Polygon, Position } from "geojson";
import { crsFromEpsg, transformer } from "../../raster/crs";
import type { Crs } from "../../raster/types";

export { polygonBounds as areaBounds } from "../../vector/bounds";

/** A polygonal area in longitude / latitude (EPSG:4326, x = lon). */
export type LonLatArea = Polygon | MultiPolygon;

/** Box [minX, minY, maxX, maxY]. */
export type Box = [number, number, number, number];

const MAX_STEP = 1000;
const MAX_PIECES = 64;
const TILE_PIECES = 32;

/** Points of a ring with each edge cut into `pieces(edgeLength)` parts (the ring stays closed). */
function densifyRing(ring: Position[], pieces: (length: number) => number): Position[] {
  const out: Position[] = [];
  for (let k = 0; k + 1 < ring.length; k++) {
    const [x0, y0] = ring[k] as [number, number];
    const [x1, y1] = ring[k + 1] as [number, number];
    const n = pieces(Math.hypot(x1 - x0, y1 - y0));
    for (let i = 0; i < n; i++) out.push([x0 + ((x1 - x0) * i) / n, y0 + ((y1 - y0) * i) / n]);
  }
  if (ring.length) out.push([...ring[ring.length - 1]!]);
  return out;
}

/** A ring transformed point by point; null when a point does not transform (outside the projection). */
function transformRing(ring: Position[], from: Crs, to: Crs): Position[] | null {
  const xs = Float64Array.from(ring, (p) => p[0]!);
  const ys = Float64Array.from(ring, (p) => p[1]!);
  transformer(from, to)(xs, ys);
  const out: Position[] = [];
  for (let i = 0; i < xs.length; i++) {
    if (!Number.isFinite(xs[i]) || !Number.isFinite(ys[i])) return null;
    out.push([xs[i]!, ys[i]!]);
  }
  return out;
}

/**
 * A Polygon / MultiPolygon of `crs` in longitude / latitude (edges of projected CRSs densified first).
 * @returns null when a vertex cannot be transformed.
 */
export function areaToLonLat(geometry: LonLatArea, crs: Crs): LonLatArea | null {
  if (crs.epsg === 4326) return geometry;
  const wgs84 = crsFromEpsg(4326);
  const pieces = (length: number) => Math.min(MAX_PIECES, Math.max(1, Math.ceil(length / MAX_STEP)));
  const polygon = (rings: Position[][]): Position[][] | null => {
    const out = rings.map((r) => transformRing(densifyRing(r, pieces), crs, wgs84));
    return out.every((r) => r !== null) ? (out as Position[][]) : null;
  };
  if (geometry.type === "Polygon") {
    const rings = polygon(geometry.coordinates);
    return rings && { type: "Polygon", coordinates: rings };
  }
  const polys = geometry.coordinates.map(polygon);
  return polys.every((p) => p !== null) ? { type: "MultiPolygon", coordinates: polys as Position[][][] } : null;
}

/** The closed ring of a box, counter-clockwise from its south-west corner. */
export function boxRing([x0, y0, x1, y1]: Box): Position[] {
  return [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ];
}

/** A box of `crs` as a longitude / latitude ring (edges densified); null when a corner does not transform. */
export function boxToLonLat(box: Box, crs: Crs): Position[] | null {
  if (crs.epsg === 4326) return boxRing(box);
  return transformRing(
    densifyRing(boxRing(box), () => TILE_PIECES),
    crs,
    crsFromEpsg(4326),
  );
}

/**
 * How far a cell is shrunk before it is tested against the area: 10 cm in metric CRSs, 1e-6 degree (about 10 cm).
 * Larger than the densification error (chords of curved edges, below 1 cm for 20 km UTM tiles up to 70 degrees of
 * latitude), far below a pixel of any grid.
 */
const TOUCH_MARGIN = { metre: 0.1, degree: 1e-6 };

/**
 * The longitude / latitude ring a cell of `crs` is tested with: the cell shrunk by TOUCH_MARGIN on every side, so a
 * tile that only touches the area (an area drawn on tile edges) or overlaps it by less than the margin is not
 * listed. Null when a corner does not transform.
 */
export function cellRing(cell: Box, crs: Crs): Position[] | null {
  const m = crs.geographic ? TOUCH_MARGIN.degree : TOUCH_MARGIN.metre;
  return boxToLonLat([cell[0] + m, cell[1] + m, cell[2] - m, cell[3] - m], crs);
}

/**
 * Sutherland-Hodgman clipping of a ring by a box (exact for convex rings such as tiles; Sutherland & Hodgman,
 * "Reentrant polygon clipping", CACM 17(1), 1974). Returns the clipped closed ring, or null when nothing is left.
 */
export function clipRing(ring: Position[], [x0, y0, x1, y1]: Box): Position[] | null {
  const edges: [(p: Position) => number][] = [
    [(p) => p[0]! - x0],
    [(p) => x1 - p[0]!],
    [(p) => p[1]! - y0],
    [(p) => y1 - p[1]!],
  ];
  let pts = ring.slice(0, -1);
  for (const [inside] of edges) {
    const next: Position[] = [];
    for (let i = 0; i < pts.length; i++) {
      const a = pts[i]!,
        b = pts[(i + 1) % pts.length]!;
      const da = inside(a),
        db = inside(b);
      if (da >= 0) next.push(a);
      if (da >= 0 !== db >= 0) {
        const t = da / (da - db);
        next.push([a[0]! + t * (b[0]! - a[0]!), a[1]! + t * (b[1]! - a[1]!)]);
      }
    }
    pts = next;
    if (pts.length < 3) return null;
  }
  return [...pts, pts[0]!];
}

/** True when the ring (a tile) and the area share a point (turf booleanIntersects, planar in degrees). */
export function ringMeetsArea(ring: Position[], area: LonLatArea): boolean {
  return booleanIntersects({ type: "Polygon", coordinates: [ring] }, area);
}

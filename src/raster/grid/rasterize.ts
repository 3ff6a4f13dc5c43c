/**
 * Polygon rasterization onto a Grid: 1 where the pixel centre lies inside the (multi)polygon, else 0.
 * Even-odd rule over all rings (holes subtract), as GDAL's default rasterization (gdal_rasterize / RasterizeLayer
 * without ALL_TOUCHED, alg/llrasterize.cpp) selects pixels by their centres:
 * - the scanline of a row is the horizontal line through its pixel centres, y = maxY - (row + 0.5) * resY;
 * - an edge crosses it when one end is above y and the other is not (half-open on y, so a vertex on the line is
 *   counted once and horizontal edges never);
 * - between the 1st and 2nd, 3rd and 4th... crossing (sorted by x) the pixels whose centre x lies in [x1, x2) are in.
 *
 * Scanline with an active edge table: edges are bucketed by the first row they cross; each row adds its new edges,
 * drops the finished ones, computes one crossing per active edge and keeps the table sorted by x with an insertion
 * sort (the order barely changes from row to row). Time O(rows + edges + crossings) for polygons whose edges do not
 * cross each other (self-intersecting ones fall back to a full sort of the row when the insertion sort runs long);
 * memory O(edges). An edge that crosses no row's centre line costs O(1).
 */
import type { Grid } from "../types";

/** Rings of a Polygon / MultiPolygon as flat [x0, y0, x1, y1, ...] arrays in the grid's CRS. */
export type Rings = Float64Array[];

/** Edges that cross at least one centre line: ends as given (a = current vertex, b = previous) and their rows. */
interface EdgeTable {
  xa: Float64Array;
  ya: Float64Array;
  xb: Float64Array;
  yb: Float64Array;
  /** Last row (inclusive) whose centre line the edge crosses. */
  last: Int32Array;
  /** Edge indices ordered by first row; the edges starting at row r are byRow[start[r] .. start[r + 1]). */
  byRow: Int32Array;
  start: Int32Array;
}

/** Centre lines of the rows: y of each (computed once: the exact doubles every comparison uses), top and step. */
interface Scanlines {
  ys: Float64Array;
  maxY: number;
  resY: number;
}

function scanlines(grid: Grid): Scanlines {
  const [, minY, , maxY] = grid.bbox;
  const resY = (maxY - minY) / grid.height;
  const ys = new Float64Array(grid.height);
  for (let row = 0; row < grid.height; row++) ys[row] = maxY - (row + 0.5) * resY;
  return { ys, maxY, resY };
}

const clamp = (v: number, lo: number, hi: number): number => (v < lo ? lo : v > hi ? hi : v);

/** First row whose centre line is below `yHi`, or the row count: estimated, then settled on the exact ys (O(1)). */
function firstBelow({ ys, maxY, resY }: Scanlines, yHi: number): number {
  let r = clamp(Math.floor((maxY - yHi) / resY - 0.5) + 1, 0, ys.length);
  while (r > 0 && ys[r - 1]! < yHi) r--;
  while (r < ys.length && !(ys[r]! < yHi)) r++;
  return r;
}

/** Last row whose centre line is at or above `yLo`, or -1 (estimated, then settled). */
function lastAtOrAbove({ ys, maxY, resY }: Scanlines, yLo: number): number {
  let r = clamp(Math.floor((maxY - yLo) / resY - 0.5), -1, ys.length - 1);
  while (r + 1 < ys.length && ys[r + 1]! >= yLo) r++;
  while (r >= 0 && !(ys[r]! >= yLo)) r--;
  return r;
}

/** The edge table of the rings: an edge is active on the rows whose centre line y satisfies min(y) <= y < max(y). */
function edgeTable(rings: Rings, lines: Scanlines): EdgeTable {
  const { ys } = lines;
  const total = rings.reduce((n, r) => n + r.length / 2, 0);
  const [xa, ya, xb, yb] = [0, 0, 0, 0].map(() => new Float64Array(total));
  const first = new Int32Array(total);
  const last = new Int32Array(total);
  const start = new Int32Array(ys.length + 1);
  let m = 0;
  for (const ring of rings) {
    const n = ring.length / 2;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const y0 = ring[2 * i + 1]!;
      const y1 = ring[2 * j + 1]!;
      if (y0 === y1) continue;
      const r0 = firstBelow(lines, Math.max(y0, y1));
      const r1 = lastAtOrAbove(lines, Math.min(y0, y1));
      if (!(r0 <= r1)) continue; // also NaN coordinates
      xa[m] = ring[2 * i]!;
      ya[m] = y0;
      xb[m] = ring[2 * j]!;
      yb[m] = y1;
      first[m] = r0;
      last[m] = r1;
      start[r0 + 1]! += 1;
      m++;
    }
  }
  for (let r = 0; r < ys.length; r++) start[r + 1]! += start[r]!;
  const byRow = new Int32Array(m);
  const fill = start.slice(0, ys.length);
  for (let e = 0; e < m; e++) byRow[fill[first[e]!]!++] = e;
  return { xa, ya, xb, yb, last, byRow, start };
}

/**
 * Sorts `active[0..n)` by `xs` (parallel arrays) by insertion, as the order is nearly right; past `budget` moves it
 * finishes with a full sort instead.
 */
function sortActive(active: Int32Array, xs: Float64Array, n: number): void {
  let moves = 0;
  const budget = 4 * n + 64;
  for (let i = 1; i < n; i++) {
    const e = active[i]!;
    const x = xs[i]!;
    let k = i - 1;
    while (k >= 0 && xs[k]! > x) {
      active[k + 1] = active[k]!;
      xs[k + 1] = xs[k]!;
      k--;
    }
    active[k + 1] = e;
    xs[k + 1] = x;
    moves += i - 1 - k;
    if (moves > budget) return fullSort(active, xs, n);
  }
}

function fullSort(active: Int32Array, xs: Float64Array, n: number): void {
  const order = Array.from({ length: n }, (_, i) => i).sort((p, q) => xs[p]! - xs[q]!);
  const [e, x] = [order.map((i) => active[i]!), order.map((i) => xs[i]!)];
  active.set(e);
  xs.set(x);
}

/**
 * Rasterizes rings (already in the grid CRS, any orientation, closed or not: the last vertex joins the first)
 * to a width*height mask (row 0 = north, 1 = pixel centre inside by the even-odd rule).
 */
export function rasterizeRings(rings: Rings, grid: Grid): Uint8Array {
  const { width, height } = grid;
  const [minX, , maxX] = grid.bbox;
  const resX = (maxX - minX) / width;
  const lines = scanlines(grid);
  const ys = lines.ys;
  const t = edgeTable(rings, lines);
  const mask = new Uint8Array(width * height);
  const active = new Int32Array(t.byRow.length);
  const xs = new Float64Array(t.byRow.length);
  let n = 0;
  for (let row = 0; row < height; row++) {
    let kept = 0;
    for (let k = 0; k < n; k++) if (t.last[active[k]!]! >= row) active[kept++] = active[k]!;
    for (let s = t.start[row]!; s < t.start[row + 1]!; s++) active[kept++] = t.byRow[s]!;
    n = kept;
    if (n === 0) continue;
    const y = ys[row]!;
    for (let k = 0; k < n; k++) {
      const e = active[k]!;
      const xi = t.xa[e]!;
      const yi = t.ya[e]!;
      xs[k] = xi + ((y - yi) * (t.xb[e]! - xi)) / (t.yb[e]! - yi);
    }
    sortActive(active, xs, n);
    const base = row * width;
    for (let k = 0; k + 1 < n; k += 2) {
      // pixel centres c with minX + (c + 0.5) * resX in [xs[k], xs[k+1])
      const c0 = Math.max(0, Math.ceil((xs[k]! - minX) / resX - 0.5));
      const c1 = Math.min(width - 1, Math.ceil((xs[k + 1]! - minX) / resX - 0.5) - 1);
      if (c1 >= c0) mask.fill(1, base + c0, base + c1 + 1);
    }
  }
  return mask;
}

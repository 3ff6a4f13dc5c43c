/**
 * The vertex limit of request geometries (Processing and Statistical API `input.bounds.geometry`, catalog
 * `intersects` and CQL2 spatial literals): at most MAX_GEOMETRY_VERTICES positions in one geometry, counted over
 * all its rings / parts (closing positions included). Above it the request is a 400 naming the limit. It bounds the
 * work a request's geometry can cause: parsing and validating, CRS transforms (per vertex), the polygon mask
 * (rasterize.ts, linear in rows + edges) and the catalog's exact intersection tests.
 */
export const MAX_GEOMETRY_VERTICES = 50_000;

/** Number of positions in GeoJSON `coordinates` (nested arrays of any depth whose leaves are [x, y(, z)]). */
export function countPositions(coordinates: unknown): number {
  let n = 0;
  const stack: unknown[] = [coordinates];
  while (stack.length > 0) {
    const c = stack.pop();
    if (!Array.isArray(c)) continue;
    if (typeof c[0] === "number") n++;
    else for (const x of c) stack.push(x);
  }
  return n;
}

/** The message of the 400 for a geometry of `n` positions. */
export const tooManyVertices = (n: number): string =>
  `The geometry has ${n} vertices; at most ${MAX_GEOMETRY_VERTICES} are allowed (simplify it, e.g. with a tolerance of a pixel).`;

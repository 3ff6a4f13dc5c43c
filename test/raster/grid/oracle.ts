/**
 * Independent oracle for polygon masks: for each pixel centre of a row, the even-odd count of ring edges crossed
 * by a ray to +x (the classic crossing-number point-in-polygon test), with the same half-open rule on y as GDAL
 * (an edge counts when one end is above the centre and the other is not).
 */
import type { Grid } from "../../../src/raster/types";

/** The mask of one row (1 inside) by testing pixel centres (every `step`-th column) against every edge. */
export function evenOddRow(rings: Float64Array[], grid: Grid, row: number, step = 1): Uint8Array {
  const [minX, minY, maxX, maxY] = grid.bbox;
  const rx = (maxX - minX) / grid.width;
  const y = maxY - (row + 0.5) * ((maxY - minY) / grid.height);
  const out = new Uint8Array(Math.ceil(grid.width / step));
  for (let c = 0; c < grid.width; c += step) {
    const x = minX + (c + 0.5) * rx;
    let inside = false;
    for (const r of rings) {
      const n = r.length / 2;
      for (let a = 0, b = n - 1; a < n; b = a++) {
        const [xa, ya, xb, yb] = [r[2 * a]!, r[2 * a + 1]!, r[2 * b]!, r[2 * b + 1]!];
        if (ya > y !== yb > y && x < xa + ((y - ya) * (xb - xa)) / (yb - ya)) inside = !inside;
      }
    }
    out[c / step] = inside ? 1 : 0;
  }
  return out;
}

/**
 * Cost of rasterizing onto a 2500 x 2500 grid, printed for the record and never asserted as a time: the 2e5-vertex
 * polygon of a rasterising probe, and the worst case allowed by the vertex limit (every crossing is work). What is
 * asserted is the mask itself, against an independent per-pixel even-odd test on sampled pixels.
 */
import { describe, expect, it } from "vitest";
import { rasterizeRings } from "../../../src/raster/grid/rasterize";
import type { Grid } from "../../../src/raster/types";
import { evenOddRow } from "./oracle";

/** A wavy 2e5-vertex ring around the grid's centre (radius 1000 +- 3 px in CRS units of 1 px). */
function bigRing(n: number): Float64Array {
  const r = new Float64Array(2 * (n + 1));
  for (let i = 0; i <= n; i++) {
    const a = (2 * Math.PI * (i % n)) / n;
    const rad = 1000 + 3 * Math.sin(a * 997);
    r[2 * i] = 1250 + rad * Math.cos(a);
    r[2 * i + 1] = 1250 + rad * Math.sin(a);
  }
  return r;
}

describe("rasterize cost (printed, not asserted)", () => {
  it("2e5 vertices at 2500 x 2500 px", () => {
    const grid: Grid = { crs: { epsg: 3857 } as Grid["crs"], bbox: [0, 0, 2500, 2500], width: 2500, height: 2500 };
    const ring = bigRing(200_000);
    const t0 = performance.now();
    const mask = rasterizeRings([ring], grid);
    const ms = performance.now() - t0;
    console.log(`rasterizeRings: 200000 vertices, 2500 x 2500 px: ${ms.toFixed(1)} ms`);
    const step = 50;
    for (const row of [0, 251, 1250, 2499]) {
      const got = mask.subarray(row * 2500, (row + 1) * 2500).filter((_, c) => c % step === 0);
      expect([...got], `row ${row}`).toEqual([...evenOddRow([ring], grid, row, step)]);
    }
    expect(mask.reduce((n, v) => n + v, 0)).toBeGreaterThan(Math.PI * 990 ** 2); // inside the wavy ring's inner radius
  });

  it("worst case at the vertex limit: a comb of 50000 vertices, half of its edges crossing all 2500 rows", () => {
    const grid: Grid = { crs: { epsg: 3857 } as Grid["crs"], bbox: [0, 0, 2500, 2500], width: 2500, height: 2500 };
    const teeth = 12_500; // 4 vertices per tooth
    const pts: number[] = [];
    for (let t = 0; t < teeth; t++) {
      const x = (2500 * t) / teeth;
      const w = 2500 / teeth;
      pts.push(x, 0, x + w * 0.25, 2500, x + w * 0.5, 2500, x + w * 0.75, 0);
    }
    const ring = Float64Array.from(pts);
    const t0 = performance.now();
    const mask = rasterizeRings([ring], grid);
    console.log(
      `rasterizeRings: comb of ${pts.length / 2} vertices, 2500 x 2500 px (6.25e7 crossings): ${(performance.now() - t0).toFixed(1)} ms`,
    );
    for (const row of [0, 1250, 2499]) {
      const got = mask.subarray(row * 2500, (row + 1) * 2500).filter((_, c) => c % 97 === 0);
      expect([...got], `row ${row}`).toEqual([...evenOddRow([ring], grid, row, 97)]);
    }
  });
});

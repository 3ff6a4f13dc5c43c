/**
 * rasterizeRings against gdal.RasterizeLayer (test/reference/ref_rasterize.py) on real MultiPolygons with holes, with zero
 * tolerance (the fixtures keep every pixel centre off the edges), and against an independent per-pixel even-odd
 * test on random rings (self-intersecting, unclosed, vertices on centre lines, grids cutting them).
 */
import { describe, expect, it } from "vitest";
import { geometryRings } from "../../../src/pipeline/plan";
import { rasterizeRings } from "../../../src/raster/grid/rasterize";
import { crsFromEpsg } from "../../../src/raster/crs";
import type { Grid } from "../../../src/raster/types";
import { maskDiff, maskFixture } from "../../helpers/masks";
import { reference } from "../../helpers/refs";
import { evenOddRow } from "./oracle";

describe("as gdal.RasterizeLayer, exactly", () => {
  for (const name of ["clouds_utm_simplified", "clouds_utm_cut", "clouds_utm_raw", "clouds_4326"]) {
    it(name, async () => {
      const ref = await maskFixture(name);
      expect(ref.margin_px).toBeGreaterThan(1e-6);
      const rings = geometryRings(ref.geometry);
      expect(rings.length).toBeGreaterThan(100); // many parts, many holes
      const mask = rasterizeRings(rings, ref.grid);
      expect(maskDiff(mask, ref.mask)).toEqual([]);
      expect(mask.reduce((n, v) => n + v, 0)).toBe(ref.inside);
    });
  }

  it("the triangle of the Processing clip test (test/fixtures/process/clip_mask.bin)", async () => {
    const ref = await reference("clip_mask");
    const ring = (ref.meta as unknown as { polygon: number[][] }).polygon;
    const g = ref.meta.grid;
    const mask = rasterizeRings([Float64Array.from(ring.flat())], {
      crs: crsFromEpsg(4326),
      bbox: g.bbox,
      width: g.width,
      height: g.height,
    });
    expect(maskDiff(mask, Uint8Array.from(ref.data))).toEqual([]);
  });
});

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random ring of `n` vertices in [-20, 120]^2; some y snapped onto centre lines of a 10-unit grid, some repeated. */
function randomRing(rnd: () => number, n: number, closed: boolean): Float64Array {
  const pts: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = -20 + 140 * rnd();
    let y = -20 + 140 * rnd();
    if (rnd() < 0.2) y = Math.floor(y / 10) * 10 + 5; // on a centre line of a 10-unit pixel grid anchored at 0
    if (rnd() < 0.1 && i > 0) y = pts[pts.length - 1]!; // horizontal edge
    pts.push(x, y);
  }
  if (closed) pts.push(pts[0]!, pts[1]!);
  return Float64Array.from(pts);
}

describe("as the per-pixel even-odd rule", () => {
  it("300 random ring sets on grids that cut them", () => {
    const rnd = prng(7);
    for (let trial = 0; trial < 300; trial++) {
      const rings = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () =>
        randomRing(rnd, 3 + Math.floor(rnd() * 30), rnd() < 0.7),
      );
      const aligned = trial % 2 === 0; // pixel size 10 anchored at 0: the snapped vertices lie on centre lines
      const grid: Grid = aligned
        ? { crs: crsFromEpsg(3857), bbox: [0, 0, 100, 100], width: 10, height: 10 }
        : {
            crs: crsFromEpsg(3857),
            bbox: [-5 + 10 * rnd(), -5 + 10 * rnd(), 90 + 10 * rnd(), 90 + 10 * rnd()],
            width: 7 + Math.floor(rnd() * 40),
            height: 5 + Math.floor(rnd() * 40),
          };
      const mask = rasterizeRings(rings, grid);
      for (let row = 0; row < grid.height; row++) {
        const want = evenOddRow(rings, grid, row);
        expect([...mask.subarray(row * grid.width, (row + 1) * grid.width)], `trial ${trial} row ${row}`).toEqual([
          ...want,
        ]);
      }
    }
  });

  it("no rings, degenerate rings and rings outside the grid give an empty mask", () => {
    const grid: Grid = { crs: crsFromEpsg(3857), bbox: [0, 0, 10, 10], width: 5, height: 5 };
    expect(rasterizeRings([], grid).some((v) => v)).toBe(false);
    expect(rasterizeRings([Float64Array.of(1, 1, 9, 1, 5, 1)], grid).some((v) => v)).toBe(false); // flat
    expect(rasterizeRings([Float64Array.of(20, 20, 30, 20, 30, 30)], grid).some((v) => v)).toBe(false);
    expect(rasterizeRings([Float64Array.of(0, NaN, 5, 5, 9, 0)], grid).some((v) => v)).toBe(false);
  });
});

/** The strip units of an async request (src/async/render.ts stripUnits): bounded, whole TIFF strips, covering the grid once. */
import { describe, expect, it } from "vitest";
import { ASYNC_UNIT_PIXELS, stripRows, stripUnits } from "../../src/async/render";

describe("stripUnits", () => {
  it("cuts every grid up to 10000 x 10000 into units of whole strips, each at most 8 Mi px, covering each row once", () => {
    for (const [width, height] of [
      [1, 1],
      [1, 10000],
      [110, 110],
      [2500, 2500],
      [4000, 4000],
      [9999, 7],
      [10000, 10000],
      [10000, 1],
      [3, 10000],
    ] as const) {
      const units = stripUnits({ width, height });
      const strip = stripRows(width);
      let next = 0;
      for (const u of units) {
        expect(u.row).toBe(next);
        expect(u.rows).toBeGreaterThan(0);
        expect(u.rows * width <= ASYNC_UNIT_PIXELS || u.rows === strip).toBe(true);
        if (u.row + u.rows < height) expect(u.rows % strip).toBe(0); // only the last unit ends with a short strip
        next += u.rows;
      }
      expect(next).toBe(height);
    }
    expect(stripUnits({ width: 10000, height: 10000 })).toHaveLength(13);
    expect(stripUnits({ width: 2500, height: 2500 })).toHaveLength(1); // PNG and JPEG (<= 2500 x 2500) are one unit
  });
});

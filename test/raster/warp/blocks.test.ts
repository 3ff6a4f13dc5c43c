/**
 * NEAREST from a reader's decoded blocks (src/raster/warp/blockmap.ts, RasterReader.readBlocks) against NEAREST from
 * the window the same reader copies (its readBlocks removed), with the same unit conversion (WarpOptions.scales;
 * applyScale after the window's gather): the same Float32 bits and masks for 8- and 16-bit files, signed and
 * unsigned, with and without the cached map, and for blocks a source does not store (read as its fill value).
 */
import { describe, expect, it } from "vitest";
import { openCog } from "../../../src/raster/cog";
import { crsFromEpsg, transformBounds } from "../../../src/raster/crs";
import { bboxOf, pyramidLevels, type RasterReader } from "../../../src/raster/reader";
import type { GeoTransform, Grid, ValueScale, WarpedBand } from "../../../src/raster/types";
import { readWarped } from "../../../src/raster/warp";
import { sourceFor } from "./refs";

/** The reader without its blocks: readWarped copies windows from it (near.ts nearWindow). */
function windowOnly(reader: RasterReader): RasterReader {
  const { readBlocks: _, ...rest } = reader;
  return rest;
}

/** Pixels whose value bits or mask differ (a count: a diff of so many values takes vitest minutes to print). */
function differing(a: WarpedBand, b: WarpedBand): number {
  const [x, y] = [new Uint32Array(a.data.buffer.slice(0)), new Uint32Array(b.data.buffer.slice(0))];
  return x.filter((v, i) => v !== y[i] || a.valid[i] !== b.valid[i]).length;
}

/** Warps `reader` onto `grid` from its blocks and from its windows, cached map and not; expects the same bits. */
async function expectSameAsWindows(reader: RasterReader, bands: number[], grid: Grid, scales: (ValueScale | null)[]) {
  expect(reader.readBlocks).toBeDefined();
  for (const cacheIndex of [true, false, true]) {
    const opts = { resampling: "NEAREST" as const, cacheIndex, scales };
    const fromBlocks = await readWarped(reader, bands, grid, opts);
    const fromWindows = await readWarped(windowOnly(reader), bands, grid, opts);
    fromBlocks.forEach((b, i) => expect(differing(b, fromWindows[i]!)).toBe(0));
    expect(fromBlocks.some((b) => b.valid.some((v) => v === 0) && b.valid.some((v) => v === 1))).toBe(true);
  }
}

const REFLECTANCE: ValueScale = { offset: -1000, min: 0, scale: 1 / 10000 };
const DECLARED: ValueScale = { scale: 0.0000275, add: -0.2 };

describe("NEAREST from decoded blocks equals NEAREST from windows", () => {
  it.each([
    ["sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif", [0], [REFLECTANCE]],
    ["sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/SCL.tif", [0], [null]],
    ["sentinel-2-l2a/belgium/openEO_2023-06-04Z.tif", [2, 0], [DECLARED, { offset: 5, scale: 2 }]],
    ["sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B/iw-vv.utm43n-200m.tif", [0], [{ scale: 0.5 }]],
  ] as const)("%s, onto EPSG:4326 past the file's edges", async (path, bands, scales) => {
    const cog = await openCog(await sourceFor(path));
    const wgs84 = crsFromEpsg(4326);
    const [x0, y0, x1, y1] = transformBounds(cog.bbox, cog.crs, wgs84);
    const [dx, dy] = [(x1 - x0) / 10, (y1 - y0) / 10];
    for (const size of [97, 300]) {
      const grid: Grid = { crs: wgs84, bbox: [x0 - dx, y0 - dy, x1 + dx, y1 + dy], width: size, height: size };
      await expectSameAsWindows(cog, [...bands], grid, [...scales]);
    }
  });

  it("reads a block the source does not store as its fill value, nodata or not", async () => {
    for (const [fill, nodata] of [
      [-5, -5],
      [7, null],
    ] as const) {
      const reader = sparseReader(fill, nodata);
      const grid: Grid = { crs: reader.crs, bbox: [996, 996, 1036, 1036], width: 13, height: 11 };
      await expectSameAsWindows(reader, [0], grid, [{ offset: 1, scale: 3 }]);
    }
  });
});

/**
 * A 16 x 16 px Int16 raster in 8 x 8 blocks (UTM 29N, 2 m pixels) whose top-right block is not stored (null): its
 * samples read as `fill`.
 */
function sparseReader(fill: number, nodata: number | null): RasterReader {
  const gt: GeoTransform = [1000, 2, 0, 1032, 0, -2];
  const blocks = [0, 1, 2, 3].map((b) =>
    b === 1 ? null : Int16Array.from({ length: 64 }, (_, i) => ((i * 37 + b * 11) % 50) - 10),
  );
  const sample = (x: number, y: number) => {
    const block = blocks[Math.floor(y / 8) * 2 + Math.floor(x / 8)];
    return block ? block[(y % 8) * 8 + (x % 8)]! : fill;
  };
  const window = (w: { x0: number; y0: number; width: number; height: number }) =>
    Int16Array.from({ length: w.width * w.height }, (_, i) =>
      sample(w.x0 + (i % w.width), w.y0 + Math.floor(i / w.width)),
    );
  return {
    id: `sparse-${fill}-${nodata}`,
    crs: crsFromEpsg(32629),
    width: 16,
    height: 16,
    geoTransform: gt,
    bbox: bboxOf(gt, 16, 16),
    bandCount: 1,
    sampleType: "INT16",
    nodata,
    levels: pyramidLevels(gt, [{ width: 16, height: 16, blockWidth: 8, blockHeight: 8 }]),
    read: async (_l, bands, w) => bands.map(() => Float32Array.from(window(w))),
    readNative: async (_l, bands, w) => bands.map(() => window(w)),
    readBlocks: async (_l, bands, w) => {
      // the blocks of the window, row-major (the window starts in block column and row floor(x0 / 8), floor(y0 / 8))
      const [bx0, by0, bx1, by1] = [w.x0 >> 3, w.y0 >> 3, (w.x0 + w.width - 1) >> 3, (w.y0 + w.height - 1) >> 3];
      const grid: (Int16Array | null)[] = [];
      for (let by = by0; by <= by1; by++) for (let bx = bx0; bx <= bx1; bx++) grid.push(blocks[by * 2 + bx]!);
      return bands.map(() => ({ blocks: grid, fill }));
    },
  };
}

/**
 * readWarped against gdal.Warp (GDAL 3.6.2, errorThreshold=0, Float32 output) on the real files, copied into R2.
 * Tolerances:
 * - exact transformer (errorThreshold 0): identical validity masks, NEAREST values identical, BILINEAR/BICUBIC
 *   within 1e-3 DN (float rounding of PROJ vs proj4 coordinates);
 * - default approximate transformer (0.01 source pixel): at most 0.5% of valid pixels may differ (a NEAREST
 *   pixel flipping to its neighbour, or the validity of an edge pixel), BILINEAR/BICUBIC values within 0.5%.
 */
import { describe, expect, it } from "vitest";
import { clearCogCaches, openCog } from "../../../src/raster/cog";
import { crsFromEpsg } from "../../../src/raster/crs";
import type { Grid, WarpedBand } from "../../../src/raster/types";
import { rejection } from "../../helpers/engine";
import { chooseLevel, readWarped } from "../../../src/raster/warp";
import { ref, refs, REF_NODATA, sourceFor, type WarpRef } from "./refs";
import { window } from "../../helpers/raster";

const RESAMPLING = { near: "NEAREST", bilinear: "BILINEAR", cubic: "BICUBIC" } as const;

const gridOf = (m: WarpRef): Grid => ({ crs: crsFromEpsg(m.epsg), bbox: m.bbox, width: m.width, height: m.height });

/** Compares a warped band with a GDAL reference (subsampled references compare every n-th row/column). */
function compare(m: WarpRef, expected: Float32Array, got: WarpedBand) {
  const sub = m.subsample ?? 1;
  let [pixels, validFlips, differing, maxAbs, maxRel] = [0, 0, 0, 0, 0];
  for (let r = 0, k = 0; r < m.height; r += sub)
    for (let c = 0; c < m.width; c += sub, k++) {
      const o = r * m.width + c;
      const refValid = expected[k] !== REF_NODATA;
      if (refValid || got.valid[o]) pixels++;
      if (refValid !== (got.valid[o] === 1)) validFlips++;
      else if (refValid) {
        const d = Math.abs(expected[k]! - got.data[o]!);
        if (d > 0) differing++;
        maxAbs = Math.max(maxAbs, d);
        maxRel = Math.max(maxRel, d / Math.abs(expected[k]!));
      }
      if (!got.valid[o] && got.data[o] !== 0) throw new Error("invalid pixels must hold 0");
    }
  return { pixels, validFlips, differing, maxAbs, maxRel };
}

const cases = Object.entries(await refs())
  .filter(([, v]) => typeof v === "object" && v !== null && "resampling" in v)
  .map(([name]) => name);

describe.each(cases)("%s", (name) => {
  it("matches gdal.Warp exactly with the exact transformer, and picks GDAL's overview", async () => {
    const { meta, data } = await ref(name);
    const cog = await openCog(await sourceFor(meta.file));
    expect(chooseLevel(cog, gridOf(meta))).toBe(meta.gdalOverview! + 1);
    const [band] = await readWarped(cog, [meta.band], gridOf(meta), {
      resampling: RESAMPLING[meta.resampling!],
      errorThreshold: 0,
    });
    const s = compare(meta, data, band!);
    expect(s.validFlips).toBe(0);
    if (meta.resampling === "near") expect(s.differing).toBe(0);
    expect(s.maxAbs).toBeLessThan(1e-3);
  });

  it("stays within the tolerance with the default approximate transformer", async () => {
    const { meta, data } = await ref(name);
    const cog = await openCog(await sourceFor(meta.file));
    const [band] = await readWarped(cog, [meta.band], gridOf(meta), { resampling: RESAMPLING[meta.resampling!] });
    const s = compare(meta, data, band!);
    const differing = s.validFlips + (meta.resampling === "near" ? s.differing : 0);
    expect(differing / s.pixels).toBeLessThanOrEqual(0.005);
    if (meta.resampling !== "near") expect(s.maxRel).toBeLessThan(0.005);
  });
});

describe("readWarped", () => {
  it("copies the file's pixels exactly with NEAREST on an aligned grid in the file's CRS", async () => {
    const { meta, data } = await ref("rkhutm_native_pixels");
    const cog = await openCog(await sourceFor(meta.file));
    const [band] = await readWarped(cog, [0], gridOf(meta), { resampling: "NEAREST" });
    expect(Array.from(band!.data)).toEqual(Array.from(data));
    expect(band!.valid.every((v) => v === 1)).toBe(true);
  });

  it("reads a window with one R2 range request after the header (cold caches), none when warm", async () => {
    clearCogCaches();
    const { meta } = await ref("rkh4326_near");
    const source = await sourceFor(meta.file);
    const cog = await openCog(source);
    expect(source.stats.gets).toBe(1);
    await readWarped(cog, [0], gridOf(meta), { resampling: "BICUBIC" });
    expect(source.stats.gets).toBe(2);
    await readWarped(cog, [0], gridOf(meta), { resampling: "NEAREST" });
    expect(source.stats.gets).toBe(2);
  });

  it("reads several bands of one file concurrently with a single coalesced request", async () => {
    clearCogCaches();
    const { meta } = await ref("belgium_near");
    const source = await sourceFor(meta.file);
    const cog = await openCog(source);
    const warped = await readWarped(cog, [0, 1, 2], gridOf(meta), { resampling: "NEAREST" });
    expect(source.stats.gets).toBe(2);
    expect(warped.map((w) => w.valid.reduce((a, b) => a + b, 0))).toEqual([1385, 1385, 1385]);
  });

  it("returns all-invalid bands without reading pixels for a grid outside the scene", async () => {
    const source = await sourceFor("sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif");
    const cog = await openCog(source);
    const before = source.stats.gets;
    const grid: Grid = { crs: crsFromEpsg(4326), bbox: [10, 40, 10.1, 40.1], width: 16, height: 16 };
    const [band] = await readWarped(cog, [0], grid, { resampling: "BILINEAR" });
    expect(source.stats.gets).toBe(before);
    expect(band!.valid.every((v) => v === 0) && band!.data.every((v) => v === 0)).toBe(true);
  });

  it("honours a nodata override on real swath-edge no data (L1C 19UDP: 38 % DN 0, no nodata tag)", async () => {
    const path = "sentinel-2-l1c/S2_19UDP_20170729_L1C/B04.tif";
    const file = await window(path, 0, 0, 0, 122, 122); // geotiff.js, independent of the raster engine
    const cog = await openCog(await sourceFor(path));
    // The file's own pixel grid: the NEAREST index map is the identity (near.ts copies the window instead of gathering).
    const grid: Grid = { crs: crsFromEpsg(32619), bbox: [399960, 5290200, 509760, 5400000], width: 122, height: 122 };
    const [asFile] = await readWarped(cog, [0], grid, { resampling: "NEAREST" });
    const [zero] = await readWarped(cog, [0], grid, { resampling: "NEAREST", nodata: 0 });
    const [none] = await readWarped(cog, [0], grid, { resampling: "NEAREST", nodata: null });
    const count = (w: WarpedBand) => w.valid.reduce((a, b) => a + b, 0);
    const withData = file.reduce((a, v) => a + (v !== 0 ? 1 : 0), 0);
    expect(withData / file.length).toBeCloseTo(0.6245, 3);
    expect(count(zero)).toBe(withData);
    expect(count(none)).toBe(file.length);
    expect(count(asFile)).toBe(file.length); // no GDAL_NODATA tag: every pixel counts
    let bad = 0;
    for (let i = 0; i < file.length; i++) {
      if (zero.valid[i] !== (file[i] !== 0 ? 1 : 0) || zero.data[i] !== file[i] || none.data[i] !== file[i]) bad++;
    }
    expect(bad).toBe(0);
  });

  it("rejects bad input with 400s", async () => {
    const cog = await openCog(await sourceFor("sentinel-2-l2a/belgium/openEO_2023-06-04Z.tif"));
    const grid: Grid = { crs: crsFromEpsg(4326), bbox: [5.07, 51.21, 5.08, 51.22], width: 8, height: 8 };
    const status = async (p: Promise<unknown>) => {
      const e = await rejection(p);
      expect(e.kind).toBe("invalid-argument");
      return e.status;
    };
    expect(await status(readWarped(cog, [3], grid, { resampling: "NEAREST" }))).toBe(400);
    expect(await status(readWarped(cog, [0], grid, { resampling: "LANCZOS" as never }))).toBe(400);
    expect(await status(readWarped(cog, [0], { ...grid, width: 0 }, { resampling: "NEAREST" }))).toBe(400);
    expect(
      await status(readWarped(cog, [0], { ...grid, bbox: [5.08, 51.21, 5.07, 51.22] }, { resampling: "NEAREST" })),
    ).toBe(400);
  });
});

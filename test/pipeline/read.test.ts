/**
 * readScene's scene mask and the mosaic's first-scene fast path (src/pipeline/read.ts, mosaic.ts) on a real scene
 * whose bands have different no-data footprints (L1C 19UDP: about 38 % DN 0 at the swath edge, B04 and B08 differ
 * on a few pixels), on 121 x 122 output pixels (not a multiple of 4: the masks are ANDed 4 pixels per step).
 * Oracle: the files' pixels read with geotiff.js (test/helpers/raster.ts), independent of the engine.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { collectionForType } from "../../src/pipeline/collections";
import { mosaicScenes } from "../../src/pipeline/mosaic";
import type { AreaPlan } from "../../src/pipeline/plan";
import { readScene, type SceneRaster } from "../../src/pipeline/read";
import type { Scene } from "../../src/pipeline/scenes";
import { crsFromEpsg } from "../../src/raster/crs";
import type { Grid } from "../../src/raster/types";
import type { StacItem } from "../../src/storage/items";
import { window } from "../helpers/raster";
import { seedSamples } from "../helpers/seed";

const DIR = "sentinel-2-l1c/S2_19UDP_20170729_L1C";
const grid: Grid = { crs: crsFromEpsg(32619), bbox: [399960, 5290200, 508860, 5400000], width: 121, height: 122 };
const options = { upsampling: "NEAREST", downsampling: "NEAREST", harmonize: false } as const;
let item: StacItem;

beforeAll(async () => {
  [item] = await seedSamples((i) => i.id.includes("19UDP"));
});

/** Reads `bands` (REFLECTANCE) of the scene and mosaics it alone, as a SIMPLE request does. */
async function readAndMosaic(bands: string[]) {
  const c = await collectionForType(env, null, "sentinel-2-l1c");
  const raster = await readScene(env, c, item, bands.map((name) => ({ name, units: "REFLECTANCE" })), grid, options);
  const zeroed = raster.zeroed;
  const copy: SceneRaster = { valid: raster.valid.slice(), bands: Object.fromEntries(Object.entries(raster.bands).map(([k, v]) => [k, v.slice()])), zeroed };
  const plan = { grid, geometryMask: null } as unknown as AreaPlan;
  const [sample] = await mosaicScenes("SIMPLE", [{ info: { id: "x", date: "2017-07-29T00:00:00Z" }, scenes: [{} as Scene] }], async () => copy, plan, bands);
  return { raster, zeroed, sample: sample! };
}

describe("readScene + SIMPLE mosaic of one scene", () => {
  it("ANDs masks that differ, reports the bands as not zeroed, and the mosaic zeroes them where any band lacks data", async () => {
    const [b04, b08] = await Promise.all(["B04", "B08"].map((b) => window(`${DIR}/${b}.tif`, 0, 0, 0, 121, 122)));
    const expected = b04!.map((v, i) => (v !== 0 && b08![i] !== 0 ? 1 : 0));
    const differing = b04!.reduce((a, v, i) => a + ((v !== 0) !== (b08![i] !== 0) ? 1 : 0), 0);
    expect(differing).toBeGreaterThan(0);
    const { raster, zeroed, sample } = await readAndMosaic(["B04", "B08"]);
    expect(Array.from(raster.valid)).toEqual(Array.from(expected));
    expect(zeroed).toBe(false);
    expect(Array.from(sample.dataMask)).toEqual(Array.from(expected));
    for (const name of ["B04", "B08"]) {
      const file = name === "B04" ? b04! : b08!;
      const bad = sample.bands[name]!.filter((v, i) => (expected[i] ? v !== Math.fround(file[i]! / 10000) : v !== 0)).length;
      expect(bad).toBe(0);
    }
  });

  it("takes a zeroed scene over as it is: dataMask = the file's data pixels, values 0 elsewhere", async () => {
    const b04 = await window(`${DIR}/B04.tif`, 0, 0, 0, 121, 122);
    const { zeroed, sample } = await readAndMosaic(["B04"]);
    expect(zeroed).toBe(true);
    expect(Array.from(sample.dataMask)).toEqual(Array.from(b04, (v) => (v !== 0 ? 1 : 0)));
    expect(sample.bands.B04!.filter((v, i) => v !== (b04[i] !== 0 ? Math.fround(b04[i]! / 10000) : 0)).length).toBe(0);
  });
});

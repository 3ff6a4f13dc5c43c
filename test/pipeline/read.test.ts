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
import type { StacItem } from "../../src/storage/stac";
import { window } from "../helpers/raster";
import { seedSamples } from "../helpers/seed";

const DIR = "sentinel-2-l1c/S2_19UDP_20170729_L1C";
const grid: Grid = { crs: crsFromEpsg(32619), bbox: [399960, 5290200, 508860, 5400000], width: 121, height: 122 };
const options = { upsampling: "NEAREST", downsampling: "NEAREST", harmonize: false } as const;
let item: StacItem;

beforeAll(async () => {
  [item] = await seedSamples((i) => i.id.includes("19UDP"));
});

/** Reads B04 of the scene (as if of processing baseline `baseline`) in `units` with harmonizeValues `harmonize`. */
async function readB04(baseline: string, units: string, harmonize: boolean) {
  const c = await collectionForType(env, null, "sentinel-2-l1c");
  const asBaseline = { ...item, properties: { ...item.properties, "s2:processing_baseline": baseline } };
  return readScene(env, c, asBaseline, [{ name: "B04", units }], grid, { ...options, harmonize });
}

/** Reads `bands` (REFLECTANCE) of the scene and mosaics it alone, as a SIMPLE request does. */
async function readAndMosaic(bands: string[]) {
  const c = await collectionForType(env, null, "sentinel-2-l1c");
  const raster = await readScene(
    env,
    c,
    item,
    bands.map((name) => ({ name, units: "REFLECTANCE" })),
    grid,
    options,
  );
  const zeroed = raster.zeroed;
  const copy: SceneRaster = {
    valid: raster.valid.slice(),
    bands: Object.fromEntries(Object.entries(raster.bands).map(([k, v]) => [k, v.slice()])),
    zeroed,
  };
  const plan = { grid, geometryMask: null } as unknown as AreaPlan;
  const [sample] = await mosaicScenes(
    "SIMPLE",
    [{ info: { id: "x", date: "2017-07-29T00:00:00Z" }, scenes: [{} as Scene] }],
    async () => copy,
    plan,
    bands,
  );
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
      const bad = sample.bands[name]!.filter((v, i) =>
        expected[i] ? v !== Math.fround(file[i]! / 10000) : v !== 0,
      ).length;
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

describe("readScene units on a scene with no data (DN 0 at the swath edge)", () => {
  let b04: Float32Array;
  beforeAll(async () => {
    b04 = await window(`${DIR}/B04.tif`, 0, 0, 0, 121, 122);
    expect(b04.filter((v) => v === 0).length).toBeGreaterThan(1000);
    expect(b04.filter((v) => v > 0 && v < 1000).length).toBeGreaterThan(0);
  });
  /** Pixels whose value differs from want(DN) where the file has data, or from 0 where it has none. */
  const bad = (got: Float32Array, want: (dn: number) => number) =>
    got.filter((v, i) => !Object.is(v, b04[i] !== 0 ? Math.fround(want(b04[i]!)) : 0)).length;

  it("offset -1000 (baseline 04.00), not harmonized: (DN - 1000) / 10000 where there is data, 0 where there is none", async () => {
    const r = await readB04("04.00", "REFLECTANCE", false);
    expect(Array.from(r.valid)).toEqual(Array.from(b04, (v) => (v !== 0 ? 1 : 0)));
    expect(bad(r.bands.B04!, (dn) => (dn - 1000) / 10000)).toBe(0);
  });

  it("offset -1000, harmonized: max(0, DN - 1000) / 10000; DN units: max(0, DN - 1000); 0 where there is no data", async () => {
    expect(bad((await readB04("04.00", "REFLECTANCE", true)).bands.B04!, (dn) => Math.max(0, dn - 1000) / 10000)).toBe(
      0,
    );
    expect(bad((await readB04("04.00", "DN", true)).bands.B04!, (dn) => Math.max(0, dn - 1000))).toBe(0);
  });

  it("DN units not harmonized: the stored DN (offset not applied); baseline 02.14 reflectance: DN / 10000", async () => {
    expect(bad((await readB04("04.00", "DN", false)).bands.B04!, (dn) => dn)).toBe(0);
    expect(bad((await readB04("02.14", "REFLECTANCE", false)).bands.B04!, (dn) => dn / 10000)).toBe(0);
  });
});

describe("SIMPLE mosaic stops once every pixel has data", () => {
  /** Scenes read by a SIMPLE mosaic of two scenes whose first one has data where `valid` is 1 (zeroed bands). */
  async function scenesRead(valid: Uint8Array): Promise<number> {
    const n = grid.width * grid.height;
    let reads = 0;
    const read = async (): Promise<SceneRaster> => ({
      valid: reads++ === 0 ? valid : new Uint8Array(n).fill(1),
      bands: { B04: new Float32Array(n) },
      zeroed: true,
    });
    const plan = { grid, geometryMask: null } as unknown as AreaPlan;
    await mosaicScenes(
      "SIMPLE",
      [{ info: { id: "x", date: "2017-07-29T00:00:00Z" }, scenes: [{} as Scene, {} as Scene] }],
      read,
      plan,
      ["B04"],
    );
    return reads;
  }
  const n = grid.width * grid.height; // 14762: not a multiple of 4, the last two pixels are counted one by one

  it("a first scene with data everywhere is the mosaic; one pixel without data, in the middle or at the end, reads the next", async () => {
    expect(n % 4).not.toBe(0);
    expect(await scenesRead(new Uint8Array(n).fill(1))).toBe(1);
    for (const hole of [0, 4001, n - 1]) {
      const valid = new Uint8Array(n).fill(1);
      valid[hole] = 0;
      expect(await scenesRead(valid)).toBe(2);
    }
  });
});

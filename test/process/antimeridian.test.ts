/**
 * A scene whose footprint crosses the antimeridian (bbox min_lon > max_lon): the real 29RKH B04 pixels moved by
 * test/reference/ref_antimeridian.py onto a UTM 60 South square centred on 180 degrees. The Process API over an EPSG:4326
 * box on each side of 180 degrees must find the scene (the catalog's antimeridian rule, src/storage/condition.ts)
 * and return the pixels gdal.Warp (nearest, exact transformer) reads from the same file.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import { token } from "../helpers/auth";
import { CRS, process, readTiff } from "../helpers/process";
import { compare } from "../helpers/refs";
import { sampleFile, sampleItems } from "../helpers/seed";

interface Refs {
  bbox: number[];
  geometry: StacItem["geometry"];
  cases: Record<"west" | "east", { bbox: number[]; width: number; height: number; mean: number }>;
}

const DIR = "fixtures/process/antimeridian";
const KEY = "sentinel-2-l2a/antimeridian/B04.tif";
const TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
let refs: Refs;
let bearer: string;

beforeAll(async () => {
  refs = JSON.parse(new TextDecoder().decode(await sampleFile(`${DIR}/refs.json`))) as Refs;
  // the real 29RKH item (its time and properties) with the moved footprint and B04 file; the only item in D1
  const src = (await sampleItems()).find((i) => i.id === "S2A_29RKH_20200219_0_L2A")!;
  await env.DATA.put(KEY, await sampleFile(`${DIR}/B04.tif`));
  const item: StacItem = {
    ...src,
    id: "antimeridian-29RKH-B04",
    bbox: refs.bbox,
    geometry: refs.geometry,
    properties: { ...src.properties, "proj:epsg": 32760 },
    assets: { B04: { ...src.assets.B04!, href: KEY } },
  };
  await upsertItem(env, item);
  bearer = await token();
});

const body = (bbox: number[], width: number, height: number) => ({
  input: {
    bounds: { bbox, properties: { crs: CRS(4326) } },
    data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: TIME } }],
  },
  output: { width, height, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: `//VERSION=3
function setup(){return {input:[{bands:["B04"], units:"DN"}], output:{bands:1, sampleType:"UINT16"}}}
function evaluatePixel(s){return [s.B04]}`,
});

describe("a scene crossing the antimeridian", () => {
  it("has a bbox with west > east", () => {
    expect(refs.bbox[0]).toBeGreaterThan(refs.bbox[2]!);
  });

  for (const side of ["west", "east"] as const) {
    it(`Process over a box ${side} of 180 degrees equals gdal.Warp of the file`, async () => {
      const c = refs.cases[side];
      const r = await process(body(c.bbox, c.width, c.height), bearer);
      expect(r.status).toBe(200);
      const tif = await readTiff(await r.arrayBuffer());
      expect([tif.width, tif.height, tif.bands]).toEqual([c.width, c.height, 1]);
      const ref = new Float32Array(await sampleFile(`${DIR}/${side}.bin`));
      expect(ref.every((v) => v > 0)).toBe(true);
      const cmp = compare(tif.data, ref, 0);
      expect(cmp.mismatch).toBeLessThan(0.01); // nearest: a pixel centre on a cell edge may round the other way
    });
  }
});

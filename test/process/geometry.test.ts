/**
 * Request geometries on real 29RKH pixels: a MultiPolygon with a hole given in a projected CRS (UTM 29N), sized by
 * resx/resy, resx only or width only; compared with gdal.RasterizeLayer + gdal.Warp (test/reference/references.py
 * multipolygon(): multi_mask, multi_b04) and with the file's own pixels read by geotiff.js.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { reference } from "../helpers/refs";
import { window } from "../helpers/raster";
import { CRS, bandsScript, process, readTiff } from "../helpers/process";

const RKH_TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
let bearer: string;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
});

async function multi(output: Record<string, unknown>) {
  const geometry = ((await reference("multi_b04")).meta as unknown as { geometry: unknown }).geometry;
  const r = await process(
    {
      input: {
        bounds: { geometry, properties: { crs: CRS(32629) } },
        data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: RKH_TIME } }],
      },
      output: { ...output, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
      evalscript: bandsScript(["B04", "dataMask"]),
    },
    bearer,
  );
  expect(r.status).toBe(200);
  return readTiff(await r.arrayBuffer());
}

/** Pixels whose [B04, dataMask] differ from GDAL's clipped B04 and rasterized mask. */
async function mismatches(tif: Awaited<ReturnType<typeof readTiff>>): Promise<number> {
  const [mask, b04] = [await reference("multi_mask"), await reference("multi_b04")];
  expect([tif.width, tif.height]).toEqual([40, 32]);
  tif.bbox.forEach((v, i) => expect(v).toBeCloseTo(mask.meta.grid.bbox[i]!, 6));
  let bad = 0;
  for (let i = 0; i < 40 * 32; i++) if (tif.data[i * 2 + 1] !== mask.data[i] || tif.data[i * 2] !== b04.data[i]) bad++;
  return bad;
}

describe("MultiPolygon with a hole in UTM 29N", () => {
  it("resx/resy 100 m: the geometry's bounds at native resolution, exactly GDAL's clip", async () => {
    const tif = await multi({ resx: 100, resy: 100 });
    expect(tif.geoKeys.ProjectedCSTypeGeoKey).toBe(32629);
    expect(await mismatches(tif)).toBe(0);
  });

  it("the scene has data outside the polygons and in the hole, which stays 0 / dataMask 0", async () => {
    const tif = await multi({ resx: 100, resy: 100 });
    const mask = await reference("multi_mask");
    // the grid is the file's grid: column (250080 - 199980) / 100 = 501, row (2800020 - 2703220) / 100 = 968
    const file = await window("sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif", 0, 501, 968, 40, 32);
    let [outside, inside, bad] = [0, 0, 0];
    for (let i = 0; i < 40 * 32; i++) {
      if (file[i] === 0) continue;
      if (mask.data[i] === 0) {
        outside++;
        if (tif.data[i * 2] !== 0 || tif.data[i * 2 + 1] !== 0) bad++;
      } else {
        inside++;
        if (tif.data[i * 2] !== Math.fround(file[i]! / 10000) || tif.data[i * 2 + 1] !== 1) bad++;
      }
    }
    expect(outside).toBeGreaterThan(300);
    expect(inside).toBeGreaterThan(600);
    expect(bad).toBe(0);
  });

  it("resx alone (resy = resx) gives the same image", async () => {
    expect(await mismatches(await multi({ resx: 100 }))).toBe(0);
  });

  it("width alone: height from the geometry's aspect ratio, same image", async () => {
    expect(await mismatches(await multi({ width: 40 }))).toBe(0);
  });
});

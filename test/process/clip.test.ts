/**
 * Clipping to a request geometry, exactly as gdal.RasterizeLayer: a real MultiPolygon with holes (the cloud polygons
 * of 29RKH, test/reference/ref_rasterize.py, no pixel centre on an edge) gives dataMask equal to GDAL's mask with zero
 * mismatches, and data only inside it. The geometry vertex limit (src/raster/grid/vertices.ts) is a 400 for the
 * Processing and Statistical APIs.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Polygon } from "geojson";
import { MAX_GEOMETRY_VERTICES } from "../../src/raster/grid/vertices";
import { authed, token } from "../helpers/auth";
import { maskDiff, maskFixture, type MaskFixture } from "../helpers/masks";
import { CRS, bandsScript, process, readTiff } from "../helpers/process";
import { seedSamples } from "../helpers/seed";

const RKH_TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
let bearer: string;
let clouds: MaskFixture;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
  clouds = await maskFixture("clouds_4326");
});

function body(bounds: Record<string, unknown>, bands: string[], width: number, height: number) {
  return {
    input: {
      bounds: { ...bounds, properties: { crs: CRS(4326) } },
      data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: RKH_TIME } }],
    },
    output: { width, height, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
    evalscript: bandsScript(bands),
  };
}

async function tiff(b: unknown) {
  const r = await process(b, bearer);
  expect(r.status, r.status === 200 ? "" : await r.clone().text()).toBe(200);
  return readTiff(await r.arrayBuffer());
}

/** A regular polygon of `n` distinct vertices (plus the closing one) inside the clouds' envelope. */
function manyVertices(n: number): Polygon {
  const [w, s, e, nn] = clouds.grid.bbox;
  const ring = Array.from({ length: n + 1 }, (_, i) => {
    const a = (2 * Math.PI * (i % n)) / n;
    return [(w + e) / 2 + ((e - w) / 3) * Math.cos(a), (s + nn) / 2 + ((nn - s) / 3) * Math.sin(a)];
  });
  return { type: "Polygon", coordinates: [ring] };
}

describe("clip to a MultiPolygon with holes", () => {
  it("dataMask equals gdal.RasterizeLayer exactly (zero mismatches)", async () => {
    const { grid } = clouds;
    const tif = await tiff(body({ geometry: clouds.geometry }, ["dataMask"], grid.width, grid.height));
    expect([tif.width, tif.height]).toEqual([grid.width, grid.height]);
    tif.bbox.forEach((v, i) => expect(v).toBeCloseTo(grid.bbox[i]!, 12)); // the geometry's envelope
    expect(maskDiff(Uint8Array.from(tif.data), clouds.mask)).toEqual([]);
    expect(clouds.inside).toBeGreaterThan(1000);
    expect(clouds.inside).toBeLessThan((grid.width * grid.height) / 2);
  });

  it("pixels outside the polygon carry no data; inside they equal the unclipped image", async () => {
    const { grid } = clouds;
    const clipped = await tiff(body({ geometry: clouds.geometry }, ["B04", "dataMask"], grid.width, grid.height));
    const whole = await tiff(body({ bbox: grid.bbox }, ["B04", "dataMask"], grid.width, grid.height));
    let inside = 0;
    for (let i = 0; i < grid.width * grid.height; i++) {
      if (clouds.mask[i]) {
        inside++;
        expect(whole.data[2 * i + 1], `unclipped dataMask ${i}`).toBe(1); // the tile covers the polygon
        expect(clipped.data[2 * i], `B04 ${i}`).toBe(whole.data[2 * i]);
        expect(clipped.data[2 * i]).toBeGreaterThan(0);
      } else {
        expect(clipped.data[2 * i], `B04 outside ${i}`).toBe(0);
        expect(clipped.data[2 * i + 1], `dataMask outside ${i}`).toBe(0);
      }
    }
    expect(inside).toBe(clouds.inside);
  });
});

describe(`geometry vertex limit (${MAX_GEOMETRY_VERTICES})`, () => {
  it("the probe's 2e5-vertex polygon is refused by the body limit (413), one vertex over the limit is a 400 naming it (process, statistics)", async () => {
    const probe = body({ geometry: manyVertices(200_000) }, ["dataMask"], 2500, 1250);
    expect(JSON.stringify(probe).length).toBeGreaterThan(4 * 1024 * 1024);
    const big = await process(probe, bearer);
    const bigError = ((await big.json()) as any).error;
    expect(big.status, bigError?.message).toBe(413);
    expect(bigError.message).toContain("at most 4 MiB");
    const r = await process(body({ geometry: manyVertices(MAX_GEOMETRY_VERTICES) }, ["dataMask"], 2500, 1250), bearer);
    const e = ((await r.json()) as any).error;
    expect(r.status, e?.message).toBe(400);
    expect(e.message).toContain(`${MAX_GEOMETRY_VERTICES + 1} vertices; at most ${MAX_GEOMETRY_VERTICES} are allowed`);
    const stats = {
      input: {
        bounds: { geometry: manyVertices(MAX_GEOMETRY_VERTICES), properties: { crs: CRS(4326) } },
        data: [{ type: "sentinel-2-l2a" }],
      },
      aggregation: {
        timeRange: RKH_TIME,
        aggregationInterval: { of: "P1D" },
        width: 64,
        height: 64,
        evalscript: bandsScript(["dataMask"]),
      },
    };
    const sr = await authed(
      "/api/v1/statistics",
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(stats) },
      bearer,
    );
    const se = ((await sr.json()) as any).error;
    expect(sr.status, se?.message).toBe(400);
    expect(se.message).toContain(`at most ${MAX_GEOMETRY_VERTICES} are allowed`);
  });

  it("a polygon at the limit is served (2500 x 1250 px; time printed, not asserted)", async () => {
    const t0 = performance.now();
    const tif = await tiff(body({ geometry: manyVertices(MAX_GEOMETRY_VERTICES - 1) }, ["dataMask"], 2500, 1250));
    console.log(
      `process: ${MAX_GEOMETRY_VERTICES}-vertex polygon, 2500 x 1250 px dataMask: ${(performance.now() - t0).toFixed(0)} ms`,
    );
    const inside = Array.from(tif.data).reduce((n, v) => n + v, 0);
    expect(inside / (2500 * 1250)).toBeCloseTo(Math.PI / 4, 2); // an ellipse inscribed in its own envelope
  });
});

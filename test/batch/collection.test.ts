/**
 * Batch v2 createCollection / collectionId in workerd (real D1, R2, Durable Objects and queue): a task's COG tiles
 * become the collection batch-<task id> of the account; processing batch-<id> with the Process API over a tile's
 * grid (read by GDAL from the delivered COG) gives the tile's pixels back, band by band (decoded by GDAL), and the
 * Statistical API's mean is the mean of the tile's pixels; its
 * metadata lists the output bands and sample types; collectionId appends to it when the bands match, else FAILED.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, token } from "../helpers/auth";
import {
  DATA,
  ONE_TILE,
  batchCall,
  batchRequest,
  bucketFiles,
  runBatchTask,
  syncTile,
  waitForStatus,
} from "../helpers/batch";
import { pyDecode, samplesOf, type PyImage } from "../helpers/pydecode";
import { CRS } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { tokenOf } from "../helpers/byoc";

let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
});

/** Two single-band outputs of different sample types. */
const SCRIPT = `//VERSION=3
function setup() { return { input: ["B04", "B08"], output: [{ id: "red", bands: 1, sampleType: "FLOAT32" }, { id: "nir", bands: 1, sampleType: "UINT16" }] }; }
function evaluatePixel(s) { return { red: [s.B04], nir: [s.B08 * 10000] }; }`;

const RESPONSES = ["red", "nir"].map((identifier) => ({ identifier, format: { type: "image/tiff" } }));

/** A one-tile (29RKH_0_4) task filling a collection, delivered to s3://<bucket>/out. */
function collectionRequest(bucket: string, output: Record<string, unknown>, evalscript = SCRIPT) {
  const body = batchRequest(bucket, { cogOutput: true, ...output }, {}, ONE_TILE);
  return { ...body, processRequest: { ...body.processRequest, output: { responses: RESPONSES }, evalscript } };
}

/** A one-band evalscript over band `band` of a batch collection with `sampleType`. */
const bandScript = (band: string, sampleType: string) =>
  `//VERSION=3\nfunction setup() { return { input: ["${band}"], output: { bands: 1, sampleType: "${sampleType}" } }; }\nfunction evaluatePixel(s) { return [s.${band}]; }`;

/** The Statistical API over a tile's grid of collection `type`: the mean of band red is the tile's mean (all pixels valid). */
async function expectStatsMean(type: string, gdal: PyImage["gdal"], tile: ArrayLike<number>): Promise<void> {
  const g = gdal as { geotransform: number[]; shape: number[] };
  const [x0, rx, , y1, , ry] = g.geotransform as [number, number, number, number, number, number];
  const [h, w] = g.shape as [number, number];
  const evalscript = `//VERSION=3
function setup() { return { input: ["red", "dataMask"], output: [{ id: "red", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { red: [s.red], dataMask: [s.dataMask] }; }`;
  const body = {
    input: { bounds: { bbox: [x0, y1 + h * ry, x0 + w * rx, y1], properties: { crs: CRS(32629) } }, data: [{ type }] },
    aggregation: {
      timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-02T00:00:00Z" },
      aggregationInterval: { of: "P30D" },
      width: w,
      height: h,
      evalscript,
    },
  };
  const r = await authed(
    "/api/v1/statistics",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    bearer,
  );
  expect(r.status).toBe(200);
  const out = (await r.json()) as {
    data: { outputs: { red: { bands: { B0: { stats: { mean: number; sampleCount: number } } } } } }[];
  };
  expect(out.data).toHaveLength(1);
  const mean = Array.from(tile).reduce((a, v) => a + v, 0) / tile.length;
  expect(out.data[0]!.outputs.red.bands.B0.stats).toMatchObject({ sampleCount: tile.length });
  expect(out.data[0]!.outputs.red.bands.B0.stats.mean).toBeCloseTo(mean, 5);
}

describe("batch createCollection", () => {
  it("registers batch-<id>: Process over a tile's grid equals the tile, band by band, Statistics' mean is the tile's; metadata lists the bands", async (ctx) => {
    const { id, task } = await runBatchTask(collectionRequest("batch-coll", { createCollection: true }), bearer);
    expect(task.status).toBe("DONE");
    const meta = await authed(`/api/v1/metadata/collection/batch-${id}`, {}, bearer);
    expect(meta.status).toBe(200);
    expect(await meta.json()).toMatchObject({
      id: `batch-${id}`,
      datasetType: "custom",
      bands: [
        { name: "red", sampleType: "FLOAT32" },
        { name: "nir", sampleType: "UINT16" },
      ],
    });

    const files = await bucketFiles("batch-coll", `out/${id}/`);
    expect([...files.keys()].sort()).toEqual([`out/${id}/29RKH_0_4/nir.tiff`, `out/${id}/29RKH_0_4/red.tiff`]);
    const source = [{ type: `batch-${id}`, dataFilter: DATA[0]!.dataFilter }];
    for (const [band, sampleType] of [
      ["red", "FLOAT32"],
      ["nir", "UINT16"],
    ] as const) {
      const [tile] = (await pyDecode(ctx, [
        { kind: "tiff", data: files.get(`out/${id}/29RKH_0_4/${band}.tiff`)! },
      ])) as PyImage[];
      const processed = await syncTile(tile!.gdal, bearer, source, bandScript(band, sampleType));
      const [back] = (await pyDecode(ctx, [{ kind: "tiff", data: processed.bytes }])) as PyImage[];
      expect((back!.gdal as { geotransform: number[] }).geotransform).toEqual(
        (tile!.gdal as { geotransform: number[] }).geotransform,
      );
      const want = samplesOf(tile!.gdal);
      expect(Array.from(want).filter((v) => v > 0).length).toBeGreaterThan(1000); // real pixels
      expect(samplesOf(back!.gdal)).toEqual(want);
      if (band === "red") await expectStatsMean(`batch-${id}`, tile!.gdal, want);
    }
  });

  it("collectionId appends to a collection with the same bands and fails the analysis for other bands; bad requests are 400s", async () => {
    const first = await runBatchTask(collectionRequest("batch-coll2", { createCollection: true }), bearer);
    expect(first.task.status).toBe("DONE");
    const again = await runBatchTask(collectionRequest("batch-coll3", { collectionId: first.id }), bearer);
    expect(again.task.status).toBe("DONE");
    const items = await authed(`/api/v1/catalog/1.0.0/collections/batch-${first.id}/items`, {}, bearer);
    expect(items.status).toBe(200);
    const ids = ((await items.json()) as { features: { id: string }[] }).features.map((f) => f.id).sort();
    expect(ids).toEqual([`29RKH_0_4_${first.id}`, `29RKH_0_4_${again.id}`].sort());

    const other = SCRIPT.replace('sampleType: "UINT16"', 'sampleType: "FLOAT32"');
    const created = await batchCall(
      "",
      bearer,
      "POST",
      collectionRequest("batch-coll4", { collectionId: first.id }, other),
    );
    const { id } = (await created.json()) as { id: string };
    expect((await batchCall(`/${id}/analyse`, bearer, "POST")).status).toBe(204);
    const failed = await waitForStatus(id, bearer, ["FAILED", "ANALYSIS_DONE"]);
    expect(failed.status).toBe("FAILED");
    expect(failed.error).toMatch(
      /has bands \[red:FLOAT32, nir:UINT16\], the outputs give \[red:FLOAT32, nir:FLOAT32\]/,
    );

    for (const [output, message] of [
      [{ createCollection: true, cogOutput: false }, /cogOutput/],
      [{ collectionId: "not-a-uuid" }, /not a collection id/],
    ] as const) {
      const r = await batchCall("", bearer, "POST", collectionRequest("batch-coll5", output));
      expect(r.status).toBe(400);
      expect(JSON.stringify(await r.json())).toMatch(message);
    }
    // an unknown collectionId, or another account's, is a 404 naming it (the same answer for both)
    const stranger = await tokenOf(crypto.randomUUID());
    for (const [id, bearerOf] of [
      [crypto.randomUUID(), bearer],
      [first.id, stranger],
    ] as const) {
      const r = await batchCall("", bearerOf, "POST", collectionRequest("batch-coll6", { collectionId: id }));
      expect(r.status).toBe(404);
      expect(((await r.json()) as { error: unknown }).error).toEqual({
        status: 404,
        reason: "Not Found",
        message: `Batch collection ${id} not found.`,
        code: "COMMON_NOT_FOUND",
        errors: { collection: `batch-${id}` },
      });
    }
  });
});

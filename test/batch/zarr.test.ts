/**
 * Batch Processing v2 with ZarrOutput in workerd (real D1, R2, Durable Objects and queue): the Zarr store a task
 * writes over 29RKH on the WGS84 1 degree grid, read back by zarr-python (test/services/py_zarr.py, an independent
 * reader), equals the per-tile GeoTIFFs (decoded by GDAL) of a raster task with the same processRequest, placed at
 * the offsets GDAL's geotransforms give against zarr-python's coordinate arrays; bad Zarr requests are 400s.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, token } from "../helpers/auth";
import { DATA, batchCall, bucketFiles, runBatchTask, waitForStatus } from "../helpers/batch";
import { pyDecode, samplesOf, type PyImage } from "../helpers/pydecode";
import { pyReadZarr } from "../helpers/pyzarr";
import { seedSamples } from "../helpers/seed";
import { settledZarr } from "../helpers/zarr";

let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
});

/** Two single-band outputs: red as UINT16 DN-like values, NIR as FLOAT32 reflectance. */
const SCRIPT = `//VERSION=3
function setup() { return { input: ["B04", "B08", "dataMask"], output: [{ id: "red", bands: 1, sampleType: "UINT16" }, { id: "nir", bands: 1, sampleType: "FLOAT32" }] }; }
function evaluatePixel(s) { return { red: [s.dataMask ? 1 + s.B04 * 10000 : 0], nir: [s.dataMask ? s.B08 : 0] }; }`;

/** Crosses the -11 degree meridian inside 29RKH: two tiles of the WGS84 grid (125 x 125 pixels at 0.008 degrees). */
const BOUNDS = { bbox: [-11.2, 24.6, -10.95, 24.8] };

const processRequest = (format: string) => ({
  input: { bounds: BOUNDS, data: DATA },
  output: { responses: ["red", "nir"].map((identifier) => ({ identifier, format: { type: format } })) },
  evalscript: SCRIPT,
});
const GRID = { type: "tiling-grid", id: 3, resolution: 0.008 };
const ZARR = {
  type: "zarr",
  delivery: { s3: { url: "s3://batch-zarr/out/<requestId>" } },
  group: { zarr_format: 2, customAttributes: { copyright: "EO Edge test" } },
  arrayParameters: { dtype: "<u2", order: "C", chunks: [1, 125, 125], fill_value: 0 },
  arrayOverrides: {
    nir: {
      dtype: ">f4",
      chunks: [1, 25, 25],
      fill_value: 0,
      compressor: { id: "gzip" },
      customAttributes: { units: "reflectance" },
    },
  },
};

describe("batch Zarr output", () => {
  it("zarr-python reads the store equal to the raster task's GeoTIFF tiles, with coordinates, time and attributes", async (ctx) => {
    const zarrTask = await runBatchTask(
      { processRequest: processRequest("zarr/array"), input: GRID, output: ZARR },
      bearer,
    );
    expect(zarrTask.task).toMatchObject({ status: "DONE", completionPercentage: 100 });
    const rasterTask = await runBatchTask(
      {
        processRequest: processRequest("image/tiff"),
        input: GRID,
        output: { type: "raster", delivery: { s3: { url: "s3://batch-zarr-ref/out" } } },
      },
      bearer,
    );
    expect(rasterTask.task.status).toBe("DONE");
    expect(zarrTask.task.costPU).toBeCloseTo(rasterTask.task.costPU as number, 6);

    const prefix = `out/${zarrTask.id}/`;
    const files = new Map([...(await bucketFiles("batch-zarr", prefix))].map(([k, v]) => [k.slice(prefix.length), v]));
    const store = await pyReadZarr(ctx, files);
    expect(store.attrs).toMatchObject({
      copyright: "EO Edge test",
      crs: "EPSG:4326",
      geospatial_bounds: [-12, 24, -10, 25],
      "eoedge:requestId": zarrTask.id,
    });
    const { red, nir, lon, lat, time } = store.arrays;
    expect(red).toMatchObject({
      shape: [1, 125, 250],
      chunks: [1, 125, 125],
      zdtype: "<u2",
      fill_value: 0,
      attrs: { _ARRAY_DIMENSIONS: ["time", "lat", "lon"] },
    });
    expect(red!.compressor).toMatchObject({ id: "zlib" });
    expect(nir).toMatchObject({
      shape: [1, 125, 250],
      chunks: [1, 25, 25],
      zdtype: ">f4",
      compressor: { id: "gzip" },
      attrs: { units: "reflectance" },
    });
    expect(time!.values).toEqual([Date.parse("2020-03-01T00:00:00Z") / 1000]);
    expect(time!.attrs.units).toBe("seconds since 1970-01-01T00:00:00Z");
    expect(lon!.values![0]).toBeCloseTo(-12 + 0.004, 9);
    expect(lat!.values![0]).toBeCloseTo(25 - 0.004, 9);

    const tiffs = [...(await bucketFiles("batch-zarr-ref", "out/")).entries()].sort();
    expect(tiffs).toHaveLength(4); // 2 tiles x (red, nir)
    const decoded = (await pyDecode(
      ctx,
      tiffs.map(([, data]) => ({ kind: "tiff" as const, data })),
    )) as PyImage[];
    const arrays = { red: samplesOf(red as never), nir: samplesOf(nir as never) };
    let nonzero = 0;
    tiffs.forEach(([key], i) => {
      const g = decoded[i]!.gdal as { geotransform: number[]; shape: number[] };
      expect(g.shape).toEqual([125, 125]);
      const col = Math.round((g.geotransform[0]! - (lon!.values![0]! - 0.004)) / 0.008);
      const row = Math.round((lat!.values![0]! + 0.004 - g.geotransform[3]!) / 0.008);
      const name = key.endsWith("/red.tiff") ? "red" : "nir";
      const tile = samplesOf(decoded[i]!.gdal);
      const fromZarr = Array.from(
        { length: 125 * 125 },
        (_, p) => arrays[name][(row + Math.floor(p / 125)) * 250 + col + (p % 125)]!,
      );
      expect(fromZarr).toEqual(Array.from(tile));
      nonzero += fromZarr.filter((v) => v > 0).length;
    });
    expect(nonzero).toBeGreaterThan(1000); // real pixels of the scene, not a fill-only store
    // chunks holding only fill_value (0: outside the scene) are not written: one nir chunk file per 25 x 25 block
    // of zarr-python's array with a non-zero value
    let blocks = 0;
    for (let by = 0; by < 125; by += 25)
      for (let bx = 0; bx < 250; bx += 25)
        if (
          Array.from({ length: 625 }, (_, p) => arrays.nir[(by + Math.floor(p / 25)) * 250 + bx + (p % 25)]!).some(
            (v) => v !== 0,
          )
        )
          blocks++;
    const nirChunks = [...files.keys()].filter((k) => /^nir\/0\.\d+\.\d+$/.test(k)).length;
    expect(blocks).toBeLessThan(50);
    expect(nirChunks).toBe(blocks);

    // the store follows Sentinel Hub's Zarr import conventions: ingesting it as a Zarr collection finds one fault only,
    // the 16-bit array (Zarr import takes 32 / 64-bit data; batch output allows <u2)
    const imported = await authed(
      "/api/v1/zarr/collections",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: "batch zarr",
          s3Bucket: "batch-zarr",
          path: prefix,
          crs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
        }),
      },
      bearer,
    );
    expect(imported.status).toBe(201);
    const importedId = ((await imported.json()) as { data: { id: string } }).data.id;
    expect(await settledZarr(bearer, importedId)).toMatchObject({
      status: "FAILED",
      ingestionErrors: 'array red has dtype "<u2"; supported: u4, i4, f4, f8',
    });

    // another task delivering into the (now non-empty) folder of this store fails its analysis
    const output = { ...ZARR, delivery: { s3: { url: `s3://batch-zarr/out/${zarrTask.id}` } } };
    const created = await batchCall("", bearer, "POST", {
      processRequest: processRequest("zarr/array"),
      input: GRID,
      output,
    });
    const { id } = (await created.json()) as { id: string };
    expect((await batchCall(`/${id}/analyse`, bearer, "POST")).status).toBe(204);
    const failed = await waitForStatus(id, bearer, ["FAILED", "ANALYSIS_DONE"]);
    expect(failed).toMatchObject({ status: "FAILED", error: expect.stringMatching(/is not empty/) });
  });

  it("refuses Zarr requests Sentinel Hub refuses, naming the rule", async () => {
    const base = { processRequest: processRequest("zarr/array"), input: GRID, output: ZARR };
    const cases: [unknown, RegExp][] = [
      [{ ...base, input: { type: "tiling-grid", id: 0, resolution: 60 } }, /WGS84 and LAEA/],
      [{ ...base, processRequest: processRequest("image/tiff") }, /zarr\/array/],
      [
        { ...base, output: { ...ZARR, arrayParameters: { ...ZARR.arrayParameters, chunks: [1, 100, 100] } } },
        /evenly divide/,
      ],
      [{ ...base, output: { ...ZARR, arrayParameters: undefined, arrayOverrides: {} } }, /output array red/],
      [
        { ...base, output: { ...ZARR, delivery: { s3: { url: "s3://batch-zarr/<tileName>" } } } },
        /only use <requestId>/,
      ],
      [
        { ...base, output: { ...ZARR, arrayParameters: { ...ZARR.arrayParameters, compressor: { id: "blosc" } } } },
        /blosc/,
      ],
    ];
    for (const [body, message] of cases) {
      const r = await batchCall("", bearer, "POST", body);
      expect(r.status).toBe(400);
      expect(JSON.stringify(await r.json())).toMatch(message);
    }
  });

  it("accepts sentinelhub-py 3.11.5's arrayParameter (singular) as arrayParameters; names unknown and missing members", async () => {
    const { arrayParameters, ...rest } = ZARR;
    const base = { processRequest: processRequest("zarr/array"), input: GRID };
    const singular = await batchCall("", bearer, "POST", {
      ...base,
      output: { ...rest, arrayParameter: arrayParameters },
    });
    expect(singular.status).toBe(201);
    expect(
      ((await singular.json()) as { request: { output: Record<string, unknown> } }).request.output.arrayParameters,
    ).toEqual(arrayParameters);
    const both = await batchCall("", bearer, "POST", { ...base, output: { ...ZARR, arrayParameter: arrayParameters } });
    expect([both.status, JSON.stringify(await both.json())]).toEqual([
      400,
      expect.stringMatching(/arrayParameter.*arrayParameters/),
    ]);
    const typo = await batchCall("", bearer, "POST", { ...base, output: { ...rest, arrayParams: arrayParameters } });
    const e = ((await typo.json()) as { error: { message: string; errors: Record<string, string> } }).error;
    expect([typo.status, e.message, e.errors["output.arrayParams"]]).toEqual([
      400,
      expect.stringMatching(/unknown member.*output\.arrayParams/),
      "unknown member",
    ]);
    const { group: _g, ...noGroup } = ZARR;
    const missing = await batchCall("", bearer, "POST", { ...base, output: noGroup });
    const m = ((await missing.json()) as { error: { message: string; errors: Record<string, string> } }).error;
    expect([missing.status, m.message, m.errors["output.group"]]).toEqual([
      400,
      expect.stringMatching(/'output\.group': required member is missing/),
      expect.stringMatching(/missing/),
    ]);
  });
});

/**
 * Batch Processing v2 end to end in workerd (real D1, R2, Durable Objects and queue): tiles over 29RKH equal the
 * synchronous Process API for each tile's bbox (decoded with tifffile and GDAL), COG outputs pass GDAL's validator,
 * statuses, costPU and completionPercentage follow the task.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import {
  BATCH,
  ONE_TILE,
  SCRIPT,
  batchCall,
  batchRequest,
  bucketFiles,
  getTask,
  syncTile,
  validateCogs,
  waitForStatus,
} from "../helpers/batch";
import { pyDecode, samplesOf, type PyImage } from "../helpers/pydecode";
import { seedSamples } from "../helpers/seed";

let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
});

/** Runs a task to DONE (analyse, then start) and returns it. */
async function runTask(body: unknown): Promise<{ id: string; task: Record<string, unknown> }> {
  const created = await batchCall("", bearer, "POST", body);
  expect(created.status).toBe(201);
  const { id, status, costPU, costMC } = (await created.json()) as {
    id: string;
    status: string;
    costPU: number;
    costMC: number;
  };
  expect([status, costPU, costMC]).toEqual(["CREATED", 0, 0]); // present before analysis, as statistical batch shows it
  expect((await batchCall(`/${id}/analyse`, bearer, "POST")).status).toBe(204);
  const analysed = await waitForStatus(id, bearer, ["ANALYSIS_DONE", "FAILED"]);
  expect(analysed.status).toBe("ANALYSIS_DONE");
  expect(analysed.costPU).toBeGreaterThan(0);
  expect((await batchCall(`/${id}/start`, bearer, "POST")).status).toBe(204);
  return { id, task: await waitForStatus(id, bearer, ["DONE", "FAILED"]) };
}

describe("batch process v2 over 29RKH", () => {
  it("GeoTIFF tiles equal synchronous Process results for each tile's bbox; costPU is what the tiles spent", async (ctx) => {
    const bucket = "batch-geotiff";
    const { id, task } = await runTask(batchRequest(bucket));
    expect(task).toMatchObject({ status: "DONE", completionPercentage: 100, userAction: "START" });
    expect(task).not.toHaveProperty("error");
    expect((task.request as { description: string }).description).toBe("29RKH red and NIR");
    const files = await bucketFiles(bucket, "out/");
    const keys = [...files.keys()].sort();
    expect(keys).toHaveLength(4);
    expect(keys).toEqual(
      ["29RKH_0_3", "29RKH_0_4", "29RKH_1_3", "29RKH_1_4"].map((t) => `out/${id}/${t}/default.tiff`),
    );
    const decoded = (await pyDecode(
      ctx,
      [...files.values()].map((data) => ({ kind: "tiff" as const, data })),
    )) as PyImage[];
    const syncs = [];
    for (const d of decoded) {
      expect(d.gdal).toMatchObject({ epsg: 32629, shape: [334, 334, 2] });
      syncs.push(await syncTile(d.gdal, bearer));
    }
    const refs = (await pyDecode(
      ctx,
      syncs.map((s) => ({ kind: "tiff" as const, data: s.bytes })),
    )) as PyImage[];
    decoded.forEach((d, i) => {
      expect(samplesOf(d.tifffile)).toEqual(samplesOf(refs[i]!.tifffile));
      expect(samplesOf(d.gdal)).toEqual(samplesOf(refs[i]!.gdal));
      expect((d.gdal as { geotransform: number[] }).geotransform).toEqual(
        (refs[i]!.gdal as { geotransform: number[] }).geotransform,
      );
    });
    const pu = syncs.reduce((a, s) => a + s.pu, 0);
    // real pixels, not an empty raster: 29RKH is desert with reflectance around 0.2-0.4
    expect(Array.from(samplesOf(decoded[0]!.gdal)).reduce((a, b) => Math.max(a, b), 0)).toBeGreaterThan(0.1);
    expect(task.costPU).toBeCloseTo(pu, 6);
  });

  it("COG tiles pass GDAL's validator with the overviews and blocks of cogParameters, and keep the pixels", async (ctx) => {
    const bucket = "batch-cog";
    const cogParameters = { blockxsize: 128, blockysize: 128, overviewLevels: [2, 4], resamplingAlgorithm: "nearest" };
    const { task } = await runTask(batchRequest(bucket, { cogOutput: true, cogParameters }));
    expect(task.status).toBe("DONE");
    const files = [...(await bucketFiles(bucket, "out/")).values()];
    expect(files).toHaveLength(4);
    const [plain] = (await pyDecode(ctx, [
      { kind: "tiff", data: (await syncTile((await validateCogs(ctx, [files[0]!]))[0]!.gdal, bearer)).bytes },
    ])) as PyImage[];
    const checked = await validateCogs(ctx, files);
    for (const c of checked) {
      expect(c.cog).toEqual({
        warnings: [],
        errors: [],
        overviews: [
          [167, 167],
          [84, 84],
        ],
        block: [128, 128],
      });
      expect(samplesOf(c.tifffile).length).toBe(334 * 334 * 2);
    }
    expect(samplesOf(checked[0]!.gdal)).toEqual(samplesOf(plain!.gdal));
  });
});

describe("buffers and several outputs", () => {
  it("bufferX/Y grow the tile by whole pixels on each side; userdata is delivered as JSON next to the raster", async (ctx) => {
    const bucket = "batch-buffer";
    const body = batchRequest(
      bucket,
      { delivery: { s3: { url: `s3://${bucket}/b/<tileName>/<outputId>.<format>` } } },
      { bufferX: 2, bufferY: 1 },
      ONE_TILE,
    );
    body.processRequest.output.responses.push({ identifier: "userdata", format: { type: "application/json" } });
    body.processRequest.evalscript = SCRIPT.replace(
      "function evaluatePixel",
      "function updateOutputMetadata(scenes, inputMetadata, out) { out.userData = { scenes: scenes.length }; }\nfunction evaluatePixel",
    );
    const { task } = await runTask(body);
    expect(task.status).toBe("DONE");
    const files = await bucketFiles(bucket, "b/");
    expect([...files.keys()].sort()).toEqual(["b/29RKH_0_4/default.tiff", "b/29RKH_0_4/userdata.json"]);
    expect(JSON.parse(new TextDecoder().decode(files.get("b/29RKH_0_4/userdata.json")))).toEqual({ scenes: 1 });
    const [d] = (await pyDecode(ctx, [{ kind: "tiff", data: files.get("b/29RKH_0_4/default.tiff")! }])) as PyImage[];
    // tile 29RKH_0_4 of the 20 km grid: x 199980..220020, y 2699820..2719860 (29RKH's origin 199980, 2800020)
    expect(d!.gdal).toMatchObject({
      shape: [334 + 2, 334 + 4, 2],
      geotransform: [199980 - 2 * 60, 60, 0, 2719860 + 60, 0, -60],
    });
    const [ref] = (await pyDecode(ctx, [{ kind: "tiff", data: (await syncTile(d!.gdal, bearer)).bytes }])) as PyImage[];
    expect(samplesOf(d!.gdal)).toEqual(samplesOf(ref!.gdal));
  });
});

describe("batch task listing", () => {
  it("lists the caller's tasks newest first, pages with viewtoken, filters with search", async () => {
    const own = await token();
    const ids: string[] = [];
    for (const d of ["alpha one", "beta two", "alpha three"]) {
      const r = await batchCall("", own, "POST", { ...batchRequest("batch-list"), description: d });
      ids.push(((await r.json()) as { id: string }).id);
    }
    const page1 = (await (await batchCall("?count=2", own)).json()) as {
      data: { id: string }[];
      links: { nextToken?: string };
    };
    expect(page1.data.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    const page2 = (await (await batchCall(`?count=2&viewtoken=${page1.links.nextToken}`, own)).json()) as {
      data: { id: string }[];
    };
    expect(page2.data.map((t) => t.id)).toEqual([ids[0]]);
    const asc = (await (await batchCall("?sort=created", own)).json()) as { data: { id: string }[] };
    expect(asc.data.map((t) => t.id)).toEqual(ids);
    const alpha = (await (await batchCall("?search=ALPHA", own)).json()) as { data: { id: string }[] };
    expect(alpha.data.map((t) => t.id)).toEqual([ids[2], ids[0]]);
    const other = (await (await batchCall("", bearer)).json()) as { data: { id: string }[] };
    expect(other.data.map((t) => t.id)).not.toContain(ids[0]);
    expect((await batchCall(`/${ids[0]}`, own)).status).toBe(200);
    expect((await getTask(ids[0]!, own)).status).toBe("CREATED");
    expect(BATCH).toBe("/api/v2/batch/process");
  });
});

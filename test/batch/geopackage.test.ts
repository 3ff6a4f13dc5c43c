/**
 * Batch v2 with a GeoPackageInput: one output per feature of test/fixtures/vector/batch_features.gpkg (West Flanders
 * fields, EPSG:32631), named by its identifier through a templated delivery path, sized by the feature's width/height,
 * its resolution or the request defaults; each output equals the synchronous Process result over the feature
 * (geometry as OGR reads it, test/fixtures/vector/reference.json, and the same size or resolution): grid and pixels.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { batchCall, bucketFiles, waitForStatus } from "../helpers/batch";
import { CRS, bandsScript, process } from "../helpers/process";
import { pyDecode, samplesOf, type PyImage } from "../helpers/pydecode";
import { sampleFile, seedSamples } from "../helpers/seed";

const DATA = [
  { type: "sentinel-2-l2a", dataFilter: { timeRange: { from: "2018-04-11T00:00:00Z", to: "2018-04-11T23:59:59Z" } } },
];
const SCRIPT = bandsScript(["B04", "B08"]);
const request = (features: string) => ({
  processRequest: { input: { data: DATA }, evalscript: SCRIPT },
  input: { type: "geopackage", features: { s3: { url: features } }, defaults: { resolution: 10 } },
  output: { type: "raster", delivery: { s3: { url: "s3://gpkg-out/run/<requestId>/<tileName>-<outputId>.<format>" } } },
});

interface RefFeature {
  geometry: { type: "Polygon"; coordinates: number[][][] };
  properties: { identifier: string; width: number | null; height: number | null; resolution: number | null };
}

let bearer: string;
let refs: RefFeature[];
beforeAll(async () => {
  await seedSamples((i) => i.id.includes("31UDS_20180411"));
  await env.BUCKETS.put("gpkg-in/fields/features.gpkg", await sampleFile("fixtures/vector/batch_features.gpkg"));
  await env.BUCKETS.put("gpkg-in/not-a.gpkg", "plain text");
  const reference = JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/vector/reference.json")));
  refs = reference["batch_features.gpkg"].layers[0].features;
  bearer = await token();
});

/** The synchronous Process request over a feature: its OGR geometry in EPSG:32631, its size or resolution (or the defaults). */
function syncRequest(f: RefFeature) {
  const p = f.properties;
  const size =
    p.width !== null && p.height !== null
      ? { width: p.width, height: p.height }
      : { resx: p.resolution ?? 10, resy: p.resolution ?? 10 };
  const bounds = { geometry: f.geometry, properties: { crs: CRS(32631) } };
  return {
    input: { bounds, data: DATA },
    output: { ...size, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
    evalscript: SCRIPT,
  };
}

describe("batch v2 GeoPackage input", () => {
  it("writes one output per feature, each equal to the synchronous Process result over the feature", async (ctx) => {
    const created = await batchCall("", bearer, "POST", request("s3://gpkg-in/fields/features.gpkg"));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await batchCall(`/${id}/start`, bearer, "POST")).status).toBe(204);
    const task = await waitForStatus(id, bearer, ["DONE", "FAILED"]);
    expect(task).toMatchObject({ status: "DONE", completionPercentage: 100 });
    const files = await bucketFiles("gpkg-out", `run/${id}/`);
    expect([...files.keys()].sort()).toEqual(
      refs.map((f) => `run/${id}/${f.properties.identifier}-default.tiff`).sort(),
    );
    const decoded = (await pyDecode(
      ctx,
      refs.map((f) => ({
        kind: "tiff" as const,
        data: files.get(`run/${id}/${f.properties.identifier}-default.tiff`)!,
      })),
    )) as PyImage[];
    const syncs: Uint8Array[] = [];
    for (const f of refs) {
      const r = await process(syncRequest(f), bearer);
      expect(r.status).toBe(200);
      syncs.push(new Uint8Array(await r.arrayBuffer()));
    }
    const refDecoded = (await pyDecode(
      ctx,
      syncs.map((data) => ({ kind: "tiff" as const, data })),
    )) as PyImage[];
    decoded.forEach((d, i) => {
      const [got, want] = [
        d.gdal as { geotransform: number[]; shape: number[]; epsg: number },
        refDecoded[i]!.gdal as { geotransform: number[]; shape: number[] },
      ];
      expect(got.epsg).toBe(32631);
      expect(got.shape).toEqual(want.shape);
      expect(got.geotransform).toEqual(want.geotransform);
      expect(samplesOf(d.gdal)).toEqual(samplesOf(refDecoded[i]!.gdal));
    });
    // the feature's own width/height (field-a: 64 x 64) and resolutions (field-c: 20 m) are used
    expect((decoded[0]!.gdal as { shape: number[] }).shape).toEqual([64, 64, 2]);
    expect((decoded[2]!.gdal as { geotransform: number[] }).geotransform[1]).toBeCloseTo(20, 0);
    expect(Array.from(samplesOf(decoded[0]!.gdal)).some((v) => v > 0.01)).toBe(true);
  });

  it("an unreadable GeoPackage fails the analysis with the reason in error", async () => {
    const created = await batchCall("", bearer, "POST", request("s3://gpkg-in/not-a.gpkg"));
    const { id } = (await created.json()) as { id: string };
    expect((await batchCall(`/${id}/analyse`, bearer, "POST")).status).toBe(204);
    const task = await waitForStatus(id, bearer, ["FAILED", "ANALYSIS_DONE"]);
    expect(task.status).toBe("FAILED");
    expect(task.error).toMatch(/not a GeoPackage/);
  });

  it("a missing GeoPackage is refused at creation (400 naming input.features), as statistical batch does", async () => {
    const created = await batchCall("", bearer, "POST", request("s3://gpkg-in/missing.gpkg"));
    expect(created.status).toBe(400);
    const { error } = (await created.json()) as { error: { message: string; errors: Record<string, string> } };
    expect(error.message).toBe(
      "input.features: the GeoPackage s3://gpkg-in/missing.gpkg does not exist; upload it first.",
    );
    expect(Object.keys(error.errors)).toEqual(["input.features.s3.url"]);
  });
});

/**
 * A hostile GeoPackage as a Statistical Batch and a Batch v2 input: test/fixtures/vector/
 * hostile_view_columns.gpkg (98 KB; `gpkg_geometry_columns` renamed and a view of that name over an endless
 * recursive CTE, test/reference/make_hostile_geopackages.py) used to hang the isolate for every tenant, analysis retried
 * after a restart. The reader now reads only ordinary tables: the analysis ends FAILED naming the view, and another
 * account's requests, sent while it runs, are answered.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { authed, token } from "../helpers/auth";
import { batchCall, waitForStatus as waitForBatch } from "../helpers/batch";
import { sampleFile } from "../helpers/seed";
import { createBody, putObject, sb, waitForStatus } from "./helpers";

const BUCKET = "sb-hostile";
const AGG = {
  timeRange: { from: "2018-04-01T00:00:00Z", to: "2018-04-30T00:00:00Z" },
  aggregationInterval: { of: "P1D" },
  resx: 10,
  resy: 10,
  evalscript:
    "//VERSION=3\nfunction setup(){return {input:['B04','dataMask'],output:[{id:'b',bands:1,sampleType:'FLOAT32'},{id:'dataMask',bands:1}]}}\nfunction evaluatePixel(s){return {b:[s.B04],dataMask:[s.dataMask]}}",
};

let bearer: string;
let neighbour: string;
beforeAll(async () => {
  [bearer, neighbour] = await Promise.all([token(), token()]);
  await putObject(BUCKET, "view.gpkg", await sampleFile("fixtures/vector/hostile_view_columns.gpkg"));
  await env.BUCKETS.put("gpkg-hostile/view.gpkg", await sampleFile("fixtures/vector/hostile_view_columns.gpkg"));
});

/** Another tenant's catalog request: answered 200. */
async function neighbourServed(): Promise<number> {
  return (await authed("/api/v1/catalog/1.0.0/collections", {}, neighbour)).status;
}

describe("a GeoPackage with a view over a recursive CTE", () => {
  it("Statistical Batch: the analysis FAILS naming the view; another account is served meanwhile", async () => {
    const created = await sb("", bearer, "POST", createBody(BUCKET, "view.gpkg", AGG));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const [analyse, other] = await Promise.all([sb(`/${id}/analyse`, bearer, "POST"), neighbourServed()]);
    expect([analyse.status, other]).toEqual([204, 200]);
    const [status, again] = await Promise.all([
      waitForStatus(id, bearer, ["FAILED", "ANALYSIS_DONE"]),
      neighbourServed(),
    ]);
    expect(again).toBe(200);
    expect(status.status).toBe("FAILED");
    expect(String(status.error)).toMatch(/gpkg_geometry_columns is a view/);
  });

  it("Batch v2 GeoPackage input: the analysis FAILS naming the view", async () => {
    const body = {
      processRequest: { input: { data: [{ type: "sentinel-2-l2a" }] }, evalscript: AGG.evalscript },
      input: {
        type: "geopackage",
        features: { s3: { url: "s3://gpkg-hostile/view.gpkg" } },
        defaults: { resolution: 10 },
      },
      output: {
        type: "raster",
        delivery: { s3: { url: "s3://gpkg-hostile/out/<requestId>/<tileName>-<outputId>.<format>" } },
      },
    };
    const created = await batchCall("", bearer, "POST", body);
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await batchCall(`/${id}/analyse`, bearer, "POST")).status).toBe(204);
    const task = await waitForBatch(id, bearer, ["FAILED", "ANALYSIS_DONE"]);
    expect(task.status).toBe("FAILED");
    expect(String(task.error)).toMatch(/gpkg_geometry_columns is a view/);
  });
});

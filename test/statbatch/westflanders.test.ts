/**
 * Statistical Batch end to end in workerd (D1, R2, Durable Object, Queue and its consumer) on the real West Flanders
 * scenes: every feature's result file equals the synchronous Statistical API's answer for that feature's polygon
 * (geometries from GDAL/OGR's reading of the GeoPackage, test/fixtures/vector/reference.json), costPU is the sum of
 * the sync charges; redelivered and duplicate messages change nothing; a GeoPackage with a feature the API rejects
 * and one that cannot be written ends PARTIAL (the latter through retries and the dead-letter queue).
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { unitMessage } from "../../src/tasks/messages";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import type { Env } from "../../src/env";
import { token } from "../helpers/auth";
import { CRS } from "../helpers/process";
import { sampleFile, seedSamples } from "../helpers/seed";
import { statistics } from "../statistics/helpers";
import { ndviScl } from "../statistics/requests";
import { createBody, getJson, listKeys, putObject, sb, waitForStatus } from "./helpers";

const BUCKET = "sb-wf";
let bearer: string;
let aggregation: Record<string, unknown>;
const calculations = {
  ndvi: {
    statistics: { default: { percentiles: { k: [10, 50, 90] } } },
    histograms: { default: { nBins: 8, lowEdge: -1, highEdge: 1 } },
  },
};

interface RefFeature {
  fid: number;
  geometry: unknown;
}

beforeAll(async () => {
  await seedSamples((i) => i.id.startsWith("S2_L2A_31UDS_"));
  bearer = await token();
  aggregation = {
    timeRange: { from: "2018-04-10T00:00:00Z", to: "2018-04-20T00:00:00Z" },
    aggregationInterval: { of: "P1D" },
    resx: 10,
    resy: 10,
    evalscript: await ndviScl(),
  };
  await putObject(BUCKET, "in/westflanders_fields.gpkg", await sampleFile("fixtures/vector/westflanders_fields.gpkg"));
  await putObject(BUCKET, "in/mixed.gpkg", await sampleFile("fixtures/statbatch/mixed_features.gpkg"));
});

/** The sync Statistical API's answer and charge for one polygon in EPSG:32631. */
async function syncStats(geometry: unknown): Promise<{ json: unknown; pu: number }> {
  const body = {
    input: { bounds: { geometry, properties: { crs: CRS(32631) } }, data: [{ type: "sentinel-2-l2a" }] },
    aggregation,
    calculations,
  };
  const r = await statistics(body, bearer);
  expect(r.status).toBe(200);
  return { json: await r.json(), pu: Number(r.headers.get("x-processingunits-spent")) };
}

async function startTask(body: unknown): Promise<string> {
  const r = await sb("", bearer, "POST", body);
  expect(r.status, await r.clone().text()).toBe(201);
  const id = ((await r.json()) as { id: string }).id;
  expect((await sb(`/${id}/start`, bearer, "POST")).status).toBe(204);
  return id;
}

describe("statistical batch over the West Flanders fields", () => {
  it("each feature's JSON equals the sync Statistical API for its polygon; DONE, 100 %, costPU = sum of sync charges", async () => {
    const id = await startTask(createBody(BUCKET, "in/westflanders_fields.gpkg", aggregation, calculations));
    const status = await waitForStatus(id, bearer, ["DONE", "PARTIAL", "FAILED"], 120_000);
    expect(status).toMatchObject({ status: "DONE", completionPercentage: 100 });
    expect(status.error).toBeUndefined();

    const ref = JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/vector/reference.json")));
    const features = ref["westflanders_fields.gpkg"].layers[0].features as RefFeature[];
    expect(features).toHaveLength(20);
    expect(await listKeys(BUCKET, `out/${id}/`)).toEqual(features.map((f) => `out/${id}/${f.fid}.json`).sort());
    let pu = 0;
    for (const f of features) {
      const sync = await syncStats(f.geometry);
      pu += sync.pu;
      const file = (await getJson(BUCKET, `out/${id}/${f.fid}.json`)) as { id: number; response: { data: unknown[] } };
      expect(file.id).toBe(f.fid);
      expect(file.response, `feature ${f.fid}`).toEqual(sync.json);
      expect(file.response.data.length, `feature ${f.fid} intervals`).toBe(4);
    }
    expect(status.costPU).toBeCloseTo(pu, 5);

    // a redelivered message (same id) and a duplicate (another id) of a finished feature change nothing
    const before = await getJson(BUCKET, `out/${id}/3.json`);
    const written = (await env.BUCKETS.head(`${BUCKET}/out/${id}/3.json`))!.version;
    const msg = (mid: string, attempts: number) => ({
      id: mid,
      timestamp: new Date(),
      attempts,
      body: unitMessage("statbatch", id, "3", "light"),
    });
    const batch = createMessageBatch(TASK_QUEUE_NAME, [msg("again-1", 2), msg("again-2", 1)]);
    await worker.queue(batch, env as unknown as Env);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks.sort()).toEqual(["again-1", "again-2"]);
    expect(await (await sb(`/${id}/status`, bearer)).json()).toEqual(status);
    expect(await getJson(BUCKET, `out/${id}/3.json`)).toEqual(before);
    expect((await env.BUCKETS.head(`${BUCKET}/out/${id}/3.json`))!.version, "the file is not written again").toBe(
      written,
    );
  });

  it("PARTIAL: a rejected feature is written with its error, an unwritable one is retried, dead-lettered and counted failed", async () => {
    const output = `s3://${BUCKET}/mixed/<REQUEST_ID>/<IDENTIFIER>.json`;
    const id = await startTask(createBody(BUCKET, "in/mixed.gpkg", aggregation, calculations, output));
    const status = await waitForStatus(id, bearer, ["DONE", "PARTIAL", "FAILED"], 120_000);
    expect(status).toMatchObject({ status: "PARTIAL", completionPercentage: 100 });
    expect(await listKeys(BUCKET, `mixed/${id}/`)).toEqual(
      ["far-away", "field-a", "field-b"].map((n) => `mixed/${id}/${n}.json`),
    );
    const far = (await getJson(BUCKET, `mixed/${id}/far-away.json`)) as {
      id: number;
      identifier: string;
      error: { type: string; message: string };
    };
    expect(far).toMatchObject({ id: 3, identifier: "far-away", error: { type: "BAD_REQUEST" } });
    expect(far.error.message).toContain("outside the valid area");
    const a = (await getJson(BUCKET, `mixed/${id}/field-a.json`)) as {
      id: number;
      identifier: string;
      response: unknown;
    };
    expect(a).toMatchObject({ id: 1, identifier: "field-a" });
    const square = {
      type: "Polygon",
      coordinates: [
        [
          [501400, 5629640],
          [501520, 5629640],
          [501520, 5629500],
          [501400, 5629500],
          [501400, 5629640],
        ],
      ],
    };
    expect(a.response).toEqual((await syncStats(square)).json);
  });
});

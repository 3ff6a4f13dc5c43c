/**
 * Statistical Batch API in workerd (real D1, R2, Durable Objects, Queue): create/validate, get/status/list with
 * paging and sort, account isolation, user actions and their refusals, and an unreadable GeoPackage failing the task.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { PLAN_UNIT, unitMessage } from "../../src/tasks/messages";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import type { Env } from "../../src/env";
import { authed, envelope, token } from "../helpers/auth";
import { newAccount, tokenOf } from "../helpers/accounts";
import { createS3Key, type AccountS3Key } from "../../src/buckets/keys";
import { sampleFile } from "../helpers/seed";
import { createBody, putObject, sb, waitForStatus } from "./helpers";

const BUCKET = "sb-api";
/** The bucket of the paging test's own account. */
const PAGING = "sb-api-paging";
const AGG = {
  timeRange: { from: "2018-04-01T00:00:00Z", to: "2018-04-30T00:00:00Z" },
  aggregationInterval: { of: "P1D" },
  resx: 10,
  resy: 10,
  evalscript:
    "//VERSION=3\nfunction setup(){return {input:['B04','B08','dataMask'],output:[{id:'ndvi',bands:1,sampleType:'FLOAT32'},{id:'dataMask',bands:1}]}}\nfunction evaluatePixel(s){return {ndvi:[(s.B08-s.B04)/(s.B08+s.B04)],dataMask:[s.dataMask]}}",
};

let bearer: string;
let other: string;
/** An S3 key of the bearer's account (a descriptor with keys must carry the caller's own). */
let keys: AccountS3Key;

beforeAll(async () => {
  const me = await newAccount();
  [bearer, other, keys] = await Promise.all([
    tokenOf(me.client),
    token(),
    createS3Key(env, me.account).then((k) => k!),
  ]);
  for (const bucket of [BUCKET, PAGING])
    await putObject(bucket, "fields.gpkg", "SQLite format 3\0 but not really a GeoPackage");
  await putObject(BUCKET, "wf.gpkg", await sampleFile("fixtures/vector/westflanders_fields.gpkg"));
  await putObject(BUCKET, "scripts/ndvi.js", AGG.evalscript);
});

async function created(body = createBody(BUCKET, "fields.gpkg", AGG)): Promise<Record<string, unknown>> {
  const r = await sb("", bearer, "POST", body);
  const text = await r.text();
  expect(r.status, text).toBe(201);
  return JSON.parse(text) as Record<string, unknown>;
}

describe("create", () => {
  it("answers the task CREATED with its request (secret keys left out), account and zero progress", async () => {
    const body = createBody(BUCKET, "fields.gpkg", AGG);
    const descriptorKeys = { accessKey: keys.accessKeyId, secretAccessKey: keys.secretAccessKey };
    Object.assign(body.input.features.s3, descriptorKeys);
    Object.assign(body.output.s3, descriptorKeys);
    const t = await created(body);
    expect(t).toMatchObject({ status: "CREATED", userAction: "NONE", completionPercentage: 0, costPU: 0, costMC: 0 });
    expect(t.id).toMatch(/^[0-9a-f-]{36}$/);
    expect([t.domainAccountId, t.workspaceId]).toEqual([t.projectId, t.projectId]);
    expect(JSON.stringify(await (await sb(`/${t.id}`, bearer)).json())).not.toContain(keys.secretAccessKey);
    expect(JSON.stringify(await (await sb("", bearer)).json())).not.toContain(keys.secretAccessKey);
    const req = t.request as {
      input: { features: { s3: Record<string, string> } };
      output: { s3: Record<string, string> };
    };
    expect(req.input.features.s3).toEqual({ url: `s3://${BUCKET}/fields.gpkg`, accessKey: keys.accessKeyId });
    expect(req.output.s3.secretAccessKey).toBeUndefined();
    expect(Date.parse(String(t.created))).toBeGreaterThan(Date.now() - 60_000);
  });

  it.each([
    ["no input", (b: Record<string, unknown>) => delete b.input, "input"],
    ["no features", (b: Record<string, any>) => delete b.input.features, "input.features"],
    ["no output", (b: Record<string, unknown>) => delete b.output, "output"],
    [
      "timeRange backwards (the sync API's schema)",
      (b: Record<string, any>) =>
        (b.aggregation.timeRange = { from: "2018-05-01T00:00:00Z", to: "2018-04-01T00:00:00Z" }),
      "timeRange.from must not be after",
    ],
    ["width and resx", (b: Record<string, any>) => (b.aggregation.width = 10), "either width/height or resx/resy"],
    [
      "both evalscript and reference",
      (b: Record<string, any>) => (b.aggregation.evalscriptReference = { s3: { url: "s3://x-y/z.js" } }),
      "exactly one of evalscript",
    ],
    [
      "histogram without bins",
      (b: Record<string, any>) => (b.calculations = { ndvi: { histograms: { default: {} } } }),
      "exactly one of nBins",
    ],
    [
      "template without <ID>",
      (b: Record<string, any>) => (b.output.s3.url = `s3://${BUCKET}/out/<REQUEST_ID>.json`),
      "<ID> or <IDENTIFIER>",
    ],
    [
      "unknown placeholder",
      (b: Record<string, any>) => (b.output.s3.url = `s3://${BUCKET}/out/<ID>-<TILE>.json`),
      "<TILE>",
    ],
    [
      "GeoPackage missing in the bucket",
      (b: Record<string, any>) => (b.input.features.s3.url = `s3://${BUCKET}/nope.gpkg`),
      "does not exist",
    ],
    [
      "bucket URL without object",
      (b: Record<string, any>) => (b.input.features.s3.url = `s3://${BUCKET}`),
      "names a bucket",
    ],
    [
      "a status (it must not be specified on creation)",
      (b: Record<string, any>) => (b.status = "DONE"),
      "status must not be specified",
    ],
  ])("400 for %s", async (_what, change, message) => {
    const body = createBody(BUCKET, "fields.gpkg", { ...AGG }) as Record<string, any>;
    body.aggregation = { ...AGG };
    change(body);
    const r = await sb("", bearer, "POST", body);
    expect(r.status).toBe(400);
    expect((await envelope(r)).message).toContain(message);
  });
});

describe("get, status, list", () => {
  it("get and status under both paths; another account gets 404 everywhere and never sees it listed", async () => {
    const t = await created();
    const got = (await (await sb(`/${t.id}`, bearer)).json()) as Record<string, unknown>;
    expect(got).toEqual(t);
    const alias = await authed(`/statistics/batch/v1/${t.id}/status`, {}, bearer);
    expect(await alias.json()).toEqual({
      id: t.id,
      status: "CREATED",
      completionPercentage: 0,
      lastUpdated: t.lastUpdated,
      costPU: 0,
      costPu: 0,
      costMC: 0,
      created: t.created,
    });
    for (const [path, method] of [
      [`/${t.id}`, "GET"],
      [`/${t.id}/status`, "GET"],
      [`/${t.id}/start`, "POST"],
      [`/${t.id}/stop`, "POST"],
    ] as const) {
      const r = await sb(path, other, method);
      expect(r.status, path).toBe(404);
    }
    expect((await sb(`/not-a-uuid`, bearer)).status).toBe(404);
    const theirs = (await (await sb("", other)).json()) as { data: { id: string }[] };
    expect(theirs.data.map((d) => d.id)).not.toContain(t.id);
    expect((await sb(`/${t.id}`, bearer)).status).toBe(200); // the failed calls changed nothing
  });

  it("pages with count/viewtoken and sorts by created and status", async () => {
    const me = await token();
    const made: { id: string; created: string }[] = [];
    for (let i = 0; i < 3; i++)
      made.push(
        (await (await sb("", me, "POST", createBody(PAGING, "fields.gpkg", AGG))).json()) as {
          id: string;
          created: string;
        },
      );
    // the listing's order: created, then id
    const ids = made
      .sort((a, b) => (a.created === b.created ? (a.id < b.id ? -1 : 1) : a.created < b.created ? -1 : 1))
      .map((t) => t.id);
    await sb(`/${ids[1]}/analyse`, me, "POST"); // ANALYSING, then FAILED (unreadable GeoPackage)
    await waitForStatus(ids[1]!, me, ["FAILED"]);
    const first = (await (await sb("?count=2", me)).json()) as {
      data: { id: string }[];
      links: { nextToken?: string };
    };
    expect(first.data.map((d) => d.id)).toEqual(ids.slice(0, 2));
    const second = (await (await sb(`?count=2&viewtoken=${first.links.nextToken}`, me)).json()) as {
      data: { id: string }[];
      links: { nextToken?: string };
    };
    expect(second.data.map((d) => d.id)).toEqual(ids.slice(2));
    expect(second.links.nextToken).toBeUndefined();
    const desc = (await (await sb("?sort=created:desc", me)).json()) as { data: { id: string }[] };
    expect(desc.data.map((d) => d.id)).toEqual([...ids].reverse());
    const desc1 = (await (await sb("?sort=created:desc&count=1", me)).json()) as { links: { nextToken: string } };
    const desc2 = (await (await sb(`?sort=created:desc&count=1&viewtoken=${desc1.links.nextToken}`, me)).json()) as {
      data: { id: string }[];
    };
    expect(desc2.data.map((d) => d.id)).toEqual([ids[1]]);
    const byStatusDesc = (await (await sb("?sort=status:desc", me)).json()) as { data: { id: string }[] };
    expect(byStatusDesc.data[0]!.id).toBe(ids[1]);
    const byStatus = (await (await sb("?sort=status", me)).json()) as { data: { id: string; status: string }[] };
    expect(byStatus.data.map((d) => d.status)).toEqual(["CREATED", "CREATED", "FAILED"]);
    expect((await sb("?sort=name", me)).status).toBe(400);
    expect((await sb("?count=0", me)).status).toBe(400);
  });
});

describe("user actions", () => {
  it("an unreadable GeoPackage fails the task at analysis with an error; later actions are refused naming the state", async () => {
    const t = await created();
    expect((await sb(`/${t.id}/stop`, bearer, "POST")).status).toBe(409); // nothing to stop while CREATED
    const r = await sb(`/${t.id}/analyse`, bearer, "POST");
    expect(r.status).toBe(204);
    const s = await waitForStatus(String(t.id), bearer, ["FAILED"]);
    expect(String(s.error)).toMatch(/GeoPackage/);
    const task = (await (await sb(`/${t.id}`, bearer)).json()) as Record<string, unknown>;
    expect(task.userAction).toBe("ANALYSE");
    const again = await sb(`/${t.id}/start`, bearer, "POST");
    expect([again.status, (await envelope(again)).code]).toEqual([409, "COMMON_CONFLICT"]);
    expect((await (await sb(`/${t.id}/start`, bearer, "POST")).json()) as unknown).toMatchObject({
      error: { message: expect.stringContaining("is FAILED") },
    });
  });

  it("stop while analysing: STOPPED with stoppedStatusReason USER_ACTION; the analysis result is dropped", async () => {
    const t = await created();
    expect((await sb(`/${t.id}/start`, bearer, "POST")).status).toBe(204);
    expect((await sb(`/${t.id}/stop`, bearer, "POST")).status).toBe(204);
    const s = (await (await sb(`/${t.id}/status`, bearer)).json()) as Record<string, unknown>;
    expect(s).toMatchObject({ status: "STOPPED", stoppedStatusReason: "USER_ACTION" });
    // the analysis message, consumed now (whatever the queue's own delivery does): it must not move the task
    const batch = createMessageBatch(TASK_QUEUE_NAME, [
      {
        id: `a-${t.id}`,
        timestamp: new Date(),
        attempts: 1,
        body: unitMessage("statbatch", String(t.id), PLAN_UNIT, "light"),
      },
    ]);
    await worker.queue(batch, env as unknown as Env);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toEqual([`a-${t.id}`]);
    expect(((await (await sb(`/${t.id}/status`, bearer)).json()) as Record<string, unknown>).status).toBe("STOPPED");
  });

  it.each([
    [
      "a script without dataMask fails the analysis with the sync API's message",
      { evalscript: AGG.evalscript.replace(",{id:'dataMask',bands:1}", "") },
      "FAILED",
      "no 'dataMask' output",
    ],
    [
      "a calculation naming no output fails the analysis",
      { calculations: { nope: { statistics: {} } } },
      "FAILED",
      "calculations.nope names no evalscript output",
    ],
    [
      "a missing evalscriptReference fails the analysis",
      { evalscript: undefined, evalscriptReference: { s3: { url: `s3://${BUCKET}/scripts/none.js` } } },
      "FAILED",
      "does not exist",
    ],
    [
      "an evalscriptReference is read from its bucket",
      { evalscript: undefined, evalscriptReference: { s3: { url: `s3://${BUCKET}/scripts/ndvi.js` } } },
      "ANALYSIS_DONE",
      undefined,
    ],
  ])("analysis of the West Flanders GeoPackage: %s", async (_what, change, state, error) => {
    const { calculations, ...agg } = { ...AGG, ...change } as Record<string, unknown>;
    const t = await created(createBody(BUCKET, "wf.gpkg", agg, calculations));
    expect((await sb(`/${t.id}/analyse`, bearer, "POST")).status).toBe(204);
    const s = await waitForStatus(String(t.id), bearer, [state]);
    if (error) expect(String(s.error)).toContain(error);
    else expect(s.error).toBeUndefined();
  });
});

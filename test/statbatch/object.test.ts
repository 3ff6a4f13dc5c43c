/**
 * The StatisticalBatchTask Durable Object through its RPC surface (real object, real SQLite, real D1 mirror):
 * analysis stored once per message id, each feature counted once whatever the messages, the final state from the
 * outcomes (DONE / PARTIAL / FAILED), STOP/START keeping finished features, and the listing's status mirror.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import { STATBATCH_FEATURE_KIND, statbatchStub } from "../../src/statbatch/run";
import type { BatchFeature } from "../../src/statbatch/features";
import type { BatchStatisticalRequest } from "../../src/statbatch/schema";
import type { Env } from "../../src/env";

const E = env as unknown as Env;
const REQUEST = {
  input: { features: { s3: { url: "s3://b-b/f.gpkg" } }, data: [{ type: "sentinel-2-l2a" }] },
  aggregation: { evalscript: "x" },
  output: { s3: { url: "s3://b-b/out" } },
} as unknown as BatchStatisticalRequest;
const square = (x: number) => ({ type: "Polygon" as const, coordinates: [[[x, 0], [x + 1, 0], [x + 1, 1], [x, 0]]] });
const FEATURES: BatchFeature[] = [1, 2, 3].map((id) => ({ id, geometry: square(id), crs: "http://www.opengis.net/def/crs/EPSG/0/32631" }));

/** A new task, started and analysed with FEATURES: PROCESSING. */
/** The account of this file's tasks: it owns bucket b-b (claimed on first use, src/buckets/owners.ts). */
const OWNER = crypto.randomUUID();

async function processing(account = OWNER) {
  const id = crypto.randomUUID();
  const stub = statbatchStub(E, id);
  await stub.create(id, account, REQUEST, new Date().toISOString());
  await E.DB.prepare("INSERT INTO statbatch_tasks (id, account, created, status) VALUES (?, ?, ?, 'CREATED')").bind(id, account, new Date().toISOString()).run();
  expect(await stub.act(account, "START")).toEqual({ ok: true, followUp: "analyse" });
  expect(await stub.analysed("analysis-1", FEATURES)).toBe(true);
  return { id, stub, account };
}

const listedStatus = async (id: string) => (await E.DB.prepare("SELECT status FROM statbatch_tasks WHERE id = ?").bind(id).first<{ status: string }>())?.status;

describe("StatisticalBatchTask", () => {
  it("counts each feature once (repeated finishes are no-ops) and ends DONE when none failed", async () => {
    const { id, stub, account } = await processing();
    expect(await stub.analysed("analysis-1", FEATURES)).toBe(false); // redelivered analysis: nothing happens
    expect(await stub.pendingFeatures()).toEqual([1, 2, 3]);
    expect(await stub.finishFeature(1, false, 0.25)).toBe(true);
    expect(await stub.finishFeature(1, false, 0.25)).toBe(false);
    expect(await stub.finishFeature(1, true, 9)).toBe(false);
    expect(await stub.job(1)).toMatchObject({ finished: true, state: "PROCESSING" });
    expect(await stub.pendingFeatures()).toEqual([2, 3]);
    await stub.finishFeature(2, false, 0.25);
    expect((await stub.view(account))!).toMatchObject({ state: "PROCESSING", done: 2, failed: 0, pu: 0.5, total: 3 });
    expect(await listedStatus(id)).toBe("PROCESSING");
    await stub.finishFeature(3, false, 0.5);
    expect((await stub.view(account))!).toMatchObject({ state: "DONE", done: 3, pu: 1 });
    expect(await listedStatus(id)).toBe("DONE");
    expect(await stub.view(crypto.randomUUID())).toBeNull(); // another account
  });

  it("PARTIAL when some features failed, FAILED with an error when all did", async () => {
    const some = await processing();
    await some.stub.finishFeature(1, true, 0);
    await some.stub.finishFeature(2, false, 0.1);
    await some.stub.finishFeature(3, false, 0.1);
    expect((await some.stub.view(some.account))!.state).toBe("PARTIAL");
    const all = await processing();
    for (const fid of [1, 2, 3]) await all.stub.finishFeature(fid, true, 0);
    const v = (await all.stub.view(all.account))!;
    expect(v.state).toBe("FAILED");
    expect(v.error).toContain("All 3 features failed");
  });

  it("STOP then START processes only the features not finished, without analysing again", async () => {
    const { stub, account } = await processing();
    await stub.finishFeature(2, false, 0.1);
    expect(await stub.act(account, "STOP")).toEqual({ ok: true, followUp: "none" });
    expect((await stub.view(account))!).toMatchObject({ state: "STOPPED", stoppedStatusReason: "USER_ACTION", userAction: "STOP" });
    expect((await stub.job(1))!.state).toBe("STOPPED"); // consumers skip work while stopped
    expect(await stub.act(account, "ANALYSE")).toMatchObject({ ok: false }); // analysed already: finished features keep their counts
    expect(await stub.act(account, "START")).toEqual({ ok: true, followUp: "features" });
    expect(await stub.pendingFeatures()).toEqual([1, 3]);
    expect((await stub.view(account))!).toMatchObject({ state: "PROCESSING", userAction: "START", done: 1 });
    expect((await stub.view(account))!.stoppedStatusReason).toBeUndefined();
    expect(await stub.act(crypto.randomUUID(), "STOP")).toBeNull();
  });

  it("ANALYSE then START while analysing: one analysis, then processing; illegal actions are refused naming the state", async () => {
    const id = crypto.randomUUID(), account = crypto.randomUUID();
    const stub = statbatchStub(E, id);
    await stub.create(id, account, REQUEST, new Date().toISOString());
    expect(await stub.act(account, "ANALYSE")).toEqual({ ok: true, followUp: "analyse" });
    expect(await stub.act(account, "START")).toEqual({ ok: true, followUp: "none" });
    expect(await stub.analysed("m", FEATURES)).toBe(true);
    expect((await stub.view(account))!.state).toBe("PROCESSING");
    const refused = await stub.act(account, "ANALYSE");
    expect(refused).toEqual({ ok: false, message: `The statistical batch task ${id} is PROCESSING: ANALYSE is not possible now.` });
  });

  it("ANALYSE alone stops at ANALYSIS_DONE; a failure while analysing is FAILED with the error", async () => {
    const a = crypto.randomUUID(), account = crypto.randomUUID();
    const stub = statbatchStub(E, a);
    await stub.create(a, account, REQUEST, new Date().toISOString());
    await stub.act(account, "ANALYSE");
    expect(await stub.analysed("m", FEATURES)).toBe(false);
    expect((await stub.view(account))!).toMatchObject({ state: "ANALYSIS_DONE", total: 3 });
    const b = crypto.randomUUID();
    const other = statbatchStub(E, b);
    await other.create(b, account, REQUEST, new Date().toISOString());
    await other.act(account, "ANALYSE");
    await other.fail("The file is not a GeoPackage.");
    expect((await other.view(account))!).toMatchObject({ state: "FAILED", error: "The file is not a GeoPackage." });
  });

  it("a message for a finished feature of a PROCESSING task is acked without computing or writing it again", async () => {
    const { id, stub, account } = await processing();
    await stub.finishFeature(1, false, 0.1);
    const batch = createMessageBatch(TASK_QUEUE_NAME, [{ id: "late", timestamp: new Date(), attempts: 3, body: { kind: STATBATCH_FEATURE_KIND, task: id, fid: 1 } }]);
    await worker.queue(batch, E);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toEqual(["late"]);
    expect((await E.BUCKETS.list({ prefix: `b-b/out/${id}/` })).objects).toEqual([]);
    expect((await stub.view(account))!).toMatchObject({ state: "PROCESSING", done: 1, failed: 0 });
  });

  it("watchdog: armed while processing; when it fires, the features whose messages were lost are enqueued again", async () => {
    const { id, stub, account } = await processing(); // started through the object directly: no feature message was ever sent
    const object = E.STATBATCH_TASKS.get(E.STATBATCH_TASKS.idFromName(id));
    expect(await runDurableObjectAlarm(object)).toBe(true);
    // the consumer now runs each feature; this request has no timeRange, so each is rejected and written as an error
    await vi.waitFor(async () => expect((await stub.view(account))!.state).toBe("FAILED"), { timeout: 20_000, interval: 200 });
    expect((await stub.view(account))!).toMatchObject({ failed: 3, done: 0 });
    const file = (await (await E.BUCKETS.get(`b-b/out/${id}/2.json`))!.json()) as { id: number; error: { type: string } };
    expect(file).toMatchObject({ id: 2, error: { type: "BAD_REQUEST" } });
    expect(await runDurableObjectAlarm(object)).toBe(false); // disarmed once terminal
  });

  it("a feature whose Worker was killed mid-way (its lease expired) is sent again by the alarm and counted once", async () => {
    const { id, stub, account } = await processing();
    const object = E.STATBATCH_TASKS.get(E.STATBATCH_TASKS.idFromName(id));
    expect(await object.claimUnit("f:1", "killed#1")).toMatchObject({ run: true, attempt: 1 });
    // its message delivered again while the lease runs: acked without computing or writing anything
    const batch = createMessageBatch(TASK_QUEUE_NAME, [{ id: "dup", timestamp: new Date(), attempts: 1, body: { kind: STATBATCH_FEATURE_KIND, task: id, fid: 1 } }]);
    await worker.queue(batch, E);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toEqual(["dup"]);
    expect((await E.BUCKETS.list({ prefix: `b-b/out/${id}/` })).objects).toEqual([]);
    await runInDurableObject(object, (_o, state) => void state.storage.sql.exec("UPDATE task_units SET lease_until = 0"));
    expect(await runDurableObjectAlarm(object)).toBe(true);
    await vi.waitFor(async () => expect((await stub.view(account))!.state).toBe("FAILED"), { timeout: 20_000, interval: 200 });
    expect((await stub.view(account))!).toMatchObject({ failed: 3, done: 0 });
    expect(await object.unit("f:1")).toMatchObject({ status: "DONE", attempts: 2 });
    expect((await E.BUCKETS.list({ prefix: `b-b/out/${id}/` })).objects.map((o) => o.key).sort()).toEqual([1, 2, 3].map((f) => `b-b/out/${id}/${f}.json`));
  });
});

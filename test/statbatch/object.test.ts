/**
 * A Statistical Batch task's engine object (src/tasks/engine.ts with the statbatch plug-in) through its RPC surface
 * (real object, real SQLite, real D1 mirror): the plan stored once, each feature counted once whatever the messages,
 * the final state from the outcomes (DONE / PARTIAL / FAILED), STOP/START keeping finished features, the listing's
 * status mirror.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import { statbatchPlugin } from "../../src/statbatch/plugin";
import { taskStub } from "../../src/tasks/stub";
import { PLAN_UNIT, unitMessage } from "../../src/tasks/messages";
import type { UnitResult } from "../../src/tasks/plugin";
import { inspect, planTask, quietly, setRow, unitOf } from "../helpers/taskengine";
import type { BatchFeature } from "../../src/statbatch/features";
import type { BatchStatisticalRequest } from "../../src/statbatch/schema";
import type { Env } from "../../src/env";

const E = env as unknown as Env;
const REQUEST = {
  input: { features: { s3: { url: "s3://b-b/f.gpkg" } }, data: [{ type: "sentinel-2-l2a" }] },
  aggregation: { evalscript: "x" },
  output: { s3: { url: "s3://b-b/out" } },
} as unknown as BatchStatisticalRequest;
const square = (x: number) => ({
  type: "Polygon" as const,
  coordinates: [
    [
      [x, 0],
      [x + 1, 0],
      [x + 1, 1],
      [x, 0],
    ],
  ],
});
const FEATURES: BatchFeature[] = [1, 2, 3].map((id) => ({
  id,
  geometry: square(id),
  crs: "http://www.opengis.net/def/crs/EPSG/0/32631",
}));

const UNITS = FEATURES.map((f) => ({ id: String(f.id), data: f }));
/** The account of this file's tasks: it owns bucket b-b (claimed on first use, src/buckets/owners.ts). */
const OWNER = crypto.randomUUID();
const stubOf = (id: string) => taskStub(statbatchPlugin, E, id);
const created = async (id: string, account: string) =>
  stubOf(id).create({ id, account, created: new Date().toISOString() }, REQUEST);
const featureMessage = (id: string, fid: number) => unitMessage("statbatch", id, String(fid), "light");

/**
 * A new task analysed with FEATURES and PROCESSING, put there through the object without sending a message (so no
 * feature runs behind the test's back): its units leased as if sent.
 */
async function processing(account = OWNER) {
  const id = crypto.randomUUID();
  const stub = stubOf(id);
  await created(id, account);
  await planTask(stub, account, UNITS, null, true);
  return { id, stub, account };
}

const pending = async (stub: ReturnType<typeof stubOf>) =>
  (await inspect(stub)).units.filter((u) => u.status === "PENDING").map((u) => Number(u.id));
/** Feature `fid` ends with `result` (as a consumer's `end`). */
const finish = (stub: ReturnType<typeof stubOf>, fid: string, result: UnitResult) =>
  stub.end(fid, "test#1", { result });
const listedStatus = async (id: string) =>
  (await E.DB.prepare("SELECT status FROM tasks WHERE id = ?").bind(id).first<{ status: string }>())?.status;

describe("statistical batch task object", () => {
  it("counts each feature once (repeated ends are no-ops) and ends DONE when none failed", async () => {
    const { id, stub, account } = await processing();
    await stub.end(PLAN_UNIT, "again#1", { plan: { units: UNITS, estimatePU: null } }); // redelivered analysis: nothing happens
    expect(await pending(stub)).toEqual([1, 2, 3]);
    await finish(stub, "1", { pu: 0.25 });
    await finish(stub, "1", { pu: 0.25 });
    await finish(stub, "1", { pu: 9, error: "late" });
    expect(await inspect(stub)).toMatchObject({ done: 1, failed: 0, pu: 0.25 });
    expect(await stub.begin("1", "late#1")).toEqual({ run: false, reason: "finished" }); // finished: its messages do nothing
    expect(await pending(stub)).toEqual([2, 3]);
    await finish(stub, "2", { pu: 0.25 });
    expect((await stub.task(account))!).toMatchObject({ state: "PROCESSING", done: 2, failed: 0, pu: 0.5, units: 3 });
    expect(await listedStatus(id)).toBe("PROCESSING");
    await finish(stub, "3", { pu: 0.5 });
    expect((await stub.task(account))!).toMatchObject({ state: "DONE", done: 3, pu: 1 });
    expect(await listedStatus(id)).toBe("DONE");
    expect(await stub.task(crypto.randomUUID())).toBeNull(); // another account
  });

  it("PARTIAL when some features failed, FAILED with an error when all did", async () => {
    const some = await processing();
    await finish(some.stub, "1", { pu: 0, error: "bad" });
    await finish(some.stub, "2", { pu: 0.1 });
    await finish(some.stub, "3", { pu: 0.1 });
    expect((await some.stub.task(some.account))!.state).toBe("PARTIAL");
    const all = await processing();
    for (const fid of ["1", "2", "3"]) await finish(all.stub, fid, { pu: 0, error: `feature ${fid} bad` });
    const v = (await all.stub.task(all.account))!;
    expect(v.state).toBe("FAILED");
    expect(v.error).toBe("All 3 features failed; first error: feature 1 bad");
  });

  it("STOP then START processes only the features not finished, without analysing again", async () => {
    const { stub, account } = await processing();
    await finish(stub, "2", { pu: 0.1 });
    expect(await stub.begin("3", "running#1")).toMatchObject({ run: true });
    expect(await stub.act(account, "STOP")).toMatchObject({ ok: true, value: { state: "STOPPED" } });
    expect((await stub.task(account))!).toMatchObject({
      state: "STOPPED",
      stoppedStatusReason: "USER_ACTION",
      userAction: "STOP",
    });
    expect(await stub.begin("1", "x#1")).toEqual({ run: false, reason: "idle" }); // consumers skip work while stopped
    expect(await stub.renew("3", "running#1")).toMatchObject({ live: false }); // a feature under way stops at its next renewal
    expect(await stub.act(account, "ANALYSE")).toMatchObject({ ok: false }); // analysed already: finished features keep their counts
    expect(await quietly(stub, (o) => o.act(account, "START"))).toMatchObject({
      ok: true,
      value: { state: "PROCESSING" },
    }); // (features 1 and 3 sent again)
    expect(await unitOf(stub, "1")).toMatchObject({ status: "PENDING", attempts: 0 });
    expect(await unitOf(stub, "2")).toMatchObject({ status: "DONE" });
    expect((await stub.task(account))!).toMatchObject({ state: "PROCESSING", userAction: "START", done: 1 });
    expect((await stub.task(account))!.stoppedStatusReason).toBeUndefined();
    expect(await stub.act(crypto.randomUUID(), "STOP")).toBeNull();
  });

  it("ANALYSE then START while analysing: one analysis, then processing; illegal actions are refused naming the state", async () => {
    const id = crypto.randomUUID(),
      account = crypto.randomUUID();
    const stub = stubOf(id);
    await created(id, account);
    await quietly(stub, async (o) => {
      expect(await o.act(account, "ANALYSE")).toMatchObject({
        ok: true,
        value: { state: "ANALYSING", userAction: "ANALYSE" },
      });
      expect(await o.act(account, "START")).toMatchObject({
        ok: true,
        value: { state: "ANALYSING", userAction: "START" },
      });
      await o.end(PLAN_UNIT, "plan#1", { plan: { units: UNITS, estimatePU: null } });
    });
    expect((await stub.task(account))!.state).toBe("PROCESSING");
    expect(await stub.act(account, "ANALYSE")).toEqual({ ok: false, state: "PROCESSING", action: "ANALYSE" });
  });

  it("ANALYSE alone stops at ANALYSIS_DONE; a failure while analysing is FAILED with the error", async () => {
    const a = crypto.randomUUID(),
      account = crypto.randomUUID();
    const stub = stubOf(a);
    await created(a, account);
    await planTask(stub, account, UNITS);
    expect((await stub.task(account))!).toMatchObject({ state: "ANALYSIS_DONE", units: 3 });
    const b = crypto.randomUUID();
    const other = stubOf(b);
    await created(b, account);
    await quietly(other, (o) => o.act(account, "ANALYSE"));
    await other.end(PLAN_UNIT, "plan#1", {
      fail: "The file is not a GeoPackage.",
      failure: { status: 400, code: "COMMON_BAD_PAYLOAD" },
    });
    expect((await other.task(account))!).toMatchObject({
      state: "FAILED",
      error: "The file is not a GeoPackage.",
      failure: { status: 400 },
    });
  });

  it("a message for a finished feature of a PROCESSING task is acked without computing or writing it again", async () => {
    const { id, stub, account } = await processing();
    await finish(stub, "1", { pu: 0.1 });
    const batch = createMessageBatch(TASK_QUEUE_NAME, [
      { id: "late", timestamp: new Date(), attempts: 3, body: featureMessage(id, 1) },
    ]);
    await worker.queue(batch, E);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toEqual(["late"]);
    expect((await E.BUCKETS.list({ prefix: `b-b/out/${id}/` })).objects).toEqual([]);
    expect((await stub.task(account))!).toMatchObject({ state: "PROCESSING", done: 1, failed: 0 });
  });

  it("watchdog: armed while processing; when it fires, the features whose messages were lost are enqueued again", async () => {
    const { id, stub, account } = await processing(); // started through the object directly: no feature message was ever sent
    const object = E.STATBATCH_TASKS.get(E.STATBATCH_TASKS.idFromName(id));
    expect(await runDurableObjectAlarm(object)).toBe(true);
    // the consumer now runs each feature; this request has no timeRange, so each is rejected and written as an error
    await vi.waitFor(async () => expect((await stub.task(account))!.state).toBe("FAILED"), {
      timeout: 20_000,
      interval: 200,
    });
    expect((await stub.task(account))!).toMatchObject({ failed: 3, done: 0 });
    const file = (await (await E.BUCKETS.get(`b-b/out/${id}/2.json`))!.json()) as {
      id: number;
      error: { type: string };
    };
    expect(file).toMatchObject({ id: 2, error: { type: "BAD_REQUEST" } });
    expect(await runDurableObjectAlarm(object)).toBe(false); // disarmed once terminal
  });

  it("a feature whose Worker was killed mid-way (its lease expired) is sent again by the alarm and counted once", async () => {
    const { id, stub, account } = await processing();
    const object = E.STATBATCH_TASKS.get(E.STATBATCH_TASKS.idFromName(id));
    expect(await stub.begin("1", "killed#1")).toMatchObject({ run: true });
    // its message delivered again while the lease runs: acked without computing or writing anything
    const batch = createMessageBatch(TASK_QUEUE_NAME, [
      { id: "dup", timestamp: new Date(), attempts: 1, body: featureMessage(id, 1) },
    ]);
    await worker.queue(batch, E);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toEqual(["dup"]);
    expect((await E.BUCKETS.list({ prefix: `b-b/out/${id}/` })).objects).toEqual([]);
    await setRow(stub, "UPDATE units SET lease_until = 0 WHERE idx IS NOT NULL");
    expect(await runDurableObjectAlarm(object)).toBe(true);
    await vi.waitFor(async () => expect((await stub.task(account))!.state).toBe("FAILED"), {
      timeout: 20_000,
      interval: 200,
    });
    expect((await stub.task(account))!).toMatchObject({ failed: 3, done: 0 });
    expect(await unitOf(stub, "1")).toMatchObject({ status: "FAILED", attempts: 2 }); // (its feature was rejected: counted failed)
    expect((await E.BUCKETS.list({ prefix: `b-b/out/${id}/` })).objects.map((o) => o.key).sort()).toEqual(
      [1, 2, 3].map((f) => `b-b/out/${id}/${f}.json`),
    );
  });
});

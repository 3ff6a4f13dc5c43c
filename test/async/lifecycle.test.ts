/**
 * The async request's ends outside the happy path, through the real Worker queue() handler and AsyncTask objects:
 * a dead letter FAILS its request (error.json, 500 envelope), a redelivered message of a finished request changes
 * nothing, and the timeout alarm FAILS a request that never finished.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { ASYNC_KIND, asyncStub } from "../../src/async/queue";
import type { AsyncRecord } from "../../src/async/object";
import { DEAD_LETTER_QUEUE_NAME, TASK_QUEUE_NAME } from "../../src/tasks/queue";
import type { Env } from "../../src/env";

const E = env as unknown as Env;

/** The account of every request here: it owns the bucket `life` (claimed by its first delivery). */
const ACCOUNT = crypto.randomUUID();

/** A RUNNING request of ACCOUNT in its object (no queue message sent), delivering to s3://life/<case>. */
async function running(name: string): Promise<AsyncRecord> {
  const record = {
    id: crypto.randomUUID(),
    account: ACCOUNT,
    created: new Date().toISOString(),
    request: { input: {}, output: { delivery: { s3: { url: `s3://life/${name}` } } }, evalscript: "//VERSION=3" },
  } as unknown as AsyncRecord;
  expect(await asyncStub(E, record.id).create(record)).toBe(true);
  return record;
}

async function consume(queue: string, id: string, messageId: string) {
  const batch = createMessageBatch(queue, [{ id: messageId, timestamp: new Date(), attempts: 4, body: { kind: ASYNC_KIND, id } }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, E);
  return getQueueResult(batch, ctx);
}

const json = async (key: string) => (await (await E.BUCKETS.get(key))!.json()) as Record<string, any>;

describe("async request lifecycle", () => {
  it("a dead letter FAILS the request: error.json (500 envelope), request.json FAILED; a second copy changes nothing", async () => {
    const rec = await running("dead");
    expect((await consume(DEAD_LETTER_QUEUE_NAME, rec.id, "d1")).explicitAcks).toEqual(["d1"]);
    expect((await asyncStub(E, rec.id).snapshot()).state).toBe("FAILED");
    const error = await json(`life/dead/${rec.id}/error.json`);
    expect(error.error).toMatchObject({ status: 500, code: "COMMON_EXCEPTION" });
    expect(error.error.message).toMatch(/failed after 4 attempts/);
    expect(await json(`life/dead/${rec.id}/request.json`)).toMatchObject({ id: rec.id, status: "FAILED" });
    await E.BUCKETS.delete(`life/dead/${rec.id}/error.json`);
    expect((await consume(DEAD_LETTER_QUEUE_NAME, rec.id, "d1")).explicitAcks).toEqual(["d1"]);
    expect(await E.BUCKETS.head(`life/dead/${rec.id}/error.json`)).toBeNull();
  });

  it("a redelivered message of a finished request is acked and renders nothing", async () => {
    const rec = await running("redelivered");
    expect((await asyncStub(E, rec.id).finish("m1", "DONE", 2)).ok).toBe(true);
    const result = await consume(TASK_QUEUE_NAME, rec.id, "m1");
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(result.retryMessages).toEqual([]);
    expect(await asyncStub(E, rec.id).snapshot()).toMatchObject({ state: "DONE", counters: { processingUnits: 2 } });
    expect((await E.BUCKETS.list({ prefix: `life/redelivered/${rec.id}/` })).objects).toEqual([]);
  });

  it("the timeout alarm FAILS a request still RUNNING and writes error.json", async () => {
    const rec = await running("timeout");
    const stub = asyncStub(E, rec.id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await stub.snapshot()).state).toBe("FAILED");
    expect((await json(`life/timeout/${rec.id}/error.json`)).error.message).toMatch(/did not finish within 12 hours/);
  });
});

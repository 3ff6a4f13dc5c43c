/**
 * The async request's ends outside the happy path, through the real Worker queue() handler and the engine's objects:
 * a dead letter FAILS its request (error.json, 500 envelope), a redelivered message of a finished request changes
 * nothing, the timeout alarm FAILS a request that never finished; and a render lost with its Worker (its message
 * never sent, or its consumer killed mid-render: a lease that expires) is sent again by the object's alarm and
 * ends DONE once (files written once, units charged once), or FAILED with the cause after its last attempt.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { asyncRequestSchema, type AsyncRecord } from "../../src/async/schema";
import { asyncStub, finishRequest, FIRST_STRIP, renderMessage, runningRequest } from "../helpers/asynctasks";
import { inspect, setRow, stateOf, unitOf } from "../helpers/taskengine";
import { leaseId } from "../../src/tasks/messages";
import { unitsUsage } from "../../src/accounts/units";
import { LEASE_POLICY } from "../../src/tasks/lease";
import { DEAD_LETTER_QUEUE_NAME, TASK_QUEUE_NAME } from "../../src/tasks/queue";
import type { Env } from "../../src/env";
import { seedSamples } from "../helpers/seed";
import { CRS } from "../helpers/process";

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
  await runningRequest(record);
  return record;
}

async function consume(queue: string, id: string, messageId: string) {
  const batch = createMessageBatch(queue, [
    { id: messageId, timestamp: new Date(), attempts: 4, body: renderMessage(id) },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, E);
  return getQueueResult(batch, ctx);
}

const json = async (key: string) => (await (await E.BUCKETS.get(key))!.json()) as Record<string, any>;

describe("async request lifecycle", () => {
  it("a dead letter FAILS the request: error.json (500 envelope), request.json FAILED; a second copy changes nothing", async () => {
    const rec = await running("dead");
    expect((await consume(DEAD_LETTER_QUEUE_NAME, rec.id, "d1")).explicitAcks).toEqual(["d1"]);
    expect(await stateOf(asyncStub(rec.id))).toBe("FAILED");
    const error = await json(`life/dead/${rec.id}/error.json`);
    expect(error.error).toMatchObject({ status: 500, code: "COMMON_EXCEPTION" });
    expect(error.error.message).toMatch(/failed all 4 delivery attempts/);
    expect(await json(`life/dead/${rec.id}/request.json`)).toMatchObject({ id: rec.id, status: "FAILED" });
    await E.BUCKETS.delete(`life/dead/${rec.id}/error.json`);
    expect((await consume(DEAD_LETTER_QUEUE_NAME, rec.id, "d1")).explicitAcks).toEqual(["d1"]);
    expect(await E.BUCKETS.head(`life/dead/${rec.id}/error.json`)).toBeNull();
  });

  it("a redelivered message of a finished request is acked and renders nothing", async () => {
    const rec = await running("redelivered");
    await finishRequest(rec.id, 2);
    const result = await consume(TASK_QUEUE_NAME, rec.id, "m1");
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(result.retryMessages).toEqual([]);
    expect(await inspect(asyncStub(rec.id))).toMatchObject({ state: "DONE", done: 1, pu: 2 });
    expect((await E.BUCKETS.list({ prefix: `life/redelivered/${rec.id}/` })).objects.map((o) => o.key)).toEqual([
      `life/redelivered/${rec.id}/request.json`,
    ]);
  });

  it("the timeout alarm FAILS a request still RUNNING and writes error.json", async () => {
    const rec = await running("timeout");
    const stub = asyncStub(rec.id);
    await setRow(stub, "UPDATE task SET deadline = 0"); // the 12 hours are over (before the render's lease expires)
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stateOf(stub)).toBe("FAILED");
    expect((await json(`life/timeout/${rec.id}/error.json`)).error.message).toMatch(/did not finish within 12 hours/);
  });
});

/** A renderable request (29RKH B04 at 1 km, 110 x 110 px, GeoTIFF) of a new account, created in its object only. */
async function renderable(bucket: string): Promise<AsyncRecord> {
  const request = asyncRequestSchema.parse({
    input: {
      bounds: { bbox: [199980, 2690220, 309780, 2800020], properties: { crs: CRS(32629) } },
      data: [
        {
          type: "sentinel-2-l2a",
          dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } },
        },
      ],
    },
    output: {
      width: 110,
      height: 110,
      responses: [{ identifier: "default", format: { type: "image/tiff" } }],
      delivery: { s3: { url: `s3://${bucket}/out` } },
    },
    evalscript: `//VERSION=3
function setup() { return { input: ["B04"], output: { bands: 1, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [s.B04 * 10000]; }`,
  });
  const record = {
    id: crypto.randomUUID(),
    account: crypto.randomUUID(),
    created: new Date().toISOString(),
    request,
  } as AsyncRecord;
  await runningRequest(record);
  return record;
}

/** The render's lease ran out (its consumer died with the server). */
const expire = (rec: AsyncRecord) =>
  setRow(asyncStub(rec.id), "UPDATE units SET lease_until = 0 WHERE id = ?", leaseId(FIRST_STRIP));

/** key -> etag of the objects under `prefix`. */
async function listing(prefix: string): Promise<Map<string, string>> {
  return new Map((await E.BUCKETS.list({ prefix })).objects.map((o) => [o.key, o.etag]));
}

describe("async request: a render lost with its Worker resumes (lease + watchdog)", () => {
  beforeAll(async () => {
    await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  });

  it("killed mid-render (claimed, lease expired): re-sent by the alarm, DONE once; files written once, units charged once", async () => {
    const rec = await renderable("lease-kill");
    const stub = asyncStub(rec.id);
    expect(await stub.begin(FIRST_STRIP, "killed#1")).toMatchObject({ run: true });
    // the message of the killed attempt, delivered again meanwhile: the lease is still the killed consumer's
    expect((await consume(TASK_QUEUE_NAME, rec.id, "dup")).explicitAcks).toEqual(["dup"]);
    expect(await stateOf(stub)).toBe("PROCESSING"); // (the engine's state of a RUNNING request)
    await expire(rec);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await vi.waitFor(async () => expect(await stateOf(stub)).toBe("DONE"), { timeout: 60_000, interval: 200 });
    const { pu } = await inspect(stub);
    expect(pu).toBeGreaterThan(0);
    expect(await unitOf(stub, FIRST_STRIP)).toMatchObject({ status: "DONE", attempts: 2 });
    const files = await listing(`lease-kill/out/${rec.id}/`);
    expect([...files.keys()].sort()).toEqual([
      `lease-kill/out/${rec.id}/default.tif`,
      `lease-kill/out/${rec.id}/request.json`,
    ]);
    expect((await unitsUsage(E, rec.account)).used).toBeCloseTo(pu, 9);
    // the lost message turning up after all: nothing is rendered, written or charged again
    expect((await consume(TASK_QUEUE_NAME, rec.id, "late")).explicitAcks).toEqual(["late"]);
    expect(await listing(`lease-kill/out/${rec.id}/`)).toEqual(files);
    expect((await unitsUsage(E, rec.account)).used).toBeCloseTo(pu, 9);
  });

  it("every attempt lost: after the last one the alarm FAILS the request with the cause; error.json, nothing charged", async () => {
    const rec = await renderable("lease-dead");
    const stub = asyncStub(rec.id);
    for (let i = 1; i <= LEASE_POLICY.maxAttempts; i++) {
      expect(await stub.begin(FIRST_STRIP, `killed#${i}`)).toMatchObject({ run: true });
      expect(await unitOf(stub, FIRST_STRIP)).toMatchObject({ attempts: i });
      await expire(rec);
    }
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await vi.waitFor(async () => expect(await stateOf(stub)).toBe("FAILED"), { timeout: 30_000, interval: 200 });
    const error = await json(`lease-dead/out/${rec.id}/error.json`);
    expect(error.error).toMatchObject({
      status: 500,
      message: expect.stringMatching(/^No attempt finished: 3 attempt\(s\) were each lost/),
    });
    expect(await json(`lease-dead/out/${rec.id}/request.json`)).toMatchObject({ id: rec.id, status: "FAILED" });
    expect(await unitOf(stub, FIRST_STRIP)).toMatchObject({ status: "FAILED" });
    expect(await inspect(stub)).toMatchObject({ done: 0, failed: 1, pu: 0 });
    expect((await unitsUsage(E, rec.account)).used).toBe(0);
    expect(await E.BUCKETS.head(`lease-dead/out/${rec.id}/default.tif`)).toBeNull();
  });
});

/**
 * Async strip units share their isolate's memory with its requests and other units: each is admitted
 * with its bytes (src/async/render.ts, src/pipeline/admission.ts withConsumerAdmission). A unit that finds no room
 * within the consumer's wait is snoozed (acked; the unit stays PENDING with no attempt used, the request RUNNING, and
 * its object sends it again after Retry-After), not failed; with room it renders. Real queue handler, AsyncTask Durable Object, R2 and 29RKH pixels.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { AsyncRecord } from "../../src/async/schema";
import { admissionStats, setAdmission } from "../../src/pipeline/admission";
import { fillAdmission } from "../helpers/admission";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import type { Env } from "../../src/env";
import { asyncStub, renderMessage, FIRST_STRIP, runningRequest } from "../helpers/asynctasks";
import { seedSamples } from "../helpers/seed";
import { CRS } from "../helpers/process";
import { stateOf, unitOf } from "../helpers/taskengine";

const E = env as unknown as Env;

const RECORD_REQUEST = {
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
    width: 256,
    height: 256,
    responses: [{ identifier: "default", format: { type: "image/tiff" } }],
    delivery: { s3: { url: `s3://adm-${crypto.randomUUID().slice(0, 8)}/runs` } },
  },
  evalscript: `//VERSION=3
function setup() { return { input: ["B04"], output: { bands: 1, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [s.B04 * 10000]; }`,
};

/** Delivers the strip unit's message of request `id` once (attempt `attempts`) to the queue handler. */
async function consume(id: string, messageId: string, attempts: number) {
  const batch = createMessageBatch(TASK_QUEUE_NAME, [
    { id: messageId, timestamp: new Date(), attempts, body: renderMessage(id) },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, E);
  return getQueueResult(batch, ctx);
}

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
});
afterEach(() => setAdmission());

describe("admission of async strip units", () => {
  it("no room: the unit is snoozed (PENDING, no attempt used); with room it renders (DONE), admitted with its bytes", async () => {
    const record = {
      id: crypto.randomUUID(),
      account: crypto.randomUUID(),
      created: new Date().toISOString(),
      request: RECORD_REQUEST,
    } as unknown as AsyncRecord;
    const stub = await runningRequest(record);
    const held = await fillAdmission(); // a request in flight fills the budget
    try {
      const refused = await consume(record.id, "m1", 1);
      expect(refused.retryMessages).toEqual([]);
      expect(refused.explicitAcks).toEqual(["m1"]);
      expect(await unitOf(stub, FIRST_STRIP)).toMatchObject({ status: "PENDING", attempts: 0, owner: null });
      expect(await stateOf(stub)).toBe("PROCESSING");
      expect(admissionStats()).toMatchObject({ requests: 1, waiting: 0 });
    } finally {
      held.release();
    }
    setAdmission();
    const done = await consume(record.id, "m2", 2);
    expect(done.retryMessages).toEqual([]);
    expect(done.explicitAcks).toEqual(["m2"]);
    expect(await unitOf(stub, FIRST_STRIP)).toMatchObject({ status: "DONE" });
    expect(admissionStats()).toMatchObject({ bytes: 0, requests: 0 });
    // 256 x 256 pixels: UINT16 values and their file, Float32 B04 and a mask byte twice
    expect(admissionStats().peakBytes).toBe(256 * 256 * (2 * 2 + 2 * 5));
  });
});

/**
 * Batch v2 tasks driven without the background queue: a task put in a state through its object, and tile messages
 * delivered to the Worker's queue() handler by the test itself (so no message runs behind the test's back).
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import worker from "../../src/index";
import type { Env } from "../../src/env";
import { batchStub } from "../../src/batch/stub";
import { tilingGridTiles } from "../../src/batch/tiles";
import { batchRequestSchema } from "../../src/batch/schema";
import type { TaskRecord } from "../../src/batch/record";
import { batchRequest } from "./batch";

const E = env as unknown as Env;

/** A task of `account` put in `state` through its object (ANALYSIS_DONE or later: tiles stored, nothing sent). */
export async function batchTaskIn(account: string, state: "CREATED" | "ANALYSIS_DONE" | "PROCESSING" | "STOPPED", bucket: string, bounds?: object, output: Record<string, unknown> = {}) {
  const request = batchRequestSchema.parse(batchRequest(bucket, output, {}, bounds));
  const now = new Date().toISOString();
  const record: TaskRecord = { id: crypto.randomUUID(), account, request, created: now, userAction: "NONE", userActionUpdated: now, estimatePU: null, tileCount: null };
  const stub = batchStub(E, record.id);
  await stub.create(record);
  if (state !== "CREATED") {
    await stub.transition("ANALYSING");
    await stub.analysisDone(tilingGridTiles(request.input as never, request.processRequest.input.bounds!), 1);
  }
  if (state === "PROCESSING") await stub.transition("PROCESSING");
  if (state === "STOPPED") await stub.stop();
  return { id: record.id, stub, tiles: (await stub.tiles()).map((t) => t.name) };
}

/** A queue message with `id` and `body` on its `attempts`-th delivery. */
export const msg = (id: string, body: unknown, attempts = 1) => ({ id, timestamp: new Date(), attempts, body });

/** Runs a batch of messages through the Worker's queue() and returns the acked and retried message ids. */
export async function deliver(queue: string, messages: ReturnType<typeof msg>[]) {
  const batch = createMessageBatch(queue, messages);
  const ctx = createExecutionContext();
  await worker.queue(batch, E);
  const r = await getQueueResult(batch, ctx);
  return { acked: r.explicitAcks.sort(), retried: r.retryMessages.map((m) => m.msgId) };
}

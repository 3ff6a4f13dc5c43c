/**
 * Batch v2 tasks driven without the background queue: a task put in a state through its object, and tile messages
 * delivered to the Worker's queue() handler by the test itself (so no message runs behind the test's back).
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import worker from "../../src/index";
import type { Env } from "../../src/env";
import { batchPlugin } from "../../src/batch/plugin";
import { tilingGridTiles } from "../../src/batch/tiles";
import { batchRequestSchema } from "../../src/batch/schema";
import { taskStub } from "../../src/tasks/stub";
import { unitMessage } from "../../src/tasks/messages";
import { batchRequest } from "./batch";
import { inspect, planTask, quietly } from "./taskengine";

const E = env as unknown as Env;

/** The engine stub of batch task `id`. */
export const batchStub = (id: string) => taskStub(batchPlugin, E, id);
/** The message of tile `tile` of task `id`. */
export const tileMessage = (id: string, tile: string) => unitMessage("batch", id, tile, "heavy");

/**
 * A task of `account` put in `state` through its object (ANALYSIS_DONE or later: tiles planned; PROCESSING: each
 * tile leased as if sent, but no message sent).
 */
export async function batchTaskIn(
  account: string,
  state: "CREATED" | "ANALYSIS_DONE" | "PROCESSING" | "STOPPED",
  bucket: string,
  bounds?: object,
  output: Record<string, unknown> = {},
) {
  const request = batchRequestSchema.parse(batchRequest(bucket, output, {}, bounds));
  const id = crypto.randomUUID();
  const stub = batchStub(id);
  await stub.create({ id, account, created: new Date().toISOString() }, request);
  if (state !== "CREATED")
    await planTask(
      stub,
      account,
      tilingGridTiles(request.input as never, request.processRequest.input.bounds!).map((t) => ({
        id: t.name,
        data: t,
      })),
      1,
    );
  const tiles = (await inspect(stub)).units.map((t) => t.id);
  if (state === "PROCESSING" || state === "STOPPED") await quietly(stub, (o) => o.act(account, "START"));
  if (state === "STOPPED") await stub.act(account, "STOP");
  return { id, stub, tiles };
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

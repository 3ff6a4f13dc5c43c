/** The queue consumer: dispatch by kind, ack/retry per message, once-only counting, and end to end through the producer. */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { probeCounts } from "../../src/tasks/probe";
import {
  DEAD_LETTER_QUEUE_NAME,
  QueueRouter,
  TASK_QUEUE_NAME,
  isDeadLetterQueue,
  retryDelaySeconds,
} from "../../src/tasks/queue";
import { sendMessages } from "../../src/tasks/runner";
import type { Env } from "../../src/env";

const E = env as unknown as Env;
const QUEUE = TASK_QUEUE_NAME;
const msg = (id: string, body: unknown, attempts = 1) => ({ id, timestamp: new Date(), attempts, body });

describe("queue() of the Worker", () => {
  it("acks probe messages, counts a redelivered id once, retries unknown kinds, malformed bodies and failures", async () => {
    const task = crypto.randomUUID();
    const batch = createMessageBatch(QUEUE, [
      msg("p1", { kind: "probe", task }),
      msg("p2", { kind: "probe", task }),
      msg("p1", { kind: "probe", task }, 2), // redelivery of p1
      msg("u1", { kind: "no-such-kind" }),
      msg("u2", "not an object"),
      msg("u3", { kind: "probe" }), // probe without its task: the handler throws
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, E);
    const result = await getQueueResult(batch, ctx);
    expect(result.ackAll).toBe(false);
    expect(result.explicitAcks.sort()).toEqual(["p1", "p1", "p2"]);
    // (getQueueResult reports which messages were retried, not the delaySeconds asked for)
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["u1", "u2", "u3"]);
    expect(await probeCounts(E, task)).toEqual({ probes: 2 });
  });

  it("end to end: messages sent through TASK_QUEUE reach the consumer", async () => {
    const task = crypto.randomUUID();
    await E.TASK_QUEUE.send({ kind: "probe", task });
    await E.TASK_QUEUE.sendBatch([{ body: { kind: "probe", task } }, { body: { kind: "probe", task } }]);
    await vi.waitFor(async () => expect(await probeCounts(E, task)).toEqual({ probes: 3 }), {
      timeout: 15_000,
      interval: 200,
    });
  });

  it("end to end: a message failing every attempt reaches the dead-letter queue and its kind's onDead once", async () => {
    const task = crypto.randomUUID();
    await E.TASK_QUEUE.send({ kind: "probe", task, fail: true });
    await vi.waitFor(async () => expect(await probeCounts(E, task)).toEqual({ dead: 1 }), {
      timeout: 20_000,
      interval: 250,
    });
  });

  it("end to end: sendMessages puts each message on the queue it names; a heavy one failing every attempt reaches heavy's dead-letter queue", async () => {
    const task = crypto.randomUUID();
    const sent = { light: 0, heavy: 0, ingest: 0 };
    for (const name of ["TASK_QUEUE", "HEAVY_QUEUE", "INGEST_QUEUE"] as const) {
      const queue = E[name];
      vi.spyOn(queue, "sendBatch").mockImplementationOnce(async (batch) => {
        for (const m of batch) sent[(m.body as { queue?: keyof typeof sent }).queue ?? "light"]++;
        return queue.sendBatch.call(queue, batch);
      });
    }
    await sendMessages(E, [
      { kind: "probe", task, queue: "heavy" },
      { kind: "probe", task },
      { kind: "probe", task, queue: "ingest" },
      { kind: "probe", task, queue: "heavy", fail: true },
    ]);
    await vi.waitFor(async () => expect(await probeCounts(E, task)).toEqual({ probes: 3, dead: 1 }), {
      timeout: 30_000,
      interval: 250,
    });
    expect(sent).toEqual({ light: 1, heavy: 2, ingest: 1 });
    expect(["eo-edge-tasks-dlq", "eo-edge-heavy-dlq", "eo-staging-ingest-dlq"].map(isDeadLetterQueue)).toEqual([
      true,
      true,
      true,
    ]);
    expect(["eo-edge-tasks", "eo-edge-heavy", "eo-edge-ingest"].map(isDeadLetterQueue)).toEqual([false, false, false]);
  });

  it("dead letters: onDead runs (once per id), unknown kinds are acked after logging", async () => {
    const task = crypto.randomUUID();
    const batch = createMessageBatch(DEAD_LETTER_QUEUE_NAME, [
      msg("d1", { kind: "probe", task, fail: true }),
      msg("d1", { kind: "probe", task, fail: true }),
      msg("d2", { kind: "who-knows" }),
      msg("d3", { kind: "probe" }), // onDead throws (no task): retried
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, E);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["d1", "d1", "d2"]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["d3"]);
    expect(await probeCounts(E, task)).toEqual({ dead: 1 });
  });
});

describe("QueueRouter", () => {
  it("retries a failing handler's message and acks the others", async () => {
    const seen: string[] = [];
    const router = new QueueRouter()
      .on("ok", async (body) => void seen.push(String(body.n)))
      .on("boom", async () => {
        throw new Error("tile failed");
      });
    const batch = createMessageBatch(QUEUE, [
      msg("a", { kind: "ok", n: 1 }),
      msg("b", { kind: "boom" }, 3),
      msg("c", { kind: "ok", n: 2 }),
    ]);
    const ctx = createExecutionContext();
    await router.consume(batch, E);
    const result = await getQueueResult(batch, ctx);
    expect(seen).toEqual(["1", "2"]);
    expect(result.explicitAcks.sort()).toEqual(["a", "c"]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["b"]);
  });

  it("backoff doubles from 2 s and stops at 300 s; a kind cannot be registered twice", () => {
    expect([0, 1, 2, 3, 8, 9, 20].map(retryDelaySeconds)).toEqual([2, 2, 4, 8, 256, 300, 300]);
    expect(() => new QueueRouter().on("k", async () => {}).on("k", async () => {})).toThrow("registered twice");
  });
});

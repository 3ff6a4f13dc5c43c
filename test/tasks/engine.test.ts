/**
 * The task engine (src/tasks/engine.ts) through its verbs, with the statistical batch plug-in's object (real object,
 * real SQLite): a unit counted once whatever the deliveries, two calls per unit from the consumer, the state kept
 * across an eviction, the one alarm for the leases and the deadline, and the machines.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, evictDurableObject, getQueueResult, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { Env } from "../../src/env";
import { statbatchPlugin } from "../../src/statbatch/plugin";
import type { BatchStatisticalRequest } from "../../src/statbatch/schema";
import { ASYNC_MACHINE, BATCH_MACHINE, IMPORT_MACHINE, STATISTICAL_BATCH_MACHINE } from "../../src/tasks/machines";
import type { TaskMachine } from "../../src/tasks/machine";
import { unitMessage } from "../../src/tasks/messages";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import { taskStub } from "../../src/tasks/stub";
import { engineKind } from "../../src/tasks/work";
import { inspect, planTask, quietly, setRow } from "../helpers/taskengine";

const E = env as unknown as Env;
const REQUEST = { input: { features: { s3: { url: "s3://e-e/f.gpkg" } } }, aggregation: { evalscript: "x" }, output: { s3: { url: "s3://e-e/out" } } } as unknown as BatchStatisticalRequest;

/** A PROCESSING statistical batch task of a new account with `n` units (data: their number), leased as if sent. */
async function processing(n: number) {
  const id = crypto.randomUUID(), account = crypto.randomUUID();
  const stub = taskStub(statbatchPlugin, E, id);
  await stub.create({ id, account, created: new Date().toISOString() }, REQUEST);
  await planTask(stub, account, Array.from({ length: n }, (_, i) => ({ id: `f${i}`, data: i })), null, true);
  return { id, account, stub };
}

describe("the task engine", () => {
  it("40 concurrent ends of 10 units (each ended 4 times) count 10, with each unit's processing units once", async () => {
    const { stub, account } = await processing(10);
    const ends = Array.from({ length: 40 }, (_, i) => stub.end(`f${i % 10}`, `m${i}#1`, { result: { pu: 0.5 } }));
    expect(await Promise.all(ends)).toEqual(Array(40).fill(true));
    expect((await stub.task(account))!).toMatchObject({ state: "DONE", done: 10, failed: 0, pu: 5 });
    expect((await inspect(stub)).units.every((u) => u.status === "DONE" && u.pu === 0.5)).toBe(true);
  });

  it("a unit costs the consumer two calls to its task's object: begin and end", async () => {
    const { id, stub, account } = await processing(1);
    const calls: string[] = [];
    const counting = {
      ...statbatchPlugin,
      namespace: () => ({
        idFromName: (n: string) => E.STATBATCH_TASKS.idFromName(n),
        get: (oid: DurableObjectId) => {
          const real = E.STATBATCH_TASKS.get(oid) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
          return new Proxy({}, { get: (_t, m: string) => (...a: unknown[]) => (calls.push(m), real[m]!(...a)) });
        },
      }) as unknown as DurableObjectNamespace,
      run: async () => ({ pu: 0.25 }),
    };
    const [handler] = engineKind([counting]);
    const message = { id: "one", attempts: 1, timestamp: new Date(), body: unitMessage("statbatch", id, "f0", "light") } as unknown as Message<unknown>;
    await handler(message.body as never, E, message);
    expect(calls).toEqual(["begin", "end"]);
    expect((await stub.task(account))!).toMatchObject({ state: "DONE", done: 1, pu: 0.25 });
  });

  it("a unit's message of a task it does not know, or of a unit that finished, is acked without work", async () => {
    const { id, stub } = await processing(2);
    await stub.end("f0", "x#1", { result: { pu: 0 } });
    const batch = createMessageBatch(TASK_QUEUE_NAME, [
      { id: "finished", timestamp: new Date(), attempts: 1, body: unitMessage("statbatch", id, "f0", "light") },
      { id: "unknown", timestamp: new Date(), attempts: 1, body: unitMessage("statbatch", crypto.randomUUID(), "f0", "light") },
    ]);
    await worker.queue(batch, E);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks.sort()).toEqual(["finished", "unknown"]);
    expect(await inspect(stub)).toMatchObject({ state: "PROCESSING", done: 1 });
  });

  it("keeps the task and its units across an eviction of the object (SQLite storage)", async () => {
    const { stub, account } = await processing(3);
    await stub.end("f1", "x#1", { result: { pu: 0.125 } });
    await evictDurableObject(stub as never);
    const again = await inspect(stub);
    expect(again).toMatchObject({ state: "PROCESSING", done: 1, pu: 0.125 });
    expect(again.units.map((u) => u.status)).toEqual(["PENDING", "DONE", "PENDING"]);
    expect((await stub.task(account))!.units).toBe(3);
  });

  it("one alarm runs what is due by the time it was armed for: the leases first, the deadline when its time comes", async () => {
    const { stub } = await processing(1);
    await setRow(stub, "UPDATE task SET deadline = ?", Date.now() + 90_000); // between the first lease (60 s) and the next (120 s)
    await quietly(stub, (o) => o.alarm()); // the lease: re-sent (muted here), the task still running
    expect(await inspect(stub)).toMatchObject({ state: "PROCESSING", units: [{ status: "PENDING" }] });
    await quietly(stub, (o) => o.alarm()); // the deadline
    const ended = await inspect(stub);
    expect(ended).toMatchObject({ state: "FAILED", deadline: null, units: [{ status: "CANCELLED" }] });
    expect(await runDurableObjectAlarm(stub as never)).toBe(false); // nothing left to wake for
  });
});

describe("Sentinel Hub machines", () => {
  const check = <S extends string>(m: TaskMachine<S>, states: string[], terminal: string[]) => {
    expect(Object.keys(m.transitions).sort()).toEqual([...states].sort());
    for (const targets of Object.values<readonly string[]>(m.transitions)) for (const t of targets) expect(states).toContain(t);
    expect(Object.entries<readonly string[]>(m.transitions).filter(([, t]) => t.length === 0).map(([s]) => s).sort()).toEqual(terminal.sort());
  };
  it("use exactly the spec's states; DONE, FAILED (and PARTIAL) are terminal; kinds without user actions never stop", () => {
    const batch = ["CREATED", "ANALYSING", "ANALYSIS_DONE", "PROCESSING", "DONE", "FAILED", "STOPPED"];
    check(BATCH_MACHINE, batch, ["DONE", "FAILED"]);
    check(STATISTICAL_BATCH_MACHINE, [...batch, "PARTIAL"], ["DONE", "FAILED", "PARTIAL"]);
    check(ASYNC_MACHINE, batch, ["DONE", "FAILED", "STOPPED"]);
    check(IMPORT_MACHINE, [...batch, "PARTIAL"], ["DONE", "FAILED", "PARTIAL", "STOPPED"]);
    for (const m of [ASYNC_MACHINE, IMPORT_MACHINE]) expect(Object.values<readonly string[]>(m.transitions).flat()).not.toContain("STOPPED");
    expect(ASYNC_MACHINE.name).toBe("async process request");
  });
});

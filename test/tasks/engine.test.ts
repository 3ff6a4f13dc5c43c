/**
 * The task engine (src/tasks/engine.ts) through its verbs, with the statistical batch plug-in's object (real object,
 * real SQLite): a unit counted once whatever the deliveries, two calls per unit from the consumer, the state kept
 * across an eviction, the one alarm for the leases and the deadline, and the machines.
 */
import { env } from "cloudflare:workers";
import {
  createExecutionContext,
  createMessageBatch,
  evictDurableObject,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
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
const REQUEST = {
  input: { features: { s3: { url: "s3://e-e/f.gpkg" } } },
  aggregation: { evalscript: "x" },
  output: { s3: { url: "s3://e-e/out" } },
} as unknown as BatchStatisticalRequest;

/** A PROCESSING statistical batch task of a new account with `n` units (data: their number), leased as if sent. */
async function processing(n: number) {
  const id = crypto.randomUUID(),
    account = crypto.randomUUID();
  const stub = taskStub(statbatchPlugin, E, id);
  await stub.create({ id, account, created: new Date().toISOString() }, REQUEST);
  await planTask(
    stub,
    account,
    Array.from({ length: n }, (_, i) => ({ id: `f${i}`, data: i })),
    null,
    true,
  );
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
      namespace: () =>
        ({
          idFromName: (n: string) => E.STATBATCH_TASKS.idFromName(n),
          get: (oid: DurableObjectId) => {
            const real = E.STATBATCH_TASKS.get(oid) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
            return new Proxy(
              {},
              {
                get:
                  (_t, m: string) =>
                  (...a: unknown[]) => (calls.push(m), real[m]!(...a)),
              },
            );
          },
        }) as unknown as DurableObjectNamespace,
      run: async () => ({ pu: 0.25 }),
    };
    const [handler] = engineKind([counting]);
    const message = {
      id: "one",
      attempts: 1,
      timestamp: new Date(),
      body: unitMessage("statbatch", id, "f0", "light"),
    } as unknown as Message<unknown>;
    await handler(message.body as never, E, message);
    expect(calls).toEqual(["begin", "end"]);
    expect((await stub.task(account))!).toMatchObject({ state: "DONE", done: 1, pu: 0.25 });
  });

  it("a unit's message of a task it does not know, or of a unit that finished, is acked without work", async () => {
    const { id, stub } = await processing(2);
    await stub.end("f0", "x#1", { result: { pu: 0 } });
    const batch = createMessageBatch(TASK_QUEUE_NAME, [
      { id: "finished", timestamp: new Date(), attempts: 1, body: unitMessage("statbatch", id, "f0", "light") },
      {
        id: "unknown",
        timestamp: new Date(),
        attempts: 1,
        body: unitMessage("statbatch", crypto.randomUUID(), "f0", "light"),
      },
    ]);
    await worker.queue(batch, E);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks.sort()).toEqual([
      "finished",
      "unknown",
    ]);
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
    for (const targets of Object.values<readonly string[]>(m.transitions))
      for (const t of targets) expect(states).toContain(t);
    expect(
      Object.entries<readonly string[]>(m.transitions)
        .filter(([, t]) => t.length === 0)
        .map(([s]) => s)
        .sort(),
    ).toEqual(terminal.sort());
  };
  it("use exactly the spec's states; DONE, FAILED (and PARTIAL) are terminal; kinds without user actions never stop", () => {
    const batch = ["CREATED", "ANALYSING", "ANALYSIS_DONE", "PROCESSING", "DONE", "FAILED", "STOPPED"];
    check(BATCH_MACHINE, batch, ["DONE", "FAILED"]);
    check(STATISTICAL_BATCH_MACHINE, [...batch, "PARTIAL"], ["DONE", "FAILED", "PARTIAL"]);
    check(ASYNC_MACHINE, batch, ["DONE", "FAILED", "STOPPED"]);
    check(IMPORT_MACHINE, [...batch, "PARTIAL"], ["DONE", "FAILED", "PARTIAL", "STOPPED"]);
    for (const m of [ASYNC_MACHINE, IMPORT_MACHINE])
      expect(Object.values<readonly string[]>(m.transitions).flat()).not.toContain("STOPPED");
    expect(ASYNC_MACHINE.name).toBe("async process request");
  });
});

describe("a task stored before one row per unit", () => {
  it("is moved into the task and units tables when its object first runs: counters, units, leases; then it runs on", async () => {
    const id = crypto.randomUUID(),
      account = crypto.randomUUID();
    const stub = taskStub(statbatchPlugin, E, id);
    const message = (u: string) => JSON.stringify(unitMessage("statbatch", id, u, "light"));
    const record = {
      id,
      account,
      created: "2026-11-30T10:00:00.000Z",
      userAction: "START",
      userActionUpdated: "2026-11-30T10:00:01.000Z",
      estimatePU: null,
      units: 3,
      version: 7,
    };
    await runInDurableObject(stub as never, (_o, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE units");
      sql.exec("DROP TABLE task");
      for (const statement of [
        "CREATE TABLE engine_task (k INTEGER PRIMARY KEY CHECK (k = 1), record TEXT NOT NULL, request TEXT NOT NULL)",
        "CREATE TABLE engine_secrets (k INTEGER PRIMARY KEY CHECK (k = 1), secrets TEXT NOT NULL)",
        "CREATE TABLE engine_units (id TEXT PRIMARY KEY, idx INTEGER NOT NULL, data TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'PENDING', error TEXT, memo TEXT)",
        "CREATE TABLE task_state (k INTEGER PRIMARY KEY CHECK (k = 1), state TEXT NOT NULL, updated TEXT NOT NULL)",
        "CREATE TABLE task_counters (name TEXT PRIMARY KEY, value REAL NOT NULL)",
        "CREATE TABLE task_messages (id TEXT PRIMARY KEY, at TEXT NOT NULL)",
        "CREATE TABLE task_alarm (k INTEGER PRIMARY KEY CHECK (k = 1), deadline INTEGER, armed INTEGER)",
        "CREATE TABLE task_units (id TEXT PRIMARY KEY, message TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'PENDING', attempts INTEGER NOT NULL DEFAULT 0, sends INTEGER NOT NULL DEFAULT 1, owner TEXT, lease_until INTEGER NOT NULL, cause TEXT)",
      ])
        sql.exec(statement);
      sql.exec("INSERT INTO engine_task VALUES (1, ?, ?)", JSON.stringify(record), JSON.stringify(REQUEST));
      sql.exec("INSERT INTO task_state VALUES (1, 'PROCESSING', '2026-11-30T10:05:00.000Z')");
      sql.exec("INSERT INTO task_counters VALUES ('done', 1), ('failed', 1), ('pu', 0.5)");
      sql.exec("INSERT INTO task_messages VALUES ('unit:a', 'x'), ('unit:b', 'x')");
      sql.exec(
        "INSERT INTO engine_units VALUES ('a', 0, '1', 'DONE', NULL, 'm'), ('b', 1, '2', 'FAILED', 'bad', NULL), ('c', 2, '3', 'PENDING', NULL, NULL)",
      );
      sql.exec(
        "INSERT INTO task_units VALUES ('plan', ?, 'DONE', 1, 0, NULL, 0, NULL)",
        JSON.stringify({ kind: "task", ns: "statbatch", task: id, unit: "plan", queue: "light" }),
      );
      sql.exec(
        "INSERT INTO task_units VALUES ('u:a', ?, 'DONE', 1, 0, NULL, 0, NULL), ('u:b', ?, 'FAILED', 3, 0, NULL, 0, 'bad'), ('u:c', ?, 'PENDING', 1, 0, 'gone#1', 123, NULL)",
        message("a"),
        message("b"),
        message("c"),
      );
    });
    await evictDurableObject(stub as never);
    expect((await stub.task(account))!).toMatchObject({
      state: "PROCESSING",
      done: 1,
      failed: 1,
      pu: 0.5,
      units: 3,
      userAction: "START",
      lastUpdated: "2026-11-30T10:05:00.000Z",
    });
    const stored = await inspect(stub);
    expect(stored.units).toMatchObject([
      { id: "a", status: "DONE", memo: "m" },
      { id: "b", status: "FAILED", error: "bad", attempts: 3 },
      { id: "c", status: "PENDING", attempts: 1, owner: "gone#1", leaseUntil: 123 },
    ]);
    expect(stored.phases).toMatchObject([{ id: "plan", status: "DONE" }]);
    const tables = await runInDurableObject(stub as never, (_o, state) =>
      state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name",
        )
        .toArray()
        .map((t) => t.name),
    );
    expect(tables).toEqual(["task", "units"]);
    expect(await stub.begin("c", "new#1")).toMatchObject({ run: true, unit: { id: "c", data: 3 } }); // its lease expired: a new delivery takes it
    await stub.end("c", "new#1", { result: { pu: 0.25 } });
    expect((await stub.task(account))!).toMatchObject({ state: "PARTIAL", done: 2, failed: 1, pu: 0.75 });
  });
});

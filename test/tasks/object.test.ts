/** The task Durable Object base (through TaskObject, the Batch v2 machine): transitions, message ids, alarms, persistence. */
import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TransitionError, unwrap, type TaskMachine } from "../../src/tasks/machine";
import { BATCH_MACHINE, STATISTICAL_BATCH_MACHINE } from "../../src/tasks/machines";
import { probeStub } from "../../src/tasks/probe";
import type { Env } from "../../src/env";

const E = env as unknown as Env;
const fresh = () => probeStub(E, crypto.randomUUID());

describe("TaskObject transitions", () => {
  it("walks CREATED -> ANALYSING -> ANALYSIS_DONE -> PROCESSING -> DONE, stamping each change", async () => {
    const task = fresh();
    expect((await task.snapshot()).state).toBe("CREATED");
    for (const s of ["ANALYSING", "ANALYSIS_DONE", "PROCESSING", "DONE"] as const) {
      const snap = unwrap(await task.transition(s));
      expect(snap.state).toBe(s);
      expect(Date.parse(snap.updated)).toBeGreaterThan(Date.parse("2020-01-01"));
    }
  });

  it("rejects an illegal move and a stale expected state with a TransitionError, leaving the state as it was", async () => {
    const task = fresh();
    const illegal = await task.transition("PROCESSING");
    expect(illegal).toEqual({ ok: false, error: { machine: "batch process task", from: "CREATED", to: "PROCESSING", expected: undefined } });
    expect(() => unwrap(illegal)).toThrow(TransitionError);
    expect(() => unwrap(illegal)).toThrow("cannot move from CREATED to PROCESSING");
    unwrap(await task.transition("ANALYSING", "CREATED"));
    const stale = await task.transition("STOPPED", "CREATED");
    expect(stale.ok).toBe(false);
    expect(() => unwrap(stale)).toThrow("is ANALYSING, not CREATED");
    unwrap(await task.transition("FAILED"));
    for (const s of ["CREATED", "ANALYSING", "PROCESSING", "DONE", "STOPPED"] as const) expect((await task.transition(s)).ok).toBe(false);
    expect((await task.snapshot()).state).toBe("FAILED");
  });

  it("state survives a new stub and an eviction of the object (SQLite storage)", async () => {
    const name = crypto.randomUUID();
    const first = probeStub(E, name);
    unwrap(await first.transition("ANALYSING"));
    unwrap(await first.applyMessage("m1", { counters: { tiles: 3 } }));
    await evictDurableObject(first);
    const again = probeStub(E, name);
    expect(await again.snapshot()).toMatchObject({ state: "ANALYSING", counters: { tiles: 3 } });
    const rows = await runInDurableObject(again, (_o, state) => state.storage.sql.exec("SELECT state FROM task_state").toArray());
    expect(rows).toEqual([{ state: "ANALYSING" }]);
  });
});

describe("TaskObject messages (at-least-once delivery)", () => {
  it("applies a message id once: a repeat changes nothing", async () => {
    const task = fresh();
    expect(unwrap(await task.applyMessage("a", { counters: { done: 1, pixels: 512 } })).applied).toBe(true);
    const again = unwrap(await task.applyMessage("a", { counters: { done: 1, pixels: 512 } }));
    expect(again).toMatchObject({ applied: false, snapshot: { counters: { done: 1, pixels: 512 } } });
    expect(await task.processed("a")).toBe(true);
    expect(await task.processed("b")).toBe(false);
  });

  it("40 concurrent deliveries of 10 ids count 10", async () => {
    const task = fresh();
    const ids = Array.from({ length: 40 }, (_, i) => `tile-${i % 10}`);
    const outcomes = await Promise.all(ids.map((id) => task.applyMessage(id, { counters: { done: 1 } })));
    expect(outcomes.filter((o) => o.ok && o.value.applied)).toHaveLength(10);
    expect((await task.snapshot()).counters).toEqual({ done: 10 });
  });

  it("an illegal move in a message rolls back its counters and id, so a later delivery can apply", async () => {
    const task = fresh();
    const bad = await task.applyMessage("x", { counters: { done: 1 }, to: "DONE" });
    expect(bad.ok).toBe(false);
    expect(await task.snapshot()).toMatchObject({ state: "CREATED", counters: {} });
    expect(await task.processed("x")).toBe(false);
    unwrap(await task.transition("ANALYSING"));
    unwrap(await task.transition("ANALYSIS_DONE"));
    unwrap(await task.transition("PROCESSING"));
    expect(unwrap(await task.applyMessage("x", { counters: { done: 1 }, to: "DONE" })).snapshot).toMatchObject({ state: "DONE", counters: { done: 1 } });
  });
});

describe("TaskObject timeout alarm", () => {
  it("moves a running task to FAILED when the alarm fires; a finished task stays", async () => {
    const running = fresh();
    unwrap(await running.transition("ANALYSING"));
    await running.scheduleTimeout(60_000);
    expect(await runDurableObjectAlarm(running)).toBe(true);
    expect((await running.snapshot()).state).toBe("FAILED");

    const done = fresh();
    for (const s of ["ANALYSING", "ANALYSIS_DONE", "PROCESSING", "DONE"] as const) unwrap(await done.transition(s));
    await done.scheduleTimeout(60_000);
    expect(await runDurableObjectAlarm(done)).toBe(true);
    expect((await done.snapshot()).state).toBe("DONE");

    const cancelled = fresh();
    await cancelled.scheduleTimeout(60_000);
    await cancelled.cancelTimeout();
    expect(await runDurableObjectAlarm(cancelled)).toBe(false);
    expect((await cancelled.snapshot()).state).toBe("CREATED");
  });
});

describe("Sentinel Hub machines", () => {
  const check = <S extends string>(m: TaskMachine<S>, states: string[], terminal: string[]) => {
    expect(Object.keys(m.transitions).sort()).toEqual([...states].sort());
    for (const targets of Object.values<readonly string[]>(m.transitions)) for (const t of targets) expect(states).toContain(t);
    expect(Object.entries<readonly string[]>(m.transitions).filter(([, t]) => t.length === 0).map(([s]) => s).sort()).toEqual(terminal.sort());
  };
  it("use exactly the spec's states; DONE, FAILED (and PARTIAL) are terminal", () => {
    const batch = ["CREATED", "ANALYSING", "ANALYSIS_DONE", "PROCESSING", "DONE", "FAILED", "STOPPED"];
    check(BATCH_MACHINE, batch, ["DONE", "FAILED"]);
    check(STATISTICAL_BATCH_MACHINE, [...batch, "PARTIAL"], ["DONE", "FAILED", "PARTIAL"]);
  });
});

/**
 * Leased units of work of a UnitObject (src/tasks/lease.ts, unit-object.ts, runner.ts) through the real queue, consumer and Durable
 * Objects: a lost message or a killed consumer is simulated by a unit that is put but never sent, or claimed by an
 * owner that never finishes and whose lease then expires; the object's alarm must re-send it, and it must run and
 * complete once. The `probe` kind runs as a leased unit when its message names `units` and `unit` (src/tasks/probe.ts).
 */
import { env } from "cloudflare:workers";
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { probeCounts } from "../../src/tasks/probe";
import { LEASE_POLICY } from "../../src/tasks/lease";
import { LeaseLostError, runLeased } from "../../src/tasks/runner";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import { unitsStub } from "../../src/tasks/runner";
import type { Env } from "../../src/env";

const E = env as unknown as Env;

/** A UnitObject, the name the probe's runs are recorded under, and the probe message of unit `u`. */
function setup(extra: Record<string, unknown> = {}) {
  const names = { units: crypto.randomUUID(), task: crypto.randomUUID() };
  const message = { kind: "probe", task: names.task, units: names.units, unit: "u", ...extra };
  return { units: unitsStub(E, names.units), task: names.task, message };
}

/** The lease of unit `id` ran out (its owner died, or its message was lost). */
const expire = (stub: ReturnType<typeof unitsStub>, id = "u") =>
  runInDurableObject(
    stub,
    (_o, state) => void state.storage.sql.exec("UPDATE task_units SET lease_until = 0 WHERE id = ?", id),
  );

/** Delivers `body` to the Worker's queue() as message `id`; the acked and retried ids. */
async function deliver(id: string, body: unknown) {
  const batch = createMessageBatch(TASK_QUEUE_NAME, [{ id, timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, E);
  const r = await getQueueResult(batch, ctx);
  return { acked: r.explicitAcks, retried: r.retryMessages.map((m) => m.msgId) };
}

const counters = (task: string) => probeCounts(E, task);

describe("leased units: the watchdog re-sends what was lost, and each unit completes once", () => {
  it("a unit put but never sent (the Worker died before the send): the alarm sends it, it runs once", async () => {
    const { units, task, message } = setup();
    await units.putUnits([{ id: "u", message }]);
    expect(await units.unit("u")).toMatchObject({ status: "PENDING", attempts: 0, owner: null, live: true });
    expect(await runDurableObjectAlarm(units)).toBe(true); // runs as at the lease's expiry
    await vi.waitFor(async () => expect(await units.unit("u")).toMatchObject({ status: "DONE", attempts: 1 }), {
      timeout: 15_000,
      interval: 100,
    });
    expect(await counters(task)).toEqual({ probes: 1 });
    // the original message arriving late: acked without work
    expect(await deliver("late", message)).toEqual({ acked: ["late"], retried: [] });
    expect(await counters(task)).toEqual({ probes: 1 });
    expect(await runDurableObjectAlarm(units)).toBe(true); // armed for the re-sent copy's lease: nothing due, disarms
    expect(await runDurableObjectAlarm(units)).toBe(false);
  });

  it("a unit whose consumer died mid-run: busy for others while leased; once expired it is re-sent, the dead owner loses it", async () => {
    const { units, task, message } = setup();
    await units.putUnits([{ id: "u", message }]);
    expect(await units.claimUnit("u", "dead#1")).toEqual({ run: true, attempt: 1, leaseMs: LEASE_POLICY.leaseMs });
    expect(await units.claimUnit("u", "other#1")).toEqual({ run: false, reason: "busy" });
    expect(await units.putUnits([{ id: "u", message }], true)).toEqual([]); // put only if idle: its work is under way
    expect(await deliver("dup", message)).toEqual({ acked: ["dup"], retried: [] }); // a duplicate delivery: no work
    expect(await counters(task)).toEqual({});
    expect(await units.renewUnit("u", "dead#1")).toBe(true);
    await expire(units);
    expect(await units.unit("u")).toMatchObject({ live: false, owner: "dead#1" });
    expect(await runDurableObjectAlarm(units)).toBe(true);
    await vi.waitFor(async () => expect(await units.unit("u")).toMatchObject({ status: "DONE", attempts: 2 }), {
      timeout: 15_000,
      interval: 100,
    });
    expect(await counters(task)).toEqual({ probes: 1 });
    expect(await units.renewUnit("u", "dead#1")).toBe(false); // the stalled owner must stop
    expect(await units.completeUnit("u", "DONE")).toBe(false); // a late completion changes nothing
  });

  it("out of attempts: the alarm dead-letters the unit; onDead runs once and it ends FAILED with the cause", async () => {
    const { units, task, message } = setup();
    await units.putUnits([{ id: "u", message }]);
    for (let i = 1; i <= LEASE_POLICY.maxAttempts; i++) {
      expect(await units.claimUnit("u", `dead#${i}`)).toMatchObject({ run: true, attempt: i });
      await expire(units);
    }
    expect(await runDurableObjectAlarm(units)).toBe(true);
    await vi.waitFor(async () => expect((await units.unit("u"))?.status).toBe("FAILED"), {
      timeout: 15_000,
      interval: 100,
    });
    expect((await units.unit("u"))?.cause).toBe(
      "No attempt finished: 3 attempt(s) were each lost (the service stopped, or the work stalled for more than 60 s) or failed.",
    );
    expect(await counters(task)).toEqual({ dead: 1 });
  });

  it("a delivery after the last attempt goes to onDead at once; a unit put again starts over", async () => {
    const { units, task, message } = setup();
    await units.putUnits([{ id: "u", message }]);
    for (let i = 1; i <= LEASE_POLICY.maxAttempts; i++) {
      await units.claimUnit("u", `dead#${i}`);
      await expire(units);
    }
    expect(await deliver("fourth", message)).toEqual({ acked: ["fourth"], retried: [] });
    expect(await counters(task)).toEqual({ dead: 1 });
    expect(await units.unit("u")).toMatchObject({ status: "FAILED", attempts: 3 });
    await units.putUnits([{ id: "u", message }]); // e.g. a reingest
    expect(await units.unit("u")).toMatchObject({ status: "PENDING", attempts: 0, owner: null, cause: null });
    expect(await deliver("again", message)).toEqual({ acked: ["again"], retried: [] });
    expect(await counters(task)).toEqual({ dead: 1, probes: 1 });
    expect(await units.unit("u")).toMatchObject({ status: "DONE", attempts: 1 });
  });

  it("a failing attempt releases the unit to the queue's retry (no owner, leased until the retry plus a lease)", async () => {
    const { units, message } = setup({ fail: true });
    await units.putUnits([{ id: "u", message }]);
    const before = Date.now();
    expect(await deliver("f", message)).toEqual({ acked: [], retried: ["f"] });
    const u = (await units.unit("u"))!;
    expect(u).toMatchObject({ status: "PENDING", attempts: 1, owner: null, live: true });
    expect(u.leaseUntil).toBeGreaterThanOrEqual(before + LEASE_POLICY.leaseMs);
  });

  it("a unit that asks to run later (RunLater) is acked, queued until then and uses none of its attempts", async () => {
    const { units, task, message } = setup({ laterMs: 600_000 });
    await units.putUnits([{ id: "u", message }]);
    // more snoozes than maxAttempts: a failing unit would be dead-lettered by now
    for (let i = 1; i <= LEASE_POLICY.maxAttempts + 1; i++) {
      const before = Date.now();
      expect(await deliver(`s${i}`, message)).toEqual({ acked: [`s${i}`], retried: [] });
      const u = (await units.unit("u"))!;
      expect(u).toMatchObject({ status: "PENDING", attempts: 0, owner: null, live: true });
      expect(u.leaseUntil).toBeGreaterThanOrEqual(before + 600_000);
      expect(u.leaseUntil).toBeLessThanOrEqual(Date.now() + 600_000);
    }
    expect(await counters(task)).toEqual({});
    // when it is due the alarm re-sends it; the unit is run (and snoozes again), never dead-lettered
    expect(await runDurableObjectAlarm(units)).toBe(true);
    await vi.waitFor(async () => expect((await units.unit("u"))!.leaseUntil).toBeGreaterThan(Date.now() + 300_000), {
      timeout: 15_000,
      interval: 100,
    });
    expect(await units.unit("u")).toMatchObject({ status: "PENDING", attempts: 0 });
  });

  it("a message whose object has no such unit (sent before units existed) runs without a lease", async () => {
    const { task, message } = setup();
    expect(await deliver("old", message)).toEqual({ acked: ["old"], retried: [] });
    expect(await counters(task)).toEqual({ probes: 1 });
  });
});

describe("runLeased: the heartbeat", () => {
  it("renews the lease every third of it while the work runs; a lost lease aborts the work's signal", async () => {
    const { units, message } = setup();
    await units.putUnits([{ id: "u", message }]);
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      let signal!: AbortSignal;
      let finish!: () => void;
      const run = runLeased(
        { stub: units, unit: "u" },
        "me#1",
        (s) => ((signal = s), new Promise<void>((r) => (finish = r))),
      );
      await vi.waitFor(async () => expect((await units.unit("u"))?.owner).toBe("me#1"));
      const first = (await units.unit("u"))!.leaseUntil;
      await new Promise((r) => setTimeout(r, 20)); // (real time passes, so a renewal moves the lease)
      await vi.advanceTimersByTimeAsync(LEASE_POLICY.leaseMs / 3);
      await vi.waitFor(async () => expect((await units.unit("u"))!.leaseUntil).toBeGreaterThan(first));
      await units.putUnits([{ id: "u", message }]); // the unit started over elsewhere: this owner lost it
      await vi.advanceTimersByTimeAsync(LEASE_POLICY.leaseMs / 3);
      await vi.waitFor(() => expect(signal.aborted).toBe(true));
      expect(signal.reason).toBeInstanceOf(LeaseLostError);
      finish();
      expect(await run).toEqual({ ran: true, value: undefined });
    } finally {
      vi.useRealTimers();
    }
  });
});

/**
 * Tests' access to a task's engine object beyond its stub's verbs (through runInDurableObject): the task and units as
 * stored, and engine calls made with the queue muted, so that units are leased as if sent but nothing runs behind
 * the test's back.
 */
import { runInDurableObject } from "cloudflare:test";
import type { Env } from "../../src/env";
import type { TaskEngine } from "../../src/tasks/engine";
import type { Inspection } from "../../src/tasks/verbs";
import { PLAN_UNIT } from "../../src/tasks/messages";
import type { PlannedUnit } from "../../src/tasks/plugin";
import type { TaskStub } from "../../src/tasks/stub";

const muted = { sendBatch: async () => {} };

/** The task and its units as stored (TaskEngine.inspect); the units' ids as planned (or "plan", "assemble"). */
export const inspect = (stub: TaskStub): Promise<Inspection> =>
  runInDurableObject(stub as never, (o: TaskEngine) => o.inspect()!);

/** Runs `f` on the engine object with its queue producers muted (messages are not sent). */
export function quietly<T>(stub: TaskStub, f: (engine: TaskEngine) => Promise<T>): Promise<T> {
  return runInDurableObject(stub as never, async (o: TaskEngine) => {
    const holder = o as unknown as { env: Env };
    const env = holder.env;
    holder.env = { ...env, TASK_QUEUE: muted, HEAVY_QUEUE: muted, INGEST_QUEUE: muted } as unknown as Env;
    try {
      return await f(o);
    } finally {
      holder.env = env;
    }
  });
}

/**
 * Analyses a CREATED task of `account` with `units` as its plan, without sending a message: ANALYSIS_DONE, or
 * PROCESSING with every unit leased as if sent when `start`.
 */
export const planTask = (
  stub: TaskStub,
  account: string,
  units: PlannedUnit[],
  estimatePU: number | null = null,
  start = false,
) =>
  quietly(stub, async (o) => {
    await o.act(account, start ? "START" : "ANALYSE");
    await o.end(PLAN_UNIT, "test", { plan: { units, estimatePU } });
  });

/** Sets a stored field of the task row or a unit row (a deadline reached, a lease run out). */
export const setRow = (stub: TaskStub, sql: string, ...params: SqlStorageValue[]) =>
  runInDurableObject(stub as never, (_o, state) => void state.storage.sql.exec(sql, ...params));

/** The task's state as stored. */
export const stateOf = async (stub: TaskStub): Promise<string> => (await inspect(stub)).state;

/** Unit `id` (as planned) as stored. */
export const unitOf = async (stub: TaskStub, id: string) => (await inspect(stub)).units.find((u) => u.id === id);

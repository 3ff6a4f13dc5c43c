/**
 * Async requests driven without the background queue: a request stored in its engine object and put in PROCESSING
 * with its strip units leased as if sent, but no message sent (so nothing runs behind the test's back).
 */
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env";
import { asyncPlugin, stripUnitId } from "../../src/async/plugin";
import type { AsyncRecord } from "../../src/async/schema";
import type { Task } from "../../src/tasks/plugin";
import { ASSEMBLE_UNIT, unitMessage } from "../../src/tasks/messages";
import { taskStub } from "../../src/tasks/stub";
import { planTask, quietly } from "./taskengine";

const E = env as unknown as Env;

/** The first strip unit of a request (its only one up to ASYNC_UNIT_PIXELS). */
export const FIRST_STRIP = stripUnitId(0);
/** The engine stub of async request `id`. */
export const asyncStub = (id: string) => taskStub(asyncPlugin, E, id);
/** The message of strip unit `unit` of request `id`. */
export const renderMessage = (id: string, unit = FIRST_STRIP) => unitMessage("async", id, unit, "heavy");

/**
 * Stores `record` as a RUNNING request (engine state PROCESSING, its strip units leased, no message sent); its stub.
 * A request whose grid cannot be planned (tests of failures) gets one unit of one row.
 */
export async function runningRequest(record: AsyncRecord) {
  const { request, ...init } = record;
  const stub = asyncStub(record.id);
  await stub.create(init, request, false);
  const { units } = await asyncPlugin
    .plan(E, record as unknown as Task<AsyncRecord["request"]>)
    .catch(() => ({ units: [{ id: FIRST_STRIP, data: { row: 0, rows: 1 } }] }));
  await planTask(stub, record.account, units, null, true);
  return stub;
}

/** Counts the request's one strip unit done with `pu` and records its assembly (no file written): DONE. */
export async function finishRequest(id: string, pu: number): Promise<void> {
  await quietly(asyncStub(id), async (o) => {
    await o.end(FIRST_STRIP, "test", { result: { pu } });
    await o.end(ASSEMBLE_UNIT, "test", { assembled: true });
  });
}

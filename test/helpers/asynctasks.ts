/**
 * Async requests driven without the background queue: a request stored in its engine object and put in PROCESSING
 * with its render leased as if sent, but no message sent (so nothing runs behind the test's back).
 */
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env";
import { asyncPlugin, RENDER_UNIT } from "../../src/async/plugin";
import type { AsyncRecord } from "../../src/async/schema";
import { leaseId, unitMessage } from "../../src/tasks/messages";
import { taskStub } from "../../src/tasks/stub";

const E = env as unknown as Env;

/** The engine stub of async request `id`. */
export const asyncStub = (id: string) => taskStub(asyncPlugin, E, id);
/** The render's message of request `id`. */
export const renderMessage = (id: string) => unitMessage("async", id, RENDER_UNIT, "heavy");
/** The render's lease id in its object. */
export const RENDER_LEASE = leaseId(RENDER_UNIT);

/** Stores `record` as a RUNNING request (engine state PROCESSING, render leased, no message sent); its stub. */
export async function runningRequest(record: AsyncRecord) {
  const { request, ...init } = record;
  const stub = asyncStub(record.id);
  await stub.create(init, request, false);
  await stub.transition("ANALYSING");
  await stub.planned([{ id: RENDER_UNIT, data: null }], null);
  await stub.putUnits([{ id: RENDER_LEASE, message: renderMessage(record.id) }]);
  await stub.transition("PROCESSING");
  return stub;
}

/**
 * The `async-process` queue kind: `{kind: "async-process", id}` runs request `id` (./render.ts) and ends it in
 * its Durable Object, once (a redelivery of a finished request changes nothing). It runs as the request's leased
 * render unit ({@link asyncUnit}): a duplicate delivery while it renders is acked without work, a render lost with
 * its Worker is sent again by the object's lease watchdog.
 * - Success: DONE with its processing units, charged to the account once (src/accounts/units.ts, charge id
 *   `async:<id>`, before the request is ended: a render killed between the two charges nothing more when it is
 *   run again); `request.json` updated.
 * - A failure the client must fix (ApiError 4xx, EngineError: bad script, unknown identifier, ...): FAILED at
 *   once, `error.json` written (./record.ts).
 * - Any other failure is retried (wrangler.toml max_retries, backoff of src/tasks/queue.ts); a message that
 *   fails every attempt (or a render whose every attempt was lost) reaches the onDead hook, which FAILS the
 *   request the same way, with the cause.
 */
import type { Env } from "../env";
import { ApiError, kindedError } from "../http/errors";
import type { TaskMessage } from "../tasks/queue";
import type { UnitRef } from "../tasks/runner";
import { unwrap } from "../tasks/machine";
import { chargeUnits } from "../accounts/units";
import { asLocation } from "../locations/hosting";
import { RENDER_UNIT, type AsyncRecord } from "./object";
import { writeFailure, writeRequestCopy } from "./record";
import { renderAsync } from "./render";

export const ASYNC_KIND = "async-process";

/** The message of request `id`. */
export const asyncMessage = (id: string): TaskMessage => ({ kind: ASYNC_KIND, id });

/** The AsyncTask stub of a request id. */
export const asyncStub = (env: Env, id: string) => env.ASYNC_TASKS.get(env.ASYNC_TASKS.idFromName(id));

/** The render unit a message runs (the `lease` of the kind, src/tasks/queue.ts). */
export const asyncUnit = (body: TaskMessage, env: Env): UnitRef | null => (typeof body.id === "string" ? { stub: asyncStub(env, body.id), unit: RENDER_UNIT } : null);

/** True for failures a retry cannot fix. */
const clientError = (e: unknown): boolean => (e instanceof ApiError && e.status < 500) || kindedError(e) !== undefined;

/** The record of a message's request while it is RUNNING; null when it is unknown or finished. @throws Error without an id */
async function runningRecord(env: Env, body: TaskMessage): Promise<AsyncRecord | null> {
  if (typeof body.id !== "string" || body.id === "") throw new Error("async-process message without a request id");
  const stub = asyncStub(env, body.id);
  const [record, task] = await Promise.all([stub.record(), stub.snapshot()]);
  if (!record) console.error(`async: message for unknown request ${body.id}; dropped`);
  return record && task.state === "RUNNING" ? (record as AsyncRecord) : null;
}

/** Ends a request as FAILED with `error` written to its bucket. */
async function fail(env: Env, record: AsyncRecord, error: unknown): Promise<void> {
  await writeFailure(env, record, error);
  unwrap(await asyncStub(env, record.id).finish("FAILED"));
}

/** Queue handler of ASYNC_KIND; `signal` aborts the render when its lease was lost. */
export async function runAsyncMessage(body: TaskMessage, env: Env, _message: Message<unknown>, signal?: AbortSignal): Promise<void> {
  const record = await runningRecord(env, body);
  if (!record) return;
  let units: number;
  try {
    units = await renderAsync(asLocation(env, record.location), record, signal);
  } catch (e) {
    if (!clientError(e)) throw e;
    return fail(env, record, e);
  }
  await writeRequestCopy(env, record, "DONE", { finished: new Date().toISOString(), processingUnits: units });
  await chargeUnits(env, record.account, units, `async:${record.id}`);
  unwrap(await asyncStub(env, record.id).finish("DONE", units));
}

/** Dead-letter hook: the request FAILS (its message failed every attempt, or `cause`: every attempt was lost). */
export async function deadAsyncMessage(body: TaskMessage, env: Env, message: Message<unknown>, cause?: string): Promise<void> {
  const record = await runningRecord(env, body);
  if (record) await fail(env, record, new ApiError(500, cause ?? `Processing failed after ${message.attempts} attempts.`));
}

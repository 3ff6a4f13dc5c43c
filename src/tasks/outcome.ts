/**
 * Results of user actions on a task that may be refused: they cross RPC as data (an Error loses its class there) and
 * the routes turn a refusal into the one answer every task API gives when a task's state forbids an action: 409
 * COMMON_CONFLICT with a message naming the state (Sentinel Hub's OpenAPI gives 409 for updating a batch task being
 * processed; the same answer for every other state rejection keeps one code for one cause).
 */
import { ApiError } from "../http/errors";

export type Refusal = { ok: false; message: string };
export type Outcome<T> = { ok: true; value: T } | Refusal;

/** The status of a state rejection. */
export const STATE_CONFLICT = 409;

/** A refusal naming the task's state. */
export const refuse = (message: string): Refusal => ({ ok: false, message });

/** The value of an outcome. @throws ApiError 409 COMMON_CONFLICT with the refusal's message. */
export function accepted<T>(o: Outcome<T>): T {
  if (!o.ok) throw new ApiError(STATE_CONFLICT, o.message);
  return o.value;
}

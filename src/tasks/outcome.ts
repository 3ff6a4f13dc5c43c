/**
 * Results of user actions on a task that may be refused: they cross RPC as data (an Error loses its class there).
 * A refusal names the task's state and the action it forbids; the area's API words it (src/taskapi/api.ts: 409
 * COMMON_CONFLICT naming the state).
 */
import type { UserAction } from "./machines";

/** What was refused: a user action, or UPDATE (a description change, Batch v2 PUT). */
export type Refusal = { ok: false; state: string; action: Exclude<UserAction, "NONE"> | "UPDATE" };
export type Outcome<T> = { ok: true; value: T } | Refusal;

/** A refusal of `action` in `state`. */
export const refuse = (state: string, action: Refusal["action"]): Refusal => ({ ok: false, state, action });

/**
 * The plug-in contract of the task engine (./engine.ts). The engine owns everything a task's lifecycle needs: the
 * record (./records.ts: request in R2 when large, S3 keys write-only), the state machine with ANALYSE / START / STOP
 * and `userAction`, its units of work (each a leased unit, ./lease.ts, counted exactly once, re-sent by the
 * watchdog only when its lease expired), processing-unit charging with OUT_OF_PU, the D1 listing mirror
 * (./listing.ts), ownership (every call names the account; another account's task is null = 404) and one typed stub
 * (./stub.ts). An area (async, batch, statbatch, third-party import) supplies what is its own:
 * - `plan`: the task's units (each an id unique in the task and JSON data) and its cost estimate, run once by the
 *   queue consumer while the task is ANALYSING. Throwing a client error (ApiError 4xx, an EngineError kind) FAILS the
 *   task with its message; other errors are retried.
 * - `run`: one unit's work, returning its processing units, or `error` for a unit that failed for good (counted
 *   failed). A client error thrown counts the unit failed with its message; other errors are retried (the unit fails
 *   with "(after N attempts)" after the lease's last attempt, or with the dead-letter cause). Throwing RunLater
 *   (./runner.ts) snoozes the unit: it runs again after the delay, uncounted and without using an attempt (a
 *   provider still preparing an order); the plug-in's `timeoutMs` bounds a unit that never gets ready.
 * - `assemble` (optional): runs once after the last unit, as a unit of its own, before the task is DONE (an async
 *   request's file assembled from its strips).
 * - hooks `dead` (a unit given up: e.g. write its error file) and `ended` (once the task is terminal).
 * Registration: src/tasks-registry.ts (beside src/routes.ts) binds each plug-in to its Durable Object class and
 * the queue consumer; the engine imports no area.
 */
import type { Env } from "../env";
import type { TaskMachine } from "./machine";
import type { UserAction } from "./machines";
import type { QueueName } from "./messages";

/** The HTTP status and envelope code of a client error that failed a task or a unit. */
export interface Failure {
  status: number;
  code: string;
}

/** Why a STOPPED task stopped (Sentinel Hub's values). */
export type StoppedReason = "OUT_OF_PU" | "USER_ACTION";

/** A task as the engine hands it to its plug-in (times ISO 8601 UTC, `pu` in processing units). */
export interface Task<R = unknown> {
  id: string;
  account: string;
  created: string;
  /** Location id that accepted it; its units run as that location. */
  location?: string;
  /** The request; with its S3 keys only in `plan`, `run`, `assemble`, `dead`, `ended` (never in an API's view). */
  request: R;
  description?: string;
  state: string;
  lastUpdated: string;
  userAction: UserAction;
  userActionUpdated: string;
  error?: string;
  /** HTTP status and envelope code of the failure that FAILED the task (a unit's client error), when known. */
  failure?: Failure;
  stoppedStatusReason?: StoppedReason;
  /** Processing units estimated by the plan (null before). */
  estimatePU: number | null;
  /** Units planned (null before the plan). */
  units: number | null;
  done: number;
  failed: number;
  pu: number;
}

/** One unit of a plan: an id unique within the task (no `:`) and its data (JSON; kept in R2 when large). */
export interface PlannedUnit<U = unknown> {
  id: string;
  data: U;
}

export interface Plan<U = unknown> {
  units: PlannedUnit<U>[];
  estimatePU: number | null;
}

/** What a unit's run gives: its processing units, and `error` when it failed for good (then counted failed). */
export interface UnitResult {
  pu: number;
  error?: string;
  /** The failure's HTTP status and envelope code (a plug-in whose first failure FAILS the task: `failFast`). */
  failure?: Failure;
}

/** A unit handed to `run`: its id and data; `remember` keeps a value for the unit, the first one kept winning. */
export interface UnitWork<U = unknown> {
  id: string;
  data: U;
  /** The value remembered by an earlier attempt of this unit, or null. */
  memo: string | null;
  remember(value: string): Promise<string>;
}

/**
 * A task kind's plug-in: the core the engine runs (see the module docs). `R`: its request; `U`: its units' data.
 * What only its API needs (the view, the nouns of its messages, which user actions it has) is the area's own,
 * beside its routes (src/taskapi/api.ts TaskApi).
 */
export interface TaskPlugin<R = any, U = any> {
  /** Kind name, e.g. "batch": the listing's `kind` and the `ns` of queue messages. */
  readonly kind: string;
  /** Its states and edges, and the names its stored errors use (./machine.ts). */
  readonly machine: TaskMachine<string>;
  /** Where its units go (wrangler.toml): `heavy` for units of seconds of CPU (tiles, strips), `light` else. */
  readonly queue: Exclude<QueueName, "ingest">;
  /** The Durable Object namespace holding its tasks (one object per task id). */
  namespace(env: Env): DurableObjectNamespace;
  /** True: the first failed unit FAILS the task (async). */
  readonly failFast?: boolean;
  /** A task not finished this long after creation FAILS (ms). */
  readonly timeoutMs?: number;
  plan(env: Env, task: Task<R>): Promise<Plan<U>>;
  run(env: Env, task: Task<R>, unit: UnitWork<U>, signal?: AbortSignal): Promise<UnitResult>;
  assemble?(env: Env, task: Task<R>): Promise<void>;
  /** A unit given up (its attempts lost or dead-lettered) with `cause`, before it is counted failed. */
  dead?(env: Env, task: Task<R>, unit: PlannedUnit<U>, cause: string): Promise<void>;
  /** Once, when the task reached a terminal state (DONE, FAILED, PARTIAL). */
  ended?(env: Env, task: Task<R>): Promise<void>;
}

/**
 * The arguments and answers of the engine's verbs (./engine.ts) that cross RPC: a new task, what `begin` answers,
 * how `end` is told a unit ended, and the stored state `inspect` shows (diagnostics and tests).
 */
import type { Failure, Plan, Task, UnitResult } from "./plugin";

/** A new task: id, account, creation time and location (the engine sets the rest). */
export type NewTask = Pick<Task, "id" | "account" | "created" | "location" | "description">;

/** A unit as `begin` hands it out: its planned id (or PLAN_UNIT, ASSEMBLE_UNIT), data and memo. */
export interface BegunUnit {
  id: string;
  data: unknown;
  memo: string | null;
}

/**
 * What `begin` answers: run it (the task with its secret keys, the unit, renew within leaseMs), or why not: unknown,
 * finished, busy (another delivery's lease runs), idle (its task does not need it now), or exhausted (out of
 * attempts: the caller gives it up with `cause`, the task and unit given for the plug-in's `dead` hook).
 */
export type Begin =
  | { run: true; task: Task; unit: BegunUnit; leaseMs: number }
  | { run: false; reason: "unknown" | "finished" | "busy" | "idle" }
  | { run: false; reason: "exhausted"; cause: string; task: Task; unit: BegunUnit };

/**
 * How a unit ended, as `end` records it: a planned unit's result (counted done, or failed with `error`), the plan,
 * the assembly, a client error failing the task, a transient error (`retry`: counted failed after the last attempt,
 * else retried by the queue in retryMs), RunLater (`later` ms, no attempt used), or given up (`dead` with the cause).
 */
export type UnitEnd =
  | { result: UnitResult }
  | { plan: Plan }
  | { assembled: true }
  | { fail: string; failure?: Failure }
  | { retry: string; retryMs: number }
  | { later: number }
  | { dead: string };

/** A unit as the engine shows it (diagnostics, tests): its planned id, lease and outcome. */
export interface UnitState {
  id: string;
  status: string;
  attempts: number;
  owner: string | null;
  leaseUntil: number;
  error: string | null;
  memo: string | null;
  pu: number;
}

/** The task and its units as stored (diagnostics and tests; not on the stub). */
export interface Inspection {
  state: string;
  done: number;
  failed: number;
  pu: number;
  deadline: number | null;
  /** The planned units, in order. */
  units: UnitState[];
  /** The plan and assembly units (when leased once). */
  phases: UnitState[];
}

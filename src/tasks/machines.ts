/**
 * Sentinel Hub's task lifecycles (interface spec "States and transitions"; the edges are those of the workflow
 * diagrams in docs.sentinel-hub.com/api/latest/api/batchv2 and .../api/batch-statistical, since the spec does not
 * show them): user actions ANALYSE and START move CREATED to ANALYSING, START moves ANALYSIS_DONE (or a STOPPED
 * task) on to PROCESSING, STOP stops any running phase; DONE and FAILED (and PARTIAL) are terminal. A kind without
 * user actions (async, third-party import) has no STOPPED: nothing stops it (not even an account out of units).
 */
import type { TaskMachine } from "./machine";

export type BatchState = "CREATED" | "ANALYSING" | "ANALYSIS_DONE" | "PROCESSING" | "DONE" | "FAILED" | "STOPPED";
export type StatisticalBatchState = BatchState | "PARTIAL";

/** The last user action on a batch or statistical batch task (the tasks' `userAction` member). */
export type UserAction = "NONE" | "ANALYSE" | "START" | "STOP";

const BATCH_EDGES = {
  CREATED: ["ANALYSING"],
  ANALYSING: ["ANALYSIS_DONE", "FAILED", "STOPPED"],
  ANALYSIS_DONE: ["PROCESSING", "STOPPED"],
  PROCESSING: ["DONE", "FAILED", "STOPPED"],
  STOPPED: ["ANALYSING", "PROCESSING"],
  DONE: [],
  FAILED: [],
} as const satisfies Record<BatchState, readonly BatchState[]>;

/** Batch Processing v2 task (`/api/v2/batch/process`). */
export const BATCH_MACHINE: TaskMachine<BatchState> = {
  name: "batch process task",
  units: "tiles",
  initial: "CREATED",
  transitions: BATCH_EDGES,
};

/** The batch edges without STOPPED (a kind without user actions). */
const UNSTOPPABLE_EDGES = {
  CREATED: ["ANALYSING"],
  ANALYSING: ["ANALYSIS_DONE", "FAILED"],
  ANALYSIS_DONE: ["PROCESSING"],
  PROCESSING: ["DONE", "FAILED"],
  STOPPED: [],
  DONE: [],
  FAILED: [],
} as const satisfies Record<BatchState, readonly BatchState[]>;

/**
 * An Async Processing request (`/api/v1/async/process`): started at submission, never stopped; the API shows RUNNING
 * until it is DONE or FAILED (src/async/plugin.ts). (STOPPED is listed, unreachable, to keep the state type.)
 */
export const ASYNC_MACHINE: TaskMachine<BatchState> = {
  name: "async process request",
  units: "strips",
  initial: "CREATED",
  transitions: UNSTOPPABLE_EDGES,
};

/** The batch edges plus PARTIAL (some units failed) after PROCESSING. */
const PARTIAL_EDGES = {
  ...BATCH_EDGES,
  PROCESSING: [...BATCH_EDGES.PROCESSING, "PARTIAL"],
  PARTIAL: [],
} as const satisfies Record<StatisticalBatchState, readonly StatisticalBatchState[]>;

/** Statistical Batch task (`/api/v1/statistics/batch`): as batch, plus PARTIAL (some features failed) after PROCESSING. */
export const STATISTICAL_BATCH_MACHINE: TaskMachine<StatisticalBatchState> = {
  name: "statistical batch task",
  units: "features",
  initial: "CREATED",
  transitions: PARTIAL_EDGES,
};

/**
 * The engine task of a third-party order or subscription (src/dataimport/plugin.ts; the spec's Order and
 * Subscription tables show no inner states, so the engine's phases are those of a statistical batch task): it ends
 * DONE, PARTIAL (some deliveries failed: an order's PARTIAL) or FAILED; its record's status is written from that end.
 * No timeout: a subscription runs until its timeRange.to, or until cancelled; no user actions, so no STOPPED.
 */
export const IMPORT_MACHINE: TaskMachine<StatisticalBatchState> = {
  name: "third-party import task",
  units: "deliveries",
  initial: "CREATED",
  transitions: { ...UNSTOPPABLE_EDGES, PROCESSING: [...UNSTOPPABLE_EDGES.PROCESSING, "PARTIAL"], PARTIAL: [] },
};

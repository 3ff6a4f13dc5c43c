/**
 * Sentinel Hub's task lifecycles (interface spec "States and transitions"; the edges are those of the workflow
 * diagrams in docs.sentinel-hub.com/api/latest/api/batchv2 and .../api/batch-statistical, since the spec does not
 * show them): user actions ANALYSE and START move CREATED to ANALYSING, START moves ANALYSIS_DONE (or a STOPPED
 * task) on to PROCESSING, STOP stops any running phase; DONE and FAILED (and PARTIAL) are terminal.
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

/** Batch Processing v2 task (`/api/v2/batch/process`). A timed-out task is FAILED. */
export const BATCH_MACHINE: TaskMachine<BatchState> = {
  name: "batch process task",
  initial: "CREATED",
  transitions: BATCH_EDGES,
  timeoutTo: "FAILED",
};

/** The batch edges plus PARTIAL (some units failed) after PROCESSING. */
const PARTIAL_EDGES = { ...BATCH_EDGES, PROCESSING: [...BATCH_EDGES.PROCESSING, "PARTIAL"], PARTIAL: [] } as const satisfies Record<StatisticalBatchState, readonly StatisticalBatchState[]>;

/** Statistical Batch task (`/api/v1/statistics/batch`): as batch, plus PARTIAL (some features failed) after PROCESSING. */
export const STATISTICAL_BATCH_MACHINE: TaskMachine<StatisticalBatchState> = {
  name: "statistical batch task",
  initial: "CREATED",
  transitions: PARTIAL_EDGES,
  timeoutTo: "FAILED",
};

/**
 * The engine task of a third-party order or subscription (src/dataimport/plugin.ts; the spec's Order and
 * Subscription tables show no inner states, so the engine's phases are those of a statistical batch task): it ends
 * DONE, PARTIAL (some deliveries failed: an order's PARTIAL) or FAILED; its record's status is written from that end.
 * No timeout: a subscription runs until its timeRange.to, or until cancelled.
 */
export const IMPORT_MACHINE: TaskMachine<StatisticalBatchState> = {
  name: "third-party import task",
  initial: "CREATED",
  transitions: PARTIAL_EDGES,
};

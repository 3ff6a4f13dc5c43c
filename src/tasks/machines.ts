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

/** Statistical Batch task (`/api/v1/statistics/batch`): as batch, plus PARTIAL (some features failed) after PROCESSING. */
export const STATISTICAL_BATCH_MACHINE: TaskMachine<StatisticalBatchState> = {
  name: "statistical batch task",
  initial: "CREATED",
  transitions: { ...BATCH_EDGES, PROCESSING: [...BATCH_EDGES.PROCESSING, "PARTIAL"], PARTIAL: [] },
  timeoutTo: "FAILED",
};

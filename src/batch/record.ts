/**
 * A Batch Processing v2 task as stored in its Durable Object and as the API answers it (OpenAPI
 * `BatchV2ProcessTask`): id, request, status, userAction, times, completionPercentage, costPU,
 * stoppedStatusReason, error; domainAccountId / projectId / workspaceId are the owning account.
 */
import type { BatchState, UserAction } from "../tasks/machines";
import type { BatchRequest } from "./schema";

export type { UserAction } from "../tasks/machines";
export type StoppedReason = "OUT_OF_PU" | "USER_ACTION" | "UNHEALTHY";

/** The stored fields of a task besides its state and counters. */
export interface TaskRecord {
  id: string;
  account: string;
  request: BatchRequest;
  created: string;
  userAction: UserAction;
  userActionUpdated: string;
  /** Location id that accepted it (LOCATION_ID of the request's env); its tiles are processed as that location. */
  location?: string;
  /** Set when analysis or processing failed. */
  error?: string;
  stoppedStatusReason?: StoppedReason;
  /** Processing units estimated at analysis (null before). */
  estimatePU: number | null;
  /** Tiles found by the analysis (null before). */
  tileCount: number | null;
}

/** The task JSON of the API. */
export interface TaskView {
  id: string;
  request: BatchRequest;
  domainAccountId: string;
  projectId: string;
  workspaceId: string;
  status: BatchState;
  error?: string;
  userAction: UserAction;
  userActionUpdated: string;
  created: string;
  completionPercentage: number;
  lastUpdated: string;
  costPU?: number;
  stoppedStatusReason?: StoppedReason;
}

/** Tile counters of a task (`tilesDone` includes skipped tiles; `pu` is the processing units spent). */
export interface TileCounters {
  tilesDone?: number;
  tilesFailed?: number;
  pu?: number;
}

/**
 * The API view of a task: costPU is the analysis estimate until the task is DONE or FAILED, then the processing
 * units charged (spent on processed tiles); completionPercentage counts finished (done or failed) tiles, 100 once DONE.
 */
export function taskView(r: TaskRecord, status: BatchState, updated: string, counters: TileCounters): TaskView {
  const finished = (counters.tilesDone ?? 0) + (counters.tilesFailed ?? 0);
  const ended = status === "DONE" || status === "FAILED";
  const completion = status === "DONE" ? 100 : r.tileCount ? Math.round((10000 * finished) / r.tileCount) / 100 : 0;
  const cost = ended && r.tileCount !== null ? Math.round((counters.pu ?? 0) * 1e6) / 1e6 : r.estimatePU;
  return {
    id: r.id,
    request: r.request,
    domainAccountId: r.account,
    projectId: r.account,
    workspaceId: r.account,
    status,
    ...(r.error !== undefined ? { error: r.error } : {}),
    userAction: r.userAction,
    userActionUpdated: r.userActionUpdated,
    created: r.created,
    completionPercentage: completion,
    lastUpdated: updated || r.created,
    ...(cost !== null ? { costPU: cost } : {}),
    ...(status === "STOPPED" && r.stoppedStatusReason ? { stoppedStatusReason: r.stoppedStatusReason } : {}),
  };
}

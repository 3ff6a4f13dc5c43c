/**
 * Batch Processing v2 as a plug-in of the task engine (src/tasks/plugin.ts): the plan lists the output tiles and
 * estimates the cost (./analyse.ts), a unit is one tile (./execute.ts), and the view is the API's task (OpenAPI
 * `BatchV2ProcessTask`, {@link taskView}). The engine ends the task DONE, or FAILED when every tile failed.
 */
import { BATCH_MACHINE } from "../tasks/machines";
import type { Task, TaskPlugin } from "../tasks/plugin";
import { planTiles } from "./analyse";
import { runTile } from "./execute";
import type { BatchRequest } from "./schema";
import type { BatchTile } from "./tiles";

/**
 * The API view of a task: the request with its current description, costPU 0 before analysis (as statistical batch
 * shows it), the analysis estimate until the task is DONE or FAILED, then the processing units charged (spent on processed tiles), costMC 0 (no monitoring credits are
 * spent); completionPercentage counts finished (done or failed) tiles, 100 once DONE; domainAccountId, projectId and
 * workspaceId are the owning account.
 */
export function taskView(t: Task<BatchRequest>): Record<string, unknown> {
  const ended = t.state === "DONE" || t.state === "FAILED";
  const completion = t.state === "DONE" ? 100 : t.units ? Math.round((10000 * (t.done + t.failed)) / t.units) / 100 : 0;
  const cost = ended && t.units !== null ? t.pu : t.estimatePU;
  return {
    id: t.id,
    request: { ...t.request, ...(t.description !== undefined ? { description: t.description } : {}) },
    domainAccountId: t.account,
    projectId: t.account,
    workspaceId: t.account,
    status: t.state,
    ...(t.error !== undefined ? { error: t.error } : {}),
    userAction: t.userAction,
    userActionUpdated: t.userActionUpdated,
    created: t.created,
    completionPercentage: completion,
    lastUpdated: t.lastUpdated,
    costPU: cost ?? 0,
    costMC: 0,
    ...(t.state === "STOPPED" && t.stoppedStatusReason ? { stoppedStatusReason: t.stoppedStatusReason } : {}),
  };
}

export const batchPlugin: TaskPlugin<BatchRequest, BatchTile> = {
  kind: "batch",
  noun: "batch process task",
  unitNoun: "tiles",
  machine: BATCH_MACHINE,
  queue: "heavy",
  namespace: (env) => env.BATCH_TASKS,
  userActions: true,
  plan: planTiles,
  run: runTile,
  view: taskView,
};

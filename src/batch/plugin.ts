/**
 * Batch Processing v2 as a plug-in of the task engine (src/tasks/plugin.ts): the plan lists the output tiles and
 * estimates the cost (./analyse.ts), a unit is one tile (./execute.ts). The engine ends the task DONE, or FAILED
 * when every tile failed. Its API (the task's view, user actions) is ./routes.ts.
 */
import { BATCH_MACHINE } from "../tasks/machines";
import type { TaskPlugin } from "../tasks/plugin";
import { planTiles } from "./analyse";
import { runTile } from "./execute";
import type { BatchRequest } from "./schema";
import type { BatchTile } from "./tiles";

export const batchPlugin: TaskPlugin<BatchRequest, BatchTile> = {
  kind: "batch",
  machine: BATCH_MACHINE,
  queue: "heavy",
  namespace: (env) => env.BATCH_TASKS,
  plan: planTiles,
  run: runTile,
};

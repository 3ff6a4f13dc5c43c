/** The BatchTask Durable Object of a task id, and the leased units its messages run. */
import type { Env } from "../env";
import type { TaskMessage } from "../tasks/queue";
import type { UnitRef } from "../tasks/runner";
import { ANALYSIS_UNIT, tileUnitId } from "./messages";

/** The BatchTask stub of task `id` (BATCH_TASKS, one object per task, named by its id). */
export const batchStub = (env: Env, id: string) => env.BATCH_TASKS.get(env.BATCH_TASKS.idFromName(id));

/** The leased unit of a `batch-analyse` message (the kind's `lease`). */
export const batchAnalysisUnit = (body: TaskMessage, env: Env): UnitRef | null => (typeof body.task === "string" ? { stub: batchStub(env, body.task), unit: ANALYSIS_UNIT } : null);

/** The leased unit of a `batch-tile` message (the kind's `lease`). */
export const batchTileUnit = (body: TaskMessage, env: Env): UnitRef | null =>
  typeof body.task === "string" && typeof body.tile === "string" ? { stub: batchStub(env, body.task), unit: tileUnitId(body.tile) } : null;

/** The BatchTask Durable Object of a task id. */
import type { Env } from "../env";

/** The BatchTask stub of task `id` (BATCH_TASKS, one object per task, named by its id). */
export const batchStub = (env: Env, id: string) => env.BATCH_TASKS.get(env.BATCH_TASKS.idFromName(id));

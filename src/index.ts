/** Worker entry: the HTTP API (`fetch`), the task queue consumer (`queue`) and the Durable Object classes. */
import type { Env } from "./env";
import { buildApi } from "./routes";
import { queueRouter } from "./tasks/kinds";

export { TaskObject } from "./tasks/task-object";
export { AsyncTask } from "./async/object";
export { BatchTask } from "./batch/object";
export { StatisticalBatchTask } from "./statbatch/object";
export { RateLimiter } from "./ratelimit/object";

const api = buildApi();

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    return api.fetch(request, env, ctx);
  },
  queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    return queueRouter.consume(batch, env);
  },
} satisfies ExportedHandler<Env>;

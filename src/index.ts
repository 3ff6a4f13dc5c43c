/** Worker entry: the HTTP API (`fetch`), the task queue consumer (`queue`) and the Durable Object classes. */
import type { Env } from "./env";
import { atLocation } from "./locations/hosting";
import { buildApi } from "./routes";
import { queueRouter } from "./tasks/kinds";
import { isS3Request, serveS3 } from "./s3";

export { TaskObject } from "./tasks/task-object";
export { AsyncTask } from "./async/object";
export { BatchTask } from "./batch/object";
export { StatisticalBatchTask } from "./statbatch/object";
export { RateLimiter } from "./ratelimit/object";

const api = buildApi();

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (isS3Request(request)) return serveS3(request, env); // S3-compatible endpoint: SigV4, XML errors (src/s3)
    return api.fetch(request, atLocation(request, env), ctx);
  },
  queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    return queueRouter.consume(batch, env);
  },
} satisfies ExportedHandler<Env>;

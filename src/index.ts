/** Worker entry: the HTTP API (`fetch`), the task queue consumer (`queue`) and the Durable Object classes. */
import type { Env } from "./env";
import { atLocation } from "./locations/hosting";
import { buildApi } from "./routes";
import { queueRouter } from "./tasks/kinds";
import { isS3Request, serveS3 } from "./s3";
import { signingKey } from "./auth/keys";
import { builtinCollections } from "./storage/registry";

export { TaskObject } from "./tasks/task-object";
export { AsyncTask } from "./async/object";
export { BatchTask } from "./batch/object";
export { StatisticalBatchTask } from "./statbatch/object";
export { RateLimiter } from "./ratelimit/object";
export { UnitObject } from "./tasks/unit-object";

const api = buildApi();
let warmed = false;

/**
 * On an isolate's first request: loads what most requests need next (the token signing key, the built-in
 * collections) in the background, while the request itself is read, verified and limited, instead of one after
 * the other on its critical path. Both are cached per isolate by their modules; a failure here is ignored (the
 * request that needs it fails or retries on its own).
 */
function warmUp(env: Env, ctx: ExecutionContext): void {
  if (warmed) return;
  warmed = true;
  ctx.waitUntil(Promise.allSettled([signingKey(env), builtinCollections(env)]));
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (isS3Request(request)) return serveS3(request, env); // S3-compatible endpoint: SigV4, XML errors (src/s3)
    warmUp(env, ctx);
    return api.fetch(request, atLocation(request, env), ctx);
  },
  queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    return queueRouter.consume(batch, env);
  },
} satisfies ExportedHandler<Env>;

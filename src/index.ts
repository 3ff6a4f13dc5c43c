/**
 * Worker entry: the HTTP API (`fetch`), the task queue consumer (`queue`), the cron's recovery sweep (`scheduled`) and
 * the Durable Object classes.
 */
import type { Env } from "./env";
import { meteredEnv } from "./budget/bindings";
import { runMetered } from "./budget/meter";
import { resumeImports } from "./dataimport/plugin";
import { atLocation } from "./locations/hosting";
import { urlOf } from "./http/base";
import { buildApi } from "./routes";
import { queueRouter } from "./tasks-registry";
import { s3Prefix, serveS3 } from "./s3";
import { signingKey } from "./auth/keys";
import { builtinCollections } from "./storage/registry";
import { primeReadStage } from "./pipeline/prime";
import { warmArchive } from "./archive";

export { AsyncTask, BatchTask, ImportTask, StatisticalBatchTask } from "./tasks-registry";
export { RateLimiter } from "./ratelimit/object";
export { UnitObject } from "./tasks/unit-object";

const api = buildApi();
let warmed = false;

/**
 * `answer()`, and on an isolate's first request: loads what most requests need next (the token signing key, the built-in
 * collections, the Cache API the archive's reads look up: src/archive warmArchive) in the background, while the
 * request itself is read, verified and limited, instead of one after the other on its critical path; once that request
 * is answered, primes the read stage's pixel loops (src/pipeline/prime.ts) for the Process requests that usually
 * follow. The first two are cached per isolate by their modules; a failure here is ignored (the request that needs it
 * fails or retries on its own).
 */
function warmUp(env: Env, ctx: ExecutionContext, answer: () => Promise<Response>): Promise<Response> {
  if (warmed) return answer();
  warmed = true;
  ctx.waitUntil(Promise.allSettled([signingKey(env), builtinCollections(env), warmArchive(env)]));
  const response = answer();
  ctx.waitUntil(response.then(() => primeReadStage()).catch(() => undefined));
  return response;
}

/**
 * `answer` (the API's), or for a GET or HEAD it answered 404 the console's static file of that path (web/, the
 * ASSETS binding) when there is one. The Worker runs before the static files (wrangler.toml run_worker_first) so
 * that S3 hosts answer at their root; API paths keep precedence over file names.
 */
async function orStaticFile(request: Request, env: Env, answer: Promise<Response>): Promise<Response> {
  const response = await answer;
  if (response.status !== 404 || (request.method !== "GET" && request.method !== "HEAD")) return response;
  const file = await env.ASSETS.fetch(request);
  if (file.status === 404) return (await file.body?.cancel(), response);
  await response.body?.cancel();
  return file;
}

/** The HTTP entry, below the counting wrapper. */
function serve(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const s3 = s3Prefix(request, env);
  if (s3 !== undefined) return serveS3(request, env, s3); // S3-compatible endpoint: SigV4/V2, XML errors (src/s3)
  return warmUp(env, ctx, () => orStaticFile(request, env, api.fetch(request, atLocation(request, env), ctx)));
}

/**
 * Every event runs under the counting wrapper (src/budget): its bindings and fetch() counted into the invocation's
 * Meter, which refuses a call past the Paid plan's subrequest and D1 query limits, as the edge would.
 */
export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    return runMetered(`${request.method} ${urlOf(request).pathname}`, () => serve(request, meteredEnv(env), ctx));
  },
  queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    return runMetered(`queue ${batch.queue}`, () => queueRouter.consume(batch, meteredEnv(env)));
  },
  /**
   * The cron (wrangler.toml `[triggers]`, every 5 minutes): third-party orders and subscriptions whose confirm died
   * between its charge and its engine task's start are started (src/dataimport/plugin.ts resumeImports).
   */
  scheduled(_controller: ScheduledController, env: Env): Promise<void> {
    return runMetered("scheduled", async () => {
      const n = await resumeImports(meteredEnv(env));
      if (n) console.log(`cron: ${n} third-party import record(s) resumed`);
    });
  },
} satisfies ExportedHandler<Env>;

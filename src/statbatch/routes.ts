/**
 * Statistical Batch API routes (interface spec 4.5; OpenAPI tag batch_statistical), under `/api/v1/statistics/batch`
 * (sentinelhub-py's path) and `/statistics/batch/v1` (the OpenAPI path): create (201, the task), list (paged,
 * `sort`), get, `/status`, and the user actions `/analyse`, `/start`, `/stop` (204; `/cancel`, deprecated, = stop).
 * Each task is an engine object (src/tasks) with this area's plug-in (./plugin.ts); another account gets 404.
 */
import type { Env } from "../env";
import { json } from "../http/base";
import { readScriptRequest } from "../http/body";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { actionRoute, createTask, listTasks, ownTask, refuseStatus, type TaskApi } from "../taskapi/api";
import type { Task } from "../tasks/plugin";
import { checkBuckets } from "./features";
import { requireObject } from "../buckets";
import { statbatchPlugin as plugin } from "./plugin";
import { batchStatisticalRequestSchema, parseBatchStatisticalRequest, type BatchStatisticalRequest } from "./schema";
import { SCRIPT_BODY } from "../openapi/meta";

const PREFIXES = ["/api/v1/statistics/batch", "/statistics/batch/v1"];

type StatTask = Task<BatchStatisticalRequest>;

/** Percent of the features finished (done or failed), two decimals; 100 for a DONE task. */
function completionPercentage(t: StatTask): number {
  if (!t.units) return t.state === "DONE" ? 100 : 0;
  return Math.round(((t.done + t.failed) / t.units) * 10_000) / 100;
}

/** `BatchStatisticsTaskStatusDto`; `costPU` is also written `costPu` (the spec gives both); no monitoring credits are spent (`costMC` 0). */
export function statusJson(t: StatTask): Record<string, unknown> {
  return {
    id: t.id,
    status: t.state,
    ...(t.error ? { error: t.error } : {}),
    completionPercentage: completionPercentage(t),
    lastUpdated: t.lastUpdated,
    costPU: t.pu,
    costPu: t.pu,
    costMC: 0,
    created: t.created,
    ...(t.state === "STOPPED" && t.stoppedStatusReason ? { stoppedStatusReason: t.stoppedStatusReason } : {}),
  };
}

/** `BatchStatisticsTaskDto`: the status plus request (no secret keys), user action and the account (domainAccountId = projectId = workspaceId). */
export function taskJson(t: StatTask): Record<string, unknown> {
  return {
    ...statusJson(t),
    request: t.request,
    userAction: t.userAction,
    userActionUpdated: t.userActionUpdated,
    domainAccountId: t.account,
    projectId: t.account,
    workspaceId: t.account,
  };
}

/** The API of statistical batch tasks over the engine: the view, the nouns, path parameter `id`. */
const statbatchApi: TaskApi<BatchStatisticalRequest> = {
  plugin,
  noun: "statistical batch task",
  what: "Statistical batch request",
  param: "id",
  view: taskJson,
};

/** Multipart: the `evalscript` part replaces aggregation.evalscript (OpenAPI `MultiPartBatchRequest`). */
const placeEvalscript = (body: Record<string, unknown>, evalscript: string): void => {
  body.aggregation = { ...(body.aggregation as Record<string, unknown> | undefined), evalscript };
};

/**
 * POST: validates, checks the buckets are the caller's (403 otherwise) and the GeoPackage exists (400 otherwise),
 * stores the task (CREATED) and answers it (201).
 */
async function create(request: AuthedRequest, env: Env): Promise<Response> {
  const account = accountOf(request);
  const body = await readScriptRequest(request, placeEvalscript);
  refuseStatus(body);
  const req = parseBatchStatisticalRequest(body);
  await checkBuckets(env, account, req);
  await requireObject(env, account, req.input.features.s3, "input.features", "GeoPackage");
  return json(taskJson(await createTask(statbatchApi, request, env, req)), 201);
}

const own = (request: AuthedRequest, env: Env) => ownTask(statbatchApi, request, env);

/** Registers the Statistical Batch routes under both prefixes. */
export function registerStatisticalBatch(api: Api): void {
  const tag = { tags: ["Statistical batch"] };
  const act = (a: "ANALYSE" | "START" | "STOP") => actionRoute(statbatchApi, a);
  for (const p of PREFIXES) {
    api
      .on("POST", p, create, {
        ...tag,
        summary: "Create a statistical batch task",
        body: batchStatisticalRequestSchema,
        bodyTypes: SCRIPT_BODY,
        status: 201,
      })
      .on("GET", p, (r, env) => listTasks(statbatchApi, r, env, "created"), {
        ...tag,
        summary: "List statistical batch tasks",
      })
      .on("GET", `${p}/:id`, async (r, env) => json(taskJson(await own(r, env))), {
        ...tag,
        summary: "One statistical batch task",
      })
      .on("GET", `${p}/:id/status`, async (r, env) => json(statusJson(await own(r, env))), {
        ...tag,
        summary: "Status of a statistical batch task",
      })
      .on("POST", `${p}/:id/analyse`, act("ANALYSE"), { ...tag, summary: "Analyse a task", status: 204 })
      .on("POST", `${p}/:id/start`, act("START"), { ...tag, summary: "Start a task", status: 204, metered: true })
      .on("POST", `${p}/:id/stop`, act("STOP"), { ...tag, summary: "Stop a task", status: 204 })
      .on("POST", `${p}/:id/cancel`, act("STOP"), { ...tag, summary: "Stop a task (alias of stop)", status: 204 });
  }
}

/**
 * Batch Processing v2 routes (`/api/v2/batch/process`, alias `/batch/v2/process`; OpenAPI tag batch_v2_process):
 * create, query (count/viewtoken/sort/search), get, update description (PUT), analyse, start, stop.
 * Each task is an engine object (src/tasks) with this area's plug-in (./plugin.ts), listed in the engine's D1
 * listing; another account's task answers 404, as a missing one does; a state forbidding an action, 409.
 */
import type { Env } from "../env";
import { readScriptRequest } from "../http/body";
import { badRequest } from "../http/errors";
import { readJson, validate } from "../http/parse";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { compileEvalscript } from "../raster/evalscript";
import { accepted, actionRoute, createTask, listTasks, ownTask, refuseStatus, type TaskApi } from "../taskapi/api";
import type { Task } from "../tasks/plugin";
import { taskStub } from "../tasks/stub";
import { checkBuckets, checkDelivery } from "./delivery";
import { checkZarrRequest } from "./zarrcheck";
import { checkNamingUnknown } from "../http/members";
import { checkCollectionRequest, checkCollectionTarget } from "./collection";
import { batchPlugin as plugin } from "./plugin";
import { batchRequestSchema, updateSchema, type BatchRequest } from "./schema";
import { checkTilingGrid } from "./tiles";
import { SCRIPT_BODY } from "../openapi/meta";

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

/** The API of batch tasks over the engine: the view, the nouns, path parameter `taskId`. */
const batchApi: TaskApi<BatchRequest> = {
  plugin,
  noun: "batch process task",
  what: "Batch process task",
  param: "taskId",
  view: taskView,
};

/** Request checks beyond the schema. @throws ApiError 400 naming what to fix. */
function checkRequest(req: BatchRequest): void {
  const responses = req.processRequest.output?.responses ?? [
    { identifier: "default", format: { type: "image/tiff" as const } },
  ];
  if (req.input.type === "tiling-grid") {
    checkTilingGrid(req.input);
    if (!req.processRequest.input.bounds)
      throw badRequest("processRequest.input.bounds is required with a tiling-grid input.");
  }
  if (req.output.type === "zarr") checkZarrRequest(req, req.output);
  else checkDelivery(req.output.delivery.s3.url, responses);
  if (req.output.type === "raster" && req.output.cogOutput && responses.some((r) => r.format.type !== "image/tiff"))
    throw badRequest("With cogOutput every output must be image/tiff.");
  checkCollectionRequest(req);
  compileEvalscript(req.processRequest.evalscript);
}

/**
 * POST: creates a task (CREATED); 201 with the task, 403 when a bucket it names is another account's, 404 when
 * output.collectionId names no batch collection of the account.
 */
async function create(request: AuthedRequest, env: Env): Promise<Response> {
  const body = await readScriptRequest(request, (b, script) => {
    if (b.processRequest && typeof b.processRequest === "object")
      (b.processRequest as Record<string, unknown>).evalscript = script;
  });
  refuseStatus(body);
  const req = validate(batchRequestSchema, body, "batch process request");
  await checkNamingUnknown(batchRequestSchema, body, async () => {
    checkRequest(req);
    await checkCollectionTarget(env, accountOf(request), req);
    await checkBuckets(env, accountOf(request), req);
  });
  return Response.json(taskView(await createTask(batchApi, request, env, req, req.description)), { status: 201 });
}

/** PUT: updates the description; 409 while processing or waiting to be processed. Answers the task request. */
async function updateTask(request: AuthedRequest, env: Env): Promise<Response> {
  const { id } = await ownTask(batchApi, request, env);
  const { description } = validate(updateSchema, await readJson(request), "batch process update");
  const task = accepted(batchApi, id, (await taskStub(plugin, env, id).describe(accountOf(request), description))!);
  return Response.json(taskView(task as Task<BatchRequest>).request);
}

/**
 * The path forms of the Batch Processing v2 routes: Sentinel Hub's two, and `/api/v1/batch/process` because the
 * spec's Versioning section puts the batch paths under v1 while describing these (v2) bodies: the spec wins. A
 * deprecated batch v1 body sent there is a 400 naming the members v2 does not have (tilingGrid, bucketName, ...).
 */
export const BATCH_PREFIXES = ["/api/v2/batch/process", "/batch/v2/process", "/api/v1/batch/process"];

/** Registers the Batch Processing v2 routes under every path form (BATCH_PREFIXES). */
export function registerBatch(api: Api): void {
  const tag = { tags: ["Batch"] };
  for (const base of BATCH_PREFIXES) {
    api
      .on("POST", base, create, {
        ...tag,
        summary: "Create a batch task",
        body: batchRequestSchema,
        bodyTypes: SCRIPT_BODY,
        status: 201,
      })
      .on("GET", base, (r, env) => listTasks(batchApi, r, env, "created:desc"), { ...tag, summary: "List batch tasks" })
      .on("GET", `${base}/:taskId`, async (r, env) => Response.json(taskView(await ownTask(batchApi, r, env))), {
        ...tag,
        summary: "One batch task",
      })
      .on("PUT", `${base}/:taskId`, updateTask, {
        ...tag,
        summary: "Update a batch task's description",
        body: updateSchema,
      })
      .on("POST", `${base}/:taskId/analyse`, actionRoute(batchApi, "ANALYSE"), {
        ...tag,
        summary: "Analyse a task",
        status: 204,
      })
      .on("POST", `${base}/:taskId/start`, actionRoute(batchApi, "START"), {
        ...tag,
        summary: "Start a task",
        status: 204,
        metered: true,
      })
      .on("POST", `${base}/:taskId/stop`, actionRoute(batchApi, "STOP"), {
        ...tag,
        summary: "Stop a task",
        status: 204,
      });
  }
}

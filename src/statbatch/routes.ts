/**
 * Statistical Batch API routes (interface spec 4.5; OpenAPI tag batch_statistical), under `/api/v1/statistics/batch`
 * (sentinelhub-py's path) and `/statistics/batch/v1` (the OpenAPI path): create (201, the task), list (paged,
 * `sort`), get, `/status`, and the user actions `/analyse`, `/start`, `/stop` (204; `/cancel`, deprecated, = stop).
 * Every task belongs to the account of the token that created it; another account gets 404.
 */
import type { Env } from "../env";
import { json } from "../http/base";
import { readScriptRequest } from "../http/body";
import { badRequest, notFound } from "../http/errors";
import { pagedList, parsePageRequest } from "../http/paging";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { checkBuckets, featuresExist } from "./features";
import { insertListed, listPage, parseSort, sortColumns, sortKey } from "./listing";
import type { TaskView, UserAction } from "./object";
import { enqueueAnalysis, enqueueFeatures, statbatchStub } from "./run";
import { parseBatchStatisticalRequest } from "./schema";
import { statusJson, taskJson } from "./task";
import { SCRIPT_BODY } from "../openapi/meta";
import { batchStatisticalRequestSchema } from "./schema";

const PREFIXES = ["/api/v1/statistics/batch", "/statistics/batch/v1"];
/** Most tasks per page. */
export const MAX_PAGE = 100;

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
  const req = parseBatchStatisticalRequest(await readScriptRequest(request, placeEvalscript));
  await checkBuckets(env, account, req);
  if (!(await featuresExist(env, account, req.input.features.s3)))
    throw badRequest(`input.features: the GeoPackage ${req.input.features.s3.url} does not exist; upload it first.`);
  const id = crypto.randomUUID();
  const created = new Date().toISOString();
  const stub = statbatchStub(env, id);
  await stub.create(id, account, req, created, env.LOCATION_ID);
  await insertListed(env, id, account, created);
  return json(taskJson((await stub.view(account))!), 201);
}

/** The task `:id` of the caller's account. @throws ApiError 404 when there is none (or it is another account's). */
async function viewOf(request: AuthedRequest, env: Env): Promise<TaskView> {
  const id = String(request.params.id ?? "");
  const view = /^[0-9a-f-]{36}$/i.test(id) ? await statbatchStub(env, id.toLowerCase()).view(accountOf(request)) : null;
  if (!view) throw notFound(`Statistical batch request ${id.slice(0, 64)} not found.`);
  return view;
}

async function get(request: AuthedRequest, env: Env): Promise<Response> {
  return json(taskJson(await viewOf(request, env)));
}

async function status(request: AuthedRequest, env: Env): Promise<Response> {
  return json(statusJson(await viewOf(request, env)));
}

/** GET: the account's tasks, `count`/`viewtoken` paged, in `sort` order. */
async function list(request: AuthedRequest, env: Env): Promise<Response> {
  const account = accountOf(request);
  const url = new URL(request.url);
  const sort = parseSort(url.searchParams.get("sort"));
  const page = parsePageRequest(url, MAX_PAGE, sortColumns(sort).columns.length);
  const rows = await listPage(env, account, sort, page);
  const paged = pagedList(url, page, rows, sortKey(sort));
  const views = await Promise.all(paged.data.map((t) => statbatchStub(env, t.id).view(account)));
  return json({ data: views.filter((v) => v !== null).map(taskJson), links: paged.links });
}

/** A user action: 204, the follow-up enqueued; 400 naming the state when the action is not possible now. */
function action(kind: Exclude<UserAction, "NONE">) {
  return async (request: AuthedRequest, env: Env): Promise<Response> => {
    const view = await viewOf(request, env);
    const result = await statbatchStub(env, view.id).act(view.account, kind);
    if (!result) throw notFound(`Statistical batch request ${view.id} not found.`);
    if (!result.ok) throw badRequest(result.message);
    if (result.followUp === "analyse") await enqueueAnalysis(env, view.id);
    if (result.followUp === "features") await enqueueFeatures(env, view.id);
    return new Response(null, { status: 204 });
  };
}

/** Registers the Statistical Batch routes under both prefixes. */
export function registerStatisticalBatch(api: Api): void {
  const tag = { tags: ["Statistical batch"] };
  for (const p of PREFIXES) {
    api
      .on("POST", p, create, { ...tag, summary: "Create a statistical batch task", body: batchStatisticalRequestSchema, bodyTypes: SCRIPT_BODY, status: 201 })
      .on("GET", p, list, { ...tag, summary: "List statistical batch tasks" })
      .on("GET", `${p}/:id`, get, { ...tag, summary: "One statistical batch task" })
      .on("GET", `${p}/:id/status`, status, { ...tag, summary: "Status of a statistical batch task" })
      .on("POST", `${p}/:id/analyse`, action("ANALYSE"), { ...tag, summary: "Analyse a task", status: 204 })
      .on("POST", `${p}/:id/start`, action("START"), { ...tag, summary: "Start a task", status: 204, metered: true })
      .on("POST", `${p}/:id/stop`, action("STOP"), { ...tag, summary: "Stop a task", status: 204 })
      .on("POST", `${p}/:id/cancel`, action("STOP"), { ...tag, summary: "Stop a task (alias of stop)", status: 204 });
  }
}

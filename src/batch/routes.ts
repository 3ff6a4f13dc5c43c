/**
 * Batch Processing v2 routes (`/api/v2/batch/process`, alias `/batch/v2/process`; OpenAPI tag batch_v2_process):
 * create, query (count/viewtoken/sort/search), get, update description (PUT), analyse, start, stop.
 * Each task lives in its BatchTask Durable Object (./object.ts); D1 table batch_tasks indexes them by account.
 * Another account's task answers 404, as a missing one does.
 */
import type { Env } from "../env";
import { readScriptRequest } from "../http/body";
import { badRequest, notFound } from "../http/errors";
import { pagedList, parsePageRequest, parseSearch } from "../http/paging";
import { readJson, validate } from "../http/parse";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { compileEvalscript } from "../raster/evalscript";
import { keysetSql, searchSql } from "../storage/keyset";
import { checkBuckets, checkDelivery } from "./delivery";
import { checkZarrRequest } from "./zarrcheck";
import { checkCollectionRequest, checkCollectionTarget } from "./collection";
import { accepted } from "./outcome";
import type { TaskRecord, TaskView } from "./record";
import { batchRequestSchema, updateSchema, type BatchRequest } from "./schema";
import { checkTilingGrid } from "./tiles";
import { batchStub } from "./stub";
import { SCRIPT_BODY } from "../openapi/meta";

/** Largest (and default) page of the task query. */
export const MAX_PAGE = 100;



/** Request checks beyond the schema. @throws ApiError 400 naming what to fix. */
function checkRequest(req: BatchRequest): void {
  const responses = req.processRequest.output?.responses ?? [{ identifier: "default", format: { type: "image/tiff" as const } }];
  if (req.input.type === "tiling-grid") {
    checkTilingGrid(req.input);
    if (!req.processRequest.input.bounds) throw badRequest("processRequest.input.bounds is required with a tiling-grid input.");
  }
  if (req.output.type === "zarr") checkZarrRequest(req, req.output);
  else checkDelivery(req.output.delivery.s3.url, responses);
  if (req.output.type === "raster" && req.output.cogOutput && responses.some((r) => r.format.type !== "image/tiff")) throw badRequest("With cogOutput every output must be image/tiff.");
  checkCollectionRequest(req);
  compileEvalscript(req.processRequest.evalscript);
}

/**
 * POST: creates a task (CREATED); 201 with the task, 403 when a bucket it names is another account's, 404 when
 * output.collectionId names no batch collection of the account.
 */
async function createTask(request: AuthedRequest, env: Env): Promise<Response> {
  const body = await readScriptRequest(request, (b, script) => {
    if (b.processRequest && typeof b.processRequest === "object") (b.processRequest as Record<string, unknown>).evalscript = script;
  });
  const req = validate(batchRequestSchema, body, "batch process request");
  checkRequest(req);
  await checkCollectionTarget(env, accountOf(request), req);
  await checkBuckets(env, accountOf(request), req);
  const now = new Date().toISOString();
  const record: TaskRecord = { id: crypto.randomUUID(), account: accountOf(request), request: req, created: now, location: env.LOCATION_ID, userAction: "NONE", userActionUpdated: now, estimatePU: null, tileCount: null };
  return Response.json(await batchStub(env, record.id).create(record), { status: 201 });
}

/** The task `id` of the caller's account. @throws ApiError 404 when it does not exist or belongs to another account. */
async function ownTask(request: AuthedRequest, env: Env) {
  const id = String(request.params.taskId);
  const row = await env.DB.prepare("SELECT account_id FROM batch_tasks WHERE id = ?").bind(id).first<{ account_id: string }>();
  if (!row || row.account_id !== accountOf(request)) throw notFound(`Batch process task ${id} not found.`);
  return batchStub(env, id);
}

const SORTS: Record<string, { columns: string[]; descending: boolean }> = {
  created: { columns: ["created", "id"], descending: false },
  "created:desc": { columns: ["created", "id"], descending: true },
  status: { columns: ["status", "created", "id"], descending: false },
  "status:desc": { columns: ["status", "created", "id"], descending: true },
};

/** GET: the caller's tasks, paged; `sort` (default created:desc), `search` (parseSearch) on id and description. */
async function queryTasks(request: AuthedRequest, env: Env): Promise<Response> {
  const url = new URL(request.url);
  const sortName = url.searchParams.get("sort") ?? "created:desc";
  const sort = SORTS[sortName];
  if (!sort) throw badRequest(`Invalid sort '${sortName}': use ${Object.keys(SORTS).join(", ")}.`);
  const page = parsePageRequest(url, MAX_PAGE, sort.columns.length);
  const k = keysetSql(sort.columns, page, sort.descending);
  const s = searchSql(parseSearch(url), "id || ' ' || description");
  const rows = await env.DB.prepare(`SELECT id, created, status FROM batch_tasks WHERE account_id = ? AND ${s.text} AND ${k.where} ORDER BY ${k.orderBy} LIMIT ?`)
    .bind(accountOf(request), ...s.params, ...k.params, k.limit)
    .all<{ id: string; created: string; status: string }>();
  const keyOf = (r: { id: string; created: string; status: string }) => sort.columns.map((c) => r[c as "id"]);
  const list = pagedList(url, page, rows.results, keyOf);
  const data = (await Promise.all(list.data.map((r) => batchStub(env, r.id).view()))) as unknown as TaskView[];
  return Response.json({ data, links: list.links });
}

async function getTask(request: AuthedRequest, env: Env): Promise<Response> {
  return Response.json(await (await ownTask(request, env)).view());
}

/** PUT: updates the description; 409 while processing or waiting to be processed. Answers the task request. */
async function updateTask(request: AuthedRequest, env: Env): Promise<Response> {
  const stub = await ownTask(request, env);
  const { description } = validate(updateSchema, await readJson(request), "batch process update");
  return Response.json(accepted(await stub.updateDescription(description)));
}

/** POST .../analyse, .../start, .../stop: 204, or 400 naming the state that forbids it. */
const action = (name: "analyse" | "start" | "stop") => async (request: AuthedRequest, env: Env): Promise<Response> => {
  const stub = await ownTask(request, env);
  accepted(await stub[name]());
  return new Response(null, { status: 204 });
};

/** Registers the Batch Processing v2 routes under both path forms. */
export function registerBatch(api: Api): void {
  const tag = { tags: ["Batch"] };
  for (const base of ["/api/v2/batch/process", "/batch/v2/process"]) {
    api
      .on("POST", base, createTask, { ...tag, summary: "Create a batch task", body: batchRequestSchema, bodyTypes: SCRIPT_BODY, status: 201 })
      .on("GET", base, queryTasks, { ...tag, summary: "List batch tasks" })
      .on("GET", `${base}/:taskId`, getTask, { ...tag, summary: "One batch task" })
      .on("PUT", `${base}/:taskId`, updateTask, { ...tag, summary: "Update a batch task's description", body: updateSchema })
      .on("POST", `${base}/:taskId/analyse`, action("analyse"), { ...tag, summary: "Analyse a task", status: 204 })
      .on("POST", `${base}/:taskId/start`, action("start"), { ...tag, summary: "Start a task", status: 204, metered: true })
      .on("POST", `${base}/:taskId/stop`, action("stop"), { ...tag, summary: "Stop a task", status: 204 });
  }
}

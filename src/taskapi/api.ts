/**
 * The HTTP glue every task API shares (its routes stay in the area), over the engine's typed stub (src/tasks): an
 * area's API adapter ({@link TaskApi}: its plug-in, the view its API answers, the nouns of its messages), a new task
 * stored through its engine object, the caller's task (ownership is the object's: another account's task is 404, as
 * a missing one), the paged list of the caller's tasks of one kind (./list.ts), and the user actions (204, or 409
 * naming the state that forbids them).
 */
import type { Env } from "../env";
import { ApiError, badRequest, notFound } from "../http/errors";
import { isUuid } from "../http/ids";
import { accountOf, type AuthedRequest } from "../http/router";
import type { UserAction } from "../tasks/machines";
import type { Outcome } from "../tasks/outcome";
import type { Task, TaskPlugin } from "../tasks/plugin";
import { taskStub } from "../tasks/stub";
import { listPage } from "./list";

/** An area's API adapter of the engine: what only its routes need. `R`: the plug-in's request. */
export interface TaskApi<R = any> {
  readonly plugin: TaskPlugin<R>;
  /** The task in messages: "batch process task". */
  readonly noun: string;
  /** The task in 404 messages: "Batch process task". */
  readonly what: string;
  /** The path parameter of the task's id. */
  readonly param: string;
  /** The task as the API answers it (`task.request` has no S3 keys). */
  view(task: Task<R>): unknown;
}

/** The status of a state rejection (Sentinel Hub's OpenAPI gives 409 for updating a batch task being processed; the same answer for every other state rejection keeps one code for one cause). */
export const STATE_CONFLICT = 409;

/** @throws ApiError 400 when a create body sets `status` (the spec: it must not be specified on creation). */
export function refuseStatus(body: unknown): void {
  if (body !== null && typeof body === "object" && "status" in body)
    throw badRequest("status must not be specified on creation: a new task is CREATED.");
}

/** The value of an outcome of task `id`. @throws ApiError 409 COMMON_CONFLICT naming the state that refused it. */
export function accepted<T>(api: Pick<TaskApi, "noun">, id: string, o: Outcome<T>): T {
  if (o.ok) return o.value;
  if (o.action !== "UPDATE")
    throw new ApiError(STATE_CONFLICT, `The ${api.noun} ${id} is ${o.state}: ${o.action} is not possible now.`);
  const waiting = o.state === "ANALYSING" ? " and waiting to be processed" : "";
  throw new ApiError(
    STATE_CONFLICT,
    `The ${api.noun} is ${o.state}${waiting}: it cannot be updated until it is stopped or finished.`,
  );
}

/** Stores a new task of the caller with `request` (validated by the area) under a new id; the task as stored. */
export async function createTask<R>(
  api: TaskApi<R>,
  request: AuthedRequest,
  env: Env,
  body: R,
  description?: string,
): Promise<Task<R>> {
  const init = {
    id: crypto.randomUUID(),
    account: accountOf(request),
    created: new Date().toISOString(),
    location: env.LOCATION_ID,
    ...(description !== undefined ? { description } : {}),
  };
  return (await taskStub(api.plugin, env, init.id).create(init, body)) as Task<R>;
}

/** The id of the task's path parameter, lower case. @throws ApiError 404 when it is not a uuid. */
export function taskId(api: TaskApi, request: AuthedRequest): string {
  const id = String(request.params[api.param] ?? "");
  if (!isUuid(id)) throw notFound(`${api.what} ${id.slice(0, 64)} not found.`);
  return id.toLowerCase();
}

/** The caller's task of the path. @throws ApiError 404 when it does not exist or is another account's. */
export async function ownTask<R>(api: TaskApi<R>, request: AuthedRequest, env: Env): Promise<Task<R>> {
  const id = taskId(api, request);
  const task = await taskStub(api.plugin, env, id).task(accountOf(request));
  if (!task) throw notFound(`${api.what} ${id} not found.`);
  return task as Task<R>;
}

/** GET list: `{data: [view], links}` of the caller's tasks of the plug-in's kind (./list.ts). */
export async function listTasks(
  api: TaskApi,
  request: AuthedRequest,
  env: Env,
  defaultSort: string,
): Promise<Response> {
  const account = accountOf(request);
  const page = await listPage(env, api.plugin.kind, account, new URL(request.url), defaultSort);
  const tasks = await Promise.all(page.ids.map((id) => taskStub(api.plugin, env, id).task(account)));
  return Response.json({ data: tasks.filter((t) => t !== null).map((t) => api.view(t)), links: page.links });
}

/** A user action's route: 204; 404 for another account's task; 409 naming the state that forbids it. */
export const actionRoute =
  (api: TaskApi, action: Exclude<UserAction, "NONE">) =>
  async (request: AuthedRequest, env: Env): Promise<Response> => {
    const id = taskId(api, request);
    const outcome = await taskStub(api.plugin, env, id).act(accountOf(request), action);
    if (!outcome) throw notFound(`${api.what} ${id} not found.`);
    accepted(api, id, outcome);
    return new Response(null, { status: 204 });
  };

/**
 * The HTTP glue every task API shares (its routes stay in the area): a new task stored through its engine object, the
 * caller's task (ownership is the object's: another account's task is 404, as a missing one), the paged list of the
 * caller's tasks of one kind, and the user actions (204, or 409 naming the state that forbids them: ./outcome.ts).
 */
import type { Env } from "../env";
import { badRequest, notFound } from "../http/errors";
import { accountOf, type AuthedRequest } from "../http/router";
import { listPage } from "./listing";
import { accepted } from "./outcome";
import type { Task, TaskPlugin } from "./plugin";
import type { UserAction } from "./machines";
import { taskStub } from "./stub";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** @throws ApiError 400 when a create body sets `status` (the spec: it must not be specified on creation). */
export function refuseStatus(body: unknown): void {
  if (body !== null && typeof body === "object" && "status" in body) throw badRequest("status must not be specified on creation: a new task is CREATED.");
}

/** Stores a new task of the caller with `request` (validated by the area) under a new id; the task as stored. */
export async function createTask<R>(plugin: TaskPlugin<R>, request: AuthedRequest, env: Env, body: R, description?: string): Promise<Task<R>> {
  const init = { id: crypto.randomUUID(), account: accountOf(request), created: new Date().toISOString(), location: env.LOCATION_ID, ...(description !== undefined ? { description } : {}) };
  return (await taskStub(plugin, env, init.id).create(init, body)) as Task<R>;
}

/** The id of path parameter `param`, lower case. @throws ApiError 404 (`what` named) when it is not a uuid. */
function taskId(request: AuthedRequest, param: string, what: string): string {
  const id = String(request.params[param] ?? "");
  if (!UUID.test(id)) throw notFound(`${what} ${id.slice(0, 64)} not found.`);
  return id.toLowerCase();
}

/** The caller's task of path parameter `param`. @throws ApiError 404 when it does not exist or is another account's. */
export async function ownTask<R>(plugin: TaskPlugin<R>, request: AuthedRequest, env: Env, param: string, what: string): Promise<Task<R>> {
  const id = taskId(request, param, what);
  const task = await taskStub(plugin, env, id).task(accountOf(request));
  if (!task) throw notFound(`${what} ${id} not found.`);
  return task as Task<R>;
}

/** GET list: `{data: [view], links}` of the caller's tasks of the plug-in's kind (./listing.ts). */
export async function listTasks(plugin: TaskPlugin, request: AuthedRequest, env: Env, defaultSort: string): Promise<Response> {
  const account = accountOf(request);
  const url = new URL(request.url);
  const page = await listPage(env, plugin.kind, account, url, defaultSort);
  const tasks = await Promise.all(page.ids.map((id) => taskStub(plugin, env, id).task(account)));
  return Response.json({ data: tasks.filter((t) => t !== null).map((t) => plugin.view(t)), links: page.links });
}

/** A user action's route: 204; 404 for another account's task; 409 naming the state that forbids it. */
export const actionRoute = (plugin: TaskPlugin, action: Exclude<UserAction, "NONE">, param: string, what: string) => async (request: AuthedRequest, env: Env): Promise<Response> => {
  const id = taskId(request, param, what);
  const outcome = await taskStub(plugin, env, id).act(accountOf(request), action);
  if (!outcome) throw notFound(`${what} ${id} not found.`);
  accepted(outcome);
  return new Response(null, { status: 204 });
};

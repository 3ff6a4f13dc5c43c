/**
 * Async Processing API (Sentinel Hub OpenAPI `async_process`): `POST /api/v1/async/process` submits (200
 * `{id, status: "RUNNING"}`), `GET /api/v1/async/process/{requestId}` answers the same while the request runs
 * and 404 once it finished, DONE or FAILED (results and error.json are in the delivery bucket). Aliases
 * `/async/v1/process`. A request is its account's: another account gets 404.
 */
import type { Env } from "../env";
import { notFound } from "../http/errors";
import { isUuid } from "../http/ids";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { taskStub } from "../tasks/stub";
import { asyncPlugin, isRunning } from "./plugin";
import { writeRequestCopy } from "./record";
import { acceptAsync } from "./submit";
import { SCRIPT_BODY } from "../openapi/meta";
import { asyncRequestSchema } from "./schema";

/** The status body (`AsyncStatusResponse`). */
const running = (id: string): Response => Response.json({ id, status: "RUNNING" });

/**
 * POST: checks, writes request.json, stores the request as a task of the engine (src/tasks), which starts it: its
 * render is a leased unit, sent again by the object's lease watchdog if its message is lost.
 */
async function submit(request: AuthedRequest, env: Env): Promise<Response> {
  const { request: body, ...record } = await acceptAsync(request, env, accountOf(request));
  await writeRequestCopy(env, { ...record, request: body }, "RUNNING");
  await taskStub(asyncPlugin, env, record.id).create(record, body, true);
  return running(record.id);
}

/** GET status: 404 for unknown ids, other accounts' requests and finished requests. */
async function status(request: AuthedRequest, env: Env): Promise<Response> {
  const account = accountOf(request);
  const id = decodeURIComponent(request.params.requestId ?? "");
  const missing = () =>
    notFound(
      `No running async request '${id}': it does not exist, or it finished (results or error.json are in its delivery bucket).`,
    );
  if (!isUuid(id)) throw missing();
  const task = await taskStub(asyncPlugin, env, id.toLowerCase()).task(account);
  if (!task || !isRunning(task)) throw missing();
  return running(task.id);
}

/** Registers the Async Processing routes. */
export function registerAsync(api: Api): void {
  const tags = ["Async"];
  const post = {
    tags,
    summary: "Submit an asynchronous Process request (outputs written to object storage)",
    body: asyncRequestSchema,
    bodyTypes: SCRIPT_BODY,
    status: 202,
    metered: true,
  };
  for (const root of ["/api/v1/async/process", "/async/v1/process"])
    api
      .on("POST", root, submit, post)
      .on("GET", `${root}/:requestId`, status, { tags, summary: "Status of a running async request" });
}

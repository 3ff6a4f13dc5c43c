/**
 * Async Processing API (Sentinel Hub OpenAPI `async_process`): `POST /api/v1/async/process` submits (200
 * `{id, status: "RUNNING"}`), `GET /api/v1/async/process/{requestId}` answers the same while the request runs
 * and 404 once it finished, DONE or FAILED (results and error.json are in the delivery bucket). Aliases
 * `/async/v1/process`. A request is its account's: another account gets 404.
 */
import type { Env } from "../env";
import { notFound } from "../http/errors";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import type { AsyncRecord } from "./object";
import { writeRequestCopy } from "./record";
import { asyncMessage, asyncStub } from "./queue";
import { acceptAsync } from "./submit";
import { SCRIPT_BODY } from "../openapi/meta";
import { asyncRequestSchema } from "./schema";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The status body (`AsyncStatusResponse`). */
const running = (id: string): Response => Response.json({ id, status: "RUNNING" });

/**
 * POST: checks, stores the record (and its leased render unit) in the request's Durable Object, writes
 * request.json, enqueues the render (sent again by the object's lease watchdog if the message is lost).
 */
async function submit(request: AuthedRequest, env: Env): Promise<Response> {
  const record = await acceptAsync(request, env, accountOf(request));
  await asyncStub(env, record.id).create(record);
  await writeRequestCopy(env, record, "RUNNING");
  await env.TASK_QUEUE.send(asyncMessage(record.id));
  return running(record.id);
}

/** GET status: 404 for unknown ids, other accounts' requests and finished requests. */
async function status(request: AuthedRequest, env: Env): Promise<Response> {
  const account = accountOf(request);
  const id = decodeURIComponent(request.params.requestId ?? "");
  const missing = () => notFound(`No running async request '${id}': it does not exist, or it finished (results or error.json are in its delivery bucket).`);
  if (!UUID.test(id)) throw missing();
  const stub = asyncStub(env, id.toLowerCase());
  const [stored, task] = await Promise.all([stub.record(), stub.snapshot()]);
  const record = stored as AsyncRecord | null; // (RPC's serialised type of the zod-typed request collapses to never)
  if (!record || record.account !== account || task.state !== "RUNNING") throw missing();
  return running(record.id);
}

/** Registers the Async Processing routes. */
export function registerAsync(api: Api): void {
  const tags = ["Async"];
  const post = { tags, summary: "Submit an asynchronous Process request (outputs written to object storage)", body: asyncRequestSchema, bodyTypes: SCRIPT_BODY, status: 202, metered: true };
  for (const root of ["/api/v1/async/process", "/async/v1/process"])
    api.on("POST", root, submit, post).on("GET", `${root}/:requestId`, status, { tags, summary: "Status of a running async request" });
}

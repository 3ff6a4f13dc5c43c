/**
 * Async Processing as a plug-in of the task engine (src/tasks/plugin.ts). A request is a task started at its
 * submission (no user actions): its plan is one render unit ({@link RENDER_UNIT}, ./render.ts), run on the heavy
 * queue; its first failure FAILS it (`failFast`), and one not finished 12 hours after submission FAILS too. The
 * engine charges the render's processing units once. When it ends, `request.json` is updated (DONE with its
 * processing units, or FAILED) and a failure writes `error.json` (./record.ts): the envelope of the client error
 * that failed it, or a 500 naming the cause (dead letter, lost attempts, timeout). The API shows `RUNNING` until then
 * (the engine's internal states ANALYSING..PROCESSING), and 404 after (./routes.ts).
 */
import { ApiError } from "../http/errors";
import { BATCH_MACHINE } from "../tasks/machines";
import type { Task, TaskPlugin } from "../tasks/plugin";
import { writeFailure, writeRequestCopy } from "./record";
import { renderAsync } from "./render";
import type { AsyncRecord } from "./schema";

/** A request still running after this long is failed (12 hours). */
export const ASYNC_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/** The request's one unit of work: its render. */
export const RENDER_UNIT = "render";

type AsyncTask = Task<AsyncRecord["request"]>;

/** True while the request runs (not DONE, FAILED). */
export const isRunning = (t: Pick<AsyncTask, "state">): boolean => t.state !== "DONE" && t.state !== "FAILED";

export const asyncPlugin: TaskPlugin<AsyncRecord["request"], null> = {
  kind: "async",
  noun: "async process request",
  unitNoun: "renders",
  machine: BATCH_MACHINE,
  queue: "heavy",
  namespace: (env) => env.ASYNC_TASKS,
  userActions: false,
  failFast: true,
  timeoutMs: ASYNC_TIMEOUT_MS,
  plan: async () => ({ units: [{ id: RENDER_UNIT, data: null }], estimatePU: null }),
  run: async (env, task, _unit, signal) => ({ pu: await renderAsync(env, task, signal) }),
  async ended(env, task) {
    const finished = new Date().toISOString();
    if (task.state === "DONE") return writeRequestCopy(env, task, "DONE", { finished, processingUnits: task.pu });
    await writeFailure(env, task, new ApiError(task.failure?.status ?? 500, task.error ?? "The request failed.", undefined, task.failure?.code));
  },
  view: (task) => ({ id: task.id, status: "RUNNING" }),
};

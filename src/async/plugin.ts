/**
 * Async Processing as a plug-in of the task engine (src/tasks/plugin.ts). A request is a task started at its
 * submission (no user actions, ASYNC_MACHINE): its plan is its strip units (./render.ts `stripUnits`: rows of the output grid, at
 * most ASYNC_UNIT_PIXELS each), each rendered on the heavy queue into parts (./outputs.ts), then the assembly joins
 * the parts into the delivered files once, after the last unit. Exactly once under at-least-once delivery: a unit
 * run again overwrites its own parts, the engine counts and charges each unit once and runs the assembly once (a
 * re-run assembly rewrites whole files). Its first failure FAILS it (`failFast`), and one not finished 12 hours after
 * submission FAILS too. When it ends its parts are deleted, `request.json` is updated (DONE with its processing
 * units, or FAILED) and a failure writes `error.json` (./record.ts): the envelope of the client error that failed it,
 * or a 500 naming the cause (dead letter, lost attempts, timeout). The API shows `RUNNING` until then (the engine's
 * internal states ANALYSING..PROCESSING), and 404 after (./routes.ts).
 */
import { ApiError } from "../http/errors";
import { ASYNC_MACHINE } from "../tasks/machines";
import type { Task, TaskPlugin } from "../tasks/plugin";
import { deliveryTarget } from "./delivery";
import { assembleFile, fileName, partKey, partsPrefix } from "./outputs";
import { writeFailure, writeRequestCopy } from "./record";
import { asyncArea, renderUnit, responsesOf, stripRows, stripUnits, type StripUnit } from "./render";
import type { AsyncRecord } from "./schema";

/** A request still running after this long is failed (12 hours). */
export const ASYNC_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/** The id of the strip unit starting at row `row`. */
export const stripUnitId = (row: number): string => `rows-${row}`;

type AsyncTask = Task<AsyncRecord["request"]>;

/** True while the request runs (not DONE, FAILED). */
export const isRunning = (t: Pick<AsyncTask, "state">): boolean => t.state !== "DONE" && t.state !== "FAILED";

export const asyncPlugin: TaskPlugin<AsyncRecord["request"], StripUnit> = {
  kind: "async",
  machine: ASYNC_MACHINE,
  queue: "heavy",
  namespace: (env) => env.ASYNC_TASKS,
  failFast: true,
  timeoutMs: ASYNC_TIMEOUT_MS,
  plan: async (_env, task) => ({
    units: stripUnits(asyncArea(task.request).grid).map((u) => ({ id: stripUnitId(u.row), data: u })),
    estimatePU: null,
  }),
  run: async (env, task, unit, signal) => ({ pu: await renderUnit(env, task, unit.data, signal) }),
  async assemble(env, task) {
    const { grid } = asyncArea(task.request);
    const rows = stripUnits(grid).map((u) => u.row);
    for (const [i, r] of responsesOf(task).entries()) {
      const target = await deliveryTarget(env, task.account, task.request.output.delivery.s3, task.id, fileName(r));
      await assembleFile(
        env.DATA,
        rows.map((row) => partKey(task.id, row, i)),
        r,
        grid,
        stripRows(grid.width),
        target,
      );
    }
  },
  async ended(env, task) {
    const parts = await env.DATA.list({ prefix: partsPrefix(task.id) });
    if (parts.objects.length) await env.DATA.delete(parts.objects.map((o) => o.key));
    const finished = new Date().toISOString();
    if (task.state === "DONE") return writeRequestCopy(env, task, "DONE", { finished, processingUnits: task.pu });
    await writeFailure(
      env,
      task,
      new ApiError(task.failure?.status ?? 500, task.error ?? "The request failed.", undefined, task.failure?.code),
    );
  },
};

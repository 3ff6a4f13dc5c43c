/**
 * The queue consumer's side of the engine: the handler of ENGINE_KIND messages (./messages.ts) for the plug-ins
 * registered (src/tasks-registry.ts). A message runs as the leased unit it names (./lease.ts): the plan (the
 * plug-in's `plan`, its units handed to the task), one unit (`run`, its result counted once), or the assembly. Each
 * runs as the location that accepted the task. A client error (ApiError 4xx, an EngineError kind) FAILS the plan or
 * counts the unit failed; no room in the isolate's memory (kind `overloaded`, src/pipeline/admission.ts) snoozes the
 * unit (RunLater: it is not the unit's fault, so no attempt is used); any other error is retried, and the unit
 * counted failed after its lease's last attempt. A
 * message of a task that needs no such work (stopped, finished, unknown) is acked without work.
 */
import type { Env } from "../env";
import { ApiError, kindedError } from "../http/errors";
import { asLocation } from "../locations/hosting";
import { ASSEMBLE_UNIT, PLAN_UNIT, leaseId } from "./messages";
import type { TaskPlugin, UnitResult } from "./plugin";
import type { KindHandler, KindOptions, TaskMessage } from "./queue";
import { RunLater } from "./runner";
import { taskStub } from "./stub";

/** The ApiError of a failure the client caused (retrying cannot help), else undefined. */
export function clientError(e: unknown): ApiError | undefined {
  const api = e instanceof ApiError ? e : kindedError(e);
  return api && api.status < 500 ? api : undefined;
}

/** True for the admission's refusal (kind `overloaded`): the isolate had no room for the unit's pixels in time. */
const overloaded = (e: unknown): e is Error & { retryAfterSeconds?: number } =>
  e instanceof Error && (e as { kind?: unknown }).kind === "overloaded";

/** The result of a failed unit from the client error `e`. */
const failedUnit = (e: ApiError): UnitResult => ({ pu: 0, error: e.message, failure: { status: e.status, code: e.code } });

/** The ENGINE_KIND handler and options (onDead, lease) for `plugins`. */
export function engineKind(plugins: readonly TaskPlugin[]): [KindHandler, KindOptions] {
  const byKind = new Map(plugins.map((p) => [p.kind, p]));
  /** The plug-in, stub and unit of a message. @throws Error for a malformed one (retried, then dead-lettered). */
  const target = (body: TaskMessage, env: Env) => {
    const plugin = byKind.get(String(body.ns));
    if (!plugin || typeof body.task !== "string" || typeof body.unit !== "string") throw new Error(`task message without a known ns, task and unit`);
    return { plugin, stub: taskStub(plugin, env, body.task), unit: body.unit };
  };

  const handler: KindHandler = async (body, env, _message, signal) => {
    const { plugin, stub, unit } = target(body, env);
    const work = await stub.work(unit);
    if (!work) return;
    const at = asLocation(env, work.task.location);
    try {
      if (unit === PLAN_UNIT) {
        const plan = await plugin.plan(at, work.task);
        await stub.planned(plan.units, plan.estimatePU);
      } else if (unit === ASSEMBLE_UNIT) {
        await plugin.assemble!(at, work.task);
        await stub.assembled();
      } else {
        const remember = (value: string) => stub.memo(unit, value);
        await stub.finishUnit(unit, await plugin.run(at, work.task, { ...work.unit, remember }, signal).catch((e: unknown) => {
          const client = clientError(e);
          if (client) return failedUnit(client);
          throw e;
        }));
      }
    } catch (e) {
      if (e instanceof RunLater) throw e; // not a failure: the unit runs again later (./runner.ts)
      if (overloaded(e)) throw new RunLater(e.message, 1000 * (e.retryAfterSeconds ?? 2));
      const client = clientError(e);
      if (client && unit !== ASSEMBLE_UNIT) return stub.fail(`${unit === PLAN_UNIT ? "Analysis failed: " : ""}${client.message}`, { status: client.status, code: client.code });
      if (unit === PLAN_UNIT || unit === ASSEMBLE_UNIT || signal?.aborted || !(await stub.attemptFailed(unit, e instanceof Error ? e.message : String(e)))) throw e;
    }
  };

  /** A unit given up (dead-lettered, or out of attempts: `cause`): the plan or assembly FAILS the task, a unit is counted failed. */
  const onDead: KindOptions["onDead"] = async (body, env, message, cause) => {
    const { plugin, stub, unit } = target(body, env);
    const why = cause ?? `The ${unit === PLAN_UNIT ? "analysis" : unit === ASSEMBLE_UNIT ? "assembly" : "unit"} failed all ${message.attempts} delivery attempts (dead-lettered).`;
    const work = await stub.work(unit);
    if (!work) return;
    if (unit === PLAN_UNIT || unit === ASSEMBLE_UNIT) return stub.fail(why);
    await plugin.dead?.(asLocation(env, work.task.location), work.task, work.unit, why);
    await stub.finishUnit(unit, { pu: 0, error: why });
  };

  const lease: KindOptions["lease"] = (body, env) => {
    try {
      const { stub, unit } = target(body, env);
      return { stub, unit: leaseId(unit) };
    } catch {
      return null;
    }
  };
  return [handler, { onDead, lease }];
}

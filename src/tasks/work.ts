/**
 * The queue consumer's side of the engine: the handler of ENGINE_KIND messages (./messages.ts) for the plug-ins
 * registered (src/tasks-registry.ts). A message runs the unit it names in two calls to the task's object: `begin`
 * (claims the unit's lease; answers the task, the unit and its memo) and `end` (how it ended), with `renew` as the
 * heartbeat while it runs (./runner.ts). The unit is the plan (the plug-in's `plan`), one planned unit (`run`) or
 * the assembly, run as the location that accepted the task. A client error (ApiError 4xx, an EngineError kind)
 * FAILS the plan or counts the unit failed; no room in the isolate's memory (kind `overloaded`,
 * src/pipeline/admission.ts) snoozes the unit (it is not the unit's fault, so no attempt is used); any other error is
 * retried by the queue, and the unit counted failed after its lease's last attempt. A unit out of attempts, or a
 * dead letter, is given up: the plug-in's `dead` hook, then counted failed (the plan or assembly FAILS the task). A
 * message of a unit its task does not need now (stopped, finished, unknown, another delivery running it) is acked
 * without work.
 */
import type { Env } from "../env";
import { ApiError, kindedError } from "../http/errors";
import { asLocation } from "../locations/hosting";
import type { Begin, UnitEnd } from "./verbs";
import { ASSEMBLE_UNIT, PLAN_UNIT } from "./messages";
import type { TaskPlugin, UnitResult } from "./plugin";
import type { TaskMessage } from "./messages";
import { retryDelaySeconds, type KindHandler, type KindOptions } from "./queue";
import { RunLater, heartbeat } from "./runner";
import { taskStub, type TaskStub } from "./stub";

/** The ApiError of a failure the client caused (retrying cannot help), else undefined. */
export function clientError(e: unknown): ApiError | undefined {
  const api = e instanceof ApiError ? e : kindedError(e);
  return api && api.status < 500 ? api : undefined;
}

/** True for the admission's refusal (kind `overloaded`): the isolate had no room for the unit's pixels in time. */
const overloaded = (e: unknown): e is Error & { retryAfterSeconds?: number } =>
  e instanceof Error && (e as { kind?: unknown }).kind === "overloaded";

/** The result of a failed unit from the client error `e`. */
const failedUnit = (e: ApiError): UnitResult => ({
  pu: 0,
  error: e.message,
  failure: { status: e.status, code: e.code },
});

type Target = { plugin: TaskPlugin; stub: TaskStub; unit: string };
type Begun = Extract<Begin, { task: unknown }>;

/** Runs a begun unit's work; how it ended. */
async function perform(
  { plugin, stub, unit }: Target,
  env: Env,
  begun: Begun,
  owner: string,
  retryMs: number,
  signal: AbortSignal,
): Promise<UnitEnd> {
  const at = asLocation(env, begun.task.location);
  try {
    if (unit === PLAN_UNIT) return { plan: await plugin.plan(at, begun.task) };
    if (unit === ASSEMBLE_UNIT) return (await plugin.assemble!(at, begun.task), { assembled: true });
    const remember = async (value: string) => (await stub.renew(unit, owner, value)).memo ?? value;
    return { result: await plugin.run(at, begun.task, { ...begun.unit, remember }, signal) };
  } catch (e) {
    if (e instanceof RunLater) return { later: e.delayMs }; // not a failure: the unit runs again later
    if (overloaded(e)) return { later: 1000 * (e.retryAfterSeconds ?? 2) };
    const client = clientError(e);
    if (client && unit === PLAN_UNIT)
      return { fail: `Analysis failed: ${client.message}`, failure: { status: client.status, code: client.code } };
    if (client && unit !== ASSEMBLE_UNIT) return { result: failedUnit(client) };
    return { retry: e instanceof Error ? e.message : String(e), retryMs };
  }
}

/** Gives up a unit with `cause`: the plug-in's `dead` hook for a planned unit, then its end (counted failed, or the task FAILED). */
async function giveUp(
  { plugin, stub, unit }: Target,
  env: Env,
  begun: Begun,
  owner: string,
  cause: string,
): Promise<void> {
  if (unit !== PLAN_UNIT && unit !== ASSEMBLE_UNIT)
    await plugin.dead?.(asLocation(env, begun.task.location), begun.task, begun.unit, cause);
  await stub.end(unit, owner, { dead: cause });
}

/** The ENGINE_KIND handler and its dead-letter hook for `plugins`. */
export function engineKind(plugins: readonly TaskPlugin[]): [KindHandler, KindOptions] {
  const byKind = new Map(plugins.map((p) => [p.kind, p]));
  /** The plug-in, stub and unit of a message. @throws Error for a malformed one (retried, then dead-lettered). */
  const target = (body: TaskMessage, env: Env): Target => {
    const plugin = byKind.get(String(body.ns));
    if (!plugin || typeof body.task !== "string" || typeof body.unit !== "string")
      throw new Error(`task message without a known ns, task and unit`);
    return { plugin, stub: taskStub(plugin, env, body.task), unit: body.unit };
  };

  const handler: KindHandler = async (body, env, message) => {
    const t = target(body, env);
    const owner = `${message.id}#${message.attempts}`;
    const begun = await t.stub.begin(t.unit, owner);
    if (!begun.run) return begun.reason === "exhausted" ? giveUp(t, env, begun, owner, begun.cause) : undefined;
    const beat = heartbeat(async () => (await t.stub.renew(t.unit, owner)).live, begun.leaseMs, t.unit);
    try {
      const how = await perform(t, env, begun, owner, 1000 * retryDelaySeconds(message.attempts), beat.signal);
      if ("retry" in how && beat.signal.aborted) return; // the lease was lost: the unit's next delivery does the work
      const recorded = await t.stub.end(t.unit, owner, how);
      if (!recorded && "retry" in how) throw new Error(how.retry); // the queue retries it
    } finally {
      beat.stop();
    }
  };

  /** A dead letter (or a unit the watchdog found out of attempts: `cause`): given up unless its task no longer needs it. */
  const onDead: KindOptions["onDead"] = async (body, env, message, cause) => {
    const t = target(body, env);
    const owner = `${message.id}#dead`;
    const begun = await t.stub.begin(t.unit, owner, true);
    if (begun.run || begun.reason !== "exhausted") return;
    const what = t.unit === PLAN_UNIT ? "analysis" : t.unit === ASSEMBLE_UNIT ? "assembly" : "unit";
    await giveUp(
      t,
      env,
      begun,
      owner,
      cause ?? `The ${what} failed all ${message.attempts} delivery attempts (dead-lettered).`,
    );
  };
  return [handler, { onDead }];
}

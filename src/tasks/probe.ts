/**
 * `probe`, the diagnostic queue kind: it records the message under the name `task` (once per message id: an R2
 * object `_probes/<task>/probes/<message id>` in DATA), or with `fail: true` fails every attempt (retried at once)
 * until the dead-letter queue hands it to onDead (recorded under `dead/`), or with `laterMs` asks to run again after
 * that delay (RunLater). With `units` and `unit` it runs as leased unit `unit` of the UnitObject named `units`
 * (./lease.ts). Tests and a running server check the queue -> consumer path, the dead-letter path and the lease
 * watchdog with it. Registered by src/tasks-registry.ts.
 */
import type { Env } from "../env";
import type { TaskMessage } from "./messages";
import type { KindHandler, KindOptions } from "./queue";
import { RunLater, unitsStub, type UnitRef } from "./runner";

export const PROBE_KIND = "probe";

/** A probe message: `{kind: "probe", task: "<name>", fail?: true, laterMs?: <ms>, units?: "<UnitObject name>", unit?: "<unit id>"}`. */
export interface ProbeMessage extends TaskMessage {
  kind: typeof PROBE_KIND;
  task: string;
  fail?: boolean;
  laterMs?: number;
  units?: string;
  unit?: string;
}

/** The probe's task name. @throws Error when it is not a non-empty string (the message is retried, then dead). */
function probeTask(body: TaskMessage): string {
  if (typeof body.task !== "string" || body.task === "") throw new Error("probe message without a task name");
  return body.task;
}

const prefix = (task: string) => `_probes/${task}/`;

/** Records message `id` of `task` as `what` (probes or dead), once per id. */
const record = (env: Pick<Env, "DATA">, task: string, what: "probes" | "dead", id: string) =>
  env.DATA.put(`${prefix(task)}${what}/${id}`, "");

/** The messages recorded under `task`: `{probes, dead}`, each only when not 0. */
export async function probeCounts(env: Pick<Env, "DATA">, task: string): Promise<{ probes?: number; dead?: number }> {
  const counts: Record<string, number> = {};
  for (const o of (await env.DATA.list({ prefix: prefix(task) })).objects) {
    const what = o.key.slice(prefix(task).length).split("/")[0]!;
    counts[what] = (counts[what] ?? 0) + 1;
  }
  return counts;
}

/** @throws Error when asked to fail or without a task name; RunLater when asked to run later. */
const probe: KindHandler = async (body, env, message) => {
  const task = probeTask(body);
  if (body.fail === true) throw new Error("probe asked to fail");
  if (typeof body.laterMs === "number") throw new RunLater("probe asked to run later", body.laterMs);
  await record(env, task, "probes", message.id);
};

/** The probe kind's handler and options: a dead probe is recorded under `dead` once; retried at once. */
export const probeKind: [KindHandler, KindOptions] = [
  probe,
  {
    onDead: async (body, env, message) => void (await record(env, probeTask(body), "dead", message.id)),
    retryDelay: () => 0,
    lease: (body, env): UnitRef | null =>
      typeof body.units === "string" && typeof body.unit === "string"
        ? { stub: unitsStub(env, body.units), unit: body.unit }
        : null,
  },
];

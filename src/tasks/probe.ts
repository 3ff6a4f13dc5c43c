/**
 * `probe`, the diagnostic queue kind: it records the message on the TaskObject named `task` (counter `probes` + 1,
 * once per message id), or with `fail: true` fails every attempt (retried at once) until the dead-letter queue hands
 * it to onDead (counter `dead` + 1), or with `laterMs` asks to run again after that delay (RunLater). With `units` and `unit` it runs as leased unit `unit` of the UnitObject named
 * `units` (./lease.ts). Tests and a running server check the queue → consumer → Durable Object path, the dead-letter
 * path and the lease watchdog with it. Registered by src/tasks-registry.ts.
 */
import type { Env } from "../env";
import { unwrap } from "./machine";
import type { KindHandler, KindOptions, TaskMessage } from "./queue";
import { RunLater, unitsStub, type UnitRef } from "./runner";

export const PROBE_KIND = "probe";

/** A probe message: `{kind: "probe", task: "<TaskObject name>", fail?: true, laterMs?: <ms>, units?: "<UnitObject name>", unit?: "<unit id>"}`. */
export interface ProbeMessage extends TaskMessage {
  kind: typeof PROBE_KIND;
  task: string;
  fail?: boolean;
  laterMs?: number;
  units?: string;
  unit?: string;
}

/** The TaskObject stub of a task name. */
export const probeStub = (env: Env, name: string) => env.TASKS.get(env.TASKS.idFromName(name));

/** The probe's task name. @throws Error when it is not a non-empty string (the message is retried, then dead). */
function probeTask(body: TaskMessage): string {
  if (typeof body.task !== "string" || body.task === "") throw new Error("probe message without a task name");
  return body.task;
}

/** @throws Error when asked to fail or without a task name; RunLater when asked to run later. */
const probe: KindHandler = async (body, env, message) => {
  const task = probeTask(body);
  if (body.fail === true) throw new Error("probe asked to fail");
  if (typeof body.laterMs === "number") throw new RunLater("probe asked to run later", body.laterMs);
  unwrap(await probeStub(env, task).applyMessage(message.id, { counters: { probes: 1 } }));
};

/** The probe kind's handler and options: a dead probe counts `dead` + 1 on its task once; retried at once. */
export const probeKind: [KindHandler, KindOptions] = [
  probe,
  {
    onDead: async (body, env, message) => void unwrap(await probeStub(env, probeTask(body)).applyMessage(`dead:${message.id}`, { counters: { dead: 1 } })),
    retryDelay: () => 0,
    lease: (body, env): UnitRef | null => (typeof body.units === "string" && typeof body.unit === "string" ? { stub: unitsStub(env, body.units), unit: body.unit } : null),
  },
];

/**
 * The message kinds the queue consumer knows. Only `probe` so far: it records the message on the TaskObject
 * named `task` (counter `probes` + 1, once per message id), which is how tests and a running server check the
 * queue → consumer → Durable Object path end to end. The task APIs register their kinds here.
 */
import type { Env } from "../env";
import { unwrap } from "./machine";
import { QueueRouter, type TaskMessage } from "./queue";

export const PROBE_KIND = "probe";

/** A probe message: `{kind: "probe", task: "<TaskObject name>"}`. */
export interface ProbeMessage extends TaskMessage {
  kind: typeof PROBE_KIND;
  task: string;
}

/** The TaskObject stub of a task name. */
export const taskStub = (env: Env, name: string) => env.TASKS.get(env.TASKS.idFromName(name));

/** @throws Error when `task` is not a non-empty string (the message is then retried and dead-lettered). */
async function probe(body: TaskMessage, env: Env, message: Message<unknown>): Promise<void> {
  if (typeof body.task !== "string" || body.task === "") throw new Error("probe message without a task name");
  unwrap(await taskStub(env, body.task).applyMessage(message.id, { counters: { probes: 1 } }));
}

/** The consumer the Worker's `queue()` entry uses. */
export const queueRouter = new QueueRouter().on(PROBE_KIND, probe);

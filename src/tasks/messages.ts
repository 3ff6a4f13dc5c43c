/**
 * The messages of the task queues: any message is a {@link TaskMessage} (./queue.ts routes it by `kind`). The
 * engine's messages: `{kind: "task", ns, task, unit, queue}` runs unit `unit` of task `task` of plug-in
 * `ns` (./plugin.ts `kind`); `unit` is {@link PLAN_UNIT}, {@link ASSEMBLE_UNIT} or a planned unit's id. `queue` names
 * the queue it travels on (./runner.ts sendMessages). Each is a leased unit of the task's object ({@link leaseId}).
 */
/** A task message: `kind` picks the handler; the rest is the handler's (JSON-serialisable). */
export interface TaskMessage {
  kind: string;
  [field: string]: unknown;
}

/** The queues a message may name in its `queue` member (wrangler.toml; light when it names none). */
export type QueueName = "light" | "heavy" | "ingest";

export const ENGINE_KIND = "task";
/** The unit that plans a task (ANALYSING). */
export const PLAN_UNIT = "plan";
/** The unit that assembles a task's outputs after its last unit (plug-ins with `assemble`). */
export const ASSEMBLE_UNIT = "assemble";

/** A unit's message. */
export interface UnitMessage extends TaskMessage {
  kind: typeof ENGINE_KIND;
  ns: string;
  task: string;
  unit: string;
  queue: QueueName;
}

export const unitMessage = (ns: string, task: string, unit: string, queue: QueueName): UnitMessage => ({
  kind: ENGINE_KIND,
  ns,
  task,
  unit,
  queue,
});

/** The id of a unit's lease in its task object (planned units are `u:<id>`, apart from the plan and the assembly). */
export const leaseId = (unit: string): string => (unit === PLAN_UNIT || unit === ASSEMBLE_UNIT ? unit : `u:${unit}`);

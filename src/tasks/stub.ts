/** The one typed stub of a task's engine object (./engine.ts), for routes, the queue consumer and tests. */
import type { Env } from "../env";
import type { TaskEngine } from "./engine";
import type { TaskPlugin } from "./plugin";

/** The RPC surface of an object as the Worker calls it (the requests' zod types defeat the runtime's own Rpc typing). */
type Rpc<T> = { [K in keyof T]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<Awaited<R>> : never };

/** The engine's verbs: the task's (create, task, act, describe, addUnits) and its units' (begin, renew, end). */
export type TaskStub = Rpc<
  Pick<TaskEngine, "create" | "task" | "act" | "describe" | "addUnits" | "begin" | "renew" | "end">
> &
  DurableObjectStub;

/** The engine object of task `id` of plug-in `plugin` (one object per task, named by its id). */
export function taskStub(plugin: Pick<TaskPlugin, "namespace">, env: Env, id: string): TaskStub {
  const ns = plugin.namespace(env);
  return ns.get(ns.idFromName(id)) as unknown as TaskStub;
}

/**
 * The Durable Object class of one Async Processing request (/api/v1/async/process): its state machine (src/tasks/machines.ts) on the
 * {@link TaskDurableObject} base (atomic transitions, counters, once-only message ids, timeout alarm).
 */
import { TaskDurableObject } from "../tasks/object";
import { ASYNC_MACHINE, type AsyncState } from "../tasks/machines";

export class AsyncTask extends TaskDurableObject<AsyncState> {
  protected readonly machine = ASYNC_MACHINE;
}

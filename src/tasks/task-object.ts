/**
 * The Durable Object class bound as `TASKS` (wrangler.toml): a Batch Processing v2 task machine on the
 * {@link TaskDurableObject} base. The queue's `probe` kind (./kinds.ts) and the tests use it; the task APIs of
 * issue 12 will subclass the base with their own machines (./machines.ts) and bind them next to it.
 */
import { TaskDurableObject } from "./object";
import { BATCH_MACHINE, type BatchState } from "./machines";

export class TaskObject extends TaskDurableObject<BatchState> {
  protected readonly machine = BATCH_MACHINE;
}

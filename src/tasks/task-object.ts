/**
 * The Durable Object class bound as `TASKS` (wrangler.toml): a Batch Processing v2 task machine on the
 * {@link TaskDurableObject} base. The queue's `probe` kind (./probe.ts) and the tests use it; the task APIs are
 * the engine's (./engine.ts), on the same base.
 */
import { TaskDurableObject } from "./object";
import { BATCH_MACHINE, type BatchState } from "./machines";

export class TaskObject extends TaskDurableObject<BatchState> {
  protected readonly machine = BATCH_MACHINE;
}

/**
 * The Durable Object class of one Batch Processing v2 task (/api/v2/batch/process): its state machine (src/tasks/machines.ts) on the
 * {@link TaskDurableObject} base (atomic transitions, counters, once-only message ids, timeout alarm).
 */
import { TaskDurableObject } from "../tasks/object";
import { BATCH_MACHINE, type BatchState } from "../tasks/machines";

export class BatchTask extends TaskDurableObject<BatchState> {
  protected readonly machine = BATCH_MACHINE;
}

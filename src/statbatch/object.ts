/**
 * The Durable Object class of one Statistical Batch task (/api/v1/statistics/batch): its state machine (src/tasks/machines.ts) on the
 * {@link TaskDurableObject} base (atomic transitions, counters, once-only message ids, timeout alarm).
 */
import { TaskDurableObject } from "../tasks/object";
import { STATISTICAL_BATCH_MACHINE, type StatisticalBatchState } from "../tasks/machines";

export class StatisticalBatchTask extends TaskDurableObject<StatisticalBatchState> {
  protected readonly machine = STATISTICAL_BATCH_MACHINE;
}

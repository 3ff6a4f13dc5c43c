/**
 * Third-party import as a plug-in of the task engine (src/tasks/plugin.ts): a confirmed order or subscription is a
 * task (same id, object IMPORT_TASKS, machine IMPORT_MACHINE), started at confirmation; its units are its
 * deliveries (unit id = delivery id), each run by ./deliver.ts, plus for a subscription the unit {@link POLL_UNIT},
 * the only place its provider is polled: every POLL_SECONDS it adds a unit per new delivery (engine `addUnits`).
 * Reads (get, list, deliveries) only read D1: they call no provider, write nothing and touch no engine object.
 * A confirm whose Worker died between the charge (D1: RUNNING) and the task's start is resumed by the cron sweep
 * {@link resumeImports} (src/index.ts `scheduled`, wrangler.toml `[triggers]`), not by a read.
 * Where each field lives (one source of truth each): the record's spec fields and status (CREATED, RUNNING, CANCELLED
 * and the end) in D1 import_orders, as the API lists and queries them; the delivery's status, files and tile in D1
 * import_deliveries; the engine holds the run: which deliveries are units, which ended, and when the record ends
 * (its `tasks` listing row, kind "dataimport", is the engine's own, never shown). When the last unit is counted the
 * engine ends the task and `ended` writes the record's end: an order DONE (every delivery DONE), PARTIAL (some) or
 * FAILED (none); a subscription COMPLETED (its poll unit ends after its first poll past timeRange.to). A record no
 * longer RUNNING (a cancelled subscription) is left as it is: its units end without work.
 * A unit is counted done when its delivery is DONE, failed (with its errorMessage) when it ended otherwise; while the
 * provider prepares it (DeliveryPending) or its tile is being ingested it snoozes (RunLater).
 */
import type { Env } from "../env";
import { IMPORT_MACHINE } from "../tasks/machines";
import type { PlannedUnit, TaskPlugin, UnitResult } from "../tasks/plugin";
import { RunLater } from "../tasks/runner";
import { taskStub } from "../tasks/stub";
import { tileById } from "../storage/byoc/tiles";
import {
  DELIVERY_ENDS,
  addDeliveries,
  failCancelledDeliveries,
  deliveryById,
  moveDelivery,
  orderDeliverySqkm,
  parentDeliveries,
  pollSubscription,
} from "./deliveries";
import { deliver } from "./deliver";
import type { ImportRecord, RecordKind } from "./model";
import { endRecord, recordById, stalledRecords } from "./store";

/** The unit of a subscription that polls its provider (not a delivery). */
export const POLL_UNIT = "poll";
/** Seconds between two polls of a RUNNING subscription. */
export const POLL_SECONDS = 300;
/** Milliseconds between two looks at a delivery's tile being ingested (BYOC ingestion takes about a second). */
const INGEST_WAIT_MS = 1_000;

type ImportRequest = { kind: RecordKind };
type DeliveryData = { delivery: string } | null;

/** The units of `parent`'s deliveries. */
const deliveryUnits = async (env: Env, parent: string): Promise<PlannedUnit<DeliveryData>[]> =>
  (await parentDeliveries(env, parent)).map((id) => ({ id, data: { delivery: id } }));

/** The record's end as the spec names it, from the engine's end state. */
const recordEnd = (kind: RecordKind, state: string): string => (kind === "subscription" ? "COMPLETED" : state);

/** True when a subscription's timeRange.to has passed (it then completes once its deliveries ended). */
const pastEnd = (r: ImportRecord): boolean => {
  const to = (r.input.data as { dataFilter?: { timeRange?: { to?: string } } }[])[0]?.dataFilter?.timeRange?.to;
  return to !== undefined && Date.parse(to) < Date.now();
};

/** The outcome of delivery `id` as a unit: counted when it ended, else RunLater until its tile is ingested. */
async function deliveryResult(env: Env, id: string): Promise<UnitResult> {
  const d = (await deliveryById(env, id))!;
  if (d.status === "INGESTING") {
    const t = d.tileId ? await tileById(env, d.tileId) : null;
    if (t?.status === "INGESTED") await moveDelivery(env, id, ["INGESTING"], "DONE");
    else if (t?.status === "FAILED")
      await moveDelivery(env, id, ["INGESTING"], "IMPORT_FAILED", {
        error_message: t.failedCause ?? "Ingestion failed.",
      });
    else throw new RunLater(`Delivery ${id}: its tile is being ingested.`, INGEST_WAIT_MS);
    return deliveryResult(env, id);
  }
  if (d.status === "DONE" || !DELIVERY_ENDS.includes(d.status)) return { pu: 0 }; // not ended: its record stopped RUNNING
  return { pu: 0, error: d.errorMessage ?? `The delivery ended ${d.status}.` };
}

export const importPlugin: TaskPlugin<ImportRequest, DeliveryData> = {
  kind: "dataimport",
  machine: IMPORT_MACHINE,
  queue: "light",
  namespace: (env) => env.IMPORT_TASKS,
  async plan(env, task) {
    const r = (await recordById(env, task.id))!;
    if (r.kind === "order") await addDeliveries(env, r, r.items, orderDeliverySqkm(r));
    const units = await deliveryUnits(env, r.id);
    return { units: r.kind === "subscription" ? [{ id: POLL_UNIT, data: null }, ...units] : units, estimatePU: null };
  },
  async run(env, task, unit) {
    if (unit.id !== POLL_UNIT) {
      await deliver(env, { delivery: unit.id, parent: task.id });
      return deliveryResult(env, unit.id);
    }
    const r = await recordById(env, task.id);
    if (!r || r.status !== "RUNNING") return { pu: 0 };
    await pollDeliveries(env, r);
    if (pastEnd(r)) return { pu: 0 }; // that was the last poll: the task ends once its deliveries ended
    throw new RunLater(`Subscription ${r.id}: next poll.`, POLL_SECONDS * 1000);
  },
  async dead(env, _task, unit, cause) {
    if (unit.id === POLL_UNIT) return;
    await moveDelivery(env, unit.id, ["WAITING"], "DELIVERY_FAILED", { error_message: cause });
    await moveDelivery(env, unit.id, ["DELIVERED", "PREPARING", "INGESTING"], "IMPORT_FAILED", {
      error_message: cause,
    });
  },
  async ended(env, task) {
    await endRecord(env, task.id, ["RUNNING"], recordEnd(task.request.kind, task.state));
  },
};

/** The engine object of record `id`. */
export const importStub = (env: Env, id: string) => taskStub(importPlugin, env, id);

/** The poll unit's work: polls a RUNNING subscription's provider, adds a unit per delivery the engine does not run yet. */
async function pollDeliveries(env: Env, r: ImportRecord): Promise<void> {
  await pollSubscription(env, r);
  await importStub(env, r.id).addUnits(await deliveryUnits(env, r.id));
}

/**
 * Starts (or finds started) the engine task of a RUNNING record: at confirmation, and by the sweep
 * {@link resumeImports} when a confirm's Worker died after the charge. An order's deliveries are made first, so
 * they are listed at once. Idempotent: deliveries are one per item, and a second `create` answers the task as it is
 * (finishing a start cut short).
 */
export async function startImport(env: Env, r: ImportRecord): Promise<void> {
  if (r.status !== "RUNNING") return;
  if (r.kind === "order") await addDeliveries(env, r, r.items, orderDeliverySqkm(r));
  await importStub(env, r.id).create(
    { id: r.id, account: r.account, created: r.created },
    { kind: r.kind } satisfies ImportRequest,
    true,
  );
}

/** Most stalled records one sweep resumes (the rest wait for the next one). */
const SWEEP_BATCH = 100;

/**
 * The recovery sweep, run by the Worker's cron (src/index.ts `scheduled`, every 5 minutes): each RUNNING record
 * whose engine task never started (no listing row, or one still CREATED: the confirm's Worker died between the charge
 * and the start) is started ({@link startImport}); each whose task ended while the record stayed RUNNING (the `ended`
 * hook's write was lost) gets its end. Both are idempotent and conditional, so a sweep racing a confirm, the hook or
 * another sweep changes nothing twice; a record that fails is logged and left to the next sweep. WAITING deliveries
 * of cancelled subscriptions end DELIVERY_FAILED (failCancelledDeliveries: a cancel whose Worker died after the
 * record's write). Answers the number of records it found.
 */
export async function resumeImports(env: Env): Promise<number> {
  await failCancelledDeliveries(env);
  const stalled = await stalledRecords(env, SWEEP_BATCH);
  for (const { record, taskState } of stalled) {
    try {
      if (taskState === null || taskState === IMPORT_MACHINE.initial) await startImport(env, record);
      else await endRecord(env, record.id, ["RUNNING"], recordEnd(record.kind, taskState));
    } catch (e) {
      console.error(
        `resumeImports: ${record.kind} ${record.id} (the next sweep tries again):`,
        String(e).slice(0, 300),
      );
    }
  }
  return stalled.length;
}

/**
 * Third-party import as a plug-in of the task engine (src/tasks/plugin.ts): a confirmed order or subscription is a
 * task (same id, object IMPORT_TASKS), started at confirmation; its units are its deliveries (unit id = delivery
 * id), each run by ./deliver.ts, plus for a subscription the unit {@link POLL_UNIT} that polls the provider every
 * POLL_SECONDS and adds a unit per new delivery (engine `addUnits`).
 * Where each field lives (one source of truth each): the record's spec fields and status (CREATED, RUNNING, CANCELLED
 * and the end) in D1 import_orders, as the API lists and queries them; the delivery's status, files and tile in D1
 * import_deliveries; the engine holds the run: which deliveries are units, which ended, and when the record ends
 * (its `tasks` listing row, kind "dataimport", is the engine's own, never shown). When the last unit is counted the
 * engine ends the task and `ended` writes the record's end: an order DONE (every delivery DONE), PARTIAL (some) or
 * FAILED (none); a subscription COMPLETED (its poll unit ends once timeRange.to has passed). A record no longer
 * RUNNING (a cancelled subscription) is left as it is: its units end without work.
 * A unit is counted done when its delivery is DONE, failed (with its errorMessage) when it ended otherwise; while the
 * provider prepares it (DeliveryPending) or its tile is being ingested it snoozes (RunLater).
 */
import type { Env } from "../env";
import { STATISTICAL_BATCH_MACHINE } from "../tasks/machines";
import type { PlannedUnit, TaskPlugin, UnitResult } from "../tasks/plugin";
import { RunLater } from "../tasks/runner";
import { taskStub } from "../tasks/stub";
import { tileById } from "../storage/byoc/tiles";
import { DELIVERY_ENDS, addDeliveries, deliveryById, moveDelivery, orderDeliverySqkm, parentDeliveries, pollSubscription } from "./deliveries";
import { deliver } from "./deliver";
import type { ImportRecord, RecordKind } from "./model";
import { endRecord, recordById } from "./store";

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
    else if (t?.status === "FAILED") await moveDelivery(env, id, ["INGESTING"], "IMPORT_FAILED", { error_message: t.failedCause ?? "Ingestion failed." });
    else throw new RunLater(`Delivery ${id}: its tile is being ingested.`, INGEST_WAIT_MS);
    return deliveryResult(env, id);
  }
  if (d.status === "DONE" || !DELIVERY_ENDS.includes(d.status)) return { pu: 0 }; // not ended: its record stopped RUNNING
  return { pu: 0, error: d.errorMessage ?? `The delivery ended ${d.status}.` };
}

export const importPlugin: TaskPlugin<ImportRequest, DeliveryData> = {
  kind: "dataimport",
  noun: "third-party import",
  unitNoun: "deliveries",
  machine: STATISTICAL_BATCH_MACHINE,
  queue: "light",
  namespace: (env) => env.IMPORT_TASKS,
  userActions: false,
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
    if (!r || r.status !== "RUNNING" || pastEnd(r)) return { pu: 0 };
    await pollDeliveries(env, r);
    throw new RunLater(`Subscription ${r.id}: next poll.`, POLL_SECONDS * 1000);
  },
  async dead(env, _task, unit, cause) {
    if (unit.id === POLL_UNIT) return;
    await moveDelivery(env, unit.id, ["WAITING"], "DELIVERY_FAILED", { error_message: cause });
    await moveDelivery(env, unit.id, ["DELIVERED", "PREPARING", "INGESTING"], "IMPORT_FAILED", { error_message: cause });
  },
  async ended(env, task) {
    await endRecord(env, task.id, ["RUNNING"], recordEnd(task.request.kind, task.state));
  },
  view: (task) => ({ id: task.id, state: task.state }),
};

/** The engine object of record `id`. */
export const importStub = (env: Env, id: string) => taskStub(importPlugin, env, id);

/** Polls a RUNNING subscription's provider and adds a unit for each delivery the engine does not run yet. */
export async function pollDeliveries(env: Env, r: ImportRecord): Promise<void> {
  await pollSubscription(env, r);
  await importStub(env, r.id).addUnits(await deliveryUnits(env, r.id));
}

/**
 * Starts (or finds started) the engine task of a RUNNING record: at confirmation, and on reads, so a confirm whose
 * Worker died after the charge still runs. An order's deliveries are made first, so they are listed at once.
 */
export async function startImport(env: Env, r: ImportRecord): Promise<void> {
  if (r.status !== "RUNNING") return;
  if (r.kind === "order") await addDeliveries(env, r, r.items, orderDeliverySqkm(r));
  await importStub(env, r.id).create({ id: r.id, account: r.account, created: r.created }, { kind: r.kind } satisfies ImportRequest);
}

/**
 * A record as a read answers it: a RUNNING one has its engine task made sure of (see {@link startImport}) and, for a
 * subscription, its provider polled (a new product shows at once, not only at the next scheduled poll).
 */
export async function current(env: Env, r: ImportRecord): Promise<ImportRecord> {
  if (r.status !== "RUNNING") return r;
  await startImport(env, r);
  if (r.kind === "subscription") await pollDeliveries(env, r);
  return (await recordById(env, r.id)) ?? r;
}

/**
 * Deliveries of an order or a subscription (table import_deliveries) and how their parent follows them:
 * - confirming an order makes one delivery per ordered item (WAITING), each sent to ./deliver.ts as a leased unit
 *   (`refresh` makes any the confirming Worker did not, so a confirmed order never ends without its deliveries);
 * - a RUNNING subscription polls its provider (at confirmation, on each read of it or its deliveries, and every
 *   POLL_SECONDS on the queue) and makes a delivery for every matching product it has not delivered yet;
 * - `refresh` moves deliveries INGESTING to DONE / IMPORT_FAILED by their BYOC tile, and a RUNNING order to DONE
 *   (every delivery DONE), FAILED (none DONE) or PARTIAL (some DONE) once every delivery ended; a subscription whose
 *   timeRange.to has passed ends COMPLETED once its deliveries ended. Every move is a conditional UPDATE.
 */
import type { Env } from "../env";
import type { SeekPage } from "../storage/keyset";
import { keysetSql } from "../storage/keyset";
import { sendMessages, unitsStub } from "../tasks/runner";
import type { TaskMessage } from "../tasks/queue";
import type { Delivery, DeliveryStatus, ImportRecord } from "./model";
import { providerOf } from "./providers";
import type { SearchBody } from "./schema";
import { endRecord, recordById } from "./store";

type DB = Pick<Env, "DB">;

/** Queue kinds of the area (registered in src/index.ts). */
export const DELIVERY_KIND = "dataimport-delivery";
export const POLL_KIND = "dataimport-poll";
/** Seconds between two polls of a RUNNING subscription on the queue. */
export const POLL_SECONDS = 300;

/** Statuses a delivery ends in. */
export const DELIVERY_ENDS: readonly DeliveryStatus[] = ["DONE", "DELIVERY_FAILED", "IMPORT_FAILED", "NON_INGESTIBLE"];

interface Row {
  id: string;
  parent: string;
  account: string;
  provider: string;
  item_id: string;
  sqkm: number | null;
  status: DeliveryStatus;
  error_message: string | null;
  prefix: string | null;
  files: string;
  tile_id: string | null;
  provider_ref: string | null;
  sensing_time: string | null;
  created: string;
}

const toDelivery = (r: Row): Delivery => ({
  id: r.id, parent: r.parent, account: r.account, provider: r.provider, itemId: r.item_id, sqkm: r.sqkm, status: r.status, errorMessage: r.error_message,
  prefix: r.prefix, files: JSON.parse(r.files) as string[], tileId: r.tile_id, providerRef: r.provider_ref, sensingTime: r.sensing_time, created: r.created,
});

/** The delivery `id` of record `parent`, or null. */
export async function getDelivery(env: DB, parent: string, id: string): Promise<Delivery | null> {
  const r = await env.DB.prepare("SELECT * FROM import_deliveries WHERE id = ? AND parent = ?").bind(id, parent).first<Row>();
  return r ? toDelivery(r) : null;
}

/** One page (count + 1 rows) of `parent`'s deliveries in (created, id) order, optionally of one status. */
export async function listDeliveries(env: DB, parent: string, status: string | null, page: SeekPage): Promise<Delivery[]> {
  const k = keysetSql(["created", "id"], page);
  const { results } = await env.DB.prepare(
    `SELECT * FROM import_deliveries WHERE parent = ? AND (? IS NULL OR status = ?) AND ${k.where} ORDER BY ${k.orderBy} LIMIT ?`,
  )
    .bind(parent, status, status, ...k.params, k.limit)
    .all<Row>();
  return results.map(toDelivery);
}

/**
 * Moves delivery `id` from one of `from` to `to`, setting `set` columns (error_message, files, prefix, provider_ref, sensing_time);
 * true when it moved.
 */
export async function moveDelivery(env: DB, id: string, from: readonly DeliveryStatus[], to: DeliveryStatus, set: Record<string, string | null> = {}): Promise<boolean> {
  const cols = Object.keys(set).filter((c) => /^[a-z_]+$/.test(c));
  const r = await env.DB.prepare(
    `UPDATE import_deliveries SET status = ?${cols.map((c) => `, ${c} = ?`).join("")} WHERE id = ? AND status IN (${from.map(() => "?").join(", ")})`,
  )
    .bind(to, ...cols.map((c) => set[c] ?? null), id, ...from)
    .run();
  return r.meta.changes > 0;
}

/** The delivery `id` whatever its parent (the unit's view). */
export async function deliveryById(env: DB, id: string): Promise<Delivery | null> {
  const r = await env.DB.prepare("SELECT * FROM import_deliveries WHERE id = ?").bind(id).first<Row>();
  return r ? toDelivery(r) : null;
}

/** The UnitObject holding the delivery units of record `parent` (one per delivery, named by its id). */
export const deliveryUnits = (env: Pick<Env, "UNITS">, parent: string) => unitsStub(env, `tpdi:${parent}`);

const deliveryMessage = (d: Pick<Delivery, "id" | "parent">): TaskMessage => ({ kind: DELIVERY_KIND, delivery: d.id, parent: d.parent });

/** The items `parent` has a delivery of. */
async function deliveredItems(env: DB, parent: string): Promise<Set<string>> {
  const { results } = await env.DB.prepare("SELECT item_id FROM import_deliveries WHERE parent = ?").bind(parent).all<{ item_id: string }>();
  return new Set(results.map((x) => x.item_id));
}

/**
 * Makes a WAITING delivery for each of `items` `r` has none of, and sends it. Crash-safe in this order: the units
 * are put first (a unit whose delivery was never written finds nothing to do), then the rows (one per item: UNIQUE
 * parent, item_id), then the messages (a unit whose message was lost is sent by its object's watchdog).
 */
async function addDeliveries(env: Env, r: ImportRecord, items: readonly string[], sqkm: number | null): Promise<void> {
  const known = await deliveredItems(env, r.id);
  const created = new Date().toISOString();
  const fresh: Delivery[] = items.filter((itemId) => !known.has(itemId)).map((itemId) => ({
    id: crypto.randomUUID(), parent: r.id, account: r.account, provider: r.provider, itemId, sqkm, status: "WAITING", errorMessage: null, prefix: null, files: [], tileId: null,
    providerRef: null, sensingTime: null, created,
  }));
  if (!fresh.length) return;
  await deliveryUnits(env, r.id).putUnits(fresh.map((d) => ({ id: d.id, message: deliveryMessage(d) })));
  const inserted: Delivery[] = [];
  for (const d of fresh) {
    const put = await env.DB.prepare(
      "INSERT INTO import_deliveries (id, parent, account, provider, item_id, sqkm, status, created) VALUES (?, ?, ?, ?, ?, ?, 'WAITING', ?) ON CONFLICT (parent, item_id) DO NOTHING",
    )
      .bind(d.id, d.parent, d.account, d.provider, d.itemId, d.sqkm, d.created)
      .run();
    if (put.meta.changes > 0) inserted.push(d);
  }
  await sendMessages(env, inserted.map(deliveryMessage));
}

/**
 * Polls the provider for a RUNNING subscription's matching products and delivers the ones it has no delivery of.
 * Safe to run concurrently: a product gets one delivery (UNIQUE parent, item_id).
 */
export async function pollSubscription(env: Env, r: ImportRecord): Promise<void> {
  if (r.kind !== "subscription" || r.status !== "RUNNING") return;
  const p = providerOf(r.provider);
  const input = r.input as unknown as SearchBody;
  const query = { ...input, data: [{ ...input.data[0]!, itemIds: undefined }] };
  await addDeliveries(env, r, await p.orderItems({ env, account: r.account, apiKey: r.apiKey ?? undefined, url: new URL("http://internal/poll") }, query), null);
}

/**
 * Starts a confirmed record: an order's deliveries (its sqkm shared among its items); a subscription's first poll,
 * then its next one on the queue after POLL_SECONDS.
 */
export async function startDeliveries(env: Env, ctx: ExecutionContext, r: ImportRecord): Promise<void> {
  if (r.kind === "order") {
    await addDeliveries(env, r, r.items, orderDeliverySqkm(r));
    return;
  }
  await pollSubscription(env, r);
  ctx.waitUntil(sendPoll(env, r.id));
}

/** The sqkm of each delivery of an order: its sqkm shared among its items. */
const orderDeliverySqkm = (r: ImportRecord): number => r.sqkm / r.items.length;

/** Queue kind POLL_KIND: polls the subscription and, while it runs, sends the next poll. */
export async function pollMessage(body: TaskMessage, env: Env): Promise<void> {
  const r = await recordById(env, String(body.subscription));
  if (!r || r.status !== "RUNNING") return;
  await refresh(env, r);
  await sendPoll(env, r.id);
}

/** Sends the next poll of subscription `id` (light queue: one provider search), due in POLL_SECONDS. */
const sendPoll = (env: Env, id: string): Promise<void> => sendMessages(env, [{ kind: POLL_KIND, subscription: id, queue: "light" }], POLL_SECONDS);

/** Moves deliveries INGESTING whose tile ended: INGESTED -> DONE, FAILED -> IMPORT_FAILED (with the tile's cause). */
async function followTiles(env: DB, parent: string): Promise<void> {
  await env.DB.batch([
    env.DB.prepare(
      `UPDATE import_deliveries SET status = 'DONE' WHERE parent = ? AND status = 'INGESTING'
         AND EXISTS (SELECT 1 FROM byoc_tiles t WHERE t.id = import_deliveries.tile_id AND t.status = 'INGESTED')`,
    ).bind(parent),
    env.DB.prepare(
      `UPDATE import_deliveries SET status = 'IMPORT_FAILED',
         error_message = (SELECT coalesce(t.failed_cause, 'Ingestion failed.') FROM byoc_tiles t WHERE t.id = import_deliveries.tile_id)
       WHERE parent = ? AND status = 'INGESTING' AND EXISTS (SELECT 1 FROM byoc_tiles t WHERE t.id = import_deliveries.tile_id AND t.status = 'FAILED')`,
    ).bind(parent),
  ]);
}

/**
 * Brings a RUNNING record up to date (see the module comment) and answers it as it is now.
 */
export async function refresh(env: Env, r: ImportRecord): Promise<ImportRecord> {
  if (r.status !== "RUNNING") return r;
  // an order confirmed by a Worker killed before it made every delivery gets the missing ones now
  if (r.kind === "order") await addDeliveries(env, r, r.items, orderDeliverySqkm(r));
  await pollSubscription(env, r);
  await followTiles(env, r.id);
  const counts = await env.DB.prepare(
    `SELECT count(*) AS n, sum(status = 'DONE') AS done, sum(status IN (${DELIVERY_ENDS.map(() => "?").join(", ")})) AS ended FROM import_deliveries WHERE parent = ?`,
  )
    .bind(...DELIVERY_ENDS, r.id)
    .first<{ n: number; done: number | null; ended: number | null }>();
  const { n, done, ended } = { n: counts?.n ?? 0, done: counts?.done ?? 0, ended: counts?.ended ?? 0 };
  if (ended < n || (r.kind === "order" && n < r.items.length)) return r;
  let next: string | null = null;
  if (r.kind === "order") next = done === n ? "DONE" : done === 0 ? "FAILED" : "PARTIAL";
  else {
    const to = ((r.input.data as { dataFilter?: { timeRange?: { to?: string } } }[])[0]?.dataFilter?.timeRange?.to);
    if (to && Date.parse(to) < Date.now()) next = "COMPLETED";
  }
  if (next && (await endRecord(env, r.id, ["RUNNING"], next))) return { ...r, status: next };
  return (await recordById(env, r.id)) ?? r;
}

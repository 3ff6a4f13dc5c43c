/**
 * Deliveries of an order or a subscription (table import_deliveries): an order has one per ordered item (made when
 * it is confirmed), a subscription one per matching product found by a poll of its provider. Each is a unit of the
 * record's engine task (./plugin.ts), run by ./deliver.ts. Every move is a conditional UPDATE.
 */
import type { Env } from "../env";
import type { SeekPage } from "../storage/keyset";
import { keysetSql } from "../storage/keyset";
import type { Delivery, DeliveryStatus, ImportRecord } from "./model";
import { providerOf } from "./providers";
import type { SearchBody } from "./schema";

type DB = Pick<Env, "DB">;

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
  id: r.id,
  parent: r.parent,
  account: r.account,
  provider: r.provider,
  itemId: r.item_id,
  sqkm: r.sqkm,
  status: r.status,
  errorMessage: r.error_message,
  prefix: r.prefix,
  files: JSON.parse(r.files) as string[],
  tileId: r.tile_id,
  providerRef: r.provider_ref,
  sensingTime: r.sensing_time,
  created: r.created,
});

/** The delivery `id` of record `parent`, or null. */
export async function getDelivery(env: DB, parent: string, id: string): Promise<Delivery | null> {
  const r = await env.DB.prepare("SELECT * FROM import_deliveries WHERE id = ? AND parent = ?")
    .bind(id, parent)
    .first<Row>();
  return r ? toDelivery(r) : null;
}

/** One page (count + 1 rows) of `parent`'s deliveries in (created, id) order, optionally of one status. */
export async function listDeliveries(
  env: DB,
  parent: string,
  status: string | null,
  page: SeekPage,
): Promise<Delivery[]> {
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
export async function moveDelivery(
  env: DB,
  id: string,
  from: readonly DeliveryStatus[],
  to: DeliveryStatus,
  set: Record<string, string | null> = {},
): Promise<boolean> {
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

/** The ids of `parent`'s deliveries, oldest first. */
export async function parentDeliveries(env: DB, parent: string): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT id FROM import_deliveries WHERE parent = ? ORDER BY created, id")
    .bind(parent)
    .all<{ id: string }>();
  return results.map((x) => x.id);
}

/** The items `parent` has a delivery of. */
async function deliveredItems(env: DB, parent: string): Promise<Set<string>> {
  const { results } = await env.DB.prepare("SELECT item_id FROM import_deliveries WHERE parent = ?")
    .bind(parent)
    .all<{ item_id: string }>();
  return new Set(results.map((x) => x.item_id));
}

/** The errorMessage of a delivery its subscription's cancellation ended. */
export const CANCELLED_DELIVERY = "The subscription was cancelled before this product was delivered.";

/**
 * Ends the WAITING deliveries of cancelled subscriptions (`parent` only, when given) DELIVERY_FAILED with
 * {@link CANCELLED_DELIVERY}: the spec's delivery states have no CANCELLED, and DELIVERY_FAILED is the state of a
 * product that will not be delivered. Run at the cancel, by a delivery unit that finds its subscription cancelled,
 * and by the cron's sweep (a Worker killed between the cancel's writes). Answers how many it ended.
 */
export async function failCancelledDeliveries(env: DB, parent?: string): Promise<number> {
  const only = parent === undefined ? "" : " AND id = ?";
  const r = await env.DB.prepare(
    `UPDATE import_deliveries SET status = 'DELIVERY_FAILED', error_message = ?
     WHERE status = 'WAITING' AND parent IN (SELECT id FROM import_orders WHERE kind = 'subscription' AND status = 'CANCELLED'${only})`,
  )
    .bind(CANCELLED_DELIVERY, ...(parent === undefined ? [] : [parent]))
    .run();
  return r.meta.changes;
}

/** Makes a WAITING delivery for each of `items` `r` has none of (one per item, raced or repeated: UNIQUE parent, item_id). */
export async function addDeliveries(
  env: DB,
  r: ImportRecord,
  items: readonly string[],
  sqkm: number | null,
): Promise<void> {
  const known = await deliveredItems(env, r.id);
  const created = new Date().toISOString();
  const fresh = items.filter((itemId) => !known.has(itemId));
  if (!fresh.length) return;
  await env.DB.batch(
    fresh.map((itemId) =>
      env.DB.prepare(
        "INSERT INTO import_deliveries (id, parent, account, provider, item_id, sqkm, status, created) VALUES (?, ?, ?, ?, ?, ?, 'WAITING', ?) ON CONFLICT (parent, item_id) DO NOTHING",
      ).bind(crypto.randomUUID(), r.id, r.account, r.provider, itemId, sqkm, created),
    ),
  );
}

/**
 * Polls the provider for a RUNNING subscription's matching products and delivers the ones it has no delivery of:
 * the work of the subscription's poll unit (./plugin.ts), never of a read. Safe to run concurrently: a product gets
 * one delivery (UNIQUE parent, item_id).
 */
export async function pollSubscription(env: Env, r: ImportRecord): Promise<void> {
  if (r.kind !== "subscription" || r.status !== "RUNNING") return;
  const p = providerOf(r.provider);
  const input = r.input as unknown as SearchBody;
  const query = { ...input, data: [{ ...input.data[0]!, itemIds: undefined }] };
  await addDeliveries(
    env,
    r,
    await p.orderItems(
      { env, account: r.account, apiKey: r.apiKey ?? undefined, url: new URL("http://internal/poll") },
      query,
    ),
    null,
  );
}

/** The sqkm of each delivery of an order: its sqkm shared among its items. */
export const orderDeliverySqkm = (r: ImportRecord): number => r.sqkm / r.items.length;

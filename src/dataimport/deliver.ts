/**
 * One delivery, as one unit of work: `deliver(unit)` takes a delivery through
 *   WAITING -> (files fetched from the provider, written to the collection's bucket) DELIVERED
 *   DELIVERED -> PREPARING (its BYOC tile made, path `<prefix>(BAND)`: files `<prefix><band>.tif`) -> INGESTING (the tile sent to BYOC
 *   ingestion); DONE / IMPORT_FAILED follow the tile (./plugin.ts, when the unit looks at it)
 * or ends it DELIVERY_FAILED / NON_INGESTIBLE with the provider's reason. Each step starts from the state the
 * previous one left and writes idempotently (same object keys, the tile id kept on the delivery before the tile is
 * inserted), so a unit run again after a crash or a redelivered message (at-least-once) resumes where it stopped
 * and never makes a second tile.
 *
 * It is the "run one unit" of the task engine's plug-in ./plugin.ts: its state is the delivery row, its units the
 * deliveries ./deliveries.ts makes.
 */
import type { Env } from "../env";
import { BucketAccessDenied } from "../buckets";
import { RunLater } from "../tasks/runner";
import type { ByocCollection } from "../storage/byoc/model";
import { queueIngestion, leaseIngestion } from "../ingestion/queue";
import { insertTile, tileById } from "../storage/byoc/tiles";
import { collectionBucket, ensureCollection } from "./collections";
import { deliveryById, failCancelledDeliveries, moveDelivery } from "./deliveries";
import type { Delivery, ImportRecord } from "./model";
import { DeliveryError, providerOf } from "./providers";
import { refuseDelivery } from "./quotas";
import { recordById } from "./store";

/** What a delivery unit names: the delivery and its order or subscription. */
export interface DeliveryUnit {
  delivery: string;
  parent: string;
}

/** Where a delivery's files go in the collection's bucket. */
const prefixOf = (c: ByocCollection, d: Delivery): string => `${c.id}/${d.id}/`;

/**
 * Milliseconds between two looks at a delivery its provider is still preparing: a tenth of the time it has waited,
 * from 5 s to 10 min. Planet prepares an order in minutes ("queued", "running", then "success"); a look is one GET of
 * the order, so the first looks keep the wait after it is ready short and a slow product costs few GETs (about 60 a
 * day at the ceiling).
 */
export const pendingRetryMs = (waitedMs: number): number =>
  Math.min(600_000, Math.max(5_000, Math.round(waitedMs / 10)));

/** How long a provider may prepare a product before its delivery is DELIVERY_FAILED (48 hours). */
export const PENDING_MAX_MS = 48 * 3600_000;

/** The provider is still preparing a delivery: the unit snoozes (RunLater, no attempt used), the reference kept. */
export class DeliveryPending extends RunLater {
  constructor(message: string, waitedMs: number) {
    super(message, pendingRetryMs(waitedMs));
  }
}

/**
 * WAITING -> DELIVERED: the product's files fetched and written; or DELIVERY_FAILED / NON_INGESTIBLE.
 * @throws DeliveryPending while the provider prepares the product (its reference saved first); after PENDING_MAX_MS
 *   of preparing, the delivery is DELIVERY_FAILED instead.
 */
async function fetchFiles(env: Env, r: ImportRecord, c: ByocCollection, d: Delivery): Promise<void> {
  const p = providerOf(r.provider);
  let got;
  try {
    got = await p.deliver(
      { env, account: r.account, apiKey: r.apiKey ?? undefined, url: new URL("http://internal/deliver") },
      r.input as never,
      d.itemId,
      d.providerRef,
    );
  } catch (e) {
    if (!(e instanceof DeliveryError)) throw e;
    await moveDelivery(env, d.id, ["WAITING"], e.status, { error_message: e.message });
    return;
  }
  if ("pending" in got) {
    const waited = Date.now() - Date.parse(d.created);
    if (waited > PENDING_MAX_MS) {
      await moveDelivery(env, d.id, ["WAITING"], "DELIVERY_FAILED", {
        error_message: `${r.provider} did not deliver item ${d.itemId} within ${PENDING_MAX_MS / 3600_000} hours.`,
      });
      return;
    }
    await moveDelivery(env, d.id, ["WAITING"], "WAITING", { provider_ref: got.pending });
    throw new DeliveryPending(`Delivery ${d.id}: ${r.provider} is preparing item ${d.itemId}.`, waited);
  }
  const { files, sensingTime } = got;
  const store = await collectionBucket(env, c);
  const prefix = prefixOf(c, d);
  for (const f of files) await store.put(prefix + f.name, f.bytes);
  await moveDelivery(env, d.id, ["WAITING"], "DELIVERED", {
    prefix,
    files: JSON.stringify(files.map((f) => f.name)),
    sensing_time: sensingTime,
  });
}

/** DELIVERED / PREPARING -> INGESTING: the delivery's BYOC tile made (once) and sent to ingestion. */
async function ingest(env: Env, c: ByocCollection, d: Delivery): Promise<void> {
  if (!(await moveDelivery(env, d.id, ["DELIVERED", "PREPARING"], "PREPARING"))) return;
  // the tile id is kept before the tile exists, so a rerun finds (or makes) the same tile
  await env.DB.prepare("UPDATE import_deliveries SET tile_id = coalesce(tile_id, ?) WHERE id = ?")
    .bind(crypto.randomUUID(), d.id)
    .run();
  const tileId = (await deliveryById(env, d.id))!.tileId!;
  if (!(await tileById(env, tileId))) {
    const made = insertTile(env, {
      id: tileId,
      collection: c.id,
      account: c.accountId,
      path: `${d.prefix}(BAND)`,
      status: "WAITING",
      sensingTime: d.sensingTime,
      coverGeometry: null,
      tileGeometry: null,
      tileEpsg: null,
      nativeBbox: null,
      metersPerPixel: null,
      failedCause: null,
      warnings: null,
      created: new Date().toISOString(),
    });
    // a concurrent run of the same unit (a redelivered message) may have made it: the same id, so it is ours
    await made.catch(async (e: unknown) => {
      if (!String(e).includes("UNIQUE") || !(await tileById(env, tileId))) throw e;
    });
  }
  const t = (await tileById(env, tileId))!;
  if (t.status === "WAITING" && (await leaseIngestion(env, tileId, c))) await queueIngestion(env, tileId, c, "WAITING");
  await moveDelivery(env, d.id, ["PREPARING"], "INGESTING");
}

/**
 * Runs one delivery unit as far as it goes now (see the module comment). A WAITING delivery of a cancelled
 * subscription ends DELIVERY_FAILED (failCancelledDeliveries); deliveries of a record otherwise gone or no longer
 * RUNNING, and ended deliveries, are left as they are.
 * @throws storage errors (the unit is retried).
 */
export async function deliver(env: Env, unit: DeliveryUnit): Promise<void> {
  const d = await deliveryById(env, unit.delivery);
  const r = d && (await recordById(env, d.parent));
  if (d?.status === "WAITING" && r?.status === "CANCELLED") await failCancelledDeliveries(env, r.id);
  if (!d || !r || r.status !== "RUNNING" || !r.collectionId) return;
  const c = await ensureCollection(
    env,
    r as ImportRecord & { collectionId: string },
    providerOf(r.provider).bands(r.input as never),
  );
  try {
    if (d.status === "WAITING") await fetchFiles(env, r, c, d);
    const now = (await deliveryById(env, d.id))!;
    if (now.status === "DELIVERED" || now.status === "PREPARING") await ingest(env, c, now);
  } catch (e) {
    if (!(e instanceof BucketAccessDenied)) throw e;
    await refuseDelivery(
      env,
      r,
      d,
      ["WAITING", "DELIVERED", "PREPARING"],
      `The collection's bucket cannot be written: ${e.message}`,
    );
  }
}

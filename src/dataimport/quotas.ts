/**
 * The charge of a confirmation against the account's import quota (src/accounts/importquotas.ts): the record
 * moves CREATED -> RUNNING only when the available quota covers its sqkm, and its sqkm is added to quota_used once,
 * guarded by the record's `charged` flag. The four statements run as one D1 batch (a transaction, serialised with every other
 * write), so a retried or raced confirm charges nothing more: only one batch finds the record CREATED.
 */
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { defaultQuota, quotasOf } from "../accounts/importquotas";
import type { ImportRecord } from "./model";

/** Quotas compare to the area within this many km2 (float sums of areas). */
const EPSILON = 1e-9;

/**
 * Confirms record `r` (CREATED -> RUNNING, charged once, `collectionId` set when it had none).
 * @throws ApiError 409 when it is no longer CREATED (another confirm won), 403 with errors {availableQuota,
 *   requiredQuota} (OpenAPI QuotaExceededError) when the quota does not cover it.
 */
export async function confirmCharge(
  env: Pick<Env, "DB" | "DATAIMPORT_QUOTA_SQKM">,
  r: ImportRecord,
  collectionId: string,
): Promise<void> {
  const q = [r.account, r.quotaCollection] as const;
  const [, moved] = await env.DB.batch([
    env.DB.prepare(
      "INSERT OR IGNORE INTO import_quotas (account, collection, quota_sqkm, quota_used) VALUES (?, ?, ?, 0)",
    ).bind(...q, defaultQuota(env)),
    env.DB.prepare(
      `UPDATE import_orders SET status = 'RUNNING', collection_id = coalesce(collection_id, ?) WHERE id = ? AND status = 'CREATED'
         AND sqkm <= (SELECT quota_sqkm - quota_used FROM import_quotas WHERE account = ? AND collection = ?) + ${EPSILON}`,
    ).bind(collectionId, r.id, ...q),
    env.DB.prepare(
      `UPDATE import_quotas SET quota_used = quota_used + (SELECT sqkm FROM import_orders WHERE id = ?)
       WHERE account = ? AND collection = ? AND EXISTS (SELECT 1 FROM import_orders WHERE id = ? AND status = 'RUNNING' AND charged = 0)`,
    ).bind(r.id, ...q, r.id),
    env.DB.prepare("UPDATE import_orders SET charged = 1 WHERE id = ? AND status = 'RUNNING' AND charged = 0").bind(
      r.id,
    ),
  ]);
  if (moved!.meta.changes > 0) return;
  const now = await env.DB.prepare("SELECT status FROM import_orders WHERE id = ?")
    .bind(r.id)
    .first<{ status: string }>();
  if (now?.status !== "CREATED") throw notCreated(r, "confirmed", now?.status ?? "deleted");
  const quota = (await quotasOf(env, r.account)).find((x) => x.collectionId === r.quotaCollection)!;
  const available = quota.quotaSqkm - quota.quotaUsed;
  throw new ApiError(
    403,
    `Insufficient quota for ${r.kind} ${r.id}: it needs ${r.sqkm} km2 of ${r.quotaCollection}, ${available} km2 are available.`,
    { availableQuota: available, requiredQuota: r.sqkm },
  );
}

/** 409 for an operation only a CREATED record allows. */
export const notCreated = (r: Pick<ImportRecord, "kind" | "id">, what: string, status: string): ApiError =>
  new ApiError(409, `The ${r.kind} ${r.id} is ${status}; only a CREATED ${r.kind} can be ${what}.`);

/**
 * Ends delivery `d` of record `r` IMPORT_FAILED (when it is still in one of `from`) because its bucket refused the
 * write, and gives the delivery's sqkm (an order's share; subscription deliveries carry none) back to the record's
 * quota: a refused delivery is never charged. The refund and the move run in one D1 batch, the refund guarded by
 * the same state check, so a delivery is refunded at most once (and only when its record was charged). Answers
 * whether this call moved it.
 */
export async function refuseDelivery(
  env: Pick<Env, "DB">,
  r: ImportRecord,
  d: { id: string; sqkm: number | null },
  from: readonly string[],
  message: string,
): Promise<boolean> {
  const states = from.map(() => "?").join(", ");
  const [, moved] = await env.DB.batch([
    env.DB.prepare(
      `UPDATE import_quotas SET quota_used = max(0, quota_used - ?)
        WHERE account = ? AND collection = ?
          AND EXISTS (SELECT 1 FROM import_deliveries WHERE id = ? AND status IN (${states}))
          AND EXISTS (SELECT 1 FROM import_orders WHERE id = ? AND charged = 1)`,
    ).bind(d.sqkm ?? 0, r.account, r.quotaCollection, d.id, ...from, r.id),
    env.DB.prepare(
      `UPDATE import_deliveries SET status = 'IMPORT_FAILED', error_message = ? WHERE id = ? AND status IN (${states})`,
    ).bind(message, d.id, ...from),
  ]);
  return (moved?.meta.changes ?? 0) > 0;
}

/**
 * Third-party import quotas of an account (table import_quotas, migration 0012; OpenAPI Quota: `collectionId`,
 * `quotaSqkm` purchased, `quotaUsed`; available = quotaSqkm - quotaUsed), read by the import API
 * (src/dataimport) and set by operators (src/admin). An account without a row has DATAIMPORT_QUOTA_SQKM.
 */
import type { Env } from "../env";

/** Every quota collection (OpenAPI QuotaTpdiCollectionId and the providers' collections here), in listing order. */
export const QUOTA_COLLECTIONS = ["MAXAR_WORLDVIEW", "PLANET_SCOPE", "PLANET_SKYSAT", "SAMPLE_SENTINEL_2"] as const;

/** The quota a new account has in each collection, km2 (`DATAIMPORT_QUOTA_SQKM`, default 1000). */
export function defaultQuota(env: Pick<Env, "DATAIMPORT_QUOTA_SQKM">): number {
  const v = Number(env.DATAIMPORT_QUOTA_SQKM ?? "1000");
  return Number.isFinite(v) && v >= 0 ? v : 1000;
}

export interface Quota {
  collectionId: string;
  quotaSqkm: number;
  quotaUsed: number;
}

/** The quotas of `account` (defaults where it has no row yet), in QUOTA_COLLECTIONS order. */
export async function quotasOf(env: Pick<Env, "DB" | "DATAIMPORT_QUOTA_SQKM">, account: string): Promise<Quota[]> {
  const { results } = await env.DB.prepare(
    "SELECT collection, quota_sqkm, quota_used FROM import_quotas WHERE account = ?",
  )
    .bind(account)
    .all<{ collection: string; quota_sqkm: number; quota_used: number }>();
  const rows = new Map(results.map((r) => [r.collection, r]));
  return QUOTA_COLLECTIONS.map((c) => ({
    collectionId: c,
    quotaSqkm: rows.get(c)?.quota_sqkm ?? defaultQuota(env),
    quotaUsed: rows.get(c)?.quota_used ?? 0,
  }));
}

/** Sets the purchased quota (km2) of `account` in `collection` (one of QUOTA_COLLECTIONS), keeping what it used. */
export async function setImportQuota(
  env: Pick<Env, "DB" | "DATAIMPORT_QUOTA_SQKM">,
  account: string,
  collection: string,
  quotaSqkm: number,
): Promise<Quota> {
  await env.DB.prepare(
    "INSERT INTO import_quotas (account, collection, quota_sqkm, quota_used) VALUES (?, ?, ?, 0) ON CONFLICT (account, collection) DO UPDATE SET quota_sqkm = excluded.quota_sqkm",
  )
    .bind(account, collection, quotaSqkm)
    .run();
  return (await quotasOf(env, account)).find((q) => q.collectionId === collection)!;
}

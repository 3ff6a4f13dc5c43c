/**
 * Orders and subscriptions in D1 (table import_orders, migration 0013): rows, lists, the conditional status
 * moves (every move names the states it may start from, so a raced or repeated call cannot undo another's) and the
 * recovery sweep's query.
 */
import type { Env } from "../env";
import type { SeekPage } from "../storage/keyset";
import { keysetSql, searchSql } from "../storage/keyset";
import type { ImportRecord, RecordKind } from "./model";

type DB = Pick<Env, "DB">;

interface Row {
  id: string;
  account: string;
  kind: RecordKind;
  name: string;
  collection_id: string | null;
  provider: string;
  quota_collection: string;
  status: string;
  sqkm: number;
  input: string;
  api_key: string | null;
  items: string;
  charged: number;
  deleted: number;
  created: string;
}

const toRecord = (r: Row): ImportRecord => ({
  id: r.id,
  account: r.account,
  kind: r.kind,
  name: r.name,
  collectionId: r.collection_id,
  provider: r.provider,
  quotaCollection: r.quota_collection,
  status: r.status,
  sqkm: r.sqkm,
  input: JSON.parse(r.input) as Record<string, unknown>,
  apiKey: r.api_key,
  items: JSON.parse(r.items) as string[],
  charged: r.charged === 1,
  deleted: r.deleted === 1,
  created: r.created,
});

/** Inserts a new record. */
export async function insertRecord(env: DB, r: ImportRecord): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO import_orders (id, account, kind, name, collection_id, provider, quota_collection, status, sqkm, input, api_key, items, charged, deleted, created)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?)`,
  )
    .bind(
      r.id,
      r.account,
      r.kind,
      r.name,
      r.collectionId,
      r.provider,
      r.quotaCollection,
      r.status,
      r.sqkm,
      JSON.stringify(r.input),
      r.apiKey,
      JSON.stringify(r.items),
      r.created,
    )
    .run();
}

/** The record `id` of `account` and `kind` (deleted ones too), or null. */
export async function getRecord(env: DB, account: string, kind: RecordKind, id: string): Promise<ImportRecord | null> {
  const r = await env.DB.prepare("SELECT * FROM import_orders WHERE id = ? AND account = ? AND kind = ?")
    .bind(id, account, kind)
    .first<Row>();
  return r ? toRecord(r) : null;
}

/** The record `id` whatever its account (for work off a request: deliveries). */
export async function recordById(env: DB, id: string): Promise<ImportRecord | null> {
  const r = await env.DB.prepare("SELECT * FROM import_orders WHERE id = ?").bind(id).first<Row>();
  return r ? toRecord(r) : null;
}

/** Filters of a record list. */
export interface RecordQuery {
  status: string | null;
  collectionId: string | null;
  search: readonly (readonly string[])[];
  deleted: boolean;
}

/** One page (count + 1 rows) of `account`'s records of `kind` in (created, id) order. */
export async function listRecords(
  env: DB,
  account: string,
  kind: RecordKind,
  q: RecordQuery,
  page: SeekPage,
): Promise<ImportRecord[]> {
  const k = keysetSql(["created", "id"], page);
  const s = searchSql(q.search, "name");
  const sql = `SELECT * FROM import_orders WHERE account = ? AND kind = ? AND deleted = ?
    AND (? IS NULL OR status = ?) AND (? IS NULL OR collection_id = ?) AND ${s.text} AND ${k.where} ORDER BY ${k.orderBy} LIMIT ?`;
  const { results } = await env.DB.prepare(sql)
    .bind(
      account,
      kind,
      q.deleted ? 1 : 0,
      q.status,
      q.status,
      q.collectionId,
      q.collectionId,
      ...s.params,
      ...k.params,
      k.limit,
    )
    .all<Row>();
  return results.map(toRecord);
}

/**
 * Ends record `id`: moves it from one of `from` to the final `to` and forgets its provider key (kept only while
 * its deliveries may need it); true when it moved.
 */
export async function endRecord(env: DB, id: string, from: readonly string[], to: string): Promise<boolean> {
  const r = await env.DB.prepare(
    `UPDATE import_orders SET status = ?, api_key = NULL WHERE id = ? AND status IN (${from.map(() => "?").join(", ")})`,
  )
    .bind(to, id, ...from)
    .run();
  return r.meta.changes > 0;
}

/** Deletes record `id` for good while it is CREATED (its deliveries cascade; it has none yet); true when it did. */
export async function dropCreated(env: DB, id: string): Promise<boolean> {
  return (
    (await env.DB.prepare("DELETE FROM import_orders WHERE id = ? AND status = 'CREATED'").bind(id).run()).meta
      .changes > 0
  );
}

/** Hides record `id` while it is in one of `finished`; true when it did (or it already was hidden). */
export async function hideFinished(env: DB, id: string, finished: readonly string[]): Promise<boolean> {
  const r = await env.DB.prepare(
    `UPDATE import_orders SET deleted = 1 WHERE id = ? AND status IN (${finished.map(() => "?").join(", ")})`,
  )
    .bind(id, ...finished)
    .run();
  return r.meta.changes > 0;
}

/**
 * The query of {@link stalledRecords} (one parameter: the limit). It walks the partial index import_orders_running
 * (migrations/0015), so a sweep reads the RUNNING records, not every order ever made.
 */
export const STALLED_SQL = `SELECT o.*, t.status AS task_state FROM import_orders o LEFT JOIN tasks t ON t.id = o.id
     WHERE o.status = 'RUNNING' AND (t.id IS NULL OR t.status IN ('CREATED', 'DONE', 'PARTIAL', 'FAILED')) ORDER BY o.created, o.id LIMIT ?`;

/**
 * Up to `limit` RUNNING records whose engine task is not running, oldest first, with the task's state in the
 * engine's D1 listing (src/tasks/listing.ts, table tasks): null when it has no row (never created), CREATED (never
 * started), or DONE / PARTIAL / FAILED (ended, the record's end not written). For the recovery sweep (./plugin.ts).
 */
export async function stalledRecords(
  env: DB,
  limit: number,
): Promise<{ record: ImportRecord; taskState: string | null }[]> {
  const { results } = await env.DB.prepare(STALLED_SQL).bind(limit).all<Row & { task_state: string | null }>();
  return results.map((r) => ({ record: toRecord(r), taskState: r.task_state }));
}

/**
 * The account's list of Statistical Batch tasks in D1 (migrations/0005_statbatch.sql): one row per task with the
 * status its Durable Object mirrors, paged as Sentinel Hub's lists are (src/http/paging.ts) and sorted by `created`
 * or `status` (OpenAPI `searchBatchStatisticsRequests`: created, created:desc, status, status:desc; default created).
 */
import type { Env } from "../env";
import { badRequest } from "../http/errors";
import type { PageRequest, SortKey } from "../http/paging";
import { keysetSql } from "../storage/keyset";

export interface ListedTask {
  id: string;
  created: string;
  status: string;
}

/** Adds a new task to its account's list (status CREATED). */
export async function insertListed(env: Pick<Env, "DB">, id: string, account: string, created: string): Promise<void> {
  await env.DB.prepare("INSERT OR IGNORE INTO statbatch_tasks (id, account, created, status, version) VALUES (?, ?, ?, 'CREATED', 0)")
    .bind(id, account, created)
    .run();
}

/** Sets a task's status when `version` is newer than the stored one (the object's change counter). */
export async function mirrorStatus(env: Pick<Env, "DB">, id: string, status: string, version: number): Promise<void> {
  await env.DB.prepare("UPDATE statbatch_tasks SET status = ?1, version = ?2 WHERE id = ?3 AND version < ?2").bind(status, version, id).run();
}

export const SORTS = ["created", "created:desc", "status", "status:desc"] as const;
export type Sort = (typeof SORTS)[number];

/** The `sort` query value. @throws ApiError 400 for another value. */
export function parseSort(value: string | null): Sort {
  if (value === null || value === "") return "created";
  if ((SORTS as readonly string[]).includes(value)) return value as Sort;
  throw badRequest(`Invalid sort '${value.slice(0, 40)}': use one of ${SORTS.join(", ")}.`);
}

/** The columns a sort orders by (the last unique) and whether descending. */
export function sortColumns(sort: Sort): { columns: (keyof ListedTask)[]; descending: boolean } {
  const columns: (keyof ListedTask)[] = sort.startsWith("status") ? ["status", "created", "id"] : ["created", "id"];
  return { columns, descending: sort.endsWith(":desc") };
}

/** The sort key of a row (its sort columns' values), for the viewtokens of src/http/paging.ts. */
export function sortKey(sort: Sort): (t: ListedTask) => SortKey {
  const { columns } = sortColumns(sort);
  return (t) => columns.map((c) => t[c]);
}

/** The rows of one page (count + 1 read, see pagedList) of `account`'s tasks in `sort` order: SQL keyset paging. */
export async function listPage(env: Pick<Env, "DB">, account: string, sort: Sort, page: PageRequest): Promise<ListedTask[]> {
  const { columns, descending } = sortColumns(sort);
  const k = keysetSql(columns, page, descending);
  const sql = `SELECT id, created, status FROM statbatch_tasks WHERE account = ? AND ${k.where} ORDER BY ${k.orderBy} LIMIT ?`;
  const { results } = await env.DB.prepare(sql).bind(account, ...k.params, k.limit).all<ListedTask>();
  return results;
}

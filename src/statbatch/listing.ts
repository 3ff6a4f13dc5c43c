/**
 * The account's list of Statistical Batch tasks in D1 (migrations/0005_statbatch.sql): one row per task with the
 * status its Durable Object mirrors, paged as Sentinel Hub's lists are (src/http/paging.ts) and sorted by `created`
 * or `status` (OpenAPI `searchBatchStatisticsRequests`: created, created:desc, status, status:desc; default created).
 */
import type { Env } from "../env";
import { badRequest } from "../http/errors";
import { compareKeys, seekArray, type PageRequest, type SortKey } from "../http/paging";

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

/**
 * The sort key of a row: ascending numbers so that one ascending keyset covers every order (descending values are
 * negated; a status counts by its alphabetical rank), then the id.
 */
export function sortKey(sort: Sort): (t: ListedTask) => SortKey {
  const sign = sort.endsWith(":desc") ? -1 : 1;
  const time = (t: ListedTask) => sign * Date.parse(t.created);
  if (sort.startsWith("created")) return (t) => [time(t), t.id];
  return (t) => [sign * statusRank(t.status), Date.parse(t.created), t.id];
}

const STATUSES = ["ANALYSING", "ANALYSIS_DONE", "CREATED", "DONE", "FAILED", "PARTIAL", "PROCESSING", "STOPPED"];
const statusRank = (s: string): number => Math.max(0, STATUSES.indexOf(s));

/** The rows of one page (count + 1 read, see seekArray) of `account`'s tasks in `sort` order. */
export async function listPage(env: Pick<Env, "DB">, account: string, sort: Sort, page: PageRequest): Promise<ListedTask[]> {
  const { results } = await env.DB.prepare("SELECT id, created, status FROM statbatch_tasks WHERE account = ?").bind(account).all<ListedTask>();
  const keyOf = sortKey(sort);
  const sorted = [...results].sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
  return seekArray(sorted, page, keyOf);
}


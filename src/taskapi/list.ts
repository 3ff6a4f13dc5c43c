/**
 * The account's paged list of its tasks of one kind, from the engine's D1 listing (src/tasks/listing.ts, table
 * `tasks`), sorted as Sentinel Hub's task lists are (`sort`: created, created:desc, status, status:desc) and searched
 * on id and description (`search`, src/http/paging.ts parseSearch).
 */
import type { Env } from "../env";
import { badRequest } from "../http/errors";
import { pagedList, parsePageRequest, parseSearch, type PageLinks } from "../http/paging";
import { keysetSql, searchSql } from "../storage/keyset";

/** Largest (and default) page of a task list. */
export const MAX_PAGE = 100;

const SORTS: Record<string, { columns: string[]; descending: boolean }> = {
  created: { columns: ["created", "id"], descending: false },
  "created:desc": { columns: ["created", "id"], descending: true },
  status: { columns: ["status", "created", "id"], descending: false },
  "status:desc": { columns: ["status", "created", "id"], descending: true },
};

interface Row {
  id: string;
  created: string;
  status: string;
}

/**
 * One page of `account`'s tasks of `kind` for the list URL `url` (`count`, `viewtoken`, `sort`, default `defaultSort`,
 * `search`): their ids and the page links. @throws ApiError 400 for a bad sort, count, viewtoken or search.
 */
export async function listPage(
  env: Pick<Env, "DB">,
  kind: string,
  account: string,
  url: URL,
  defaultSort: string,
): Promise<{ ids: string[]; links: PageLinks }> {
  const sortName = url.searchParams.get("sort") || defaultSort;
  const sort = SORTS[sortName];
  if (!sort) throw badRequest(`Invalid sort '${sortName.slice(0, 40)}': use one of ${Object.keys(SORTS).join(", ")}.`);
  const page = parsePageRequest(url, MAX_PAGE, sort.columns.length);
  const k = keysetSql(sort.columns, page, sort.descending);
  const s = searchSql(parseSearch(url), "id || ' ' || description");
  const rows = await env.DB.prepare(
    `SELECT id, created, status FROM tasks WHERE account = ? AND kind = ? AND ${s.text} AND ${k.where} ORDER BY ${k.orderBy} LIMIT ?`,
  )
    .bind(account, kind, ...s.params, ...k.params, k.limit)
    .all<Row>();
  const list = pagedList(url, page, rows.results, (r) => sort.columns.map((c) => r[c as keyof Row]));
  return { ids: list.data.map((r) => r.id), links: list.links };
}

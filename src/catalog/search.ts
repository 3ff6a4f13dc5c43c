/**
 * Item search pages: one collection, a compiled condition, (datetime, id) order, `limit` items per page, read
 * through the items backend (src/storage/search.ts). Keyset pages resume with an index seek (see paging.ts);
 * conditions with spatial leaves are decided exactly per candidate row, reading candidates in batches until the
 * page is full.
 */
import type { Env } from "../env";
import type { StacItem } from "../storage/items";
import { itemsBackend, type ItemQuery, type ItemRow } from "../storage/backend";
import { Cursor, type Position } from "./paging";

/** A search: the rows (ItemQuery) plus the page size (1..100) and where the page starts. */
export interface SearchPlan extends ItemQuery {
  limit: number;
  position: Position;
}

export interface SearchPage {
  items: StacItem[];
  /** The `next` value of the following page; absent on the last page. */
  next?: number;
}

const parse = (row: ItemRow): StacItem => JSON.parse(row.doc) as StacItem;

/** Exact conditions: one query of limit + 1 rows. */
async function exactPage(env: Pick<Env, "DB">, plan: SearchPlan): Promise<SearchPage> {
  const { limit, position } = plan;
  const keyset = position.kind === "keyset";
  const rows = await itemsBackend(env).rows(
    plan,
    keyset ? position.datetime : undefined,
    keyset ? position.skip : position.offset,
    limit + 1,
  );
  const page = rows.slice(0, limit);
  if (rows.length <= limit) return { items: page.map(parse) };
  if (!keyset && position.offset > 0) return { items: page.map(parse), next: position.offset + limit };
  const cursor = keyset ? new Cursor(position.datetime, position.skip) : new Cursor();
  for (const r of page) cursor.consume(r.dt);
  return { items: page.map(parse), next: cursor.token() };
}

/** Conditions with spatial leaves: candidates in batches, each decided exactly. */
async function filteredPage(env: Pick<Env, "DB">, plan: SearchPlan): Promise<SearchPage> {
  const { limit, position } = plan;
  const cursor = position.kind === "keyset" ? new Cursor(position.datetime, position.skip) : new Cursor();
  let toSkip = position.kind === "offset" ? position.offset : 0;
  const items: StacItem[] = [];
  let after: Cursor | undefined;
  let more = false;
  await itemsBackend(env).scan(plan, plan.limit, cursor, (_row, item) => {
    if (toSkip > 0) {
      toSkip--;
      return true;
    }
    if (items.length === limit) {
      more = true;
      return false;
    }
    items.push(item);
    after = new Cursor(cursor.datetime, cursor.skip);
    return true;
  });
  if (!more) return { items };
  if (position.kind === "offset" && position.offset > 0) return { items, next: position.offset + limit };
  return { items, next: after!.token() };
}

/** Runs one page of a search. */
export function searchPage(env: Pick<Env, "DB">, plan: SearchPlan): Promise<SearchPage> {
  return plan.condition.test ? filteredPage(env, plan) : exactPage(env, plan);
}

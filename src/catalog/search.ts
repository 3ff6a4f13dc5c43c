/**
 * Item search pages: the searched collections, a compiled condition, the requested order, `limit` items per page,
 * read through the items backend (src/storage/search.ts). Pages of datetime orders resume from a keyset position
 * with an index seek (see paging.ts), other orders from an offset; conditions with spatial leaves are decided
 * exactly per candidate row, reading candidates in batches until the page is full. The match count
 * (`numberMatched`) is computed alongside, within fixed limits.
 */
import type { Env } from "../env";
import type { StacItem } from "../storage/stac";
import { itemsBackend, type ItemQuery, type ItemRow } from "../storage/backend";
import { datetimeFirst } from "../storage/search";
import { Cursor, OffsetCursor, type Position } from "./paging";

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

/**
 * Limits of the match count: at most 100,000 rows counted and 2,000 footprints tested per request; past them
 * `numberMatched` is left out (OGC API Features allows it when the count is not cheap to compute).
 */
export const COUNT_LIMITS = { rows: 100_000, tests: 2_000 };

const parse = (row: ItemRow): StacItem => JSON.parse(row.doc) as StacItem;

/** The `next` of an offset page (Sentinel Hub's form), or of a keyset page after `cursor`. */
function nextToken(plan: SearchPlan, cursor: Cursor | undefined): number {
  const { position, limit } = plan;
  if (position.kind === "offset" && (position.offset > 0 || !cursor)) return position.offset + limit;
  return cursor!.token();
}

/** Exact conditions: one read of limit + 1 rows. */
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
  let cursor: Cursor | undefined;
  if (datetimeFirst(plan.sort)) {
    cursor = keyset ? new Cursor(position.datetime, position.skip) : new Cursor();
    for (const r of page) cursor.consume(r.dt);
  }
  return { items: page.map(parse), next: nextToken(plan, cursor) };
}

/** Conditions with spatial leaves: candidates in batches, each decided exactly. */
async function filteredPage(env: Pick<Env, "DB">, plan: SearchPlan): Promise<SearchPage> {
  const { limit, position } = plan;
  const keysetOrder = datetimeFirst(plan.sort);
  const cursor =
    position.kind === "keyset"
      ? new Cursor(position.datetime, position.skip)
      : keysetOrder
        ? new Cursor()
        : new OffsetCursor();
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
    if (cursor instanceof Cursor) after = new Cursor(cursor.datetime, cursor.skip);
    return true;
  });
  if (!more) return { items };
  return { items, next: nextToken(plan, after) };
}

/** Runs one page of a search. */
export function searchPage(env: Pick<Env, "DB">, plan: SearchPlan): Promise<SearchPage> {
  return plan.condition.test ? filteredPage(env, plan) : exactPage(env, plan);
}

/** The number of items the search matches (all pages), or undefined past COUNT_LIMITS. */
export function countMatched(env: Pick<Env, "DB">, plan: SearchPlan): Promise<number | undefined> {
  return itemsBackend(env).count(plan, COUNT_LIMITS);
}

/**
 * The plan restricted to the collections that hold items in its time range (collection extents, kept by
 * migration 0002's triggers), so that a search over many collections walks only those. One collection: unchanged.
 */
export async function withItems(env: Pick<Env, "DB">, plan: SearchPlan): Promise<SearchPlan> {
  if (plan.collections.length <= 1) return plan;
  const extents = await itemsBackend(env).extents();
  const { start, end } = plan.time;
  const collections = plan.collections.filter((c) => {
    const x = extents.get(c);
    return x !== undefined && (start === undefined || x.to >= start) && (end === undefined || x.from <= end);
  });
  return { ...plan, collections };
}

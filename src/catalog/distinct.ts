/**
 * Sentinel Hub's `distinct` search member: instead of items, the distinct values of one property over the matching
 * items, ascending, paged with integer offsets. `date` is the UTC calendar day of `datetime` (what sentinelhub-js
 * findDatesUTC asks for); any other name is a queryable of the collection.
 */
import type { Env } from "../env";
import { badRequest } from "../http/errors";
import { Cursor } from "./paging";
import type { Queryable } from "./queryables";
import { ITEM_DATE_SQL, ITEM_DATETIME_TEXT_SQL } from "../storage/properties";
import { itemsBackend } from "../storage/backend";
import type { SearchPlan } from "./search";

/** SQL of the distinct expression. Throws 400 for unknown or geometry properties. */
export function distinctSql(name: string, lookup: (n: string) => Queryable): string {
  if (name === "date") return ITEM_DATE_SQL;
  const q = lookup(name);
  if (!q.sql || q.type === "geometry") throw badRequest(`distinct needs a scalar property; '${name}' is a geometry.`);
  return q.type === "datetime" ? ITEM_DATETIME_TEXT_SQL : q.sql;
}

const compare = (a: unknown, b: unknown): number =>
  typeof a === "number" && typeof b === "number" ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;

export interface DistinctPage {
  values: unknown[];
  next?: number;
}

/** One page of distinct values of `expr` over the plan's matches. Keyset `next` values are refused (offsets only). */
export async function distinctPage(env: Pick<Env, "DB">, plan: SearchPlan, expr: string): Promise<DistinctPage> {
  if (plan.position.kind !== "offset")
    throw badRequest("Invalid 'next' for a distinct search: use the value of context.next.");
  const { offset } = plan.position;
  let values: unknown[];
  if (!plan.condition.test) {
    values = await itemsBackend(env).distinct(plan, expr, offset, plan.limit + 1);
  } else {
    const withValue: SearchPlan = {
      ...plan,
      sort: [], // the candidates are walked in datetime order (the Cursor's); values are sorted here
      condition: { ...plan.condition, columns: [...plan.condition.columns, { text: expr, params: [] }] },
    };
    const seen = new Set<unknown>();
    const idx = `c${plan.condition.columns.length}`;
    await itemsBackend(env).scan(withValue, plan.limit, new Cursor(), (row) => {
      if (row[idx] !== null && row[idx] !== undefined) seen.add(row[idx]);
      return true;
    });
    values = [...seen].sort(compare).slice(offset, offset + plan.limit + 1);
  }
  const more = values.length > plan.limit;
  return { values: values.slice(0, plan.limit), next: more ? offset + plan.limit : undefined };
}

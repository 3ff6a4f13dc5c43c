/**
 * A compiled catalog condition (condition.ts) decided for items that are not stored: the items are handed to D1 as
 * JSON rows of one query, shaped as the `items` table (collection, id, datetime, cloud_cover, min/max lon/lat,
 * doc), so a filter means exactly what it means for stored items (same SQL, same spatial test) and nothing is
 * written. Used for items an upstream archive answered (src/catalog federation), a page at a time.
 */
import type { Geometry } from "geojson";
import type { Env } from "../env";
import type { Condition } from "./condition";
import { ITEM_COLUMNS, itemColumns } from "./items";
import type { StacItem } from "./stac";

/**
 * The items of `items` that `condition` matches, in their order. One D1 query (no write).
 * @throws D1 errors (an internal fault: the condition was compiled by this service).
 */
export async function matchingItems(
  env: Pick<Env, "DB">,
  items: StacItem[],
  condition: Condition,
): Promise<StacItem[]> {
  if (items.length === 0) return [];
  if (condition.where.text === "1" && !condition.test) return items;
  const select = ITEM_COLUMNS.map((c, i) => `json_extract(value, '$[${i}]') AS ${c}`).join(", ");
  const columns = condition.columns.map((c, i) => `, ${c.text} AS c${i}`).join("");
  const rows = await env.DB.prepare(
    `WITH items AS (SELECT CAST(key AS INTEGER) AS k, ${select} FROM json_each(?)) SELECT k${columns} FROM items WHERE ${condition.where.text} ORDER BY k`,
  )
    .bind(
      JSON.stringify(items.map(itemColumns)),
      ...condition.columns.flatMap((c) => c.params),
      ...condition.where.params,
    )
    .all<Record<string, unknown>>();
  const out: StacItem[] = [];
  for (const r of rows.results) {
    const item = items[Number(r.k)]!;
    const values = condition.columns.map((_, i) => r[`c${i}`]);
    if (condition.test && !condition.test(values, (item.geometry as Geometry) ?? null)) continue;
    out.push(item);
  }
  return out;
}

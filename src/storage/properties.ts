/**
 * SQL expressions over the `items` table (migrations 0001/0002) that read STAC item properties, for the catalog's
 * queryables, CQL2 filters and `distinct`: a stored column where there is one, else the property inside the stored
 * item JSON.
 */

/** Properties kept in their own column: STAC name -> column (`datetime` in ms since epoch, UTC). */
const COLUMNS: Record<string, string> = {
  id: "items.id",
  collection: "items.collection",
  datetime: "datetime",
  "eo:cloud_cover": "cloud_cover",
};

/** Plain property names (letters, digits, `_ : . -`): the only ones spliced into a JSON path. */
const NAME = /^[A-Za-z0-9_:.-]+$/;

/**
 * SQL reading property `name` of an item (`id`, `collection`, `datetime` and `eo:cloud_cover` from their columns
 * (`collection` is the item's top-level member, which CQL2 filters may name), others with
 * json_extract from `properties`). Names come from code (the queryables tables), never from a request.
 * @throws Error for a name that is not plain.
 */
export function itemPropertySql(name: string): string {
  if (Object.hasOwn(COLUMNS, name)) return COLUMNS[name]!;
  if (!NAME.test(name)) throw new Error(`itemPropertySql: bad property name ${JSON.stringify(name)}`);
  return `json_extract(doc, '$.properties."${name}"')`;
}

/** SQL of an item's UTC calendar day, `YYYY-MM-DD`. */
export const ITEM_DATE_SQL = "strftime('%Y-%m-%d', datetime / 1000, 'unixepoch')";

/** SQL of an item's datetime as RFC 3339 text with milliseconds, `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export const ITEM_DATETIME_TEXT_SQL = "strftime('%Y-%m-%dT%H:%M:%fZ', datetime / 1000.0, 'unixepoch')";

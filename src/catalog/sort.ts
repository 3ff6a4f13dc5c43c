/**
 * STAC API Sort extension (`sortby`): the GET form `sortby=+properties.datetime,-id` (`+` or no sign ascending,
 * `-` descending; a `+` that arrived URL-decoded as a space counts as `+`) and the POST form
 * `[{field, direction: "asc" | "desc"}]`. Sortable: `datetime`, `eo:cloud_cover`, `id` and `collection`, with or
 * without the `properties.` prefix; any other field is a 400, as the extension asks of servers without sortables.
 */
import { badRequest } from "../http/errors";
import type { SortField, SortTerm } from "../storage/search";

/** A sort term as received: the field name as written. */
export interface SortRequest {
  field: string;
  descending: boolean;
}

const SORTABLE: Record<string, SortField> = {
  datetime: "datetime",
  "eo:cloud_cover": "eo:cloud_cover",
  id: "id",
  collection: "collection",
};

/** Parses the GET form. Throws 400 for an empty field name. */
export function parseSortParam(value: string): SortRequest[] {
  return value.split(",").map((raw) => {
    const descending = raw.trimStart().startsWith("-");
    const field = raw.trim().replace(/^[+-]/, "").trim();
    if (!field)
      throw badRequest(
        `Invalid sortby '${value}': use comma-separated field names, each optionally prefixed with + or -.`,
      );
    return { field, descending };
  });
}

/**
 * The storage order of the requested terms (a field named twice counts once, the first time). Throws 400 for
 * fields that cannot be sorted on.
 */
export function sortTerms(request: SortRequest[] | undefined): SortTerm[] {
  const out: SortTerm[] = [];
  for (const { field, descending } of request ?? []) {
    const name = field.replace(/^properties\./, "");
    const sortable = Object.hasOwn(SORTABLE, name) ? SORTABLE[name] : undefined;
    if (!sortable)
      throw badRequest(
        `Cannot sort by '${field}': sortable fields are ${Object.keys(SORTABLE).join(", ")} (with or without 'properties.').`,
      );
    if (!out.some((t) => t.field === sortable)) out.push({ field: sortable, descending });
  }
  return out;
}

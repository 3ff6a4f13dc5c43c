/**
 * Scene files and STAC items loaded by operators (`npm run deploy -- --with-samples`, `npm run admin -- ...`):
 * objects of the DATA bucket (the scenes' COGs, keyed by their path under data/, as the items' asset hrefs name
 * them) and catalog items upserted as `npm start`'s seed does (src/storage/items.ts upsertItem), so a remote
 * deployment gets its sample data through the same API as a local one.
 */
import { z } from "zod";
import type { Env } from "../env";
import { badRequest } from "../http/errors";
import { upsertItem } from "../storage/items";
import type { StacItem } from "../storage/stac";

/** Largest object PUT through the admin API (the body is read whole; larger files: `wrangler r2 object put`). */
export const MAX_OBJECT_BYTES = 16 * 1024 * 1024;
/** Most items per POST. */
export const MAX_ITEMS = 100;
/** Most keys per listing page. */
const LIST_LIMIT = 1000;

/** A DATA key: 1..1024 UTF-8 bytes, no leading slash, no empty, `.` or `..` segment, no control characters. */
export function checkKey(key: string): string {
  const bytes = new TextEncoder().encode(key).length;
  const segments = key.split("/");
  // eslint-disable-next-line no-control-regex
  if (
    bytes === 0 ||
    bytes > 1024 ||
    /[\u0000-\u001f\u007f]/.test(key) ||
    segments.some((s) => s === "" || s === "." || s === "..")
  )
    throw badRequest(
      `Invalid object key '${key.slice(0, 100)}': 1 to 1024 bytes of '/'-separated names, none empty, '.' or '..'.`,
    );
  return key;
}

/** One page of DATA objects under `prefix`: keys and sizes, and the cursor of the next page (absent at the end). */
export async function listData(
  env: Pick<Env, "DATA">,
  prefix: string,
  cursor?: string,
): Promise<{ objects: { key: string; size: number }[]; cursor?: string }> {
  const page = await env.DATA.list({ prefix, cursor, limit: LIST_LIMIT });
  return {
    objects: page.objects.map((o) => ({ key: o.key, size: o.size })),
    ...(page.truncated ? { cursor: page.cursor } : {}),
  };
}

/** Stores `bytes` as DATA object `key` (checked by {@link checkKey}); its key and size. */
export async function putData(
  env: Pick<Env, "DATA">,
  key: string,
  bytes: Uint8Array,
  contentType?: string,
): Promise<{ key: string; size: number }> {
  const o = await env.DATA.put(checkKey(key), bytes, contentType ? { httpMetadata: { contentType } } : undefined);
  return { key: o.key, size: o.size };
}

const asset = z.looseObject({ href: z.string().min(1).max(1024) });

/** The members of a STAC item the catalog and the pipeline rely on (others are kept as sent). */
export const itemSchema = z.looseObject({
  type: z.literal("Feature"),
  id: z.string().min(1).max(256),
  collection: z.string().min(1).max(100),
  bbox: z.array(z.number().finite()).refine((b) => b.length === 4 || b.length === 6, "4 or 6 numbers"),
  geometry: z.looseObject({ type: z.string() }),
  properties: z.looseObject({
    datetime: z.string().refine((d) => Number.isFinite(Date.parse(d)), "an RFC 3339 date-time"),
  }),
  assets: z.record(z.string(), asset),
});

/** POST /api/v1/admin/items body. */
export const itemsBodySchema = z.strictObject({ items: z.array(itemSchema).min(1).max(MAX_ITEMS) });

/**
 * Upserts `items` into the catalog. Throws 400 (nothing stored) when an item names a collection the registry does
 * not know. Returns how many were stored.
 */
export async function upsertItems(env: Pick<Env, "DB">, items: z.infer<typeof itemSchema>[]): Promise<number> {
  const types = [...new Set(items.map((i) => i.collection))];
  const known = await env.DB.prepare(
    `SELECT type FROM data_collections WHERE type IN (${types.map(() => "?").join(", ")})`,
  )
    .bind(...types)
    .all<{ type: string }>();
  const missing = types.filter((t) => !known.results.some((r) => r.type === t));
  if (missing.length)
    throw badRequest(`Unknown collection(s) ${missing.join(", ")}: items must belong to a registered collection.`, {
      collections: missing,
    });
  for (const item of items) await upsertItem(env, item as unknown as StacItem);
  return items.length;
}

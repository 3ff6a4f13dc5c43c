/**
 * Catalog federation: searches of a built-in collection an upstream archive serves (src/archive) are answered from
 * the archive's STAC API when the local store holds nothing for them, in the catalog's own item shape (renderItem:
 * Sentinel Hub band names as asset keys, the assets' real hrefs), with no copy into D1.
 *
 * Translation: bbox, intersects, datetime, ids, limit and sortby (datetime, eo:cloud_cover, id) go upstream as
 * they are; the comparisons of `eo:cloud_cover` at the top level of a CQL2 filter go upstream as the `query`
 * extension both Earth Search and the Planetary Computer implement; then the whole condition is applied to each
 * page exactly as to stored items (src/storage/matching.ts), so a page may hold fewer than `limit` items.
 * Paging: the upstream continuation (stac-server's `next`, pgstac's `token`) travels in this catalog's `next`
 * as `a.<base64url>`; counts are the archive's `numberMatched` when nothing is filtered after.
 * Answers are cached per isolate for PAGE_TTL_MS.
 */
import type { Env } from "../env";
import { archiveFor, type ArchiveEnv } from "../archive";
import { normalizeItem } from "../archive/items";
import { getItem as upstreamItem, searchPage, type UpstreamSearch } from "../archive/stac";
import { badRequest } from "../http/errors";
import { Lru } from "../raster/lru";
import type { StacItem } from "../storage/stac";
import { matchingItems } from "../storage/matching";
import type { SearchRequest } from "./schema";
import type { SearchPlan } from "./search";

/** How long a federated page answers from this isolate's cache, in ms. */
export const PAGE_TTL_MS = 30_000;

const pages = new Lru<{ at: number; page: FederatedPage }>(256);

/** Prefix of a `next` token that continues an upstream search. */
const TOKEN = "a.";

/** A page of a federated search. */
export interface FederatedPage {
  items: StacItem[];
  next?: string;
  matched?: number;
}

/** True when `next` continues an upstream search. */
export const isUpstreamToken = (next: unknown): next is string => typeof next === "string" && next.startsWith(TOKEN);

const b64url = (s: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(s)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

function unb64url(s: string): string {
  try {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    throw badRequest(`Invalid 'next' ${JSON.stringify(TOKEN + s)}: use the value of context.next.`);
  }
}

/** Top-level `eo:cloud_cover` comparisons of a CQL2-JSON filter as STAC `query` terms (others stay for after). */
function cloudCoverQuery(filter: unknown): Record<string, unknown> {
  const ops: Record<string, string> = { "<": "lt", "<=": "lte", ">": "gt", ">=": "gte", "=": "eq" };
  const f = filter as { op?: string; args?: unknown[] } | undefined;
  const terms = f?.op === "and" ? (f.args ?? []) : [f];
  const out: Record<string, unknown> = {};
  for (const t of terms as { op?: string; args?: unknown[] }[]) {
    const [a, b] = t?.args ?? [];
    const prop = (a as { property?: string } | undefined)?.property?.replace(/^properties\./, "");
    if (t?.op && ops[t.op] && prop === "eo:cloud_cover" && typeof b === "number") out[ops[t.op]!] = b;
  }
  return out;
}

const iso = (ms: number | undefined) => (ms === undefined ? ".." : new Date(ms).toISOString());

/** The upstream search of a plan over upstream collections `collections`. */
function upstreamSearch(
  req: SearchRequest,
  plan: SearchPlan,
  collections: string[],
  extra: Record<string, Record<string, unknown>> | undefined,
  filter: unknown,
): UpstreamSearch {
  const query: Record<string, Record<string, unknown>> = { ...(extra ?? {}) };
  const cc = cloudCoverQuery(filter);
  if (Object.keys(cc).length) query["eo:cloud_cover"] = cc;
  const sortby = plan.sort.map((t) => ({
    field: t.field === "id" || t.field === "collection" ? t.field : `properties.${t.field}`,
    direction: t.descending ? ("desc" as const) : ("asc" as const),
  }));
  return {
    collections,
    ...(req.bbox ? { bbox: req.bbox } : {}),
    ...(req.intersects ? { intersects: req.intersects } : {}),
    ...(plan.time.start !== undefined || plan.time.end !== undefined
      ? { datetime: `${iso(plan.time.start)}/${iso(plan.time.end)}` }
      : {}),
    ...(plan.ids ? { ids: plan.ids } : {}),
    limit: plan.limit,
    ...(Object.keys(query).length ? { query } : {}),
    sortby: sortby.length ? sortby : [{ field: "properties.datetime", direction: "desc" }],
  };
}

/**
 * One page of `plan` (its single collection `id`) from the archive serving it, or undefined when none does. `next`:
 * the caller's upstream token (isUpstreamToken), or undefined for the first page. `filter`: the request's filter
 * as CQL2 JSON (for the cloud-cover translation).
 * @throws UpstreamError (502 / 503); ApiError 400 for a malformed token.
 */
export async function federatedPage(
  env: Env & ArchiveEnv,
  id: string,
  req: SearchRequest,
  plan: SearchPlan,
  filter: unknown,
  next?: string,
): Promise<FederatedPage | undefined> {
  const archive = archiveFor(env, id);
  if (!archive) return undefined;
  const { config, collection } = archive;
  const search = upstreamSearch(req, plan, collection.searched, collection.query, filter);
  const continuation = next === undefined ? undefined : unb64url(next.slice(TOKEN.length));
  const key = JSON.stringify([config.stacUrl, search, continuation, plan.condition.where, plan.condition.columns]);
  const hit = pages.get(key);
  if (hit && Date.now() - hit.at < PAGE_TTL_MS) return hit.page;
  const got = await searchPage(config, search, continuation);
  const items = got.items.map((i) => normalizeItem(i, collection, config.stacUrl));
  const matching = await matchingItems(env, items, plan.condition);
  const filtered = matching.length !== items.length || plan.condition.where.text !== "1";
  const page: FederatedPage = {
    items: matching,
    ...(got.next ? { next: TOKEN + b64url(got.next) } : {}),
    ...(!filtered && got.matched !== undefined ? { matched: got.matched } : {}),
  };
  pages.set(key, { at: Date.now(), page });
  return page;
}

/** Item `itemId` of built-in `id` from the archive serving it (any of its upstream collections), or null. */
export async function federatedItem(env: Env & ArchiveEnv, id: string, itemId: string): Promise<StacItem | null> {
  const archive = archiveFor(env, id);
  if (!archive) return null;
  for (const upstream of archive.collection.searched) {
    const item = await upstreamItem(archive.config, upstream, itemId);
    if (item) return normalizeItem(item, archive.collection, archive.config.stacUrl);
  }
  return null;
}

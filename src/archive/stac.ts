/**
 * A STAC API client for the upstream archives: item search (POST /search, STAC API 1.0.0 item-search with the
 * `query` and `sort` extensions both Earth Search's stac-server and the Planetary Computer's pgstac implement) and
 * item fetch. Paging follows the answer's `next` link, as either server writes it: stac-server's POST link with a
 * `body` holding `next`, pgstac's link with a `token` (in the href's query or the body). The continuation is kept as
 * an opaque string (`member=value`) so that callers can hand it to clients as their own `next`.
 */
import type { Geometry } from "geojson";
import type { StacItem } from "../storage/stac";
import type { ArchiveConfig } from "./config";
import { UpstreamError } from "./errors";
import { upstreamFetch } from "./fetch";

/** A search as sent upstream (STAC API item search body). */
export interface UpstreamSearch {
  collections: string[];
  bbox?: number[];
  intersects?: Geometry;
  /** RFC 3339 interval `a/b` (open ends `..`). */
  datetime?: string;
  ids?: string[];
  limit: number;
  query?: Record<string, Record<string, unknown>>;
  sortby?: { field: string; direction: "asc" | "desc" }[];
}

/** One page of an upstream search. */
export interface UpstreamPage {
  items: StacItem[];
  /** Continuation of the search (opaque), absent on the last page. */
  next?: string;
  /** `numberMatched` / `context.matched` when the archive sent it. */
  matched?: number;
}

/** The paging member of a `next` link: `next=<v>` (stac-server) or `token=<v>` (pgstac), or undefined. */
function continuation(links: unknown): string | undefined {
  if (!Array.isArray(links)) return undefined;
  const link = links.find((l: { rel?: string }) => l?.rel === "next") as
    | { href?: string; body?: Record<string, unknown> }
    | undefined;
  if (!link) return undefined;
  for (const member of ["next", "token"]) {
    const v = link.body?.[member];
    if (typeof v === "string" || typeof v === "number") return `${member}=${v}`;
  }
  try {
    const q = new URL(link.href ?? "").searchParams;
    for (const member of ["next", "token"]) if (q.has(member)) return `${member}=${q.get(member)}`;
  } catch {
    // not a URL: no continuation
  }
  return undefined;
}

/** The body member a continuation goes back in. */
function resume(next: string): Record<string, string> {
  const eq = next.indexOf("=");
  const member = next.slice(0, eq);
  if (eq < 0 || (member !== "next" && member !== "token")) throw new Error("bad upstream continuation");
  return { [member]: next.slice(eq + 1) };
}

const shapeError = (config: ArchiveConfig, what: string) =>
  new UpstreamError(
    "upstream-failed",
    `The ${config.name} STAC API answered ${what}; expected a GeoJSON FeatureCollection of items.`,
    { archive: config.name },
  );

/**
 * One page of `search` (from its start, or from `next`, a continuation of an earlier page).
 * @throws UpstreamError (502 / 503) when the STAC API fails or answers something else than a FeatureCollection;
 *   Error for a malformed `next` (the caller validated it).
 */
export async function searchPage(config: ArchiveConfig, search: UpstreamSearch, next?: string): Promise<UpstreamPage> {
  const body = JSON.stringify({ ...search, ...(next ? resume(next) : {}) });
  const response = await upstreamFetch({
    archive: config.name,
    retry: config.retry,
    request: () =>
      new Request(`${config.stacUrl}/search`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/geo+json" },
        body,
      }),
  });
  const page = (await response.json().catch(() => null)) as {
    type?: string;
    features?: unknown;
    links?: unknown;
    numberMatched?: unknown;
    context?: { matched?: unknown };
  } | null;
  if (!page || page.type !== "FeatureCollection" || !Array.isArray(page.features))
    throw shapeError(config, "something else");
  const items = (page.features as StacItem[]).filter(
    (f) => f && f.type === "Feature" && typeof f.id === "string" && f.properties && f.assets,
  );
  const matched =
    typeof page.numberMatched === "number"
      ? page.numberMatched
      : typeof page.context?.matched === "number"
        ? page.context.matched
        : undefined;
  return { items, next: items.length ? continuation(page.links) : undefined, matched };
}

/** One item of an upstream collection, or null (404). @throws UpstreamError as searchPage. */
export async function getItem(config: ArchiveConfig, collection: string, id: string): Promise<StacItem | null> {
  const url = `${config.stacUrl}/collections/${encodeURIComponent(collection)}/items/${encodeURIComponent(id)}`;
  const response = await upstreamFetch({
    archive: config.name,
    retry: config.retry,
    request: () => new Request(url, { headers: { accept: "application/geo+json" } }),
    accept: [404],
  });
  if (response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  const item = (await response.json().catch(() => null)) as StacItem | null;
  if (!item || item.type !== "Feature" || typeof item.id !== "string")
    throw shapeError(config, "an item that is not a GeoJSON Feature");
  return item;
}

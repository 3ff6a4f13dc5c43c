/**
 * Sentinel Hub's paged list (OpenAPI `SearchBeanCount`, `SearchBeanViewtoken` and the `View` links schema):
 * query `count` (1..endpoint maximum, the maximum when omitted) and `viewtoken`; answer
 * `{data: [...], links: {currentToken, nextToken?, previousToken?, "@id", next?, previous?}}`.
 *
 * Keyset paging: a viewtoken is base64url (RFC 4648 section 5, no padding) of the JSON `{k: sortKey, d: "next"|"prev"}`,
 * where the sort key is the tuple an endpoint sorts by (e.g. `[created, id]`, unique). A caller reads `count + 1`
 * rows strictly after the key in sort order (or strictly before it, in reverse order, for `prev`), then lets
 * {@link pagedList} cut them and build the links; {@link seekArray} does that read over an in-memory list.
 * A list's `search` query is parsed (and bounded) by {@link parseSearch}.
 */
import { base64url } from "jose";
import { badRequest } from "./errors";

/** One column value of a sort key; the tuple compares element by element (numbers numerically, strings by code unit). */
export type KeyPart = string | number;
export type SortKey = readonly KeyPart[];

/** Where a page starts: `after` a key (forward), `before` a key (backward), or from the start (no key). */
export type Cursor = { after?: SortKey; before?: undefined } | { before: SortKey; after?: undefined };

/** The parsed paging query: page size, cursor and the token this page was asked with (its `currentToken`). */
export interface PageRequest {
  count: number;
  cursor: Cursor;
  token: string;
}

/** The `links` member of a paged list (OpenAPI schema `View`); URLs are absolute. */
export interface PageLinks {
  currentToken: string;
  nextToken?: string;
  previousToken?: string;
  "@id": string;
  next?: string;
  previous?: string;
}

const dec = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** UTF-8 text of a base64url string (jose's codec); throws on other characters, impossible lengths or bad UTF-8. */
function fromBase64Url(token: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(token) || token.length % 4 === 1) throw new Error("not base64url");
  return dec.decode(base64url.decode(token));
}

/** The viewtoken of a cursor (the first page's token is that of the empty cursor). */
export function encodeViewtoken(cursor: Cursor): string {
  const body = cursor.before ? { k: cursor.before, d: "prev" } : { k: cursor.after ?? [], d: "next" };
  return base64url.encode(JSON.stringify(body));
}

const isKey = (k: unknown): k is SortKey =>
  Array.isArray(k) && k.every((p) => typeof p === "string" || (typeof p === "number" && Number.isFinite(p)));

/**
 * The cursor of a viewtoken made by {@link encodeViewtoken}.
 * @throws ApiError 400 when the token is not one (not base64url, not JSON, wrong shape).
 */
export function decodeViewtoken(token: string): Cursor {
  let body: unknown;
  try {
    body = JSON.parse(fromBase64Url(token));
  } catch {
    body = undefined;
  }
  const b = body as { k?: unknown; d?: unknown } | undefined;
  if (
    !b ||
    typeof b !== "object" ||
    !isKey(b.k) ||
    (b.d !== "next" && b.d !== "prev") ||
    (b.d === "prev" && b.k.length === 0)
  )
    throw badRequest(
      `Invalid viewtoken '${token.slice(0, 64)}': use the nextToken or previousToken (or the next URL) of a previous page.`,
    );
  return b.d === "prev" ? { before: b.k } : b.k.length ? { after: b.k } : {};
}

/**
 * Reads `count` and `viewtoken` from a URL's query.
 * @param max the endpoint's maximum page size (also the default); Sentinel Hub uses 100 for BYOC lists.
 * @param keyLength the number of values in the endpoint's sort key, when the token's key must have it.
 * @throws ApiError 400 when count is not an integer in 1..max or the viewtoken is not one of ours (or of another length).
 */
export function parsePageRequest(url: URL, max: number, keyLength?: number): PageRequest {
  const rawCount = url.searchParams.get("count");
  const count = rawCount === null || rawCount === "" ? max : Number(rawCount);
  if (!/^\d*$/.test(rawCount ?? "") || !Number.isInteger(count) || count < 1 || count > max)
    throw badRequest(`Invalid count '${rawCount}': an integer from 1 to ${max}.`);
  const token = url.searchParams.get("viewtoken");
  const cursor = token ? decodeViewtoken(token) : {};
  const key = cursor.after ?? cursor.before;
  if (key && keyLength !== undefined && key.length !== keyLength)
    throw badRequest(`Invalid viewtoken: it belongs to another listing; start again without a viewtoken.`);
  return { count, cursor, token: encodeViewtoken(cursor) };
}

/** Compares two sort keys element by element (a shorter prefix sorts first). */
export function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!,
      y = b[i]!;
    if (x !== y) return typeof x === "number" && typeof y === "number" ? x - y : String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The rows a paged query reads from a list already sorted by `keyOf` ascending: up to `count + 1` rows after the
 * cursor in order, or before it in reverse order (what an SQL `WHERE key < ? ORDER BY key DESC LIMIT count+1` gives).
 */
export function seekArray<T>(sorted: readonly T[], page: PageRequest, keyOf: (item: T) => SortKey): T[] {
  const { after, before } = page.cursor;
  if (before)
    return sorted
      .filter((x) => compareKeys(keyOf(x), before) < 0)
      .reverse()
      .slice(0, page.count + 1);
  return sorted.filter((x) => !after || compareKeys(keyOf(x), after) > 0).slice(0, page.count + 1);
}

/** `url` with `viewtoken` set to `token` (other query parameters, such as count, kept). */
function withToken(url: URL, token: string): string {
  const u = new URL(url);
  u.searchParams.set("viewtoken", token);
  return u.href;
}

/**
 * The paged-list answer for rows read as {@link seekArray} does (up to count + 1, in seek order).
 * nextToken/next appear when rows follow the page, previousToken/previous when rows precede it; `@id` is the
 * request URL. An empty page (a cursor beyond either end) has no previous link, and a next link to the start when
 * it was a backward page. `url` must already be on the public origin (the router's request.url is).
 */
export function pagedList<T>(
  url: URL,
  page: PageRequest,
  rows: readonly T[],
  keyOf: (item: T) => SortKey,
): { data: T[]; links: PageLinks } {
  const backward = page.cursor.before !== undefined;
  const more = rows.length > page.count;
  const data = rows.slice(0, page.count);
  if (backward) data.reverse();
  const links: PageLinks = { currentToken: page.token, "@id": url.href };
  const first = data[0],
    last = data[data.length - 1];
  // an empty page (a cursor past either end) links forward to the start only
  const next = last ? (backward || more ? { after: keyOf(last) } : undefined) : backward ? {} : undefined;
  const previous = first && (backward ? more : page.cursor.after !== undefined) ? { before: keyOf(first) } : undefined;
  if (next) {
    links.nextToken = encodeViewtoken(next);
    links.next = withToken(url, links.nextToken);
  }
  if (previous) {
    links.previousToken = encodeViewtoken(previous);
    links.previous = withToken(url, links.previousToken);
  }
  return { data, links };
}

/** Most words a list's `search` may hold: each becomes one SQL condition, and D1 refuses expression trees over 100 deep. */
export const MAX_SEARCH_WORDS = 20;
/** Longest `search` value, in characters. */
export const MAX_SEARCH_CHARS = 500;

/**
 * A list's `search` query as OR-groups of AND-words, lower case (Sentinel Hub's "one word, or words joined with `|`
 * for or and `&` for and"; words separated by spaces must all match too); `[]` when absent or blank. A name
 * matches a group when each of its words is a substring of it (case-insensitive): see {@link matchesSearch}, and
 * src/storage/keyset.ts searchSql for the same test in SQL.
 * @throws ApiError 400 naming the limit for a value over MAX_SEARCH_CHARS characters or MAX_SEARCH_WORDS words.
 */
export function parseSearch(url: URL): string[][] {
  const search = url.searchParams.get("search") ?? "";
  if (search.length > MAX_SEARCH_CHARS)
    throw badRequest(
      `Invalid search: at most ${MAX_SEARCH_CHARS} characters are accepted (this one has ${search.length}).`,
    );
  const groups = search
    .split("|")
    .map((g) =>
      g
        .split(/[&\s]+/)
        .filter(Boolean)
        .map((w) => w.toLowerCase()),
    )
    .filter((g) => g.length > 0);
  const words = groups.reduce((n, g) => n + g.length, 0);
  if (words > MAX_SEARCH_WORDS)
    throw badRequest(
      `Invalid search: at most ${MAX_SEARCH_WORDS} words (joined by |, & or spaces) are accepted (this one has ${words}).`,
    );
  return groups;
}

/** Whether `text` matches a parsed search (see {@link parseSearch}); everything matches an empty one. */
export function matchesSearch(text: string, search: readonly (readonly string[])[]): boolean {
  const t = text.toLowerCase();
  return search.length === 0 || search.some((g) => g.every((w) => t.includes(w)));
}

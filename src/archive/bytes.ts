/**
 * Upstream COG assets as ByteSources for the raster engine, with the reads suited to the edge:
 * - opening costs at most one ranged GET of the first PREFIX_BYTES (size from Content-Range, the ETag, and the bytes
 *   a COG header lives in); what it learns is kept per isolate (OPEN_TTL_MS) and in the Cache API under the URL, so a
 *   warm open costs no request at all; the parsed header is then cached by the engine under `url#etag`
 *   (src/raster/cog), and every later range is checked against that ETag (a replaced object fails, never mixes);
 * - the ranges of one `read` are coalesced (gaps below COALESCE_GAP bytes merged) and fetched in parallel, at most
 *   CONNECTION_LIMIT (src/budget/limits.ts) at once, each attempt bounded by a timeout and retried (./fetch.ts),
 *   each answer copied into its ranges' buffers and asked again when it breaks off (./stream.ts);
 * - with an ARCHIVE_CACHE R2 binding, every requested range (a COG block) is read through it: found there, no
 *   upstream request; fetched upstream, stored there for every isolate.
 */
import { waitUntil } from "cloudflare:workers";
import type { ByteSource } from "../raster/types";
import { Lru } from "../raster/lru";
import { coalesce, PREFIX_BYTES } from "../storage/ranged";
import type { AssetAccess } from "./access";
import { redact, UpstreamError } from "./errors";
import { pooled, upstreamFetch, upstreamStats, type RetryPolicy } from "./fetch";
import { described, streamSpan, type SpanMember, type SpanTarget } from "./stream";

/** Ranges closer than this are read with one request (one round trip beats a few KiB of extra bytes upstream). */
export const COALESCE_GAP = 64 * 1024;

/** How long an isolate trusts what an open learnt (size, ETag, prefix); archive objects are immutable. */
export const OPEN_TTL_MS = 10 * 60_000;

/** Cache API lifetime of an open's answer, in seconds. */
const CACHE_API_TTL_S = 24 * 3600;

interface Opened {
  size: number;
  etag: string;
  prefix: ArrayBuffer;
  at: number;
}

const opened = new Lru<Opened>(1024, 32 << 20, (o) => o.prefix.byteLength);

/** An upstream asset opened for reading. */
export interface UpstreamSource extends ByteSource {
  /** The URL read (no token). */
  readonly url: string;
  readonly etag: string;
}

/** Options of openUpstream. */
export interface UpstreamReadOptions {
  archive: string;
  retry: RetryPolicy;
  /** R2 read-through cache of ranges (ARCHIVE_CACHE), or undefined. */
  blockCache?: R2Bucket;
}

/** `bytes a-b/size` -> size, or undefined. */
const totalSize = (contentRange: string | null): number | undefined => {
  const m = /\/(\d+)\s*$/.exec(contentRange ?? "");
  return m ? Number(m[1]) : undefined;
};

const cacheKey = (url: string) =>
  new Request(`https://archive-cache.eo-edge.invalid/open?u=${encodeURIComponent(url)}`);

/** Default Cache API cache when the runtime has one (workerd: yes). */
const cacheApi = (): Cache | undefined =>
  typeof caches !== "undefined" ? (caches as unknown as { default?: Cache }).default : undefined;

async function fromCacheApi(url: string): Promise<Opened | undefined> {
  const hit = await cacheApi()
    ?.match(cacheKey(url))
    .catch(() => undefined);
  if (!hit) return undefined;
  const size = Number(hit.headers.get("x-size"));
  const etag = hit.headers.get("x-etag") ?? "";
  if (!Number.isFinite(size) || !etag) return undefined;
  return { size, etag, prefix: await hit.arrayBuffer(), at: Date.now() };
}

async function toCacheApi(url: string, o: Opened): Promise<void> {
  const headers = { "x-size": String(o.size), "x-etag": o.etag, "cache-control": `max-age=${CACHE_API_TTL_S}` };
  await cacheApi()
    ?.put(cacheKey(url), new Response(o.prefix, { headers }))
    .catch(() => undefined);
}

/**
 * Lets `work` finish after the response: under the invocation's waitUntil (the runtime would otherwise cancel it
 * once the response is sent), or, outside an invocation (a test calling the reader), simply running.
 */
function keepRunning(work: Promise<void>): void {
  try {
    waitUntil(work);
  } catch {
    void work;
  }
}

/** Opens in flight in this isolate, by URL: a request opening the same object meanwhile joins the first. */
const opening = new Map<string, Promise<Opened | null>>();

/**
 * The first PREFIX_BYTES with size and ETag, from the caches or one ranged GET; null when the object is missing.
 * Concurrent opens of one URL (cold requests over the same scene) share one lookup and one GET.
 */
function openMeta(access: AssetAccess, o: UpstreamReadOptions): Promise<Opened | null> {
  const hit = opened.get(access.url);
  if (hit && Date.now() - hit.at < OPEN_TTL_MS) return Promise.resolve(hit);
  const pending = opening.get(access.url);
  if (pending) return pending;
  const open = openUncached(access, o).finally(() => opening.delete(access.url));
  opening.set(access.url, open);
  return open;
}

const remember = (url: string, meta: Opened): Opened => (opened.set(url, meta), meta);

/** openMeta past the isolate's cache: the Cache API, else one ranged GET upstream. */
async function openUncached(access: AssetAccess, o: UpstreamReadOptions): Promise<Opened | null> {
  const cached = await fromCacheApi(access.url);
  return cached ? remember(access.url, cached) : openFromUpstream(access, o);
}

/**
 * One ranged GET of the first PREFIX_BYTES: size, ETag and prefix; null when the object is missing. An answer whose
 * body breaks off is asked again while the retry policy has attempts.
 * @throws UpstreamError (./fetch.ts; upstream-unavailable when every body broke off; upstream-failed without
 *   Content-Range)
 */
async function openFromUpstream(access: AssetAccess, o: UpstreamReadOptions): Promise<Opened | null> {
  let last = "";
  for (let attempt = 0; attempt < o.retry.attempts; attempt++) {
    const response = await upstreamFetch({
      archive: o.archive,
      retry: o.retry,
      request: () => access.request("GET", { range: `bytes=0-${PREFIX_BYTES - 1}` }),
      refresh: access.refresh,
      accept: [404, 416],
    });
    if (response.status === 404 || response.status === 416) {
      await response.body?.cancel();
      // 416: an empty object, nothing a raster reader can read
      return response.status === 404 ? null : { size: 0, etag: "", prefix: new ArrayBuffer(0), at: Date.now() };
    }
    const bytes = await response.arrayBuffer().catch((e: unknown) => ((last = described(e)), null));
    if (bytes) return learnt(access, o, response, bytes);
  }
  throw new UpstreamError(
    "upstream-unavailable",
    `The ${o.archive} archive did not deliver the start of ${redact(access.url)} (the answer broke off: ${last}, ${o.retry.attempts} attempts); try again later.`,
    { archive: o.archive, attempts: o.retry.attempts },
  );
}

/** What an open learns from its answer `response` with body `bytes`; kept per isolate and in the Cache API. */
function learnt(access: AssetAccess, o: UpstreamReadOptions, response: Response, bytes: ArrayBuffer): Opened {
  upstreamStats.bytes += bytes.byteLength;
  const size = response.status === 206 ? totalSize(response.headers.get("content-range")) : bytes.byteLength;
  const etag = response.headers.get("etag") ?? "";
  if (size === undefined)
    throw new UpstreamError(
      "upstream-failed",
      `The ${o.archive} archive answered a range of ${redact(access.url)} without Content-Range.`,
      { archive: o.archive, status: response.status },
    );
  const meta: Opened = {
    size,
    etag,
    prefix: bytes.byteLength === Math.min(PREFIX_BYTES, size) ? bytes : new ArrayBuffer(0),
    at: Date.now(),
  };
  remember(access.url, meta);
  keepRunning(toCacheApi(access.url, meta)); // off the read's path: the store is for later isolates
  return meta;
}

/** The error of an object replaced while it is read (ETag `etag` at open, `got` now); forgets the old version. */
async function changedObject(access: AssetAccess, o: UpstreamReadOptions, etag: string, got: string): Promise<Error> {
  opened.delete(access.url);
  await cacheApi()
    ?.delete(cacheKey(access.url))
    .catch(() => undefined);
  return new UpstreamError(
    "upstream-failed",
    `The object ${redact(access.url)} changed while it was read (ETag ${etag} -> ${got}); send the request again.`,
    { archive: o.archive },
  );
}

/** R2 key of one range of a version of an asset. */
const blockKey = async (url: string, etag: string, offset: number, length: number): Promise<string> => {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${url}\n${etag}`));
  const hex = [...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `archive-blocks/${hex}/${offset}-${length}`;
};

/**
 * Reads ranges (each of positive length, inside the object) upstream: coalesced, at most CONNECTION_LIMIT requests
 * at a time, each span read by ./stream.ts. One promise per range, settled as soon as its bytes are in.
 */
function readUpstream(
  access: AssetAccess,
  o: UpstreamReadOptions,
  etag: string,
  ranges: { offset: number; length: number }[],
): Promise<ArrayBuffer>[] {
  const target: SpanTarget = {
    access,
    archive: o.archive,
    retry: o.retry,
    etag,
    changed: (got) => changedObject(access, o, etag, got),
  };
  const members: SpanMember[] = [];
  const out = ranges.map(
    (r) => new Promise<ArrayBuffer>((done, fail) => members.push({ ...r, filled: 0, done, fail })),
  );
  const spans = coalesce(ranges, COALESCE_GAP);
  // streamSpan never throws (it settles its members), so every span runs and no promise is left pending
  void pooled(
    spans.map(
      (span) => () =>
        streamSpan(
          target,
          span.offset,
          span.end,
          span.members.map((i) => members[i]!),
        ),
    ),
  );
  return out;
}

/** As readUpstream, through the R2 block cache: ranges found there are not fetched, fetched ones are stored. */
async function readThrough(
  cache: R2Bucket,
  access: AssetAccess,
  o: UpstreamReadOptions,
  etag: string,
  ranges: { offset: number; length: number }[],
): Promise<ArrayBuffer[]> {
  const keys = await Promise.all(ranges.map((r) => blockKey(access.url, etag, r.offset, r.length)));
  const found = await pooled(
    keys.map((k) => async () => (await cache.get(k).catch(() => null))?.arrayBuffer() ?? null),
  );
  const missing = ranges.map((_, i) => i).filter((i) => found[i] === null);
  const fetched = await Promise.all(
    readUpstream(
      access,
      o,
      etag,
      missing.map((i) => ranges[i]!),
    ),
  );
  await pooled(missing.map((i, j) => () => cache.put(keys[i]!, fetched[j]!).catch(() => null)));
  missing.forEach((i, j) => (found[i] = fetched[j]!));
  return found as ArrayBuffer[];
}

/**
 * Opens an upstream asset as a ByteSource (`id` = URL + "#" + ETag), or null when it does not exist (404).
 * Create one per request (it holds no connection; what the open learnt is shared through the caches).
 * @throws UpstreamError after retries (./fetch.ts), on a Content-Range-less answer, a body that keeps breaking off
 *   (./stream.ts) or a changed ETag.
 */
export async function openUpstream(access: AssetAccess, o: UpstreamReadOptions): Promise<UpstreamSource | null> {
  const meta = await openMeta(access, o);
  if (!meta) return null;
  const { size, etag, prefix } = meta;
  async function read(ranges: { offset: number; length: number }[]): Promise<ArrayBuffer[]> {
    const clamped = ranges.map(({ offset, length }) => {
      if (!(offset >= 0) || !(length >= 0))
        throw new Error(`invalid byte range ${offset}+${length} of ${redact(access.url)}`);
      return { offset: Math.min(offset, size), length: Math.max(0, Math.min(length, size - offset)) };
    });
    const out = clamped.map((r) =>
      r.offset + r.length <= prefix.byteLength ? prefix.slice(r.offset, r.offset + r.length) : null,
    );
    const todo = clamped.map((_, i) => i).filter((i) => out[i] === null && clamped[i]!.length > 0);
    const wanted = todo.map((i) => clamped[i]!);
    const got =
      todo.length === 0
        ? []
        : o.blockCache
          ? await readThrough(o.blockCache, access, o, etag, wanted)
          : await Promise.all(readUpstream(access, o, etag, wanted));
    todo.forEach((i, j) => (out[i] = got[j]!));
    return out.map((b) => b ?? new ArrayBuffer(0));
  }
  return { id: `${access.url}#${etag}`, size, url: access.url, etag, read };
}

/**
 * Opens the Cache API in the background (an isolate's first request, src/index.ts): under `wrangler dev` the first
 * lookup of a process starts miniflare's cache store (50-85 ms measured, a loaded 2-core machine), which a cold
 * read would otherwise wait for before its first upstream request. Looks up a key no open ever stores.
 */
export async function openCacheApi(): Promise<void> {
  await cacheApi()
    ?.match(new Request("https://archive-cache.eo-edge.invalid/warm"))
    .catch(() => undefined);
}

/** Forgets what this isolate learnt from opens (tests measuring cold reads; the Cache API is kept). */
export function forgetOpens(): void {
  opened.clear();
}

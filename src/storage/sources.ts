/**
 * Resolves "bucket + key" to a ByteSource the raster engine reads: the built-in archive (the DATA R2 binding) or a
 * user's bucket (an `s3://` descriptor resolved by src/buckets to an ObjectStore with ranged get / head). Both
 * follow the same rules (./ranged.ts: one ranged get at open, coalesced range gets, reads pinned to the version
 * seen at open), so a COG, or any other reader over a ByteSource, opens the same way from either.
 */
import type { Env } from "../env";
import { BucketAccessDenied, parseS3Url, resolveBucket, type BucketDescriptor, type ObjectStore } from "../buckets";
import { Lru } from "../raster/lru";
import { openRanged, type RangeBackend, type RangedSource } from "./ranged";
import { r2Source } from "./r2source";
import { FILE_CACHE_BYTES } from "../raster/memory";
import { PREFIX_BYTES } from "./ranged";

/** Where a stored file lives. */
export interface FileLocation {
  /** The user's bucket (its `url` may carry a key prefix), or null for the built-in archive (DATA). */
  bucket: BucketDescriptor | null;
  /** Key inside the bucket (after the descriptor's prefix); no leading `/`. */
  key: string;
}

/**
 * The location an asset href names: `s3://<bucket>/<key>` is `<key>` in that user bucket, anything else is a key
 * in the built-in archive (the hrefs of the seeded STAC items, e.g. `sentinel-2-l2a/<scene>/B04.tif`).
 */
export function locationOf(href: string): FileLocation {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(href);
  return m ? { bucket: { url: `s3://${m[1]}` }, key: m[2]! } : { bucket: null, key: href };
}

/** Ranged gets and heads of `key` in an ObjectStore; the store has no conditional get, so the caller compares etags. */
function storeBackend(store: ObjectStore, key: string): RangeBackend {
  return {
    async getRange(offset, length) {
      const obj = await store.get(key, { offset, length });
      if (!obj) return null;
      return { size: obj.size, etag: obj.etag, bytes: await new Response(obj.body).arrayBuffer() };
    },
    async head() {
      const head = await store.head(key);
      return head ? { size: head.size, etag: head.etag } : null;
    },
  };
}

/**
 * Opens `key` of an ObjectStore as a ByteSource (`id` = `s3://<bucket>/<key>#<etag>`), or null when the object
 * does not exist. Same opening, prefix and coalescing rules as r2Source; a range whose etag differs from the one
 * seen at open throws (the file changed mid-request).
 */
export function storeSource(
  store: ObjectStore,
  key: string,
  opts: { prefix?: number } = {},
): Promise<RangedSource | null> {
  return openRanged(storeBackend(store, key), key, `s3://${store.bucket}/${key}`, opts);
}

/**
 * Archive files opened from DATA are reused for ARCHIVE_TTL_MS per isolate (archive files are immutable; every read
 * is pinned to the etag seen at open, so a replaced file fails instead of mixing versions). Files in users'
 * buckets are opened afresh each time (users replace files; the open also checks the caller can still read it).
 */
const ARCHIVE_TTL_MS = 60_000;
/** Bytes an opened archive file holds: its prefix (PREFIX_BYTES) and its record. */
const OPENED_FILE_BYTES = PREFIX_BYTES + 1024;
const archive = new Lru<{ source: RangedSource; at: number }>(512, FILE_CACHE_BYTES, () => OPENED_FILE_BYTES, true);

/** The file cache's entries, bytes and budget (tests). */
export const fileCacheStats = () => archive.stats;

async function openArchive(data: R2Bucket, key: string): Promise<RangedSource | null> {
  const hit = archive.get(key);
  if (hit && Date.now() - hit.at < ARCHIVE_TTL_MS) return hit.source;
  const source = await r2Source(data, key);
  if (!source) return null;
  archive.set(key, { source, at: Date.now() });
  return source;
}

/**
 * Opens the file at `location` (or the href `locationOf` parses) as a ByteSource, or null when it does not exist.
 * A file in a user's bucket is opened as `account` (the owner of the collection whose item names it), which must
 * be allowed to use that bucket (src/buckets/owners.ts); `account` null (a built-in collection) reads only the
 * archive.
 * @throws EngineError invalid-argument for an invalid bucket descriptor (src/buckets parseS3Url); BucketAccessDenied
 *   (403) for a bucket `account` may not use; storage errors.
 */
export async function openFile(
  env: Pick<Env, "DATA" | "BUCKETS" | "DB">,
  account: string | null,
  location: FileLocation | string,
): Promise<RangedSource | null> {
  const loc = typeof location === "string" ? locationOf(location) : location;
  if (!loc.bucket) return openArchive(env.DATA, loc.key);
  if (account === null)
    throw new BucketAccessDenied(
      parseS3Url(loc.bucket.url).bucket,
      null,
      "only an account's own collections read its buckets",
    );
  const bucket = await resolveBucket(env, account, loc.bucket);
  return storeSource(bucket.store, bucket.key(loc.key));
}

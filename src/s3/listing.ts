/**
 * Listings of the S3 endpoint (S3 API reference): ListObjectsV2 (`list-type=2`: prefix, delimiter,
 * continuation-token, start-after, max-keys, encoding-type=url), ListObjects v1 (marker) and ListBuckets.
 * Continuation tokens are the store's listing cursors (opaque, as S3's).
 */
import type { BucketEnv } from "../buckets/config";
import { ownedBuckets } from "../buckets/owners";
import type { ObjectListing, ObjectStore } from "../buckets/types";
import { invalidArgument, xmlResponse } from "./xml";

/** S3's page size and its maximum. */
const MAX_KEYS = 1000;

/** max-keys as a number in [0, 1000]. @throws S3Error InvalidArgument. */
function maxKeysOf(value: string | null): number {
  if (value === null) return MAX_KEYS;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw invalidArgument("max-keys must be a non-negative whole number.", "max-keys", value);
  return Math.min(n, MAX_KEYS);
}

/** `encoding-type=url` answers keys and prefixes URL-encoded (botocore asks for it and decodes them). */
function encoderOf(q: URLSearchParams): (s: string) => string {
  const type = q.get("encoding-type");
  if (type !== null && type !== "url") throw invalidArgument("encoding-type must be url.", "encoding-type", type);
  return type === "url" ? (s) => encodeURIComponent(s).replace(/%2F/g, "/") : (s) => s;
}

/** Elements every listing answer shares: Contents and CommonPrefixes, keys encoded by `enc`. */
function entries(page: ObjectListing, enc: (s: string) => string) {
  return {
    Contents: page.objects.map((o) => ({
      Key: enc(o.key),
      LastModified: o.uploaded.toISOString(),
      ETag: `"${o.etag}"`,
      Size: o.size,
      StorageClass: "STANDARD",
    })),
    CommonPrefixes: page.prefixes.map((p) => ({ Prefix: enc(p) })),
  };
}

/**
 * The store's start-after for S3's marker/start-after: a marker ending with the delimiter is a common prefix (a v1
 * NextMarker) and skips every key rolled up into it, so paging never answers that prefix twice (U+10FFFF sorts
 * after every other character in UTF-8 byte order, which R2 lists in).
 */
const skipRolledUp = (startAfter: string | undefined, delimiter: string | undefined): string | undefined =>
  delimiter && startAfter?.endsWith(delimiter) ? `${startAfter}\u{10FFFF}` : startAfter;

const EMPTY: ObjectListing = { objects: [], prefixes: [] };

/** ListObjectsV2 or (without list-type=2) ListObjects of `store`. @throws S3Error InvalidArgument. */
export async function listObjects(store: ObjectStore, q: URLSearchParams): Promise<Response> {
  const enc = encoderOf(q);
  const maxKeys = maxKeysOf(q.get("max-keys"));
  const prefix = q.get("prefix") ?? "";
  const delimiter = q.get("delimiter") || undefined;
  const v2 = q.get("list-type") === "2";
  if (!v2 && q.get("list-type") !== null)
    throw invalidArgument("list-type must be 2 (or absent for ListObjects).", "list-type", q.get("list-type")!);
  const token = q.get("continuation-token") ?? undefined;
  const startAfter = (v2 ? q.get("start-after") : q.get("marker")) || undefined;
  const from = token ? undefined : skipRolledUp(startAfter, delimiter);
  const page =
    maxKeys === 0
      ? EMPTY
      : await store.list({ prefix, delimiter, cursor: v2 ? token : undefined, startAfter: from, limit: maxKeys });
  const common = {
    Name: store.bucket,
    Prefix: enc(prefix),
    ...(delimiter ? { Delimiter: enc(delimiter) } : {}),
    MaxKeys: maxKeys,
  };
  const encoding = q.get("encoding-type") ? { EncodingType: "url" } : {};
  const truncated = page.cursor !== undefined;
  if (v2) {
    const tokens = {
      ...(token ? { ContinuationToken: token } : {}),
      ...(truncated ? { NextContinuationToken: page.cursor } : {}),
      ...(startAfter ? { StartAfter: enc(startAfter) } : {}),
    };
    return xmlResponse("ListBucketResult", {
      ...common,
      ...encoding,
      KeyCount: page.objects.length + page.prefixes.length,
      IsTruncated: truncated,
      ...tokens,
      ...entries(page, enc),
    });
  }
  const last = [...page.objects.map((o) => o.key), ...page.prefixes].sort().at(-1);
  const next = truncated && delimiter && last ? { NextMarker: enc(last) } : {};
  return xmlResponse("ListBucketResult", {
    ...common,
    Marker: enc(startAfter ?? ""),
    ...encoding,
    IsTruncated: truncated,
    ...next,
    ...entries(page, enc),
  });
}

/** ListBuckets: the buckets `account` owns (as S3 lists a caller's own buckets, not those granted to it). */
export async function listBuckets(env: BucketEnv, account: string): Promise<Response> {
  const Bucket = (await ownedBuckets(env, account)).map((b) => ({ Name: b.bucket, CreationDate: b.created }));
  return xmlResponse("ListAllMyBucketsResult", { Owner: { ID: account, DisplayName: account }, Buckets: { Bucket } });
}

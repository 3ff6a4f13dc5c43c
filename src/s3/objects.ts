/**
 * The object operations of the S3 endpoint over an ObjectStore (S3 API reference): GetObject (single Range ->
 * 206 + Content-Range, unsatisfiable -> 416 InvalidRange), HeadObject, PutObject (ETag), DeleteObject (204).
 * An upload's checked x-amz-checksum-* value (./payload.ts) is kept in the object's custom metadata under the
 * header's name and answered by PutObject, and by HeadObject and whole-object GetObject requests that send
 * `x-amz-checksum-mode: ENABLED` (S3 user guide, "Checking object integrity").
 */
import type { ObjectStore, StoredObject } from "../buckets/types";
import { parseRange } from "../http/range";
import { ApiError } from "../http/errors";
import type { StreamedBody } from "./payload";
import { S3Error, noSuchKey } from "./xml";

/** The headers S3 sends with an object (ETag quoted, Last-Modified as an HTTP date). */
function objectHeaders(o: StoredObject): Record<string, string> {
  return {
    etag: `"${o.etag}"`,
    "last-modified": o.uploaded.toUTCString(),
    "content-type": o.contentType ?? "binary/octet-stream",
    "accept-ranges": "bytes",
  };
}

/** The inclusive byte range asked for by `header` in an object of `size` bytes; null for the whole object. */
function rangeOf(header: string | null, size: number): { start: number; end: number } | null {
  try {
    return parseRange(header, size);
  } catch (err) {
    if (err instanceof ApiError && err.status === 416)
      throw new S3Error(
        416,
        "InvalidRange",
        "The requested range is not satisfiable.",
        { RangeRequested: header ?? "", ActualObjectSize: String(size) },
        err.headers,
      );
    throw err;
  }
}

/** The stored checksum headers of `o` (x-amz-checksum-<algorithm> and its type), {} when it has none. */
function checksumHeaders(o: StoredObject): Record<string, string> {
  const stored = Object.entries(o.metadata ?? {}).filter(([name]) => name.startsWith("x-amz-checksum-"));
  return stored.length ? { ...Object.fromEntries(stored), "x-amz-checksum-type": "FULL_OBJECT" } : {};
}

/** GetObject / HeadObject. @throws S3Error NoSuchKey, InvalidRange. */
export async function getObject(store: ObjectStore, key: string, request: Request): Promise<Response> {
  const head = await store.head(key);
  if (!head) throw noSuchKey(key);
  const range = rangeOf(request.headers.get("range"), head.size);
  const checksums =
    !range && /^enabled$/i.test(request.headers.get("x-amz-checksum-mode") ?? "") ? checksumHeaders(head) : {};
  const headers = { ...objectHeaders(head), ...checksums };
  if (request.method === "HEAD")
    return new Response(null, { headers: { ...headers, "content-length": String(head.size) } });
  const o = await store.get(key, range ? { offset: range.start, length: range.end - range.start + 1 } : undefined);
  if (!o) throw noSuchKey(key);
  if (!range) return new Response(o.body, { headers: { ...headers, "content-length": String(head.size) } });
  const partial = {
    "content-length": String(range.end - range.start + 1),
    "content-range": `bytes ${range.start}-${range.end}/${head.size}`,
  };
  return new Response(o.body, { status: 206, headers: { ...headers, ...partial } });
}

/**
 * PutObject of `put.body`: checked bytes, or a stream the store checks against `sha256` and that fails on a checksum
 * mismatch (refusals are XAmzContentSHA256Mismatch / BadDigest and store nothing).
 */
export async function putObject(
  store: ObjectStore,
  key: string,
  put: StreamedBody,
  request: Request,
): Promise<Response> {
  const contentType = request.headers.get("content-type") ?? undefined;
  const metadata = put.checksum ? { [put.checksum.name]: put.checksum.value } : undefined;
  try {
    const o = await store.put(key, put.body, { contentType, sha256: put.sha256, metadata });
    return new Response(null, { headers: { etag: `"${o.etag}"`, ...metadata } });
  } catch (err) {
    const mismatch = put.mismatch?.();
    if (mismatch) throw mismatch;
    if (put.sha256 && err instanceof Error && /sha-?256|digest|checksum/i.test(err.message))
      throw new S3Error(
        400,
        "XAmzContentSHA256Mismatch",
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
        { ClientComputedContentSHA256: put.sha256 },
      );
    throw err;
  }
}

/** DeleteObject: 204 whether or not the key existed (as S3). */
export async function deleteObject(store: ObjectStore, key: string): Promise<Response> {
  await store.delete(key);
  return new Response(null, { status: 204 });
}

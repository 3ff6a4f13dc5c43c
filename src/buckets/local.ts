/**
 * Buckets kept in R2: local buckets (every bucket name works out of the box, kept in the BUCKETS R2 binding under
 * `<bucket>/<key>`, so `s3://my-bucket/out` is R2 key prefix `my-bucket/out/` in `.state` when run with `npm start`)
 * and R2 buckets bound in wrangler.toml (keys at the bucket's root).
 */
import type { MultipartUploads, ObjectBody, ObjectListing, ObjectStore, StoredObject } from "./types";

/** An ObjectStore for bucket `bucket` inside R2 binding `r2` (keys prefixed with `<bucket>/`). */
export function localBucket(r2: R2Bucket, bucket: string): ObjectStore {
  return r2Store(r2, bucket, `${bucket}/`);
}

/**
 * An ObjectStore named `bucket` over R2 binding `r2`, its keys stored as `<root><key>` (root "" for a bound bucket,
 * `<bucket>/` for a local one). A range starting at or past the end is R2's error (callers check sizes first).
 */
export function r2Store(r2: R2Bucket, bucket: string, root: string): ObjectStore {
  const full = (key: string) => root + key;
  const meta = (o: R2Object): StoredObject => ({
    key: o.key.slice(root.length),
    size: o.size,
    etag: o.etag,
    uploaded: o.uploaded,
    contentType: o.httpMetadata?.contentType,
    ...(o.customMetadata && Object.keys(o.customMetadata).length ? { metadata: o.customMetadata } : {}),
  });
  const multipart: MultipartUploads = {
    async create(key, options) {
      return (
        await r2.createMultipartUpload(
          full(key),
          options?.contentType ? { httpMetadata: { contentType: options.contentType } } : undefined,
        )
      ).uploadId;
    },
    async uploadPart(key, uploadId, partNumber, body) {
      return (await r2.resumeMultipartUpload(full(key), uploadId).uploadPart(partNumber, body)).etag;
    },
    async complete(key, uploadId, parts) {
      return meta(await r2.resumeMultipartUpload(full(key), uploadId).complete(parts));
    },
    abort: (key, uploadId) => r2.resumeMultipartUpload(full(key), uploadId).abort(),
  };
  return {
    bucket,
    multipart,
    async get(key, range): Promise<ObjectBody | null> {
      const o = await r2.get(
        full(key),
        range
          ? {
              range:
                range.length === undefined ? { offset: range.offset } : { offset: range.offset, length: range.length },
            }
          : undefined,
      );
      if (!o) return null;
      const r = o.range as { offset?: number; length?: number } | undefined;
      return {
        ...meta(o),
        body: o.body,
        range: range ? { offset: r?.offset ?? range.offset, length: r?.length ?? o.size - range.offset } : undefined,
      };
    },
    async head(key) {
      const o = await r2.head(full(key));
      return o ? meta(o) : null;
    },
    async put(key, body, options) {
      const httpMetadata = options?.contentType ? { contentType: options.contentType } : undefined;
      const o = await r2.put(full(key), body, {
        httpMetadata,
        sha256: options?.sha256,
        customMetadata: options?.metadata,
      });
      return meta(o!);
    },
    async delete(keys) {
      await r2.delete((Array.isArray(keys) ? keys : [keys]).map(full));
    },
    async list(options = {}): Promise<ObjectListing> {
      const startAfter = options.startAfter === undefined ? undefined : full(options.startAfter);
      const r = await r2.list({
        prefix: full(options.prefix ?? ""),
        delimiter: options.delimiter,
        cursor: options.cursor,
        limit: options.limit,
        startAfter,
      });
      return {
        objects: r.objects.map(meta),
        prefixes: r.delimitedPrefixes.map((p) => p.slice(root.length)),
        cursor: r.truncated ? r.cursor : undefined,
      };
    },
  };
}

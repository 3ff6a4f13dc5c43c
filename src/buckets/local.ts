/**
 * Local buckets: every bucket name works out of the box, kept in the BUCKETS R2 binding under `<bucket>/<key>`
 * (so `s3://my-bucket/out` is R2 key prefix `my-bucket/out/` in `.state` when run with `npm start`).
 */
import type { MultipartUpload, ObjectBody, ObjectListing, ObjectStore, StoredObject } from "./types";

const meta = (bucket: string, o: R2Object): StoredObject => ({
  key: o.key.slice(bucket.length + 1),
  size: o.size,
  etag: o.etag,
  uploaded: o.uploaded,
  contentType: o.httpMetadata?.contentType,
});

/** An ObjectStore for bucket `bucket` inside R2 binding `r2` (keys prefixed with `<bucket>/`). */
export function localBucket(r2: R2Bucket, bucket: string): ObjectStore {
  const full = (key: string) => `${bucket}/${key}`;
  return {
    bucket,
    async get(key, range): Promise<ObjectBody | null> {
      const o = await r2.get(full(key), range ? { range: range.length === undefined ? { offset: range.offset } : { offset: range.offset, length: range.length } } : undefined);
      if (!o) return null;
      const r = o.range as { offset?: number; length?: number } | undefined;
      return { ...meta(bucket, o), body: o.body, range: range ? { offset: r?.offset ?? range.offset, length: r?.length ?? o.size - range.offset } : undefined };
    },
    async head(key) {
      const o = await r2.head(full(key));
      return o ? meta(bucket, o) : null;
    },
    async put(key, body, options) {
      const o = await r2.put(full(key), body, options?.contentType ? { httpMetadata: { contentType: options.contentType } } : undefined);
      return meta(bucket, o!);
    },
    async delete(keys) {
      await r2.delete((Array.isArray(keys) ? keys : [keys]).map(full));
    },
    async list(options = {}): Promise<ObjectListing> {
      const r = await r2.list({ prefix: full(options.prefix ?? ""), delimiter: options.delimiter, cursor: options.cursor, limit: options.limit });
      return {
        objects: r.objects.map((o) => meta(bucket, o)),
        prefixes: r.delimitedPrefixes.map((p) => p.slice(bucket.length + 1)),
        cursor: r.truncated ? r.cursor : undefined,
      };
    },
    async createMultipartUpload(key, options) {
      const upload = await r2.createMultipartUpload(full(key), options?.contentType ? { httpMetadata: { contentType: options.contentType } } : undefined);
      return r2Multipart(bucket, upload);
    },
  };
}

/** A MultipartUpload over an R2 one: remembers the uploaded parts for `complete`. */
function r2Multipart(bucket: string, upload: R2MultipartUpload): MultipartUpload {
  const parts: R2UploadedPart[] = [];
  return {
    async uploadPart(partNumber, data) {
      parts.push(await upload.uploadPart(partNumber, data));
    },
    async complete() {
      return meta(bucket, await upload.complete([...parts].sort((a, b) => a.partNumber - b.partNumber)));
    },
    async abort() {
      await upload.abort();
    },
  };
}

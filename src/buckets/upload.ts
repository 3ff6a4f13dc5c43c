/** A handle over a store's multipart uploads, for writers that send an object part by part (async deliveries). */
import type { MultipartUpload, ObjectStore, UploadedPart } from "./types";

/**
 * Starts a multipart upload of `key` in `store`; undefined when the store has no multipart support (write the
 * object with `put` then). The handle remembers each part's etag and completes in part-number order.
 */
export async function startUpload(
  store: ObjectStore,
  key: string,
  options?: { contentType?: string },
): Promise<MultipartUpload | undefined> {
  const uploads = store.multipart;
  if (!uploads) return undefined;
  const uploadId = await uploads.create(key, options);
  const parts: UploadedPart[] = [];
  return {
    async uploadPart(partNumber, data) {
      parts.push({ partNumber, etag: await uploads.uploadPart(key, uploadId, partNumber, data) });
    },
    complete: () =>
      uploads.complete(
        key,
        uploadId,
        [...parts].sort((a, b) => a.partNumber - b.partNumber),
      ),
    abort: () => uploads.abort(key, uploadId),
  };
}

/**
 * Where an async request's files go. Sentinel Hub's `delivery.s3.url` is either
 * `s3://<bucket>/<prefix>` (files at `<prefix>/<REQUEST_ID>/<OUTPUT>`) or a template holding `<OUTPUT>` (and
 * optionally `<REQUEST_ID>`), e.g. `s3://bucket/results/<REQUEST_ID>-<OUTPUT>` (OpenAPI
 * `AsyncProcessS3BucketInfoTemplated`). `<OUTPUT>` is a file name: `<identifier>.<ext>` per response, plus the
 * files EO Edge adds: `request.json` (a copy of the request, see ./record.ts) and `error.json` after a failure.
 * The evalscript of `evalscriptReference` is read by src/buckets/script.ts (shared with Statistical Batch).
 */
import type { Env } from "../env";
import { resolveBucket, type BucketDescriptor, type ObjectStore } from "../buckets";

/** An object inside a bucket. */
export interface ObjectTarget {
  store: ObjectStore;
  key: string;
}

/** The delivery URL with its placeholders: `<REQUEST_ID>/<OUTPUT>` appended unless it has `<OUTPUT>`. */
export function deliveryTemplate(url: string): string {
  if (url.includes("<OUTPUT>")) return url;
  return `${url.replace(/\/+$/, "")}/${url.includes("<REQUEST_ID>") ? "" : "<REQUEST_ID>/"}<OUTPUT>`;
}

/**
 * The object of file `file` (e.g. `default.tif`) of request `id` of `account` (the submitting account, from the
 * record at queue time).
 * @throws EngineError invalid-argument for a URL that is not `s3://<bucket>/...` (rendered as 400);
 *   BucketAccessDenied (403) for a bucket `account` may not use.
 */
export async function deliveryTarget(
  env: Pick<Env, "BUCKETS" | "DB">,
  account: string,
  s3: BucketDescriptor,
  id: string,
  file: string,
): Promise<ObjectTarget> {
  const url = deliveryTemplate(s3.url).replaceAll("<REQUEST_ID>", id).replaceAll("<OUTPUT>", file);
  const { store, prefix } = await resolveBucket(env, account, { ...s3, url });
  return { store, key: prefix };
}

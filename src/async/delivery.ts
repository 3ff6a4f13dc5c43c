/**
 * Where an async request's files go, and its evalscript reference. Sentinel Hub's `delivery.s3.url` is either
 * `s3://<bucket>/<prefix>` (files at `<prefix>/<REQUEST_ID>/<OUTPUT>`) or a template holding `<OUTPUT>` (and
 * optionally `<REQUEST_ID>`), e.g. `s3://bucket/results/<REQUEST_ID>-<OUTPUT>` (OpenAPI
 * `AsyncProcessS3BucketInfoTemplated`). `<OUTPUT>` is a file name: `<identifier>.<ext>` per response, plus the
 * files EO Edge adds: `request.json` (a copy of the request, see ./record.ts) and `error.json` after a failure.
 */
import type { Env } from "../env";
import { badRequest } from "../http/errors";
import { resolveBucket, type BucketDescriptor, type ObjectStore } from "../buckets";

/** Largest evalscript read through evalscriptReference (bytes). */
export const MAX_SCRIPT_BYTES = 1024 * 1024;

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
 * The object of file `file` (e.g. `default.tif`) of request `id`.
 * @throws EngineError invalid-argument for a URL that is not `s3://<bucket>/...` (rendered as 400).
 */
export function deliveryTarget(env: Pick<Env, "BUCKETS">, s3: BucketDescriptor, id: string, file: string): ObjectTarget {
  const url = deliveryTemplate(s3.url).replaceAll("<REQUEST_ID>", id).replaceAll("<OUTPUT>", file);
  const { store, prefix } = resolveBucket(env, { ...s3, url });
  return { store, key: prefix };
}

/**
 * The evalscript an `evalscriptReference.s3` points to (`s3://<bucket>/<key>`), as UTF-8 text.
 * @throws ApiError 400 when the URL names no object, the object does not exist or is larger than 1 MiB.
 */
export async function readScriptReference(env: Pick<Env, "BUCKETS">, s3: BucketDescriptor): Promise<string> {
  const { store, prefix } = resolveBucket(env, s3);
  if (prefix === "") throw badRequest(`evalscriptReference '${s3.url}' must name an object: s3://<bucket>/<key>.`);
  const head = await store.head(prefix);
  if (!head) throw badRequest(`evalscriptReference '${s3.url}' does not exist (no object '${prefix}' in bucket '${store.bucket}').`);
  if (head.size > MAX_SCRIPT_BYTES) throw badRequest(`evalscriptReference '${s3.url}' is ${head.size} bytes; at most ${MAX_SCRIPT_BYTES} are read.`);
  const object = await store.get(prefix);
  if (!object) throw badRequest(`evalscriptReference '${s3.url}' does not exist.`);
  return new Response(object.body).text();
}

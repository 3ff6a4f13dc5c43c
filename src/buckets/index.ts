/**
 * Resolves Sentinel Hub bucket descriptors (`s3://<bucket>/<prefix>`) to object stores. Locally every bucket name
 * is a local bucket in the BUCKETS R2 binding (./local.ts).
 */
import type { Env } from "../env";
import { invalidArgument } from "../raster/errors";
import { localBucket } from "./local";
import type { BucketDescriptor, BucketLocation } from "./types";

export type { BucketDescriptor, BucketLocation, ObjectStore, StoredObject, ObjectBody, ObjectListing, MultipartUpload } from "./types";

/** S3 bucket names: 3-63 characters, lower-case letters, digits, dots and hyphens (AWS naming rules). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Splits `s3://<bucket>/<prefix>` into bucket and prefix (no leading or trailing `/`).
 * @throws EngineError invalid-argument for another scheme, a missing or invalid bucket name, or `..` in the prefix.
 */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  if (!m) throw invalidArgument(`Bucket URL '${url}' must look like s3://<bucket>/<prefix>.`);
  const bucket = m[1]!;
  if (!BUCKET_NAME.test(bucket)) throw invalidArgument(`'${bucket}' in '${url}' is not a valid bucket name (3-63 lower-case letters, digits, dots, hyphens).`);
  const prefix = (m[2] ?? "").replace(/\/+$/, "");
  if (prefix.split("/").some((p) => p === ".." || p === ".")) throw invalidArgument(`The prefix of '${url}' must not contain '.' or '..' segments.`);
  return { bucket, prefix };
}

/** The store and prefix of a descriptor. @throws EngineError invalid-argument (see parseS3Url). */
export function resolveBucket(env: Pick<Env, "BUCKETS">, descriptor: BucketDescriptor): BucketLocation {
  const { bucket, prefix } = parseS3Url(descriptor.url);
  const store = localBucket(env.BUCKETS, bucket);
  return { store, prefix, key: (path) => (prefix ? `${prefix}/${path.replace(/^\/+/, "")}` : path.replace(/^\/+/, "")) };
}

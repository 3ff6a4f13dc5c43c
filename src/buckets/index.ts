/**
 * Resolves Sentinel Hub bucket descriptors (`s3://<bucket>/<prefix>`) to object stores:
 * - with accessKey/secretAccessKey and S3_ENDPOINT configured: that S3-compatible storage (./remote.ts, SigV4);
 * - with keys and no S3_ENDPOINT: the keys must be the local S3 endpoint's (S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY),
 *   then as without keys; other keys are refused (400);
 * - without keys: the R2 bucket BUCKET_BINDINGS binds the name to, else a local bucket in BUCKETS (./local.ts).
 * Configuration: ./config.ts.
 */
import { invalidArgument } from "../raster/errors";
import { boundBucket, localKeys, type BucketEnv } from "./config";
import { localBucket, r2Store } from "./local";
import { remoteBucket, type RemoteConfig } from "./remote";
import type { BucketDescriptor, BucketLocation, ObjectStore } from "./types";

export type { BucketDescriptor, BucketLocation, ObjectStore, StoredObject, ObjectBody, ObjectListing, ListOptions, MultipartUpload } from "./types";
export type { BucketEnv } from "./config";

/** S3 bucket names: 3-63 characters, lower-case letters, digits, dots and hyphens (AWS naming rules). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Whether `name` is a valid S3 bucket name (AWS general purpose bucket naming rules, without the IP-address rule). */
export const isBucketName = (name: string): boolean => BUCKET_NAME.test(name) && !name.includes("..");

/** Whether an object key has a `.` or `..` path segment (refused everywhere: such keys escape prefixes). */
export const hasDotSegment = (key: string): boolean => key.split("/").some((p) => p === ".." || p === ".");

/**
 * Splits `s3://<bucket>/<prefix>` into bucket and prefix (no leading or trailing `/`).
 * @throws EngineError invalid-argument for another scheme, a missing or invalid bucket name, or `..` in the prefix.
 */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  if (!m) throw invalidArgument(`Bucket URL '${url}' must look like s3://<bucket>/<prefix>.`);
  const bucket = m[1]!;
  if (!isBucketName(bucket)) throw invalidArgument(`'${bucket}' in '${url}' is not a valid bucket name (3-63 lower-case letters, digits, dots, hyphens).`);
  const prefix = (m[2] ?? "").replace(/\/+$/, "");
  if (hasDotSegment(prefix)) throw invalidArgument(`The prefix of '${url}' must not contain '.' or '..' segments.`);
  return { bucket, prefix };
}

/**
 * The store of bucket `bucket` on this deployment (no keys involved): its bound R2 bucket or a local bucket.
 * @throws Error when BUCKET_BINDINGS is malformed or names a missing binding (see ./config.ts).
 */
export function deploymentBucket(env: BucketEnv, bucket: string): ObjectStore {
  const bound = boundBucket(env, bucket);
  return bound ? r2Store(bound, bucket, "") : localBucket(env.BUCKETS, bucket);
}

/** The store a descriptor with keys names (see the module comment). @throws EngineError invalid-argument. */
function keyedBucket(env: BucketEnv, descriptor: BucketDescriptor, bucket: string): ObjectStore {
  const { accessKey, secretAccessKey } = descriptor;
  if (!accessKey || !secretAccessKey) throw invalidArgument(`The descriptor of '${descriptor.url}' must give both accessKey and secretAccessKey, or neither.`);
  if (env.S3_ENDPOINT) {
    const config: RemoteConfig = { endpoint: env.S3_ENDPOINT, region: descriptor.region ?? env.S3_REGION ?? "us-east-1", accessKeyId: accessKey, secretAccessKey };
    return remoteBucket(config, bucket);
  }
  const local = localKeys(env);
  if (!local || local.accessKeyId !== accessKey || local.secretAccessKey !== secretAccessKey)
    throw invalidArgument(`No S3 endpoint is configured (S3_ENDPOINT) and the keys given for '${descriptor.url}' are not this deployment's S3 keys; give its keys or none.`);
  return deploymentBucket(env, bucket);
}

/**
 * The store and prefix of a descriptor (resolution rules in the module comment); the store is not contacted.
 * `iamRoleARN` (Sentinel Hub's recommended flow) is accepted and ignored: no role can be assumed here, so such a
 * descriptor resolves as one without keys (bound or local bucket).
 * @throws EngineError invalid-argument (see parseS3Url; keys refused).
 */
export function resolveBucket(env: BucketEnv, descriptor: BucketDescriptor): BucketLocation {
  const { bucket, prefix } = parseS3Url(descriptor.url);
  const keyed = descriptor.accessKey !== undefined || descriptor.secretAccessKey !== undefined;
  const store = keyed ? keyedBucket(env, descriptor, bucket) : deploymentBucket(env, bucket);
  return { store, prefix, key: (path) => (prefix ? `${prefix}/${path.replace(/^\/+/, "")}` : path.replace(/^\/+/, "")) };
}

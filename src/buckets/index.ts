/**
 * Resolves Sentinel Hub bucket descriptors (`s3://<bucket>/<prefix>`) to object stores, for an account:
 * - with accessKey/secretAccessKey and S3_ENDPOINT configured: that S3-compatible storage (./remote.ts, SigV4);
 *   the keys are the grant (the storage decides);
 * - with keys and no S3_ENDPOINT: the keys must be one of the calling account's S3 keys (./keys.ts), then as
 *   without keys; other keys are refused (403, the same answer for unknown keys, another account's and a wrong
 *   secret);
 * - without keys: the R2 bucket BUCKET_BINDINGS binds the name to, else a local bucket in BUCKETS (./local.ts),
 *   once the account may use it: it owns the bucket (claimed on first use) or the owner's bucket policy grants it
 *   (./owners.ts); any other account gets BucketAccessDenied (403) before any object is touched.
 * Every function that hands out a store takes the account, so no caller can skip the check; queue-time work
 * passes the account stored in its task record. Configuration: ./config.ts.
 */
import { EngineError, invalidArgument } from "../raster/errors";
import { boundBucket, type BucketEnv } from "./config";
import { isAccountKey } from "./keys";
import { localBucket, r2Store } from "./local";
import { authorizeBucket, BucketAccessDenied } from "./owners";
import { remoteBucket, type RemoteConfig } from "./remote";
import type { BucketDescriptor, BucketLocation, ObjectStore } from "./types";

export type {
  BucketDescriptor,
  BucketLocation,
  ObjectStore,
  StoredObject,
  ObjectBody,
  ObjectListing,
  ListOptions,
  MultipartUpload,
} from "./types";
export type { BucketEnv } from "./config";
export { BucketAccessDenied } from "./owners";

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
  if (!isBucketName(bucket))
    throw invalidArgument(
      `'${bucket}' in '${url}' is not a valid bucket name (3-63 lower-case letters, digits, dots, hyphens).`,
    );
  const prefix = (m[2] ?? "").replace(/\/+$/, "");
  if (hasDotSegment(prefix)) throw invalidArgument(`The prefix of '${url}' must not contain '.' or '..' segments.`);
  return { bucket, prefix };
}

/** The store of bucket `bucket` on this deployment, unchecked: its bound R2 bucket or a local bucket. */
function deploymentBucket(env: BucketEnv, bucket: string): ObjectStore {
  const bound = boundBucket(env, bucket);
  return bound ? r2Store(bound, bucket, "") : localBucket(env.BUCKETS, bucket);
}

/**
 * The store of local or bound bucket `bucket` for `account` (no keys involved), claimed for it when unowned.
 * @throws BucketAccessDenied when the bucket is another account's and not granted to `account`; Error when
 *   BUCKET_BINDINGS is malformed or names a missing binding (see ./config.ts).
 */
export async function accountBucket(env: BucketEnv, account: string, bucket: string): Promise<ObjectStore> {
  await authorizeBucket(env, account, bucket);
  return deploymentBucket(env, bucket);
}

/**
 * Checks, at a task's creation, that the object a descriptor's URL names exists (a GeoPackage input: batch v2 and
 * statistical batch refuse a missing one alike), for `account`.
 * @throws EngineError invalid-argument (400) naming `member` (e.g. `input.features`) when the URL names a bucket
 *   only or the object is missing, and resolveBucket's errors (BucketAccessDenied: 403).
 */
export async function requireObject(
  env: BucketEnv,
  account: string,
  descriptor: BucketDescriptor,
  member: string,
  what: string,
): Promise<void> {
  const at = await resolveBucket(env, account, descriptor);
  const problem = !at.prefix
    ? `${member}.s3.url '${descriptor.url}' names a bucket, not a ${what} object (s3://<bucket>/<path>).`
    : (await at.store.head(at.prefix)) === null
      ? `${member}: the ${what} ${descriptor.url} does not exist; upload it first.`
      : null;
  if (problem) throw new EngineError("invalid-argument", problem, [{ [`${member}.s3.url`]: problem }]);
}

/** The store a descriptor with keys names (see the module comment). @throws EngineError invalid-argument, BucketAccessDenied. */
async function keyedBucket(
  env: BucketEnv,
  account: string,
  descriptor: BucketDescriptor,
  bucket: string,
): Promise<ObjectStore> {
  const { accessKey, secretAccessKey } = descriptor;
  if (!accessKey || !secretAccessKey)
    throw invalidArgument(
      `The descriptor of '${descriptor.url}' must give both accessKey and secretAccessKey, or neither.`,
    );
  if (env.S3_ENDPOINT) {
    const config: RemoteConfig = {
      endpoint: env.S3_ENDPOINT,
      region: descriptor.region ?? env.S3_REGION ?? "us-east-1",
      accessKeyId: accessKey,
      secretAccessKey,
    };
    return remoteBucket(config, bucket);
  }
  if (!(await isAccountKey(env, account, { accessKeyId: accessKey, secretAccessKey })))
    throw new BucketAccessDenied(
      bucket,
      account,
      "the keys given are not S3 keys of your account (give your own keys, or none)",
    );
  return accountBucket(env, account, bucket);
}

/**
 * The store and prefix of a descriptor used by `account` (rules in the module comment); the store is not contacted.
 * `iamRoleARN` (Sentinel Hub's recommended flow) is accepted and ignored: no role can be assumed here, so such a
 * descriptor resolves as one without keys (bound or local bucket).
 * @throws EngineError invalid-argument (see parseS3Url, half keys); BucketAccessDenied (403) for a bucket of
 *   another account or keys that are not the caller's.
 */
export async function resolveBucket(
  env: BucketEnv,
  account: string,
  descriptor: BucketDescriptor,
): Promise<BucketLocation> {
  const { bucket, prefix } = parseS3Url(descriptor.url);
  const keyed = descriptor.accessKey !== undefined || descriptor.secretAccessKey !== undefined;
  const store = keyed ? await keyedBucket(env, account, descriptor, bucket) : await accountBucket(env, account, bucket);
  return {
    store,
    prefix,
    key: (path) => (prefix ? `${prefix}/${path.replace(/^\/+/, "")}` : path.replace(/^\/+/, "")),
  };
}

/**
 * Bucket configuration read from the Worker's environment (wrangler.toml `[vars]`, secrets, `--var` of `npm start`):
 * - BUCKET_BINDINGS: which bucket names are R2 buckets bound in wrangler.toml, as `{ "<bucket>": "<BINDING>" }`
 *   (a TOML inline table or its JSON text); other names are local buckets in BUCKETS;
 * - S3_ENDPOINT, S3_REGION: the S3-compatible storage that descriptors with accessKey/secretAccessKey go to
 *   (path-style; S3_REGION defaults to us-east-1, "auto" for Cloudflare R2).
 * The keys of EO Edge's own S3 endpoint are per account, in D1 (./keys.ts); who may use a bucket: ./owners.ts.
 */
import type { Env } from "../env";

/** What bucket resolution reads from the environment: BUCKETS, DB (owners, keys) and the optional settings. */
export type BucketEnv = Pick<Env, "BUCKETS" | "DB"> & {
  BUCKET_BINDINGS?: string | Record<string, string>;
  S3_ENDPOINT?: string;
  S3_REGION?: string;
};

/** A pair of S3 keys. */
export interface S3Keys {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * The bucket-name -> binding-name map of BUCKET_BINDINGS ({} when unset).
 * @throws Error when BUCKET_BINDINGS is not a JSON object of strings (a deployment fault, not the caller's).
 */
export function bucketBindings(env: BucketEnv): Record<string, string> {
  const raw = env.BUCKET_BINDINGS;
  if (raw === undefined || raw === "") return {};
  const map: unknown = typeof raw === "string" ? JSON.parse(raw) : raw;
  if (typeof map !== "object" || map === null || Object.values(map).some((v) => typeof v !== "string"))
    throw new Error(
      `BUCKET_BINDINGS must map bucket names to R2 binding names, e.g. {"results": "RESULTS"}; got ${JSON.stringify(raw)}.`,
    );
  return map as Record<string, string>;
}

/**
 * The R2 binding bucket `bucket` is bound to, or undefined for a local bucket.
 * @throws Error when BUCKET_BINDINGS names a binding the Worker does not have (or that is not an R2 bucket).
 */
export function boundBucket(env: BucketEnv, bucket: string): R2Bucket | undefined {
  const name = bucketBindings(env)[bucket];
  if (name === undefined) return undefined;
  const binding = (env as unknown as Record<string, unknown>)[name] as Partial<R2Bucket> | undefined;
  if (typeof binding?.get !== "function" || typeof binding.list !== "function")
    throw new Error(
      `BUCKET_BINDINGS maps bucket '${bucket}' to '${name}', which is not an R2 bucket binding of this Worker (add [[r2_buckets]] binding = "${name}").`,
    );
  return binding as R2Bucket;
}

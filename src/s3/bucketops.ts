/**
 * Bucket operations of the S3 endpoint that concern ownership (S3 API reference; the model: src/buckets/owners.ts):
 * CreateBucket (PUT /<bucket>) claims an unowned bucket for the signing key's account; GetBucketPolicy,
 * PutBucketPolicy and DeleteBucketPolicy (`?policy`) read and change the bucket policy that grants the bucket to
 * other accounts (src/buckets/policy.ts), for its owner only.
 */
import { claimBucket, bucketPolicy, setBucketPolicy } from "../buckets/owners";
import type { BucketEnv } from "../buckets/config";
import type { SignedRequest } from "./auth";
import { bodyOf } from "./payload";
import { S3Error, notImplemented } from "./xml";

/** CreateBucket: 200 when `account` owns the bucket now (also when it already did, as us-east-1 answers). @throws S3Error BucketAlreadyExists. */
export async function createBucket(env: BucketEnv, account: string, bucket: string): Promise<Response> {
  const { owner } = await claimBucket(env, account, bucket);
  if (owner !== account)
    throw new S3Error(
      409,
      "BucketAlreadyExists",
      "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.",
      { BucketName: bucket },
    );
  return new Response(null, { headers: { location: `/${bucket}` } });
}

/**
 * GET / PUT / DELETE `?policy` of `bucket` by `account`.
 * @throws BucketAccessDenied (not the owner), PolicyError (a policy EO Edge cannot read), S3Error
 *   NoSuchBucketPolicy, NotImplemented (another method).
 */
export async function policyOperation(
  env: BucketEnv,
  account: string,
  bucket: string,
  request: Request,
  s: SignedRequest,
): Promise<Response> {
  const m = request.method;
  if (m === "GET") {
    const policy = await bucketPolicy(env, account, bucket);
    if (policy === null)
      throw new S3Error(404, "NoSuchBucketPolicy", "The bucket policy does not exist.", { BucketName: bucket });
    return new Response(policy, { headers: { "content-type": "application/json" } });
  }
  if (m === "PUT") await setBucketPolicy(env, account, bucket, new TextDecoder().decode(await bodyOf(request, s)));
  else if (m === "DELETE") await setBucketPolicy(env, account, bucket, null);
  else throw notImplemented(`${m} ?policy is not implemented by this endpoint.`);
  return new Response(null, { status: 204 });
}

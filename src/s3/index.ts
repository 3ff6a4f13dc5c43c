/**
 * EO Edge's S3-compatible endpoint: the deployment's buckets (local buckets in BUCKETS and R2 buckets bound through
 * BUCKET_BINDINGS, src/buckets/) served path-style under S3_PATH and at the root of the S3_HOSTS addresses
 * (./address.ts), so `aws --endpoint-url <base>/s3 s3 cp ...`, boto3 (`endpoint_url=<base>/s3`), GDAL's `/vsis3/`
 * (AWS_S3_ENDPOINT=<S3 host>) and any SigV4 or SigV2 client read and write them. Every request is signed with an S3
 * key of an account (src/buckets/keys.ts, checked by ./auth.ts) and acts as that account: ListBuckets lists its
 * buckets, every other operation needs a bucket it owns (claimed on first use) or is granted by the owner's bucket
 * policy (src/buckets/owners.ts; ./bucketops.ts: CreateBucket, Get/Put/DeleteBucketPolicy; ./deletes.ts:
 * DeleteObjects, DeleteBucket), else AccessDenied
 * whether or not the key exists. Request bodies are checked against the signed x-amz-content-sha256 (or taken as
 * sent for UNSIGNED-PAYLOAD) and any x-amz-checksum-* header (./payload.ts); aws-chunked uploads, unsigned with a
 * checksum trailer or with signed chunks, are decoded and verified (./chunked.ts, ./chunksig.ts); multipart uploads
 * go to ./multipart.ts. Errors are S3's XML (./xml.ts), never the API's JSON envelope.
 */
import { accountBucket, BucketAccessDenied, hasDotSegment, isBucketName } from "../buckets";
import type { BucketEnv } from "../buckets/config";
import { s3KeyById } from "../buckets/keys";
import { PolicyError } from "../buckets/policy";
import { verifySignature, type SignedRequest } from "./auth";
import { createBucket, policyOperation } from "./bucketops";
import { deleteBucket, deleteObjects } from "./deletes";
import { deleteObject, getObject, putObject } from "./objects";
import { listBuckets, listObjects } from "./listing";
import { multipartOperation } from "./multipart";
import { streamedBody } from "./payload";
import { S3Error, accessDenied, errorResponse, invalidArgument, notImplemented } from "./xml";

export { S3_PATH, s3Prefix } from "./address";

/** S3's longest key, UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;

/**
 * Bucket and key of the path (`<prefix>/<bucket>/<key>`, percent-decoded).
 * @throws S3Error InvalidBucketName, InvalidArgument.
 */
function target(url: URL, prefix: string): { bucket: string; key: string } {
  const rest = url.pathname.slice(prefix.length + 1);
  const slash = rest.indexOf("/");
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  let key: string;
  try {
    key = slash < 0 ? "" : decodeURIComponent(rest.slice(slash + 1));
  } catch {
    throw invalidArgument("The object key is not valid percent-encoded UTF-8.");
  }
  if (bucket && !isBucketName(bucket))
    throw new S3Error(
      400,
      "InvalidBucketName",
      "The specified bucket is not valid (3-63 lower-case letters, digits, dots, hyphens).",
      { BucketName: bucket },
    );
  if (hasDotSegment(key))
    throw invalidArgument("Object keys with '.' or '..' segments are refused by this endpoint.", "key", key);
  if (new TextEncoder().encode(key).byteLength > MAX_KEY_BYTES)
    throw new S3Error(400, "KeyTooLongError", "Your key is too long (at most 1024 bytes).");
  return { bucket, key };
}

/** Sub-resources this endpoint does not implement (ACLs, tagging, versions, ...). */
const UNSUPPORTED = ["acl", "tagging", "versions", "versionId", "cors", "lifecycle", "location", "versioning"];

/** One operation after authentication, as `account`. @throws S3Error, BucketAccessDenied, PolicyError. */
async function operate(
  request: Request,
  env: BucketEnv,
  prefix: string,
  s: SignedRequest,
  account: string,
): Promise<Response> {
  const url = new URL(request.url);
  const { bucket, key } = target(url, prefix);
  const sub = UNSUPPORTED.find((p) => url.searchParams.has(p));
  if (sub) throw notImplemented(`The '${sub}' sub-resource is not implemented by this endpoint.`);
  if (!key && url.searchParams.has("uploads"))
    throw notImplemented("ListMultipartUploads is not implemented by this endpoint.");
  if (request.headers.has("x-amz-copy-source")) throw notImplemented("CopyObject is not implemented by this endpoint.");
  const m = request.method;
  if (!bucket) {
    if (m === "GET") return listBuckets(env, account);
  } else if (!key) {
    if (url.searchParams.has("policy")) return policyOperation(env, account, bucket, request, s);
    if (m === "PUT") return createBucket(env, account, bucket);
    if (m === "DELETE") return deleteBucket(env, account, bucket);
    const store = await accountBucket(env, account, bucket);
    if (m === "POST" && url.searchParams.has("delete")) return deleteObjects(store, request, s);
    if (m === "GET") return listObjects(store, url.searchParams);
    if (m === "HEAD") return new Response(null, { headers: { location: `/${bucket}` } });
  } else {
    const store = await accountBucket(env, account, bucket);
    const multipart = await multipartOperation(store, key, request, s);
    if (multipart) return multipart;
    if (m === "GET" || m === "HEAD") return getObject(store, key, request);
    if (m === "PUT") return putObject(store, key, await streamedBody(request, s), request);
    if (m === "DELETE") return deleteObject(store, key);
  }
  throw new S3Error(405, "MethodNotAllowed", `The method ${m} is not allowed on this resource.`, {
    Method: m,
    ResourceType: key ? "OBJECT" : bucket ? "BUCKET" : "SERVICE",
  });
}

/** A bucket refused to the account is S3's AccessDenied (same answer for every key); an unreadable policy MalformedPolicy. */
function s3ErrorOf(err: unknown): unknown {
  if (err instanceof BucketAccessDenied) return accessDenied("Access Denied");
  if (err instanceof PolicyError) return new S3Error(400, "MalformedPolicy", err.message);
  return err;
}

/**
 * Serves one request to the S3 endpoint, whose path prefix in the request is `prefix` (./address.ts s3Prefix: ""
 * at the root of an S3 host, "/s3" elsewhere): signature check against the accounts' keys, then the operation as
 * the key's account; every failure is S3's XML error (4xx, 501 for operations not implemented), unexpected faults a
 * logged 500 InternalError.
 */
export async function serveS3(request: Request, env: BucketEnv, prefix: string): Promise<Response> {
  const url = new URL(request.url);
  const resource = url.pathname.slice(prefix.length) || "/";
  try {
    const { s, keys } = await verifySignature(request, (id) => s3KeyById(env, id), Date.now(), prefix);
    return await operate(request, env, prefix, s, keys.accountId);
  } catch (caught) {
    const err = s3ErrorOf(caught);
    if (err instanceof S3Error) return errorResponse(err, resource, request.method);
    console.error("S3 endpoint fault", err);
    return errorResponse(
      new S3Error(500, "InternalError", "We encountered an internal error. Please try again."),
      resource,
      request.method,
    );
  }
}

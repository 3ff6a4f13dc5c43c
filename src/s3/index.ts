/**
 * EO Edge's S3-compatible endpoint: the deployment's buckets (local buckets in BUCKETS and R2 buckets bound through
 * BUCKET_BINDINGS, src/buckets/) served path-style under S3_PATH, so `aws --endpoint-url <base>/s3 s3 cp ...`,
 * boto3 (`endpoint_url=<base>/s3`) and any SigV4 client read and write them. Every request is signed with the keys
 * S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY (./auth.ts); request bodies are checked against the signed
 * x-amz-content-sha256 (or taken as sent for UNSIGNED-PAYLOAD) and any x-amz-checksum-* header (./payload.ts);
 * aws-chunked uploads, unsigned with a checksum trailer or with signed chunks, are decoded and verified
 * (./chunked.ts, ./chunksig.ts); multipart uploads go to ./multipart.ts. Errors are S3's XML (./xml.ts), never the
 * API's JSON envelope.
 */
import { deploymentBucket, hasDotSegment, isBucketName } from "../buckets";
import { localKeys, type BucketEnv } from "../buckets/config";
import { verifySignature, type SignedRequest } from "./auth";
import { deleteObject, getObject, putObject } from "./objects";
import { listBuckets, listObjects } from "./listing";
import { multipartOperation } from "./multipart";
import { streamedBody } from "./payload";
import { S3Error, errorResponse, invalidArgument, notImplemented } from "./xml";

/** The path the endpoint is served under (the `--endpoint-url` is `<PUBLIC_BASE_URL>/s3`). */
export const S3_PATH = "/s3";

/** Whether a request is for the S3 endpoint (its path is S3_PATH or below). */
export const isS3Request = (request: Request): boolean => {
  const path = new URL(request.url).pathname;
  return path === S3_PATH || path.startsWith(`${S3_PATH}/`);
};

/** S3's longest key, UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;

/** Bucket and key of the path (`/s3/<bucket>/<key>`, percent-decoded). @throws S3Error InvalidBucketName, InvalidArgument. */
function target(url: URL): { bucket: string; key: string } {
  const rest = url.pathname.slice(S3_PATH.length + 1);
  const slash = rest.indexOf("/");
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  let key: string;
  try {
    key = slash < 0 ? "" : decodeURIComponent(rest.slice(slash + 1));
  } catch {
    throw invalidArgument("The object key is not valid percent-encoded UTF-8.");
  }
  if (bucket && !isBucketName(bucket)) throw new S3Error(400, "InvalidBucketName", "The specified bucket is not valid (3-63 lower-case letters, digits, dots, hyphens).", { BucketName: bucket });
  if (hasDotSegment(key)) throw invalidArgument("Object keys with '.' or '..' segments are refused by this endpoint.", "key", key);
  if (new TextEncoder().encode(key).byteLength > MAX_KEY_BYTES) throw new S3Error(400, "KeyTooLongError", "Your key is too long (at most 1024 bytes).");
  return { bucket, key };
}

/** Sub-resources this endpoint does not implement (ACLs, tagging, versions, ...). */
const UNSUPPORTED = ["acl", "tagging", "versions", "versionId", "policy", "cors", "lifecycle", "location", "versioning"];

/** One operation after authentication. @throws S3Error. */
async function operate(request: Request, env: BucketEnv, s: SignedRequest): Promise<Response> {
  const url = new URL(request.url);
  const { bucket, key } = target(url);
  const sub = UNSUPPORTED.find((p) => url.searchParams.has(p));
  if (sub) throw notImplemented(`The '${sub}' sub-resource is not implemented by this endpoint.`);
  if (!key && url.searchParams.has("uploads")) throw notImplemented("ListMultipartUploads is not implemented by this endpoint.");
  if (request.headers.has("x-amz-copy-source")) throw notImplemented("CopyObject is not implemented by this endpoint.");
  const m = request.method;
  if (!bucket) {
    if (m === "GET") return listBuckets(env);
  } else if (!key) {
    const store = deploymentBucket(env, bucket);
    if (m === "GET") return listObjects(store, url.searchParams);
    if (m === "HEAD" || m === "PUT") return new Response(null, { headers: { location: `/${bucket}` } }); // buckets exist implicitly
  } else {
    const store = deploymentBucket(env, bucket);
    const multipart = await multipartOperation(store, key, request, s);
    if (multipart) return multipart;
    if (m === "GET" || m === "HEAD") return getObject(store, key, request);
    if (m === "PUT") return putObject(store, key, await streamedBody(request, s), request);
    if (m === "DELETE") return deleteObject(store, key);
  }
  throw new S3Error(405, "MethodNotAllowed", `The method ${m} is not allowed on this resource.`, { Method: m, ResourceType: key ? "OBJECT" : bucket ? "BUCKET" : "SERVICE" });
}

/**
 * Serves one request to the S3 endpoint: SigV4 check, then the operation; every failure is S3's XML error (4xx,
 * 501 for operations not implemented), unexpected faults a logged 500 InternalError.
 */
export async function serveS3(request: Request, env: BucketEnv): Promise<Response> {
  const url = new URL(request.url);
  const resource = url.pathname.slice(S3_PATH.length) || "/";
  try {
    const s = await verifySignature(request, localKeys(env), Date.now());
    return await operate(request, env, s);
  } catch (err) {
    if (err instanceof S3Error) return errorResponse(err, resource, request.method);
    console.error("S3 endpoint fault", err);
    return errorResponse(new S3Error(500, "InternalError", "We encountered an internal error. Please try again."), resource, request.method);
  }
}

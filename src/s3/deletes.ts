/**
 * The S3 endpoint's deletions beyond one object (S3 API reference): DeleteObjects (POST /<bucket>?delete, up to
 * 1000 keys in a `<Delete>` XML body that a Content-MD5 or x-amz-checksum-* header must cover; `<Quiet>` lists
 * only the errors; each key deleted or answered with its own `<Error>`) and DeleteBucket (DELETE /<bucket>: its
 * owner only, 409 BucketNotEmpty while it holds objects; afterwards the name is free and ListBuckets omits it).
 * These are what boto3's delete_objects, `aws s3 rm --recursive` / `aws s3 rb`, GDAL's recursive delete, s3fs and
 * rclone send.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { accountBucket, BucketAccessDenied, hasDotSegment, type ObjectStore } from "../buckets";
import type { BucketEnv } from "../buckets/config";
import { bucketOwner, releaseBucket } from "../buckets/owners";
import type { SignedRequest } from "./auth";
import { checksumHeaders } from "./checksums";
import { bodyOf } from "./payload";
import { S3Error, xmlResponse } from "./xml";

/** S3's most keys in one DeleteObjects. */
const MAX_DELETE_KEYS = 1000;
/** S3's longest key, UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;

const malformed = () =>
  new S3Error(
    400,
    "MalformedXML",
    "The XML you provided was not well-formed or did not validate against our published schema.",
  );

const parser = new XMLParser({
  parseTagValue: false,
  trimValues: false,
  isArray: (name) => name === "Object",
  removeNSPrefix: true,
});

/** One `<Object>` of the body. */
interface Wanted {
  key: string;
  versionId?: string;
}

/** The keys and Quiet flag of a `<Delete>` body. @throws S3Error MalformedXML (not XML, no keys, over 1000, a key missing). */
function parseDelete(xml: string): { objects: Wanted[]; quiet: boolean } {
  if (XMLValidator.validate(xml) !== true) throw malformed();
  const doc = parser.parse(xml) as { Delete?: { Object?: { Key?: unknown; VersionId?: unknown }[]; Quiet?: unknown } };
  const list = doc.Delete?.Object;
  if (!list?.length || list.length > MAX_DELETE_KEYS) throw malformed();
  const objects = list.map((o) => {
    if (typeof o?.Key !== "string" || o.Key === "") throw malformed();
    return { key: o.Key, ...(typeof o.VersionId === "string" ? { versionId: o.VersionId } : {}) };
  });
  return {
    objects,
    quiet:
      String(doc.Delete?.Quiet ?? "")
        .trim()
        .toLowerCase() === "true",
  };
}

/** Why one key cannot be deleted (its `<Error>` Code and Message), or null. */
function keyError(o: Wanted): { Code: string; Message: string } | null {
  if (hasDotSegment(o.key))
    return { Code: "InvalidArgument", Message: "Object keys with '.' or '..' segments are refused by this endpoint." };
  if (new TextEncoder().encode(o.key).byteLength > MAX_KEY_BYTES)
    return { Code: "KeyTooLongError", Message: "Your key is too long (at most 1024 bytes)." };
  if (o.versionId !== undefined && o.versionId !== "null")
    return { Code: "NoSuchVersion", Message: "The specified version does not exist (buckets here are not versioned)." };
  return null;
}

/**
 * DeleteObjects: 200 with `<DeleteResult>` (a key that did not exist counts as deleted, as S3 answers).
 * @throws S3Error InvalidRequest (no Content-MD5 / x-amz-checksum-*), BadDigest, MalformedXML, and bodyOf's.
 */
export async function deleteObjects(store: ObjectStore, request: Request, s: SignedRequest): Promise<Response> {
  const trailer = /x-amz-checksum-/i.test(request.headers.get("x-amz-trailer") ?? "");
  if (!checksumHeaders(request).length && !trailer)
    throw new S3Error(
      400,
      "InvalidRequest",
      "Missing required header for this request: Content-MD5 (or an x-amz-checksum-* header).",
    );
  const { objects, quiet } = parseDelete(new TextDecoder().decode(await bodyOf(request, s)));
  const refused = objects.map((o) => ({ o, error: keyError(o) }));
  const deletable = refused.filter((r) => !r.error).map((r) => r.o.key);
  if (deletable.length) await store.delete(deletable);
  const body: Record<string, unknown> = {};
  if (!quiet && deletable.length) body.Deleted = deletable.map((Key) => ({ Key }));
  const errors = refused
    .filter((r) => r.error)
    .map((r) => ({ Key: r.o.key, ...(r.o.versionId ? { VersionId: r.o.versionId } : {}), ...r.error }));
  if (errors.length) body.Error = errors;
  return xmlResponse("DeleteResult", body);
}

/**
 * DeleteBucket by `account`: 204, the bucket's owner row removed (other isolates may see it owned for up to
 * ACCESS_RECHECK_MS).
 * @throws S3Error NoSuchBucket (nobody owns it), BucketNotEmpty (409); BucketAccessDenied (another account's,
 *   granted or not: only the owner deletes a bucket).
 */
export async function deleteBucket(env: BucketEnv, account: string, bucket: string): Promise<Response> {
  const owner = await bucketOwner(env, bucket);
  if (owner === null)
    throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist.", { BucketName: bucket });
  if (owner !== account) throw new BucketAccessDenied(bucket, account);
  const store = await accountBucket(env, account, bucket);
  if ((await store.list({ limit: 1 })).objects.length)
    throw new S3Error(409, "BucketNotEmpty", "The bucket you tried to delete is not empty.", { BucketName: bucket });
  await releaseBucket(env, account, bucket);
  return new Response(null, { status: 204 });
}

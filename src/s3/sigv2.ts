/**
 * AWS Signature Version 2 for S3 (AWS docs: "Signing and authenticating REST requests (AWS signature version 2)",
 * RESTAuthentication): what boto3's `generate_presigned_url` and aws cli v1's `s3 presign` produce for a custom
 * endpoint unless told `s3v4`, and older clients send as `Authorization: AWS <key>:<signature>`. The signature is
 * the base64 HMAC-SHA1, keyed with the secret, of
 *   <method> \n <Content-MD5> \n <Content-Type> \n <Date, or Expires when presigned> \n <x-amz-* headers> <resource>
 * where the x-amz-* headers are lower-cased, sorted, their values trimmed (one `name:value\n` line each; an
 * x-amz-date header empties the Date line; a header sent twice arrives joined by ", ", which is what is signed,
 * where AWS joins the values with ","), and the resource is the request's path as
 * sent (percent-encoding and case kept) followed by its sub-resources. A presigned URL may carry Content-Type,
 * Content-MD5 and x-amz-* values as query parameters (botocore's HmacV1QueryAuth puts them there); they count as
 * those headers. SigV2 signs no payload hash: bodies are taken as sent (UNSIGNED-PAYLOAD), checked against a
 * Content-MD5 or x-amz-checksum-* header when there is one (./payload.ts).
 */
import { constantTimeEqual } from "../http/compare";
import { S3Error, accessDenied } from "./xml";

/** The claims of a SigV2 request: who, the signature (base64), when (a Date, or Expires in epoch seconds). */
export interface SignedV2 {
  accessKeyId: string;
  signature: string;
  presigned: boolean;
  /** Header form: the Date (or x-amz-date) value; presigned: the Expires value. */
  time: string;
}

/**
 * The query parameters that are part of the resource signed (AWS's list of sub-resources and response-header
 * overrides, with the further ones botocore's HmacV1Auth signs: its QSAOfInterest).
 */
const SUBRESOURCES = new Set([
  "accelerate",
  "acl",
  "analytics",
  "cors",
  "defaultObjectAcl",
  "delete",
  "inventory",
  "lifecycle",
  "location",
  "logging",
  "metrics",
  "notification",
  "object-lock",
  "partNumber",
  "policy",
  "replication",
  "requestPayment",
  "restore",
  "select",
  "select-type",
  "storageClass",
  "tagging",
  "torrent",
  "uploadId",
  "uploads",
  "versionId",
  "versioning",
  "versions",
  "website",
  "response-content-type",
  "response-content-language",
  "response-expires",
  "response-cache-control",
  "response-content-disposition",
  "response-content-encoding",
]);

/** True when the request carries a SigV2 signature (Authorization `AWS ...` or an AWSAccessKeyId query parameter). */
export const isSigV2 = (request: Request): boolean =>
  /^AWS /.test(request.headers.get("authorization") ?? "") || new URL(request.url).searchParams.has("AWSAccessKeyId");

const malformed = (message: string) => new S3Error(400, "AuthorizationHeaderMalformed", message);

/** The SigV2 claims of a request. @throws S3Error AuthorizationHeaderMalformed, AuthorizationQueryParametersError. */
export function signatureV2Of(request: Request): SignedV2 {
  const auth = request.headers.get("authorization");
  if (auth) {
    const m = /^AWS ([^:\s]+):([A-Za-z0-9+/]+=*)$/.exec(auth.trim());
    if (!m)
      throw malformed("The Authorization header must be AWS <access key>:<base64 signature> (Signature Version 2).");
    const time = request.headers.get("x-amz-date") ?? request.headers.get("date") ?? "";
    return { accessKeyId: m[1]!, signature: m[2]!, presigned: false, time };
  }
  const q = new URL(request.url).searchParams;
  const [signature, expires] = [q.get("Signature") ?? "", q.get("Expires") ?? ""];
  if (!/^[A-Za-z0-9+/]+=*$/.test(signature))
    throw new S3Error(
      400,
      "AuthorizationQueryParametersError",
      "Signature must be the base64 HMAC-SHA1 signature (Signature Version 2).",
    );
  if (!/^\d{1,12}$/.test(expires))
    throw new S3Error(
      400,
      "AuthorizationQueryParametersError",
      "Expires must be a time in seconds since the epoch (Signature Version 2).",
    );
  return { accessKeyId: q.get("AWSAccessKeyId")!, signature, presigned: true, time: expires };
}

/**
 * Checks the time of a SigV2 request at `now` (ms): a presigned URL until its Expires; a header-signed request's
 * Date (or x-amz-date) within `maxSkewMs` of the clock. @throws S3Error AccessDenied (expired, no date),
 * RequestTimeTooSkewed.
 */
export function checkTimeV2(s: SignedV2, now: number, maxSkewMs: number): void {
  if (s.presigned) {
    if (now > Number(s.time) * 1000) throw accessDenied(`Request has expired (Expires ${s.time}).`);
    return;
  }
  const t = Date.parse(s.time);
  if (Number.isNaN(t)) throw accessDenied("AWS authentication requires a valid Date or x-amz-date header.");
  if (Math.abs(now - t) > maxSkewMs) {
    const fields = {
      RequestTime: s.time,
      ServerTime: new Date(now).toISOString(),
      MaxAllowedSkewMilliseconds: String(maxSkewMs),
    };
    throw new S3Error(
      403,
      "RequestTimeTooSkewed",
      "The difference between the request time and the current time is too large.",
      fields,
    );
  }
}

/** Whether a header (lower-case name) is signed: Content-MD5, Content-Type and every x-amz-* header. */
const isSignedHeader = (name: string): boolean =>
  name.startsWith("x-amz-") || name === "content-md5" || name === "content-type";

/** The values a request signs as headers: its own, and for a presigned URL the query's header parameters over them. */
function signedValues(request: Request, presigned: boolean): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of request.headers) if (isSignedHeader(name)) values.set(name, value.trim());
  if (presigned)
    for (const [name, value] of new URL(request.url).searchParams)
      if (isSignedHeader(name.toLowerCase())) values.set(name.toLowerCase(), value.trim());
  return values;
}

/** A query value as signed: percent-decoded (AWS: "you do not encode these values"), as sent when malformed. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `?sub&sub=value...`: the sub-resources of the query as written (`uploads` and `uploads=` differ), sorted by name, values decoded; "" when none. */
function subResources(url: URL): string {
  const subs = url.search
    .slice(1)
    .split("&")
    .map(
      (pair) =>
        [pair.split("=", 1)[0]!, pair.includes("=") ? decoded(pair.slice(pair.indexOf("=") + 1)) : undefined] as const,
    )
    .filter(([name]) => SUBRESOURCES.has(name));
  subs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return subs.length
    ? `?${subs.map(([name, value]) => (value === undefined ? name : `${name}=${value}`)).join("&")}`
    : "";
}

/**
 * The resources a client may have signed for `url`, sent to the endpoint under path `prefix`: AWS's
 * CanonicalizedResource first (`/<bucket>/<key>` as sent, then the sub-resources), then the forms clients write for
 * the same resource: with the endpoint's prefix (clients that sign the URL's whole path; botocore for ListBuckets),
 * a bucket as `/<bucket>/` (botocore's ListObjects, and AWS's form for virtual-hosted requests), and
 * `/<bucket>?list-type=2` (botocore's ListObjectsV2, which signs its URI template's query).
 */
export function resourceForms(url: URL, prefix = ""): string[] {
  const path = url.pathname.slice(prefix.length) || "/";
  const subs = subResources(url);
  const forms = [path + subs];
  if (prefix) forms.push(url.pathname + subs);
  if (/^\/[^/]+$/.test(path)) forms.push(`${path}/${subs}`);
  if (/^\/[^/]+\/?$/.test(path) && url.searchParams.get("list-type") === "2")
    forms.push(`${path.replace(/\/$/, "")}?list-type=2${subs.replace("?", "&")}`);
  return forms;
}

/**
 * The SigV2 string to sign of `request` (see the module comment) for `resource` (default: AWS's
 * CanonicalizedResource of a request at the root): `dateOrExpires` is the Date line (the Date header, "" when
 * x-amz-date is sent, or the presigned URL's Expires).
 */
export function stringToSignV2(
  request: Request,
  presigned: boolean,
  dateOrExpires: string,
  resource = resourceForms(new URL(request.url))[0]!,
): string {
  const values = signedValues(request, presigned);
  const amz = [...values.keys()].filter((n) => n.startsWith("x-amz-")).sort();
  const amzLines = amz.map((n) => `${n}:${values.get(n)}\n`).join("");
  const [md5, type] = [values.get("content-md5") ?? "", values.get("content-type") ?? ""];
  return `${request.method}\n${md5}\n${type}\n${dateOrExpires}\n${amzLines}${resource}`;
}

/** Base64 HMAC-SHA1 of `text` keyed with `secret` (crypto.subtle). */
export async function hmacSha1Base64(secret: string, text: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-1" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(text)));
  return btoa(String.fromCharCode(...mac));
}

/**
 * Verifies the SigV2 signature `s` of `request`, sent to the endpoint under path `prefix`, with `secretAccessKey`:
 * it must sign one of the request's resource forms ({@link resourceForms}).
 * @throws S3Error SignatureDoesNotMatch (with AWS's StringToSign, as S3 answers).
 */
export async function verifyV2(
  request: Request,
  prefix: string,
  s: SignedV2,
  accessKeyId: string,
  secretAccessKey: string,
): Promise<void> {
  const date = s.presigned ? s.time : request.headers.has("x-amz-date") ? "" : (request.headers.get("date") ?? "");
  const texts = resourceForms(new URL(request.url), prefix).map((resource) =>
    stringToSignV2(request, s.presigned, date, resource),
  );
  for (const text of texts) if (constantTimeEqual(await hmacSha1Base64(secretAccessKey, text), s.signature)) return;
  const fields = { AWSAccessKeyId: accessKeyId, StringToSign: texts[0]!, SignatureProvided: s.signature };
  throw new S3Error(
    403,
    "SignatureDoesNotMatch",
    "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    fields,
  );
}

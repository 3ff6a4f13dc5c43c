/**
 * Signature checks of requests to the S3 endpoint. AWS Signature Version 4: the Authorization header form (what aws
 * cli and boto3 send) and presigned URLs (X-Amz-* query parameters, `aws s3 presign` with s3v4); Signature Version
 * 2 (`Authorization: AWS ...`, presigned AWSAccessKeyId/Expires/Signature URLs) is ./sigv2.ts's. The canonical request and signature
 * are computed by aws4fetch's AwsV4Signer over exactly the headers the client signed; this module only parses,
 * compares and checks dates (AWS docs: "Authenticating Requests (AWS Signature Version 4)", S3 API reference). The
 * signature verified is the seed of a signed aws-chunked upload, whose chunk signatures ./chunksig.ts checks with the
 * request's signString.
 */
import { AwsV4Signer } from "aws4fetch";
import type { S3Keys } from "../buckets/config";
import { constantTimeEqual } from "../http/compare";
import { stringSigner, type SeedRequest } from "./chunksig";
import { checkTimeV2, isSigV2, signatureV2Of, verifyV2 } from "./sigv2";
import { S3Error, accessDenied } from "./xml";

/** How far X-Amz-Date may be from the clock (S3: 15 minutes). */
export const MAX_SKEW_MS = 15 * 60 * 1000;
/** Longest presigned URL validity (S3: 7 days), seconds. */
const MAX_EXPIRES_S = 7 * 24 * 3600;

/** A request's signature claims: those of ./chunksig.ts SeedRequest, which headers, payload hash, presigning. */
export interface SignedRequest extends SeedRequest {
  signedHeaders: string[];
  presigned: boolean;
  /** Presigned URLs: seconds of validity. */
  expires?: number;
  /** x-amz-content-sha256 (header form). */
  payload?: string;
  /** Signature Version 2 (./sigv2.ts): no scope (date, region empty), no signed headers, payload UNSIGNED-PAYLOAD. */
  sigv2?: true;
}

const malformed = (message: string) => new S3Error(400, "AuthorizationHeaderMalformed", message);

/** `AK/20261123/us-east-1/s3/aws4_request` -> its parts. @throws S3Error AuthorizationHeaderMalformed. */
function credential(value: string): Pick<SignedRequest, "accessKeyId" | "date" | "region" | "service"> {
  const m = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(value);
  if (!m) throw malformed(`The Credential '${value}' must be <access key>/<YYYYMMDD>/<region>/s3/aws4_request.`);
  if (m[4] !== "s3") throw malformed(`The credential scope names service '${m[4]}'; this endpoint is 's3'.`);
  return { accessKeyId: m[1]!, date: m[2]!, region: m[3]!, service: m[4]! };
}

/**
 * The SigV4 signature claims of a request, from its Authorization header or presigned query.
 * @throws S3Error AccessDenied (anonymous), AuthorizationHeaderMalformed / InvalidRequest (malformed parts).
 */
export function signatureOf(request: Request): SignedRequest {
  const url = new URL(request.url);
  const auth = request.headers.get("authorization");
  if (auth) {
    const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
      auth.trim(),
    );
    if (!m)
      throw malformed(
        "The Authorization header must be AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=<64 hex digits> (Signature Version 4).",
      );
    const datetime = request.headers.get("x-amz-date") ?? "";
    const payload = request.headers.get("x-amz-content-sha256") ?? undefined;
    if (!payload)
      throw new S3Error(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256.");
    return {
      ...credential(m[1]!),
      datetime,
      signedHeaders: m[2]!.split(";"),
      signature: m[3]!,
      presigned: false,
      payload,
    };
  }
  const q = url.searchParams;
  if (q.get("X-Amz-Algorithm") === null)
    throw accessDenied(
      "Anonymous access is not allowed: sign requests with this endpoint's access keys (AWS Signature Version 4 or 2).",
    );
  if (q.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256") throw malformed("X-Amz-Algorithm must be AWS4-HMAC-SHA256.");
  const expires = Number(q.get("X-Amz-Expires") ?? "");
  if (!Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_S)
    throw new S3Error(
      400,
      "AuthorizationQueryParametersError",
      `X-Amz-Expires must be a whole number of seconds between 1 and ${MAX_EXPIRES_S}.`,
    );
  const signature = q.get("X-Amz-Signature") ?? "";
  if (!/^[0-9a-f]{64}$/.test(signature))
    throw new S3Error(400, "AuthorizationQueryParametersError", "X-Amz-Signature must be 64 hex digits.");
  const signedHeaders = (q.get("X-Amz-SignedHeaders") ?? "host").split(";");
  return {
    ...credential(q.get("X-Amz-Credential") ?? ""),
    datetime: q.get("X-Amz-Date") ?? "",
    signedHeaders,
    signature,
    presigned: true,
    expires,
  };
}

/** Milliseconds since the epoch of `YYYYMMDDTHHMMSSZ`, NaN when malformed. */
function timeOf(datetime: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(datetime);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : NaN;
}

/**
 * Checks the request's date: present, matching the credential scope, within MAX_SKEW_MS of `now` (header form) or
 * not yet expired (presigned). @throws S3Error AccessDenied, AuthorizationHeaderMalformed, RequestTimeTooSkewed.
 */
export function checkDate(s: SignedRequest, now: number): void {
  const t = timeOf(s.datetime);
  if (Number.isNaN(t)) throw accessDenied("AWS authentication requires a valid X-Amz-Date (YYYYMMDDTHHMMSSZ).");
  if (s.datetime.slice(0, 8) !== s.date)
    throw malformed(`The credential scope date ${s.date} differs from X-Amz-Date ${s.datetime}.`);
  if (s.presigned) {
    if (now > t + s.expires! * 1000)
      throw accessDenied(`Request has expired (signed ${s.datetime}, valid ${s.expires} s).`);
    if (t - now > MAX_SKEW_MS) throw new S3Error(403, "RequestTimeTooSkewed", "The request is signed in the future.");
  } else if (Math.abs(now - t) > MAX_SKEW_MS) {
    const fields = {
      RequestTime: s.datetime,
      ServerTime: new Date(now).toISOString(),
      MaxAllowedSkewMilliseconds: String(MAX_SKEW_MS),
    };
    throw new S3Error(
      403,
      "RequestTimeTooSkewed",
      "The difference between the request time and the current time is too large.",
      fields,
    );
  }
}

/**
 * The signer of the request as its client computed it: same URL, signed headers and date. The host signed is the
 * URL's: the Host header the client sent in production and under wrangler dev (whose proxy restores it), while
 * Miniflare's dispatchFetch (the tests' TCP bridge) keeps the client's URL but sends its own Host header.
 */
function signerOf(request: Request, s: SignedRequest, keys: S3Keys): AwsV4Signer {
  const url = new URL(request.url);
  if (s.presigned) url.searchParams.delete("X-Amz-Signature");
  const headers = new Headers();
  for (const name of s.signedHeaders) if (name !== "host") headers.set(name, request.headers.get(name) ?? "");
  return new AwsV4Signer({
    method: request.method,
    url: url.toString(),
    headers,
    accessKeyId: keys.accessKeyId,
    secretAccessKey: keys.secretAccessKey,
    service: "s3",
    region: s.region,
    datetime: s.datetime,
    signQuery: s.presigned,
    allHeaders: true,
  });
}

/** The key `keyOf` finds for `accessKeyId`. @throws S3Error InvalidAccessKeyId. */
async function keyFor<K extends S3Keys>(
  accessKeyId: string,
  keyOf: (accessKeyId: string) => Promise<K | null>,
): Promise<K> {
  const keys = await keyOf(accessKeyId);
  if (!keys)
    throw new S3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", {
      AWSAccessKeyId: accessKeyId,
    });
  return keys;
}

/** Verifies a SigV2 request (./sigv2.ts); its claims as a SignedRequest with `sigv2` set. @throws S3Error as verifySignature. */
async function verifySignatureV2<K extends S3Keys>(
  request: Request,
  prefix: string,
  keyOf: (accessKeyId: string) => Promise<K | null>,
  now: number,
): Promise<{ s: SignedRequest; keys: K }> {
  const v2 = signatureV2Of(request);
  const keys = await keyFor(v2.accessKeyId, keyOf);
  checkTimeV2(v2, now, MAX_SKEW_MS);
  await verifyV2(request, prefix, v2, keys.accessKeyId, keys.secretAccessKey);
  const s: SignedRequest = {
    accessKeyId: v2.accessKeyId,
    datetime: "",
    date: "",
    region: "",
    service: "s3",
    signedHeaders: [],
    signature: v2.signature,
    presigned: v2.presigned,
    payload: "UNSIGNED-PAYLOAD",
    sigv2: true,
  };
  return { s, keys };
}

/**
 * Verifies the request's SigV4 or SigV2 signature at time `now` (ms) against the key `keyOf` finds for its access
 * key id (the accounts' keys, src/buckets/keys.ts); `prefix`: the endpoint's path prefix in the request ("" at the
 * root of an S3 address, "/s3" elsewhere), which SigV4 signs as part of the path and SigV2 leaves out. Returns the claims with the signer of aws-chunked chunk
 * signatures (the caller checks the payload hash against the body) and the key. @throws S3Error AccessDenied
 * (anonymous, expired), InvalidAccessKeyId (no such key), SignatureDoesNotMatch (with StringToSign and, for SigV4,
 * CanonicalRequest, as S3 answers), RequestTimeTooSkewed, AuthorizationHeaderMalformed.
 */
export async function verifySignature<K extends S3Keys>(
  request: Request,
  keyOf: (accessKeyId: string) => Promise<K | null>,
  now: number,
  prefix = "",
): Promise<{ s: SignedRequest; keys: K }> {
  if (isSigV2(request)) return verifySignatureV2(request, prefix, keyOf, now);
  const s = signatureOf(request);
  const keys = await keyFor(s.accessKeyId, keyOf);
  checkDate(s, now);
  if (!s.signedHeaders.includes("host")) throw malformed("SignedHeaders must include host.");
  const signer = signerOf(request, s, keys);
  const expected = await signer.signature();
  const same = signer.signedHeaders === s.signedHeaders.join(";") && constantTimeEqual(expected, s.signature);
  if (!same) {
    const fields = {
      AWSAccessKeyId: s.accessKeyId,
      StringToSign: await signer.stringToSign(),
      SignatureProvided: s.signature,
      CanonicalRequest: await signer.canonicalString(),
    };
    throw new S3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
      fields,
    );
  }
  return { s: { ...s, signString: stringSigner(keys.secretAccessKey, s) }, keys };
}

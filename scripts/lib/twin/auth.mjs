// The archive twin's access checks, answered as the real services answer them:
// - S3 requester-pays buckets: a request needs `x-amz-request-payer: requester` and an AWS Signature Version 4
//   `Authorization` header of the twin's test keys, verified by re-signing the received request with
//   @smithy/signature-v4 (the AWS SDK's signer). Errors: S3's codes (AccessDenied, InvalidAccessKeyId,
//   SignatureDoesNotMatch, AuthorizationHeaderMalformed, RequestTimeTooSkewed) with S3's statuses.
// - Planetary Computer blob storage: a request needs a SAS token issued by the twin's token endpoint, not expired
//   (Azure answers 403 AuthenticationFailed otherwise).
import { SignatureV4 } from "@smithy/signature-v4";
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

/** The twin's AWS test keys: the only keys its requester-pays buckets accept (not real AWS keys). */
export const TWIN_AWS_KEYS = Object.freeze({
  accessKeyId: "AKIATWINEXAMPLEKEY01",
  secretAccessKey: "twin/ArchiveTwinSecretKey/NotARealAwsKey00",
});

/** SHA-256 (and HMAC-SHA-256 when given a secret) in the shape @smithy/signature-v4 expects, over node:crypto. */
class Sha256 {
  constructor(secret) {
    this.hash = secret ? createHmac("sha256", secret) : createHash("sha256");
  }
  update(data) {
    this.hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

/** Parses `AWS4-HMAC-SHA256 Credential=AK/date/region/service/aws4_request, SignedHeaders=a;b, Signature=hex`. */
function parseAuthorization(header) {
  const m = /^AWS4-HMAC-SHA256 (.+)$/.exec(header ?? "");
  if (!m) return undefined;
  const parts = Object.fromEntries(m[1].split(/,\s*/).map((p) => p.split("=", 2)));
  const scope = (parts.Credential ?? "").split("/");
  if (scope.length !== 5 || !parts.SignedHeaders || !parts.Signature) return undefined;
  const [accessKeyId, date, region, service, terminator] = scope;
  return {
    accessKeyId,
    date,
    region,
    service,
    terminator,
    signedHeaders: parts.SignedHeaders.split(";"),
    signature: parts.Signature,
  };
}

/** `20261201T233000Z` -> Date, or undefined. */
function amzDate(s) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s ?? "");
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : undefined;
}

const deny = (status, code, message) => ({ status, code, message });

/**
 * Checks an S3 request to a requester-pays bucket in `region`. `req`: Node's IncomingMessage (method, url as
 * received, headers). Resolves to undefined when allowed, else `{status, code, message}` (S3's error).
 */
export async function checkRequesterPays(req, region) {
  const headers = req.headers;
  if (!headers.authorization) return deny(403, "AccessDenied", "Access Denied");
  const auth = parseAuthorization(headers.authorization);
  if (!auth || auth.service !== "s3" || auth.terminator !== "aws4_request")
    return deny(
      400,
      "AuthorizationHeaderMalformed",
      "The authorization header is malformed; the Credential is mal-formed.",
    );
  if (auth.accessKeyId !== TWIN_AWS_KEYS.accessKeyId)
    return deny(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
  if (auth.region !== region)
    return deny(
      400,
      "AuthorizationHeaderMalformed",
      `The authorization header is malformed; the region '${auth.region}' is wrong; expecting '${region}'`,
    );
  if (!headers["x-amz-content-sha256"])
    return deny(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256");
  const when = amzDate(headers["x-amz-date"]);
  if (!when || !auth.signedHeaders.includes("x-amz-date") || !auth.signedHeaders.includes("host"))
    return deny(403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
  if (Math.abs(Date.now() - when.getTime()) > 15 * 60_000)
    return deny(
      403,
      "RequestTimeTooSkewed",
      "The difference between the request time and the current time is too large.",
    );
  if (!(await signatureMatches(req, auth, when)))
    return deny(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    );
  // S3 checks the payer after the signature: a signed request without the header is refused all the same
  if ((headers["x-amz-request-payer"] ?? "").toLowerCase() !== "requester")
    return deny(403, "AccessDenied", "Access Denied");
  return undefined;
}

/** Re-signs the received request (only the headers it signed) with the twin's secret and compares the signatures. */
async function signatureMatches(req, auth, when) {
  const url = new URL(req.url, "http://twin");
  const query = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? [].concat(query[k], v) : v;
  const headers = {};
  for (const h of auth.signedHeaders) if (h !== "x-amz-date") headers[h] = String(req.headers[h] ?? "");
  const signer = new SignatureV4({
    credentials: TWIN_AWS_KEYS,
    region: auth.region,
    service: "s3",
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const rawPath = req.url.split("?")[0];
  const signed = await signer.sign(
    { method: req.method, protocol: "http:", hostname: url.hostname, path: rawPath, query, headers },
    { signingDate: when },
  );
  const expected =
    /Signature=([0-9a-f]+)/.exec(signed.headers.authorization ?? signed.headers.Authorization ?? "")?.[1] ?? "";
  return (
    expected.length === auth.signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(auth.signature))
  );
}

/** Azure's date format in SAS messages: `Tue, 01 Dec 2026 23:30:00 GMT`. */
const azureDate = (ms) => new Date(ms).toUTCString();
const isoSeconds = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * The twin's SAS tokens (Azure service SAS fields st, se, sp, sv, sr, sig): `sig` is an HMAC of the twin's secret
 * over account/container, the times and the token's `skoid`, so a token is valid for the container it was issued
 * for only. `revoke()` invalidates every token issued so far (fault "expire-tokens"). Each token has an `skoid` of
 * its own: the times have whole seconds, and a token issued again in the second of a revoked one must not share
 * its signature (the Planetary Computer test asked again within the second and was refused).
 */
export class SasAuthority {
  constructor(ttlSeconds = 3600) {
    this.ttlSeconds = ttlSeconds;
    this.secret = randomBytes(32);
    this.issued = new Set();
    this.revoked = new Set();
  }
  #sign(account, container, st, se, skoid) {
    return createHmac("sha256", this.secret).update(`${account}/${container}\n${st}\n${se}\n${skoid}`).digest("base64");
  }
  /** A token for account/container: `{ "msft:expiry": ISO, token: "st=..&se=..&sp=rl&sv=2024-05-04&sr=c&skoid=..&sig=.." }`. */
  issue(account, container, now = Date.now()) {
    const st = isoSeconds(now - 1000),
      se = isoSeconds(now + this.ttlSeconds * 1000);
    const skoid = randomUUID();
    const sig = this.#sign(account, container, st, se, skoid);
    this.issued.add(sig);
    // the fields and order of the Planetary Computer's tokens (a user-delegation SAS: skoid..skv name the key)
    const key = {
      skoid,
      sktid: "00000000-0000-4000-8000-000000000002",
      skt: st,
      ske: se,
      sks: "b",
      skv: "2024-05-04",
    };
    const token = new URLSearchParams({ st, se, sp: "rl", sv: "2024-05-04", sr: "c", ...key, sig }).toString();
    return { "msft:expiry": se, token };
  }
  /** Marks every token issued up to now invalid (as if they had expired). */
  revoke() {
    for (const sig of this.issued) this.revoked.add(sig);
  }
  /** Checks the SAS of a blob request; undefined when allowed, else `{status, code, message}` (Azure's error). */
  check(account, container, searchParams) {
    const st = searchParams.get("st"),
      se = searchParams.get("se"),
      sig = searchParams.get("sig"),
      skoid = searchParams.get("skoid") ?? "";
    const failed = (detail) =>
      deny(
        403,
        "AuthenticationFailed",
        `Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature.\n${detail}`,
      );
    // the Planetary Computer's storage accounts refuse anonymous reads with 409 (measured on landsateuwest)
    if (!sig && !se)
      return deny(409, "PublicAccessNotPermitted", "Public access is not permitted on this storage account.");
    if (!sig || !se || !st) return failed("Signature fields not well formed.");
    const expected = this.#sign(account, container, st, se, skoid);
    if (expected.length !== sig.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(sig)))
      return failed("Signature did not match.");
    const now = Date.now(),
      expiry = Date.parse(se);
    if (now > expiry || this.revoked.has(sig))
      return failed(
        `Signature not valid in the specified time frame: Start [${azureDate(Date.parse(st))}] - Expiry [${azureDate(expiry)}] - Current [${azureDate(now)}]`,
      );
    return undefined;
  }
}

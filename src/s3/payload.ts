/**
 * Request bodies of the S3 endpoint, checked as S3 does (S3 API reference, Common Request Headers): against the
 * signed payload hash x-amz-content-sha256 (the body's hex SHA-256, or UNSIGNED-PAYLOAD; presigned URLs are
 * unsigned, as are SigV2 requests), decoded when aws-chunked (STREAMING-*, ./chunked.ts), and against an
 * `x-amz-checksum-*` header or trailer and a Content-MD5 header, those sent (./checksums.ts: the CRC32 the
 * AWS SDKs add by default).
 */
import type { SignedRequest } from "./auth";
import { checkedStream, checksumHeaders, storedChecksum, verifyChecksums, type ChecksumClaim } from "./checksums";
import { decodeChunked, type ChunkedForm } from "./chunked";
import { ChunkSignatures } from "./chunksig";
import { S3Error, invalidArgument, notImplemented } from "./xml";

/** Hex SHA-256 of `bytes` (crypto.subtle). */
async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** The aws-chunked form of a STREAMING-* payload hash, undefined for other values. */
function chunkedForm(payload: string, request: Request, s: SignedRequest): ChunkedForm | undefined {
  const declared = request.headers.get("x-amz-trailer") ?? undefined;
  if (payload === "STREAMING-UNSIGNED-PAYLOAD-TRAILER") return { trailer: true, declared };
  if (payload === "STREAMING-AWS4-HMAC-SHA256-PAYLOAD") return { signatures: new ChunkSignatures(s), trailer: false };
  if (payload === "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER")
    return { signatures: new ChunkSignatures(s), trailer: true, declared };
  return undefined;
}

/** The payload hash a request's body must match: x-amz-content-sha256, UNSIGNED-PAYLOAD for presigned URLs. */
const payloadOf = (s: SignedRequest): string => (s.presigned ? "UNSIGNED-PAYLOAD" : s.payload!);

/**
 * The body as sent, checked against the payload hash; aws-chunked bodies decoded, with their checksum trailer.
 * @throws S3Error as bodyOf.
 */
async function payloadBytes(
  request: Request,
  s: SignedRequest,
): Promise<{ bytes: ArrayBuffer; checksum?: ChecksumClaim }> {
  const payload = payloadOf(s);
  const form = chunkedForm(payload, request, s);
  if (form) {
    const length = request.headers.get("x-amz-decoded-content-length") ?? "";
    if (!/^\d+$/.test(length))
      throw invalidArgument(
        "x-amz-decoded-content-length must give the payload's length in bytes.",
        "x-amz-decoded-content-length",
        length,
      );
    return decodeChunked(await request.arrayBuffer(), Number(length), form);
  }
  if (payload.startsWith("STREAMING-"))
    throw notImplemented(`x-amz-content-sha256 ${payload} is not supported (SigV4a and event streams are not).`);
  if (/aws-chunked/i.test(request.headers.get("content-encoding") ?? ""))
    throw notImplemented(
      "Content-Encoding aws-chunked is supported only with an x-amz-content-sha256 STREAMING-* value.",
    );
  const body = await request.arrayBuffer();
  if (payload === "UNSIGNED-PAYLOAD") return { bytes: body };
  if (!/^[0-9a-f]{64}$/.test(payload))
    throw invalidArgument(
      "x-amz-content-sha256 must be a hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* value.",
      "x-amz-content-sha256",
      payload,
    );
  const actual = await sha256Hex(body);
  if (actual !== payload)
    throw new S3Error(
      400,
      "XAmzContentSHA256Mismatch",
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
      { ClientComputedContentSHA256: payload, S3ComputedContentSHA256: actual },
    );
  return { bytes: body };
}

/** The checked payload (see bodyOf) and the checksum to store with it (./checksums.ts storedChecksum). */
async function checkedPayload(
  request: Request,
  s: SignedRequest,
): Promise<{ bytes: ArrayBuffer; checksum?: ChecksumClaim }> {
  const { bytes, checksum } = await payloadBytes(request, s);
  const headers = checksumHeaders(request);
  await verifyChecksums(headers, new Uint8Array(bytes));
  return { bytes, checksum: storedChecksum([...(checksum ? [checksum] : []), ...headers]) };
}

/**
 * The request body (the payload: aws-chunked bodies decoded), checked against the signed payload hash, chunk
 * signatures and checksums.
 * @throws S3Error NotImplemented (other STREAMING-* values, aws-chunked without one), XAmzContentSHA256Mismatch,
 * InvalidArgument (malformed hash or decoded length), BadDigest (an x-amz-checksum-* header or trailer that does
 * not match), and decodeChunked's IncompleteBody, SignatureDoesNotMatch, MalformedTrailerError.
 */
export async function bodyOf(request: Request, s: SignedRequest): Promise<ArrayBuffer> {
  return (await checkedPayload(request, s)).bytes;
}

/**
 * A body to store: bytes, or a stream the store checks against `sha256` and whose `mismatch()` tells a checksum
 * failure; `checksum`: the x-amz-checksum-* claim it is checked against, to store with the object.
 */
export interface StreamedBody {
  body: ReadableStream | ArrayBuffer;
  sha256?: string;
  mismatch?: () => S3Error | undefined;
  checksum?: ChecksumClaim;
}

/**
 * The body of a PutObject without buffering when it can stream (a Content-Length and a hex SHA-256 for the store to
 * check, or UNSIGNED-PAYLOAD; x-amz-checksum-* and Content-MD5 headers checked on the way, ./checksums.ts checkedStream);
 * otherwise {@link bodyOf}'s checked bytes. @throws S3Error as bodyOf.
 */
export async function streamedBody(request: Request, s: SignedRequest): Promise<StreamedBody> {
  const payload = payloadOf(s);
  const length = request.headers.get("content-length") ?? "";
  const streams = request.body !== null && /^\d+$/.test(length) && !request.headers.has("content-encoding");
  const sha256 = /^[0-9a-f]{64}$/.test(payload) ? payload : undefined;
  if (!streams || (!sha256 && payload !== "UNSIGNED-PAYLOAD")) {
    const { bytes, checksum } = await checkedPayload(request, s);
    return { body: bytes, checksum };
  }
  const claims = checksumHeaders(request);
  if (!claims.length) return { body: request.body!, sha256 };
  const { stream, mismatch } = checkedStream(request.body!, Number(length), claims);
  return { body: stream, sha256, mismatch, checksum: storedChecksum(claims) };
}

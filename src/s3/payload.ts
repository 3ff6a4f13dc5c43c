/**
 * Request bodies of the S3 endpoint, checked against the signed payload hash (x-amz-content-sha256: the body's hex
 * SHA-256, or UNSIGNED-PAYLOAD; presigned URLs are unsigned), as S3 does (S3 API reference, Common Request Headers).
 */
import type { SignedRequest } from "./auth";
import { decodeChunked } from "./chunked";
import { S3Error, invalidArgument, notImplemented } from "./xml";

/** Hex SHA-256 of `bytes` (crypto.subtle). */
async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The request body, checked against the signed payload hash; an unsigned aws-chunked body
 * (STREAMING-UNSIGNED-PAYLOAD-TRAILER) is decoded (./chunked.ts).
 * @throws S3Error NotImplemented (other aws-chunked bodies), XAmzContentSHA256Mismatch, InvalidArgument (malformed
 * hash or decoded length), IncompleteBody and BadDigest (see decodeChunked).
 */
export async function bodyOf(request: Request, s: SignedRequest): Promise<ArrayBuffer> {
  const payload = s.presigned ? "UNSIGNED-PAYLOAD" : s.payload!;
  if (payload === "STREAMING-UNSIGNED-PAYLOAD-TRAILER") {
    const length = request.headers.get("x-amz-decoded-content-length") ?? "";
    if (!/^\d+$/.test(length)) throw invalidArgument("x-amz-decoded-content-length must give the payload's length in bytes.", "x-amz-decoded-content-length", length);
    return decodeChunked(await request.arrayBuffer(), Number(length));
  }
  if (/aws-chunked/i.test(request.headers.get("content-encoding") ?? ""))
    throw notImplemented("Content-Encoding aws-chunked is supported only with x-amz-content-sha256 STREAMING-UNSIGNED-PAYLOAD-TRAILER.");
  const body = await request.arrayBuffer();
  if (payload === "UNSIGNED-PAYLOAD") return body;
  if (!/^[0-9a-f]{64}$/.test(payload)) throw invalidArgument("x-amz-content-sha256 must be a hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* value.", "x-amz-content-sha256", payload);
  const actual = await sha256Hex(body);
  if (actual !== payload)
    throw new S3Error(400, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", { ClientComputedContentSHA256: payload, S3ComputedContentSHA256: actual });
  return body;
}

/**
 * The body of a PutObject without buffering when it can stream (a Content-Length and a hex SHA-256 for the store to
 * check, or UNSIGNED-PAYLOAD); otherwise {@link bodyOf}'s checked bytes. @throws S3Error as bodyOf.
 */
export async function streamedBody(request: Request, s: SignedRequest): Promise<{ body: ReadableStream | ArrayBuffer; sha256?: string }> {
  const payload = s.presigned ? "UNSIGNED-PAYLOAD" : s.payload!;
  const streams = request.body !== null && /^\d+$/.test(request.headers.get("content-length") ?? "") && !request.headers.has("content-encoding");
  if (streams && payload === "UNSIGNED-PAYLOAD") return { body: request.body! };
  if (streams && /^[0-9a-f]{64}$/.test(payload)) return { body: request.body!, sha256: payload };
  return { body: await bodyOf(request, s) };
}

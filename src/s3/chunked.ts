/**
 * aws-chunked request bodies (AWS docs: "Signature Calculations for the Authorization Header: Transferring Payload
 * in Multiple Chunks" and "... Including Trailing Headers"): chunks `<hex size>[;chunk-signature=<64 hex>]\r\n<bytes>\r\n`,
 * a final 0-byte chunk, trailer lines `name:value\r\n`, and an empty line. x-amz-content-sha256 names the form:
 * - STREAMING-UNSIGNED-PAYLOAD-TRAILER (botocore over https, the JS SDK for streams): unsigned chunks, a trailer;
 * - STREAMING-AWS4-HMAC-SHA256-PAYLOAD (aws-sdk-go, minio-go, the Java SDK over http): every chunk signed, no trailer;
 * - STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER: signed chunks, then a trailer signed by `x-amz-trailer-signature`.
 * Signatures are checked in order (./chunksig.ts); the decoded length must equal x-amz-decoded-content-length; the
 * trailers x-amz-trailer declares must be sent, and a checksum trailer must match (./checksums.ts).
 */
import { verifyChecksums, type ChecksumClaim } from "./checksums";
import type { ChunkSignatures } from "./chunksig";
import { S3Error } from "./xml";

/** How a body is framed: signed chunks (their checker) or not; whether a trailer may follow, and which it must hold. */
export interface ChunkedForm {
  signatures?: ChunkSignatures;
  trailer: boolean;
  /** x-amz-trailer: comma-separated names of the trailers the body must end with. */
  declared?: string;
}

const incomplete = (message: string) => new S3Error(400, "IncompleteBody", message);
const malformedTrailer = (message: string) => new S3Error(400, "MalformedTrailerError", message);
const CHUNK_HEADER = /^([0-9a-f]{1,8})(?:;chunk-signature=([0-9a-f]{64}))?$/i;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Index of the next CRLF at or after `from`, -1 when none. */
function lineEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 1 < bytes.length; i++) if (bytes[i] === 13 && bytes[i + 1] === 10) return i;
  return -1;
}

/**
 * Checks the trailer lines against the form and the payload `out`; answers the checksum trailer (checked), if any.
 * @throws S3Error MalformedTrailerError, SignatureDoesNotMatch, BadDigest.
 */
async function checkTrailer(lines: string[], form: ChunkedForm, out: Uint8Array): Promise<ChecksumClaim | undefined> {
  if (lines.length > 0 && !form.trailer)
    throw malformedTrailer(
      "This aws-chunked body has trailing headers but x-amz-content-sha256 names a form without a trailer.",
    );
  const fields = lines.map((line) => ({
    name: line.slice(0, line.indexOf(":")).trim().toLowerCase(),
    value: line.slice(line.indexOf(":") + 1).trim(),
  }));
  if (fields.some((f) => !f.name))
    throw malformedTrailer("A trailing header of the aws-chunked body is not name:value.");
  if (form.signatures && form.trailer) {
    const signature = fields.pop();
    if (signature?.name !== "x-amz-trailer-signature" || !/^[0-9a-f]{64}$/.test(signature.value))
      throw malformedTrailer("A signed trailer must end with x-amz-trailer-signature:<64 hex digits>.");
    await form.signatures.trailer(signature.value, fields.map((f) => `${f.name}:${f.value}\n`).join(""));
  }
  for (const name of (form.declared ?? "")
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean))
    if (!fields.some((f) => f.name === name))
      throw malformedTrailer(`The trailer ${name} declared in x-amz-trailer is missing from the body.`);
  const checksums = fields.filter((f) => f.name.startsWith("x-amz-checksum-"));
  await verifyChecksums(checksums, out);
  return checksums[0];
}

/**
 * The payload of an aws-chunked body of `form`, and its checksum trailer (checked) if it has one.
 * @throws S3Error IncompleteBody (malformed or cut-short chunks, a missing or unexpected chunk signature, a length
 * differing from `decodedLength`), SignatureDoesNotMatch (a chunk or trailer signature), MalformedTrailerError,
 * BadDigest (a checksum trailer that does not match).
 */
export async function decodeChunked(
  body: ArrayBuffer,
  decodedLength: number,
  form: ChunkedForm,
): Promise<{ bytes: ArrayBuffer; checksum?: ChecksumClaim }> {
  const bytes = new Uint8Array(body);
  if (decodedLength > bytes.length)
    throw incomplete(`x-amz-decoded-content-length ${decodedLength} exceeds the ${bytes.length} bytes sent.`);
  const out = new Uint8Array(decodedLength);
  let at = 0,
    filled = 0;
  for (;;) {
    const end = lineEnd(bytes, at);
    const m = CHUNK_HEADER.exec(end < 0 ? "" : text(bytes.subarray(at, end)));
    if (!m) throw incomplete("The aws-chunked body has a malformed chunk header.");
    if (!m[2] !== !form.signatures)
      throw incomplete(
        form.signatures
          ? "A chunk of a signed aws-chunked body has no chunk-signature."
          : "An unsigned aws-chunked body carries a chunk-signature.",
      );
    const size = parseInt(m[1]!, 16);
    at = end + 2;
    if (filled + size > decodedLength || at + size > bytes.length)
      throw incomplete("The aws-chunked body is longer than x-amz-decoded-content-length or cut short.");
    await form.signatures?.chunk(m[2]!.toLowerCase(), bytes.subarray(at, at + size));
    if (size === 0) break;
    if (lineEnd(bytes, at + size) !== at + size)
      throw incomplete("A chunk of the aws-chunked body does not end with CRLF.");
    out.set(bytes.subarray(at, at + size), filled);
    filled += size;
    at += size + 2;
  }
  if (filled !== decodedLength)
    throw incomplete(`The aws-chunked body holds ${filled} bytes; x-amz-decoded-content-length says ${decodedLength}.`);
  const lines: string[] = [];
  for (let end = lineEnd(bytes, at); end > at; at = end + 2, end = lineEnd(bytes, at))
    lines.push(text(bytes.subarray(at, end)));
  if (lineEnd(bytes, at) !== at && at < bytes.length)
    throw incomplete("The trailer of the aws-chunked body is cut short.");
  const checksum = await checkTrailer(lines, form, out);
  return { bytes: out.buffer, checksum };
}

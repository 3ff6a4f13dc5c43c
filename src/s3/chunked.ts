/**
 * `aws-chunked` bodies with an unsigned trailer (x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER), which
 * botocore (aws cli, boto3) sends for PutObject/UploadPart over HTTPS: `<hex size>\r\n<bytes>\r\n` chunks, a `0`
 * chunk, then trailer lines `name:value\r\n` and an empty line (AWS docs: "Signature calculations for the
 * Authorization header: Transferring payload in multiple chunks (chunked upload)", trailing headers). The decoded
 * length must equal x-amz-decoded-content-length; an x-amz-checksum-crc32 / -sha1 / -sha256 trailer is checked
 * (crc-32 package, crypto.subtle); other checksum trailers (crc32c, crc64nvme) are accepted unchecked.
 */
import { buf as crc32 } from "crc-32";
import { S3Error } from "./xml";

const incomplete = (message: string) => new S3Error(400, "IncompleteBody", message);
const CRLF = [13, 10];

/** Index of the next CRLF at or after `from`, -1 when none. */
function lineEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 1 < bytes.length; i++) if (bytes[i] === CRLF[0] && bytes[i + 1] === CRLF[1]) return i;
  return -1;
}

/** Base64 of the big-endian bytes of an unsigned 32-bit value (how S3 writes CRC32 checksums). */
function crc32Base64(bytes: Uint8Array): string {
  const v = crc32(bytes) >>> 0;
  return btoa(String.fromCharCode(v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255));
}

/** The checksum `name` of `bytes` as S3 writes it (base64), or undefined when this endpoint cannot compute it. */
async function checksum(name: string, bytes: Uint8Array): Promise<string | undefined> {
  if (name === "x-amz-checksum-crc32") return crc32Base64(bytes);
  const algorithm = name === "x-amz-checksum-sha256" ? "SHA-256" : name === "x-amz-checksum-sha1" ? "SHA-1" : undefined;
  if (!algorithm) return undefined;
  return btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest(algorithm, bytes))));
}

/**
 * The payload of an aws-chunked body (chunk extensions such as `;chunk-signature=` are not accepted here).
 * @throws S3Error IncompleteBody (malformed chunks, length differing from `decodedLength`), BadDigest (a trailer
 * checksum that does not match).
 */
export async function decodeChunked(body: ArrayBuffer, decodedLength: number): Promise<ArrayBuffer> {
  const bytes = new Uint8Array(body);
  if (decodedLength > bytes.length) throw incomplete(`x-amz-decoded-content-length ${decodedLength} exceeds the ${bytes.length} bytes sent.`);
  const out = new Uint8Array(decodedLength);
  let at = 0, filled = 0;
  for (;;) {
    const end = lineEnd(bytes, at);
    const header = end < 0 ? "" : new TextDecoder().decode(bytes.subarray(at, end));
    if (!/^[0-9a-f]{1,8}$/i.test(header)) throw incomplete("The aws-chunked body has a malformed chunk header.");
    const size = parseInt(header, 16);
    at = end + 2;
    if (size === 0) break;
    if (filled + size > decodedLength || at + size + 2 > bytes.length) throw incomplete("The aws-chunked body is longer than x-amz-decoded-content-length or cut short.");
    out.set(bytes.subarray(at, at + size), filled);
    filled += size;
    at += size + 2;
  }
  if (filled !== decodedLength) throw incomplete(`The aws-chunked body holds ${filled} bytes; x-amz-decoded-content-length says ${decodedLength}.`);
  for (let end = lineEnd(bytes, at); end > at; at = end + 2, end = lineEnd(bytes, at)) {
    const line = new TextDecoder().decode(bytes.subarray(at, end));
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase(), value = line.slice(colon + 1).trim();
    const expected = colon > 0 ? await checksum(name, out) : undefined;
    if (expected !== undefined && expected !== value) throw new S3Error(400, "BadDigest", `The ${name} you specified did not match the calculated checksum.`);
  }
  return out.buffer;
}

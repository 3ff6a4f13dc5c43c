/**
 * S3's additional checksums (S3 user guide, "Checking object integrity"): a `x-amz-checksum-<algorithm>` header or
 * aws-chunked trailer carries the base64 of the payload's CRC32 / CRC32C (big-endian, crc-32 package) or SHA-1 /
 * SHA-256 (crypto.subtle, workerd's DigestStream); a mismatch is 400 BadDigest and stores nothing. CRC64NVME is
 * accepted unchecked (no maintained JS implementation). A Content-MD5 header (RFC 1864: base64 MD5, what SigV2
 * clients send) is checked the same way. A checked x-amz-checksum-* value is stored with the object and
 * answered by HeadObject / GetObject (./objects.ts).
 */
import { buf as crc32 } from "crc-32";
import { buf as crc32c } from "crc-32/crc32c";
import { S3Error } from "./xml";

/** A checksum a client claims for a payload: its header / trailer name (lower case) and base64 value. */
export interface ChecksumClaim {
  name: string;
  value: string;
}

/** Feeds bytes in order, then answers the base64 checksum. */
interface Hasher {
  update(bytes: Uint8Array): Promise<void>;
  digest(): Promise<string>;
}

const base64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));

/** A CRC (crc-32's `buf(bytes, seed)`), written as S3 does: base64 of the unsigned value's 4 big-endian bytes. */
function crcHasher(crc: (bytes: Uint8Array, seed?: number) => number): Hasher {
  let v = 0;
  return {
    update: async (bytes) => void (v = crc(bytes, v)),
    digest: async () => base64(new Uint8Array([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255])),
  };
}

/** A SHA (or MD5) digest over workerd's DigestStream. */
function shaHasher(algorithm: string): Hasher {
  const stream = new crypto.DigestStream(algorithm);
  const writer = stream.getWriter();
  return {
    update: (bytes) => writer.write(bytes),
    digest: async () => (await writer.close(), base64(new Uint8Array(await stream.digest))),
  };
}

/** The hasher of checksum `name` (`x-amz-checksum-crc32`, ...), undefined when this endpoint does not compute it. */
function hasherOf(name: string): Hasher | undefined {
  if (name === "x-amz-checksum-crc32") return crcHasher(crc32);
  if (name === "x-amz-checksum-crc32c") return crcHasher(crc32c);
  if (name === "x-amz-checksum-sha1") return shaHasher("SHA-1");
  if (name === "x-amz-checksum-sha256") return shaHasher("SHA-256");
  if (name === "content-md5") return shaHasher("MD5");
  return undefined;
}

const badDigest = (name: string) =>
  new S3Error(400, "BadDigest", `The ${name} you specified did not match the calculated checksum.`);

/** The checksum headers of a request: its first `x-amz-checksum-*` header and its Content-MD5 header, those sent. */
export function checksumHeaders(request: Request): ChecksumClaim[] {
  const claims: ChecksumClaim[] = [];
  const amz = [...request.headers].find(([name]) => /^x-amz-checksum-(?!mode$|algorithm$|type$)/.test(name));
  if (amz) claims.push({ name: amz[0], value: amz[1].trim() });
  const md5 = request.headers.get("content-md5");
  if (md5 !== null) claims.push({ name: "content-md5", value: md5.trim() });
  return claims;
}

/** The claim of `claims` this endpoint stores with the object: an x-amz-checksum-* it checks (not CRC64NVME, not MD5). */
export const storedChecksum = (claims: ChecksumClaim[]): ChecksumClaim | undefined =>
  claims.find((c) => c.name.startsWith("x-amz-checksum-") && hasherOf(c.name));

/** The claims this endpoint can check, each with a new hasher. */
const checkable = (claims: ChecksumClaim[]) =>
  claims.flatMap((claim) => {
    const hasher = hasherOf(claim.name);
    return hasher ? [{ claim, hasher }] : [];
  });

/** Checks every claim of `claims` against the whole payload. @throws S3Error BadDigest. */
export async function verifyChecksums(claims: ChecksumClaim[], bytes: Uint8Array): Promise<void> {
  for (const { claim, hasher } of checkable(claims)) {
    await hasher.update(bytes);
    if ((await hasher.digest()) !== claim.value) throw badDigest(claim.name);
  }
}

/**
 * `body` (of `length` bytes) as a stream of that known length whose checksums are compared with `claims` at its
 * end. The last chunk is held back until they matched, so a consumer never receives the whole of a payload that
 * does not match: the stream errors instead, and `mismatch()` then answers the BadDigest to report.
 */
export function checkedStream(
  body: ReadableStream<Uint8Array>,
  length: number,
  claims: ChecksumClaim[],
): { stream: ReadableStream; mismatch: () => S3Error | undefined } {
  const hashers = checkable(claims);
  if (!hashers.length) return { stream: body, mismatch: () => undefined };
  let held: Uint8Array | undefined, failure: S3Error | undefined;
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, out) {
      for (const { hasher } of hashers) await hasher.update(chunk);
      if (held) out.enqueue(held);
      held = chunk;
    },
    async flush(out) {
      for (const { claim, hasher } of hashers)
        if ((await hasher.digest()) !== claim.value) throw (failure = badDigest(claim.name));
      if (held) out.enqueue(held);
    },
  });
  const fixed = new FixedLengthStream(length);
  body
    .pipeThrough(tap)
    .pipeTo(fixed.writable)
    .catch(() => {}); // a failure reaches the consumer as an errored stream
  return { stream: fixed.readable, mismatch: () => failure };
}

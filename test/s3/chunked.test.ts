/**
 * aws-chunked uploads to the S3 endpoint (src/s3/chunked.ts, chunksig.ts), built explicitly (test/helpers/s3.ts
 * chunkedUpload, signed by the AWS SDK's @smithy/signature-v4), so that no test depends on the installed botocore:
 * unsigned chunks with a CRC32 trailer (botocore over https), signed chunks (aws-sdk-go, minio-go, the Java SDK over
 * http) and signed chunks with a signed trailer. AWS's published example ("Signature Calculations for the
 * Authorization Header: Transferring Payload in Multiple Chunks": 66560 bytes of 'a', its seed and chunk signatures)
 * pins both the test signer and the server's verification.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { verifySignature } from "../../src/s3/auth";
import { ChunkSignatures } from "../../src/s3/chunksig";
import { bodyOf } from "../../src/s3/payload";
import { ENDPOINT, chunkedUpload, frame, sendChunked, type ChunkedPayload } from "../helpers/s3";

const EXAMPLE_KEYS = { key: "AKIAIOSFODNN7EXAMPLE", secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const EXAMPLE_TIME = new Date("2013-05-24T00:00:00Z");
const EXAMPLE_SEED = "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9";
const EXAMPLE_CHUNKS = [
  "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
  "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
  "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
];
/** aws-c-auth's trailing-headers vector, chained off the example's final chunk: trailer first:1st, second:2nd, third:3rd. */
const EXAMPLE_TRAILER = {
  canonical: "first:1st\nsecond:2nd\nthird:3rd\n",
  signature: "df5735bd9f3295cd9386572292562fefc93ba94e80a0a1ddcbd652c4e0a75e6c",
};

/** AWS's example request: PUT /examplebucket/chunkObject.txt, 66560 bytes of 'a' in chunks of 64 KiB, 1 KiB and 0. */
const awsExample = () =>
  chunkedUpload(
    "https://s3.amazonaws.com/examplebucket/chunkObject.txt",
    new Uint8Array(66560).fill(97),
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
    {
      keys: EXAMPLE_KEYS,
      date: EXAMPLE_TIME,
      headers: { "content-length": "66824", "x-amz-storage-class": "REDUCED_REDUNDANCY" },
    },
  );
const exampleKeys = { accessKeyId: EXAMPLE_KEYS.key, secretAccessKey: EXAMPLE_KEYS.secret };

/** Deterministic bytes 0..n-1 mod 251. */
const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const unique = () => `t-${crypto.randomUUID().slice(0, 8)}`;
const codeOf = async (r: Response) => [r.status, /<Code>([^<]+)<\/Code>/.exec(await r.text())?.[1]];
const stored = async (key: string) => {
  const o = await env.BUCKETS.get(key);
  return o && new Uint8Array(await o.arrayBuffer());
};

describe("S3 endpoint: AWS's published chunked-upload example", () => {
  it("the test signer reproduces AWS's seed and chunk signatures and body length", async () => {
    const u = await awsExample();
    expect(u.headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
        `SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class, Signature=${EXAMPLE_SEED}`,
    );
    expect(u.chunks.map((c) => [c.data.length, c.signature])).toEqual([
      [65536, EXAMPLE_CHUNKS[0]],
      [1024, EXAMPLE_CHUNKS[1]],
      [0, EXAMPLE_CHUNKS[2]],
    ]);
    expect(frame(u).length).toBe(66824);
  });

  it("src/s3 verifies the example's seed and chain and decodes its payload; a changed byte or order is refused", async () => {
    const u = await awsExample();
    const request = (body: Uint8Array) => new Request(u.url, { method: "PUT", headers: u.headers, body });
    const good = request(frame(u));
    const s = (await verifySignature(good, async () => exampleKeys, EXAMPLE_TIME.getTime())).s;
    expect(new Uint8Array(await bodyOf(good, s))).toEqual(new Uint8Array(66560).fill(97));

    const changed = frame(u);
    changed[66000] = 98; // inside the 1 KiB chunk: its signature no longer matches
    await expect(bodyOf(request(changed), s)).rejects.toMatchObject({ status: 403, code: "SignatureDoesNotMatch" });
    const swapped = frame({ ...u, chunks: [u.chunks[1]!, u.chunks[0]!, u.chunks[2]!] }); // each chunk signed, out of order
    await expect(bodyOf(request(swapped), s)).rejects.toMatchObject({ status: 403, code: "SignatureDoesNotMatch" });
  });

  it("src/s3 checks a trailer signature chained off the final chunk (aws-c-auth's vector)", async () => {
    const u = await awsExample();
    const s = (
      await verifySignature(
        new Request(u.url, { method: "PUT", headers: u.headers, body: frame(u) }),
        async () => exampleKeys,
        EXAMPLE_TIME.getTime(),
      )
    ).s;
    const chain = async () => {
      const c = new ChunkSignatures(s);
      for (const [i, chunk] of u.chunks.entries()) await c.chunk(EXAMPLE_CHUNKS[i]!, chunk.data);
      return c;
    };
    await (await chain()).trailer(EXAMPLE_TRAILER.signature, EXAMPLE_TRAILER.canonical);
    await expect(
      (await chain()).trailer(EXAMPLE_TRAILER.signature, EXAMPLE_TRAILER.canonical.replace("3rd", "4th")),
    ).rejects.toMatchObject({ status: 403, code: "SignatureDoesNotMatch" });
  });
});

describe("S3 endpoint: aws-chunked uploads", () => {
  const put = async (payload: ChunkedPayload, n = 150_000, o: Parameters<typeof chunkedUpload>[3] = {}) => {
    const key = `${unique()}/c.bin`;
    return { key, data: bytes(n), u: await chunkedUpload(`${ENDPOINT}/${key}`, bytes(n), payload, o) };
  };

  it("stores signed chunks (STREAMING-AWS4-HMAC-SHA256-PAYLOAD) and refuses a bad signature, order or byte with 403", async () => {
    const { key, data, u } = await put("STREAMING-AWS4-HMAC-SHA256-PAYLOAD");
    expect(u.chunks.map((c) => c.data.length)).toEqual([65536, 65536, 18928, 0]);
    const ok = await sendChunked(u);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("etag")).toBe(`"${(await env.BUCKETS.head(key))!.etag}"`);
    expect(await stored(key)).toEqual(data);

    const bad = await put("STREAMING-AWS4-HMAC-SHA256-PAYLOAD");
    const flipped = bad.u.chunks[1]!.signature!.replace(/^./, (c) => (c === "0" ? "1" : "0"));
    const badSignature = { ...bad.u, chunks: bad.u.chunks.map((c, i) => (i === 1 ? { ...c, signature: flipped } : c)) };
    const swapped = { ...bad.u, chunks: [bad.u.chunks[1]!, bad.u.chunks[0]!, ...bad.u.chunks.slice(2)] };
    const changed = frame(bad.u);
    changed[70_000] ^= 1;
    expect(await codeOf(await sendChunked(badSignature))).toEqual([403, "SignatureDoesNotMatch"]);
    expect(await codeOf(await sendChunked(swapped))).toEqual([403, "SignatureDoesNotMatch"]);
    expect(await codeOf(await sendChunked(bad.u, changed))).toEqual([403, "SignatureDoesNotMatch"]);
    expect(await env.BUCKETS.head(bad.key)).toBeNull();
  });

  it("refuses malformed signed bodies with 400 IncompleteBody: a chunk without signature, cut short, a wrong length", async () => {
    const { key, u } = await put("STREAMING-AWS4-HMAC-SHA256-PAYLOAD");
    const unsigned = { ...u, chunks: u.chunks.map((c, i) => (i === 1 ? { data: c.data } : c)) };
    const body = frame(u);
    const wrongLength = { ...u, headers: { ...u.headers } };
    expect(await codeOf(await sendChunked(unsigned))).toEqual([400, "IncompleteBody"]);
    expect(await codeOf(await sendChunked(u, body.subarray(0, body.length - 100)))).toEqual([400, "IncompleteBody"]);
    expect(await codeOf(await sendChunked(u, body.subarray(0, 80_000)))).toEqual([400, "IncompleteBody"]);
    wrongLength.headers["x-amz-decoded-content-length"] = "149999"; // signed: the seed no longer matches
    expect(await codeOf(await sendChunked(wrongLength))).toEqual([403, "SignatureDoesNotMatch"]);
    expect(await env.BUCKETS.head(key)).toBeNull();
  });

  it("stores signed chunks with a signed CRC32 trailer; refuses a wrong CRC (400 BadDigest) and a changed trailer (403)", async () => {
    const { key, data, u } = await put("STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER");
    expect(u.headers["x-amz-trailer"]).toBe("x-amz-checksum-crc32");
    expect(u.trailer).toEqual([
      expect.stringMatching(/^x-amz-checksum-crc32:[A-Za-z0-9+/]{6}==$/),
      expect.stringMatching(/^x-amz-trailer-signature:[0-9a-f]{64}$/),
    ]);
    expect((await sendChunked(u)).status).toBe(200);
    expect(await stored(key)).toEqual(data);

    const wrong = await put("STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", 1000, {
      trailer: ["x-amz-checksum-crc32:AAAAAA=="],
    });
    expect(await codeOf(await sendChunked(wrong.u))).toEqual([400, "BadDigest"]);
    const changed = { ...u, trailer: ["x-amz-checksum-crc32:AAAAAA==", u.trailer[1]!] };
    const unsignedTrailer = { ...u, trailer: u.trailer.slice(0, 1) };
    expect(await codeOf(await sendChunked(changed))).toEqual([403, "SignatureDoesNotMatch"]);
    expect(await codeOf(await sendChunked(unsignedTrailer))).toEqual([400, "MalformedTrailerError"]);
    expect(await env.BUCKETS.head(wrong.key)).toBeNull();
  });

  it("decodes STREAMING-UNSIGNED-PAYLOAD-TRAILER bodies and checks their CRC32 trailer", async () => {
    const { key, data, u } = await put("STREAMING-UNSIGNED-PAYLOAD-TRAILER");
    expect(u.chunks.every((c) => c.signature === undefined)).toBe(true);
    expect((await sendChunked(u)).status).toBe(200);
    expect(await stored(key)).toEqual(data);

    const bad = await put("STREAMING-UNSIGNED-PAYLOAD-TRAILER", 5000);
    const corrupt = { ...bad.u, trailer: ["x-amz-checksum-crc32:AAAAAA=="] };
    const missing = { ...bad.u, trailer: [] };
    const signedChunk = { ...bad.u, chunks: bad.u.chunks.map((c) => ({ ...c, signature: "0".repeat(64) })) };
    const changed = frame(bad.u);
    changed[100] ^= 1;
    expect(await codeOf(await sendChunked(corrupt))).toEqual([400, "BadDigest"]);
    expect(await codeOf(await sendChunked(bad.u, changed))).toEqual([400, "BadDigest"]);
    expect(await codeOf(await sendChunked(missing))).toEqual([400, "MalformedTrailerError"]);
    expect(await codeOf(await sendChunked(signedChunk))).toEqual([400, "IncompleteBody"]);
    expect(await env.BUCKETS.head(bad.key)).toBeNull();
  });

  it("answers other STREAMING-* forms (SigV4a chunks), correctly signed, with 501 NotImplemented", async () => {
    const { key, u } = await put("STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD" as ChunkedPayload, 1000);
    expect(await codeOf(await sendChunked(u))).toEqual([501, "NotImplemented"]);
    expect(await env.BUCKETS.head(key)).toBeNull();
  });
});

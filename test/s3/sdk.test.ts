/**
 * The S3 endpoint as the AWS SDK for JavaScript v3 uses it (@aws-sdk/client-s3, the version npm pins), with its
 * defaults: the SDK runs in workerd, signs, serialises and parses answers; the test gives it only a transport (its
 * requestHandler) that sends each HttpRequest to the Worker. Stored bytes are read back through env.BUCKETS.
 * The SDK's default request checksum is CRC32 (an x-amz-checksum-crc32 header for byte bodies).
 */
import { env } from "cloudflare:workers";
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import type { HttpRequest, HttpResponse } from "@smithy/types";
import { describe, expect, it } from "vitest";
import { call } from "../helpers/auth";
import { ENDPOINT, KEYS } from "../helpers/s3";

/** What the SDK sent: method, path and headers (lower-case names) of each request. */
interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
}

/** String chunks (how the SDK's aws-chunked encoder writes) as UTF-8 bytes, as an HTTP client writes them. */
const utf8 = () =>
  new TransformStream<string | Uint8Array, Uint8Array>({
    transform: (c, out) => out.enqueue(typeof c === "string" ? new TextEncoder().encode(c) : c),
  });

/** A stream body sent with its Content-Length as a body of that known length (as an HTTP client sends it). */
function sized(body: ReadableStream<Uint8Array>, length: string | null): ReadableStream<Uint8Array> {
  if (length === null) return body;
  const fixed = new FixedLengthStream(Number(length));
  void body.pipeTo(fixed.writable);
  return fixed.readable;
}

/**
 * An S3Client of the Worker with `config` over the SDK's defaults. Its transport records each request in `sent` and
 * sends it to the Worker (test/helpers/auth.ts call); `alter` may change a byte body in transit.
 */
function client(sent: Sent[], config: S3ClientConfig = {}, alter?: (body: Uint8Array) => Uint8Array): S3Client {
  const handle = async (req: HttpRequest): Promise<{ response: HttpResponse }> => {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {}))
      for (const one of Array.isArray(v) ? v : [v ?? ""]) query.append(k, one);
    const headers = new Headers(req.headers);
    headers.delete("host"); // the URL's
    headers.delete("transfer-encoding"); // framing is the transport's
    sent.push({ method: req.method, path: req.path, headers: Object.fromEntries(headers) });
    const body =
      req.body instanceof ReadableStream
        ? sized(req.body.pipeThrough(utf8()), headers.get("content-length"))
        : req.body instanceof Uint8Array && alter
          ? alter(req.body)
          : req.body;
    const url = `${req.protocol}//${req.hostname}${req.port ? `:${req.port}` : ""}${req.path}${query.size ? `?${query}` : ""}`;
    const r = await call(url, { method: req.method, headers, body });
    return {
      response: { statusCode: r.status, headers: Object.fromEntries(r.headers), body: r.body ?? new Uint8Array() },
    };
  };
  return new S3Client({
    endpoint: ENDPOINT,
    region: "us-east-1",
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: KEYS.key, secretAccessKey: KEYS.secret },
    requestHandler: { handle } as unknown as S3ClientConfig["requestHandler"],
    ...config,
  });
}

/** Deterministic bytes 0..n-1 mod 251. */
const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const unique = () => `t-${crypto.randomUUID().slice(0, 8)}`;
const stored = async (key: string) => {
  const o = await env.BUCKETS.get(key);
  return o && new Uint8Array(await o.arrayBuffer());
};
/** A ReadableStream of `data` in two chunks. */
const streamOf = (data: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(data.slice(0, data.length >> 1));
      c.enqueue(data.slice(data.length >> 1));
      c.close();
    },
  });
/** The S3 error code and HTTP status of a failed SDK call (the SDK's parse of the XML error). */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => ["resolved"],
    (e: S3ServiceException) => [e.$metadata?.httpStatusCode, e.name],
  );

describe("S3 endpoint: the AWS SDK for JavaScript (S3Client)", () => {
  it("PutObject (bytes, a ReadableStream of known length), GetObject with Range, ListObjectsV2", async () => {
    const sent: Sent[] = [];
    const s3 = client(sent);
    const Bucket = unique(),
      data = bytes(70_000);
    const put = await s3.send(
      new PutObjectCommand({ Bucket, Key: "a/bytes.bin", Body: data, ContentType: "application/x-test" }),
    );
    expect(sent[0]!.headers["x-amz-checksum-crc32"]).toMatch(/^[A-Za-z0-9+/]{6}==$/); // the SDK's default checksum
    expect(put.ETag).toBe(`"${(await env.BUCKETS.head(`${Bucket}/a/bytes.bin`))!.etag}"`);
    expect(await stored(`${Bucket}/a/bytes.bin`)).toEqual(data);

    const streamed = bytes(40_000).reverse();
    await client(sent, { requestChecksumCalculation: "WHEN_REQUIRED" }).send(
      new PutObjectCommand({ Bucket, Key: "a/stream.bin", Body: streamOf(streamed), ContentLength: streamed.length }),
    );
    expect(await stored(`${Bucket}/a/stream.bin`)).toEqual(streamed);

    const got = await s3.send(new GetObjectCommand({ Bucket, Key: "a/bytes.bin" }));
    expect([got.ContentType, got.ContentLength, got.ETag]).toEqual(["application/x-test", 70_000, put.ETag]);
    expect(await got.Body!.transformToByteArray()).toEqual(data);
    const range = await s3.send(new GetObjectCommand({ Bucket, Key: "a/bytes.bin", Range: "bytes=1000-1999" }));
    expect(range.ContentRange).toBe("bytes 1000-1999/70000");
    expect(await range.Body!.transformToByteArray()).toEqual(data.slice(1000, 2000));

    const list = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: "a/" }));
    expect(list.Contents!.map((c) => [c.Key, c.Size])).toEqual([
      ["a/bytes.bin", 70_000],
      ["a/stream.bin", 40_000],
    ]);
    expect([list.KeyCount, list.IsTruncated, list.Name]).toEqual([2, false, Bucket]);
  });

  it("stores a ReadableStream sent with the default checksum exactly, or refuses it (4xx) and stores nothing", async () => {
    // The SDK frames a stream body as aws-chunked with a CRC32 trailer; what it writes for a web ReadableStream
    // depends on its version (3.1175 writes each Uint8Array chunk as its decimal text), so only the outcome is asserted.
    const sent: Sent[] = [];
    const Bucket = unique(),
      data = bytes(10_000);
    const outcome = await failure(
      client(sent).send(
        new PutObjectCommand({ Bucket, Key: "s.bin", Body: streamOf(data), ContentLength: data.length }),
      ),
    );
    expect(sent[0]!.headers["content-encoding"]).toBe("aws-chunked");
    if (outcome[0] === "resolved") expect(await stored(`${Bucket}/s.bin`)).toEqual(data);
    else {
      expect(outcome[0]).toBeGreaterThanOrEqual(400);
      expect(outcome[0]).toBeLessThan(500);
      expect(await env.BUCKETS.head(`${Bucket}/s.bin`)).toBeNull();
    }
  });

  it("checks the SDK's CRC32: a wrong one is 400 BadDigest (PutObject, UploadPart), a body changed in transit is refused", async () => {
    const sent: Sent[] = [];
    const s3 = client(sent);
    const Bucket = unique(),
      data = bytes(20_000);
    expect(
      await failure(s3.send(new PutObjectCommand({ Bucket, Key: "wrong.bin", Body: data, ChecksumCRC32: "AAAAAA==" }))),
    ).toEqual([400, "BadDigest"]);
    const changed = client(sent, {}, (body) => body.map((b, i) => (i === 5000 ? b ^ 1 : b)));
    expect(await failure(changed.send(new PutObjectCommand({ Bucket, Key: "changed.bin", Body: data })))).toEqual([
      400,
      "BadDigest",
    ]);
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: "parts.bin" }));
    expect(
      await failure(
        s3.send(
          new UploadPartCommand({
            Bucket,
            Key: "parts.bin",
            UploadId,
            PartNumber: 1,
            Body: data,
            ChecksumCRC32: "AAAAAA==",
          }),
        ),
      ),
    ).toEqual([400, "BadDigest"]);
    expect((await env.BUCKETS.list({ prefix: `${Bucket}/` })).objects).toEqual([]);
  });

  it("uploads in parts: CreateMultipartUpload, UploadPart x2, CompleteMultipartUpload (object = parts in order)", {
    timeout: 120_000,
  }, async () => {
    const s3 = client([]);
    const Bucket = unique(),
      Key = "big.bin";
    const part1 = bytes(5 * 1024 * 1024),
      part2 = bytes(1000).reverse();
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket, Key, ContentType: "application/x-big" }),
    );
    const p1 = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: part1 }));
    const p2 = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 2, Body: part2 }));
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key,
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.ETag },
            { PartNumber: 2, ETag: p2.ETag },
          ],
        },
      }),
    );
    const o = await env.BUCKETS.get(`${Bucket}/${Key}`);
    expect(new Uint8Array(await o!.arrayBuffer())).toEqual(new Uint8Array([...part1, ...part2]));
    expect([done.ETag, done.Key, o!.httpMetadata?.contentType]).toEqual([`"${o!.etag}"`, Key, "application/x-big"]);
  });
});

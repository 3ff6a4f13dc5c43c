/**
 * The S3 endpoint (src/s3) as boto3 sees it: every request is signed by botocore (test/services/py_s3.py), sent to the
 * Worker, and the answer parsed by botocore's own parser (the oracle); objects land in the BUCKETS R2 binding. Calls
 * sign with the key of one test account (test/helpers/s3.ts KEYS), which claims every bucket it uses; what other
 * accounts may do is test/tenancy/s3.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call } from "../helpers/auth";
import { Sha256Js } from "@smithy/core/checksum";
import { ENDPOINT, botoAll, botoSign, crc32Of, fromB64, send, type SignedRequest } from "../helpers/s3";

/** Deterministic bytes 0..n-1 mod 251 (no byte pattern repeats at a power of two). */
const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const unique = () => `t-${crypto.randomUUID().slice(0, 8)}`;
const keysOf = (r: { result?: Record<string, unknown> }) =>
  ((r.result!.Contents ?? []) as { Key: string }[]).map((c) => c.Key);

describe("S3 endpoint: objects", () => {
  it("PutObject stores into BUCKETS under <bucket>/<key>; GetObject, HeadObject, Range and DeleteObject", async (ctx) => {
    const bucket = unique();
    const data = bytes(5000);
    const at = { Bucket: bucket, Key: "in/a b+c.bin" };
    const [put, get, range, suffix, head] = await botoAll(ctx, [
      { op: "put_object", params: { ...at, Body: data, ContentType: "application/x-test" } },
      { op: "get_object", params: at },
      { op: "get_object", params: { ...at, Range: "bytes=1000-1999" } },
      { op: "get_object", params: { ...at, Range: "bytes=-10" } },
      { op: "head_object", params: at },
    ]);
    const stored = await env.BUCKETS.get(`${bucket}/in/a b+c.bin`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(data);
    expect([put!.status, put!.result!.ETag]).toEqual([200, `"${stored!.etag}"`]);
    expect(get!.status).toBe(200);
    expect(fromB64(get!.result!.Body as string)).toEqual(data);
    expect(get!.result).toMatchObject({ ContentType: "application/x-test", ContentLength: 5000 });
    expect([range!.status, range!.result!.ContentRange]).toEqual([206, "bytes 1000-1999/5000"]);
    expect(fromB64(range!.result!.Body as string)).toEqual(data.slice(1000, 2000));
    expect(suffix!.result!.ContentRange).toBe("bytes 4990-4999/5000");
    expect(fromB64(suffix!.result!.Body as string)).toEqual(data.slice(4990));
    expect(head!.result).toMatchObject({
      ContentLength: 5000,
      ETag: `"${stored!.etag}"`,
      ContentType: "application/x-test",
    });

    const [del] = await botoAll(ctx, [{ op: "delete_object", params: at }]);
    expect(del!.status).toBe(204);
    expect(await env.BUCKETS.head(`${bucket}/in/a b+c.bin`)).toBeNull();
  });

  it("answers S3 errors as XML botocore reads: NoSuchKey, InvalidRange (416), InvalidBucketName, '..' keys", async (ctx) => {
    const bucket = unique();
    await env.BUCKETS.put(`${bucket}/small`, "12345");
    const [missing, past, badName, dots, headMissing] = await botoAll(ctx, [
      { op: "get_object", params: { Bucket: bucket, Key: "nope" } },
      { op: "get_object", params: { Bucket: bucket, Key: "small", Range: "bytes=5-9" } },
      { op: "list_objects_v2", params: { Bucket: "bad_bucket" } },
      { op: "put_object", params: { Bucket: bucket, Key: "a/../../escape", Body: "x" } },
      { op: "head_object", params: { Bucket: bucket, Key: "nope" } },
    ]);
    expect([missing!.status, missing!.error!.Code, missing!.headers.get("content-type")]).toEqual([
      404,
      "NoSuchKey",
      "application/xml",
    ]);
    expect([past!.status, past!.error!.Code, past!.headers.get("content-range")]).toEqual([
      416,
      "InvalidRange",
      "bytes */5",
    ]);
    expect([badName!.status, badName!.error!.Code]).toEqual([400, "InvalidBucketName"]);
    expect(dots!.status).toBeGreaterThanOrEqual(400);
    expect(dots!.status).toBeLessThan(500);
    expect((await env.BUCKETS.list({ prefix: bucket })).objects.map((o) => o.key)).toEqual([`${bucket}/small`]);
    expect(headMissing!.status).toBe(404);
  });
});

describe("S3 endpoint: stored checksums", () => {
  it("answers the x-amz-checksum-* an object was uploaded with on HeadObject and GetObject with ChecksumMode ENABLED", async (ctx) => {
    const bucket = unique();
    const data = bytes(70_000);
    const sha = new Sha256Js();
    sha.update(data);
    const sha256 = btoa(String.fromCharCode(...(await sha.digest())));
    const crc = { Bucket: bucket, Key: "crc.bin" };
    const [put, head, get, plain, range, putSha, headSha, putNone, headNone] = await botoAll(
      ctx,
      [
        { op: "put_object", params: { ...crc, Body: data, ChecksumAlgorithm: "CRC32" } },
        { op: "head_object", params: { ...crc, ChecksumMode: "ENABLED" } },
        { op: "get_object", params: { ...crc, ChecksumMode: "ENABLED" } }, // botocore checks the body against it
        { op: "get_object", params: crc },
        { op: "get_object", params: { ...crc, ChecksumMode: "ENABLED", Range: "bytes=0-99" } },
        // over https botocore may send the checksum as an aws-chunked trailer (by version): stored the same way
        {
          op: "put_object",
          endpoint: ENDPOINT.replace(/^http:/, "https:"),
          params: { Bucket: bucket, Key: "sha.bin", Body: data, ChecksumAlgorithm: "SHA256" },
        },
        { op: "head_object", params: { Bucket: bucket, Key: "sha.bin", ChecksumMode: "ENABLED" } },
        // an upload without a checksum header (an https presigned PUT sends none whatever the botocore version)
        { op: "put_object", params: { Bucket: bucket, Key: "none.bin" }, presign: 600 },
        { op: "head_object", params: { Bucket: bucket, Key: "none.bin", ChecksumMode: "ENABLED" } },
      ].map((c) =>
        c.presign ? { ...c, tamper: (s: SignedRequest) => ({ ...s, method: "PUT", body: btoa("no checksum") }) } : c,
      ),
    );
    const crc32 = await crc32Of(data);
    expect([put!.status, put!.result!.ChecksumCRC32]).toEqual([200, crc32]);
    expect(head!.result).toMatchObject({ ChecksumCRC32: crc32, ContentLength: 70_000 });
    expect(get!.result).toMatchObject({ ChecksumCRC32: crc32, ContentLength: 70_000 });
    expect(fromB64(get!.result!.Body as string)).toEqual(data);
    expect(plain!.headers.get("x-amz-checksum-crc32")).toBeNull(); // only when asked for, as S3
    expect([range!.status, range!.headers.get("x-amz-checksum-crc32")]).toEqual([206, null]); // not for a part of the object
    expect(putSha!.status).toBe(200);
    expect(headSha!.result).toMatchObject({ ChecksumSHA256: sha256 });
    expect(headSha!.headers.get("x-amz-checksum-crc32")).toBeNull();
    expect(putNone!.status).toBe(200);
    expect(headNone!.status).toBe(200);
    expect([...headNone!.headers.keys()].filter((h) => h.startsWith("x-amz-checksum"))).toEqual([]);
  });

  it("checks a Content-MD5 header (what SigV2 clients send): a mismatch is BadDigest and stores nothing", async (ctx) => {
    const bucket = unique();
    const [ok, bad] = await botoAll(ctx, [
      {
        op: "put_object",
        params: { Bucket: bucket, Key: "m.txt", Body: "md5 checked", ContentMD5: "hA+o2pvbsHUaMEEJ1dea/g==" },
      },
      {
        op: "put_object",
        params: { Bucket: bucket, Key: "n.txt", Body: "md5 checked", ContentMD5: "AAAAAAAAAAAAAAAAAAAAAA==" },
      },
    ]);
    expect(ok!.status).toBe(200);
    expect([bad!.status, bad!.error?.Code]).toEqual([400, "BadDigest"]);
    expect(await env.BUCKETS.head(`${bucket}/n.txt`)).toBeNull();
  });
});

describe("S3 endpoint: ListObjectsV2", () => {
  it("lists with prefix, delimiter, start-after, max-keys and continuation tokens as botocore parses them", async (ctx) => {
    const bucket = unique();
    const keys = ["a/1.tif", "a/2.tif", "a/sub/3.tif", "a/sub/4.tif", "a/x y+z.txt", "b/5.tif", "top.txt"];
    for (const k of keys) await env.BUCKETS.put(`${bucket}/${k}`, k);
    const [all, dir, after, bad, page1, v1] = await botoAll(ctx, [
      { op: "list_objects_v2", params: { Bucket: bucket } },
      { op: "list_objects_v2", params: { Bucket: bucket, Prefix: "a/", Delimiter: "/" } },
      { op: "list_objects_v2", params: { Bucket: bucket, StartAfter: "a/x y+z.txt" } },
      { op: "list_objects_v2", params: { Bucket: bucket, MaxKeys: -1 } },
      { op: "list_objects_v2", params: { Bucket: bucket, MaxKeys: 3 } },
      { op: "list_objects", params: { Bucket: bucket, Delimiter: "/", Marker: "a/", MaxKeys: 1 } },
    ]);
    expect(v1!.result).toMatchObject({
      IsTruncated: true,
      Marker: "a/",
      NextMarker: "b/",
      CommonPrefixes: [{ Prefix: "b/" }],
    });
    expect(keysOf(all!)).toEqual(keys);
    expect(all!.result).toMatchObject({ KeyCount: 7, IsTruncated: false, Name: bucket, MaxKeys: 1000 });
    expect((all!.result!.Contents as object[])[0]).toMatchObject({ Size: 7, StorageClass: "STANDARD" });
    expect(keysOf(dir!)).toEqual(["a/1.tif", "a/2.tif", "a/x y+z.txt"]);
    expect([dir!.result!.CommonPrefixes, dir!.result!.Delimiter]).toEqual([[{ Prefix: "a/sub/" }], "/"]);
    expect(keysOf(after!)).toEqual(["b/5.tif", "top.txt"]);
    expect([bad!.status, bad!.error!.Code]).toEqual([400, "InvalidArgument"]);

    const seen = keysOf(page1!);
    let token = page1!.result!.NextContinuationToken as string | undefined;
    expect([page1!.result!.IsTruncated, page1!.result!.KeyCount]).toEqual([true, 3]);
    for (let pages = 1; token && pages < 10; pages++) {
      const [page] = await botoAll(ctx, [
        { op: "list_objects_v2", params: { Bucket: bucket, MaxKeys: 3, ContinuationToken: token } },
      ]);
      expect(page!.result!.ContinuationToken).toBe(token);
      seen.push(...keysOf(page!));
      token = page!.result!.IsTruncated ? (page!.result!.NextContinuationToken as string) : undefined;
    }
    expect(seen).toEqual(keys);
  });

  it("answers the XML namespace and elements AWS documents (read as text, without botocore)", async (ctx) => {
    const bucket = unique();
    await env.BUCKETS.put(`${bucket}/k`, "v");
    const [r] = await botoAll(ctx, [{ op: "list_objects_v2", params: { Bucket: bucket } }]);
    expect(r!.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<ListBucketResult xmlns="http:\/\/s3.amazonaws.com\/doc\/2006-03-01\/">/,
    );
    expect(r!.text).toMatch(
      /<Contents><Key>k<\/Key><LastModified>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z<\/LastModified><ETag>&quot;[0-9a-f]+&quot;<\/ETag><Size>1<\/Size>/,
    );
  });
});

describe("S3 endpoint: authentication", () => {
  it("refuses wrong secrets, unknown keys, expired and future dates, tampered requests and anonymous requests", async (ctx) => {
    const bucket = unique();
    const list = { op: "list_objects_v2", params: { Bucket: bucket } };
    const inAnHour = new Date(Date.now() + 3600_000).toISOString().slice(0, 19);
    // a changed body fails its Content-MD5 / x-amz-checksum-* header first when botocore sends one (by version)
    let digestSent = false;
    const answers = await botoAll(ctx, [
      { ...list, secret: "not-the-secret" },
      { ...list, key: "AKIAUNKNOWN" },
      { ...list, time: "2020-01-01T00:00:00" },
      { ...list, time: inAnHour },
      {
        op: "get_object",
        params: { Bucket: bucket, Key: "a" },
        tamper: (s) => ({ ...s, url: s.url.replace("/a", "/b") }),
      },
      {
        op: "put_object",
        params: { Bucket: bucket, Key: "a", Body: "signed" },
        tamper: (s) => {
          digestSent = Object.keys(s.headers).some((h) => /^(content-md5|x-amz-checksum-)/i.test(h));
          return { ...s, body: btoa("evil!!") };
        },
      },
      { ...list, tamper: (s) => ({ ...s, headers: {} }) },
      { ...list, tamper: (s) => ({ ...s, headers: { ...s.headers, Authorization: "AWS4-HMAC-SHA256 nonsense" } }) },
      { ...list, tamper: (s) => ({ ...s, headers: { ...s.headers, Authorization: "AWS AKIDEXAMPLE:c2lnbmF0dXJl" } }) },
    ]);
    expect(answers.map((a) => [a.status, a.error?.Code])).toEqual([
      [403, "SignatureDoesNotMatch"],
      [403, "InvalidAccessKeyId"],
      [403, "RequestTimeTooSkewed"],
      [403, "RequestTimeTooSkewed"],
      [403, "SignatureDoesNotMatch"],
      [400, digestSent ? "BadDigest" : "XAmzContentSHA256Mismatch"],
      [403, "AccessDenied"],
      [400, "AuthorizationHeaderMalformed"],
      [403, "InvalidAccessKeyId"], // Signature Version 2 is checked too (test/s3/sigv2.test.ts): this key is unknown
    ]);
    expect(await env.BUCKETS.head(`${bucket}/a`)).toBeNull();
  });

  it("accepts presigned URLs until they expire, and checks their x-amz-checksum-crc32 header", async (ctx) => {
    const bucket = unique();
    await env.BUCKETS.put(`${bucket}/p.txt`, "presigned");
    const [fresh, expired] = await botoSign(ctx, [
      { op: "get_object", params: { Bucket: bucket, Key: "p.txt" }, presign: 600 },
      { op: "get_object", params: { Bucket: bucket, Key: "p.txt" }, presign: 60, time: "2024-06-01T00:00:00" },
    ]);
    const ok = await send(fresh!);
    expect([ok.status, await ok.text()]).toEqual([200, "presigned"]);
    const [putUrl] = await botoSign(ctx, [
      { op: "put_object", params: { Bucket: bucket, Key: "up.txt" }, presign: 600 },
    ]);
    const put = await call(putUrl!.url, { method: "PUT", body: "uploaded with a presigned URL" });
    expect(put.status).toBe(200);
    expect(await (await env.BUCKETS.get(`${bucket}/up.txt`))!.text()).toBe("uploaded with a presigned URL");
    // a presigned (unsigned) payload with a checksum header: the checksum is checked (AAAAAA== is the CRC32 of no bytes)
    const wrong = await call(putUrl!.url, {
      method: "PUT",
      headers: { "x-amz-checksum-crc32": "AAAAAA==" },
      body: "replaced",
    });
    expect([wrong.status, /<Code>(\w+)<\/Code>/.exec(await wrong.text())?.[1]]).toEqual([400, "BadDigest"]);
    expect(await (await env.BUCKETS.get(`${bucket}/up.txt`))!.text()).toBe("uploaded with a presigned URL");
    const late = await send(expired!);
    expect(late.status).toBe(403);
    expect(await late.text()).toContain("<Code>AccessDenied</Code><Message>Request has expired");
  });
});

describe("S3 endpoint: multipart uploads", () => {
  it("creates, uploads parts, completes (object = parts in order) and aborts; unknown upload ids are NoSuchUpload", {
    timeout: 120_000,
  }, async (ctx) => {
    const bucket = unique();
    const at = { Bucket: bucket, Key: "big/object.bin" };
    const [created] = await botoAll(ctx, [
      { op: "create_multipart_upload", params: { ...at, ContentType: "application/x-big" } },
    ]);
    const UploadId = created!.result!.UploadId as string;
    expect(created!.result).toMatchObject({ Bucket: bucket, Key: "big/object.bin" });
    const part1 = bytes(5 * 1024 * 1024),
      part2 = bytes(1000).reverse();
    const [small, p2, unknown] = await botoAll(ctx, [
      { op: "upload_part", params: { ...at, UploadId, PartNumber: 1, Body: part2 } },
      { op: "upload_part", params: { ...at, UploadId, PartNumber: 2, Body: part2 } },
      { op: "upload_part", params: { ...at, UploadId: "no-such-upload", PartNumber: 1, Body: "x" } },
    ]);
    expect([small!.status, p2!.status]).toEqual([200, 200]);
    expect([unknown!.status, unknown!.error!.Code]).toEqual([404, "NoSuchUpload"]);
    const [tooSmall] = await botoAll(ctx, [
      {
        op: "complete_multipart_upload",
        params: {
          ...at,
          UploadId,
          MultipartUpload: {
            Parts: [
              { PartNumber: 1, ETag: small!.result!.ETag },
              { PartNumber: 2, ETag: p2!.result!.ETag },
            ],
          },
        },
      },
    ]);
    expect([tooSmall!.status, tooSmall!.error!.Code]).toEqual([400, "EntityTooSmall"]);
    const [p1] = await botoAll(ctx, [{ op: "upload_part", params: { ...at, UploadId, PartNumber: 1, Body: part1 } }]);
    const Parts = [
      { PartNumber: 1, ETag: p1!.result!.ETag },
      { PartNumber: 2, ETag: p2!.result!.ETag },
    ];
    const [done] = await botoAll(ctx, [
      { op: "complete_multipart_upload", params: { ...at, UploadId, MultipartUpload: { Parts } } },
    ]);
    expect(done!.status).toBe(200);
    const stored = await env.BUCKETS.get(`${bucket}/big/object.bin`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(new Uint8Array([...part1, ...part2]));
    expect([done!.result!.ETag, stored!.httpMetadata?.contentType]).toEqual([`"${stored!.etag}"`, "application/x-big"]);

    const [other] = await botoAll(ctx, [{ op: "create_multipart_upload", params: { Bucket: bucket, Key: "aborted" } }]);
    const [aborted] = await botoAll(ctx, [
      { op: "abort_multipart_upload", params: { Bucket: bucket, Key: "aborted", UploadId: other!.result!.UploadId } },
    ]);
    expect(aborted!.status).toBe(204);
    expect(await env.BUCKETS.head(`${bucket}/aborted`)).toBeNull();
  });
});

describe("S3 endpoint: aws-chunked uploads (botocore over HTTPS)", () => {
  // Which body botocore sends over https depends on its version; the aws-chunked forms themselves are tested with
  // explicitly built requests in chunked.test.ts. Here: whatever botocore sends is stored exactly, and when it is an
  // aws-chunked body with a CRC32 trailer, a corrupted trailer is refused.
  it("stores what botocore sends for put_object with ChecksumAlgorithm CRC32; a corrupted CRC32 trailer is BadDigest", async (ctx) => {
    const bucket = unique();
    const data = bytes(70_000);
    const put = {
      op: "put_object",
      endpoint: ENDPOINT.replace(/^http:/, "https:"),
      params: { Bucket: bucket, Key: "c.bin", Body: data, ChecksumAlgorithm: "CRC32" },
    };
    const [signed] = await botoSign(ctx, [put]);
    const sent = new Headers(signed!.headers);
    const trailer =
      sent.get("x-amz-content-sha256") === "STREAMING-UNSIGNED-PAYLOAD-TRAILER" &&
      /crc32:[^\r]+\r\n/.test(atob(signed!.body));
    const [ok, corrupt] = await botoAll(ctx, [
      put,
      {
        ...put,
        params: { ...put.params, Key: "bad.bin" },
        tamper: (s) => ({ ...s, body: btoa(atob(s.body).replace(/crc32:[^\r]+/, "crc32:AAAAAA==")) }),
      },
    ]);
    expect(ok!.status).toBe(200);
    expect(new Uint8Array(await (await env.BUCKETS.get(`${bucket}/c.bin`))!.arrayBuffer())).toEqual(data);
    if (!trailer) return;
    expect([corrupt!.status, corrupt!.error!.Code]).toEqual([400, "BadDigest"]);
    expect(await env.BUCKETS.head(`${bucket}/bad.bin`)).toBeNull();
  });
});

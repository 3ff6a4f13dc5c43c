/**
 * Signature Version 2 on the S3 endpoint (src/s3/sigv2.ts): AWS's published examples (Amazon S3 API reference,
 * "Signing and authenticating REST requests (AWS signature version 2)", secret
 * wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY), and what boto3 sends with `signature_version='s3'`, the default of
 * `generate_presigned_url` and aws cli v1's `s3 presign` for a custom endpoint: presigned GET/PUT URLs and
 * header-signed requests (botocore's HmacV1Auth / HmacV1QueryAuth via test/services/py_s3.py), under /s3 and at the root
 * of an S3 address.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { verifySignature } from "../../src/s3/auth";
import { hmacSha1Base64, stringToSignV2 } from "../../src/s3/sigv2";
import { call } from "../helpers/auth";
import { ENDPOINT, botoAll, botoSign, send } from "../helpers/s3";

const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const AKID = "AKIAIOSFODNN7EXAMPLE";
const unique = () => `v2-${crypto.randomUUID().slice(0, 8)}`;
/** A root S3 address (S3_HOSTS is 127.0.0.2 in vitest.config.ts): the endpoint URL boto3 gets there. */
const ROOT = "http://127.0.0.2:9000";

/** AWS's examples as path-style requests (the resource is the same: /<bucket>/<key>), with their string to sign and signature. */
const EXAMPLES: {
  name: string;
  request: Request;
  presigned?: boolean;
  date: string;
  stringToSign: string;
  signature: string;
}[] = [
  {
    name: "Object GET",
    request: new Request("https://s3.us-west-1.amazonaws.com/awsexamplebucket1/photos/puppy.jpg", {
      headers: { date: "Tue, 27 Mar 2007 19:36:42 +0000" },
    }),
    date: "Tue, 27 Mar 2007 19:36:42 +0000",
    stringToSign: "GET\n\n\nTue, 27 Mar 2007 19:36:42 +0000\n/awsexamplebucket1/photos/puppy.jpg",
    signature: "qgk2+6Sv9/oM7G3qLEjTH1a1l1g=",
  },
  {
    name: "Object PUT",
    request: new Request("https://s3.us-west-1.amazonaws.com/awsexamplebucket1/photos/puppy.jpg", {
      method: "PUT",
      headers: { "content-type": "image/jpeg", "content-length": "94328", date: "Tue, 27 Mar 2007 21:15:45 +0000" },
    }),
    date: "Tue, 27 Mar 2007 21:15:45 +0000",
    stringToSign: "PUT\n\nimage/jpeg\nTue, 27 Mar 2007 21:15:45 +0000\n/awsexamplebucket1/photos/puppy.jpg",
    signature: "iqRzw+ileNPu1fhspnRs8nOjjIA=",
  },
  {
    name: "List (query parameters are not sub-resources)",
    request: new Request(
      "https://s3.us-west-1.amazonaws.com/awsexamplebucket1/?prefix=photos&max-keys=50&marker=puppy",
      { headers: { date: "Tue, 27 Mar 2007 19:42:41 +0000" } },
    ),
    date: "Tue, 27 Mar 2007 19:42:41 +0000",
    stringToSign: "GET\n\n\nTue, 27 Mar 2007 19:42:41 +0000\n/awsexamplebucket1/",
    signature: "m0WP8eCtspQl5Ahe6L1SozdX9YA=",
  },
  {
    name: "Fetch (a sub-resource)",
    request: new Request("https://s3.us-west-1.amazonaws.com/awsexamplebucket1/?acl", {
      headers: { date: "Tue, 27 Mar 2007 19:44:46 +0000" },
    }),
    date: "Tue, 27 Mar 2007 19:44:46 +0000",
    stringToSign: "GET\n\n\nTue, 27 Mar 2007 19:44:46 +0000\n/awsexamplebucket1/?acl",
    signature: "82ZHiFIjc+WbcwFKGUVEQspPn+0=",
  },
  {
    // the two X-Amz-Meta-ReviewedBy headers of the example sent as one, joined by "," as AWS signs them
    name: "Upload (x-amz-* headers)",
    request: new Request("https://s3.us-west-1.amazonaws.com/static.awsexamplebucket1.net/db-backup.dat.gz", {
      method: "PUT",
      headers: {
        date: "Tue, 27 Mar 2007 21:06:08 +0000",
        "x-amz-acl": "public-read",
        "content-type": "application/x-download",
        "Content-MD5": "4gJE4saaMU4BqNR0kLY+lw==",
        "X-Amz-Meta-ReviewedBy": "joe@awsexamplebucket1.net,jane@awsexamplebucket1.net",
        "X-Amz-Meta-FileChecksum": "0x02661779",
        "X-Amz-Meta-ChecksumAlgorithm": "crc32",
        "Content-Disposition": "attachment; filename=database.dat",
        "Content-Encoding": "gzip",
      },
    }),
    date: "Tue, 27 Mar 2007 21:06:08 +0000",
    stringToSign:
      "PUT\n4gJE4saaMU4BqNR0kLY+lw==\napplication/x-download\nTue, 27 Mar 2007 21:06:08 +0000\nx-amz-acl:public-read\nx-amz-meta-checksumalgorithm:crc32\n" +
      "x-amz-meta-filechecksum:0x02661779\nx-amz-meta-reviewedby:joe@awsexamplebucket1.net,jane@awsexamplebucket1.net\n/static.awsexamplebucket1.net/db-backup.dat.gz",
    signature: "dKZcB+bz2EPXgSdXZp9ozGeOM4I=",
  },
  {
    name: "Unicode keys (the path as sent, percent-encoding and case kept)",
    request: new Request("https://s3.us-west-1.amazonaws.com/dictionary/fran%C3%A7ais/pr%c3%a9f%c3%a8re", {
      headers: { date: "Wed, 28 Mar 2007 01:49:49 +0000" },
    }),
    date: "Wed, 28 Mar 2007 01:49:49 +0000",
    stringToSign: "GET\n\n\nWed, 28 Mar 2007 01:49:49 +0000\n/dictionary/fran%C3%A7ais/pr%c3%a9f%c3%a8re",
    signature: "DNEZGsoieTZ92F3bUfSPQcbGmlM=",
  },
  {
    // the published signature is of the bucket `johnsmith` (the example's older text); the resource is the same form
    name: "Query string request authentication",
    request: new Request(
      `https://s3.amazonaws.com/johnsmith/photos/puppy.jpg?AWSAccessKeyId=${AKID}&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D&Expires=1175139620`,
    ),
    presigned: true,
    date: "1175139620",
    stringToSign: "GET\n\n\n1175139620\n/johnsmith/photos/puppy.jpg",
    signature: "NpgCjnDzrM+WFzoENXmpNDUsSn8=",
  },
];

describe("Signature Version 2: AWS's examples", () => {
  it.each(EXAMPLES)("$name: string to sign and signature", async (e) => {
    const text = stringToSignV2(e.request, e.presigned ?? false, e.date);
    expect(text).toBe(e.stringToSign);
    expect(await hmacSha1Base64(SECRET, text)).toBe(e.signature);
  });

  it("verifies the examples as signed requests, within 15 minutes of their Date or until their Expires", async () => {
    const keyOf = async (id: string) => (id === AKID ? { accessKeyId: AKID, secretAccessKey: SECRET } : null);
    const signed = (e: (typeof EXAMPLES)[number]) => {
      if (e.presigned) return e.request;
      const headers = new Headers(e.request.headers);
      headers.set("authorization", `AWS ${AKID}:${e.signature}`);
      return new Request(e.request, { headers });
    };
    for (const e of EXAMPLES.filter((x) => !x.presigned)) {
      const at = Date.parse(e.date);
      await expect(verifySignature(signed(e), keyOf, at + 60_000), e.name).resolves.toMatchObject({
        s: { accessKeyId: AKID, sigv2: true, presigned: false },
      });
      await expect(verifySignature(signed(e), keyOf, at + 16 * 60_000)).rejects.toMatchObject({
        status: 403,
        code: "RequestTimeTooSkewed",
      });
    }
    const query = EXAMPLES.find((x) => x.presigned)!;
    await expect(verifySignature(query.request, keyOf, 1175139620_000)).resolves.toMatchObject({
      s: { presigned: true, sigv2: true, payload: "UNSIGNED-PAYLOAD" },
    });
    await expect(verifySignature(query.request, keyOf, 1175139621_000)).rejects.toMatchObject({
      status: 403,
      code: "AccessDenied",
    });
    const tampered = new Request(query.request.url.replace("puppy", "kitten"));
    await expect(verifySignature(tampered, keyOf, 1175139000_000)).rejects.toMatchObject({
      status: 403,
      code: "SignatureDoesNotMatch",
      fields: { StringToSign: "GET\n\n\n1175139620\n/johnsmith/photos/kitten.jpg" },
    });
    const wrongSecret = async (id: string) => ({ accessKeyId: id, secretAccessKey: "not-the-secret" });
    await expect(verifySignature(query.request, wrongSecret, 1175139000_000)).rejects.toMatchObject({
      code: "SignatureDoesNotMatch",
    });
    await expect(
      verifySignature(
        new Request("https://s3.amazonaws.com/b/k", { headers: { authorization: "AWS nocolon" } }),
        keyOf,
        0,
      ),
    ).rejects.toMatchObject({ status: 400, code: "AuthorizationHeaderMalformed" });
  });
});

describe("Signature Version 2: boto3 with signature_version='s3'", () => {
  it("accepts presigned GET and PUT URLs (AWSAccessKeyId, Expires, Signature) until they expire", async (ctx) => {
    for (const endpoint of [ENDPOINT, ROOT]) {
      const bucket = unique();
      await env.BUCKETS.put(`${bucket}/in/p.txt`, "presigned with SigV2");
      const [get, put, expired] = await botoSign(ctx, [
        {
          op: "get_object",
          params: { Bucket: bucket, Key: "in/p.txt" },
          presign: 600,
          signatureVersion: "s3",
          endpoint,
        },
        {
          op: "put_object",
          params: { Bucket: bucket, Key: "out/u.bin" },
          presign: 600,
          signatureVersion: "s3",
          endpoint,
        },
        {
          op: "get_object",
          params: { Bucket: bucket, Key: "in/p.txt" },
          presign: 60,
          signatureVersion: "s3",
          endpoint,
          time: "2024-06-01T00:00:00",
        },
      ]);
      expect(
        new URL(get!.url).searchParams.has("AWSAccessKeyId") && new URL(get!.url).searchParams.has("Expires"),
      ).toBe(true);
      const ok = await send(get!);
      expect([ok.status, await ok.text()], endpoint).toEqual([200, "presigned with SigV2"]);
      const body = new Uint8Array([0, 1, 2, 250, 255]);
      const stored = await call(put!.url, { method: "PUT", body });
      expect(stored.status, await stored.clone().text()).toBe(200);
      expect(new Uint8Array(await (await env.BUCKETS.get(`${bucket}/out/u.bin`))!.arrayBuffer())).toEqual(body);
      // a Content-Type the URL was not signed with changes the string to sign (S3's answer too)
      const typed = await call(put!.url, { method: "PUT", headers: { "content-type": "text/plain" }, body });
      expect([typed.status, /<Code>(\w+)<\/Code>/.exec(await typed.text())?.[1]]).toEqual([
        403,
        "SignatureDoesNotMatch",
      ]);
      const late = await send(expired!);
      expect([late.status, /<Code>(\w+)<\/Code>/.exec(await late.text())?.[1]]).toEqual([403, "AccessDenied"]);
    }
  });

  it("accepts header-signed requests (Authorization: AWS key:signature) and refuses tampered ones", async (ctx) => {
    const bucket = unique();
    const v2 = { signatureVersion: "s3" as const, endpoint: ROOT };
    const answers = await botoAll(ctx, [
      {
        ...v2,
        op: "put_object",
        params: { Bucket: bucket, Key: "dir/a b.txt", Body: "signed with HmacV1", ContentType: "text/plain" },
      },
      { ...v2, op: "list_objects_v2", params: { Bucket: bucket, Prefix: "dir/" } },
      { ...v2, op: "get_object", params: { Bucket: bucket, Key: "dir/a b.txt" } },
      {
        ...v2,
        op: "get_object",
        params: { Bucket: bucket, Key: "dir/a b.txt" },
        tamper: (s) => ({ ...s, url: s.url.replace("a%20b", "b%20a") }),
      },
      { ...v2, op: "get_object", params: { Bucket: bucket, Key: "dir/a b.txt" }, secret: "not-the-secret" },
      // under /s3: botocore signs ListObjects as /<bucket>/ and ListBuckets with the endpoint's path
      { ...v2, op: "list_objects", params: { Bucket: bucket }, endpoint: ENDPOINT },
      { ...v2, op: "list_buckets", endpoint: ENDPOINT },
      { ...v2, op: "delete_object", params: { Bucket: bucket, Key: "dir/a b.txt" }, endpoint: ENDPOINT },
    ]);
    expect(answers.map((a) => [a.status, a.error?.Code])).toEqual([
      [200, undefined],
      [200, undefined],
      [200, undefined],
      [403, "SignatureDoesNotMatch"],
      [403, "SignatureDoesNotMatch"],
      [200, undefined],
      [200, undefined],
      [204, undefined],
    ]);
    expect((answers[5]!.result!.Contents as { Key: string }[]).map((c) => c.Key)).toEqual(["dir/a b.txt"]);
    expect((answers[6]!.result!.Buckets as { Name: string }[]).map((b) => b.Name)).toContain(bucket);
    expect((answers[1]!.result!.Contents as { Key: string }[]).map((c) => c.Key)).toEqual(["dir/a b.txt"]);
    expect(answers[2]!.result).toMatchObject({ ContentType: "text/plain", Body: btoa("signed with HmacV1") });
    expect(answers[3]!.text).toContain(`<StringToSign>GET\n\n\n`);
    expect(await env.BUCKETS.head(`${bucket}/dir/a b.txt`)).toBeNull();
  });
});

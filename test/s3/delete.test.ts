/**
 * S3 DeleteObjects (POST /<bucket>?delete) and DeleteBucket as boto3 calls them: requests signed and answers parsed by botocore (test/services/py_s3.py); bodies without a checksum signed by
 * the AWS SDK's signer. Another account: test/tenancy/s3.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call } from "../helpers/auth";
import { ENDPOINT, botoAll, sdkSigner } from "../helpers/s3";

const unique = () => `d-${crypto.randomUUID().slice(0, 8)}`;
const objects = (keys: string[]) => ({ Objects: keys.map((Key) => ({ Key })) });
const stored = async (bucket: string) =>
  (await env.BUCKETS.list({ prefix: `${bucket}/` })).objects.map((o) => o.key.slice(bucket.length + 1)).sort();

/** A POST ?delete of `xml` signed by the AWS SDK's signer, with `headers` (no checksum unless given). */
async function rawDelete(bucket: string, xml: string, headers: Record<string, string> = {}): Promise<Response> {
  const url = new URL(`${ENDPOINT}/${bucket}`);
  const body = new TextEncoder().encode(xml);
  const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", body))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const signed = await sdkSigner().sign({
    method: "POST",
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query: { delete: "" },
    headers: { host: url.host, "x-amz-content-sha256": hash, "content-type": "application/xml", ...headers },
    body,
  });
  return call(`${url.href}?delete=`, { method: "POST", headers: signed.headers, body });
}

const md5 = async (s: string) =>
  btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("MD5", new TextEncoder().encode(s)))));

describe("DeleteObjects", () => {
  it("deletes the keys listed (a missing key counts as deleted, as S3); Quiet lists only errors", async (ctx) => {
    const bucket = unique();
    for (const k of ["a.txt", "dir/b.txt", "dir/c.txt", "keep.txt"]) await env.BUCKETS.put(`${bucket}/${k}`, k);
    const [made, del, quiet] = await botoAll(ctx, [
      { op: "create_bucket", params: { Bucket: bucket } },
      { op: "delete_objects", params: { Bucket: bucket, Delete: objects(["a.txt", "dir/b.txt", "never-was.txt"]) } },
      { op: "delete_objects", params: { Bucket: bucket, Delete: { ...objects(["dir/c.txt"]), Quiet: true } } },
    ]);
    expect(made!.status).toBe(200);
    expect(del!.status, del!.text).toBe(200);
    expect((del!.result!.Deleted as { Key: string }[]).map((d) => d.Key).sort()).toEqual([
      "a.txt",
      "dir/b.txt",
      "never-was.txt",
    ]);
    expect(del!.result!.Errors).toBeUndefined();
    expect(quiet!.status).toBe(200);
    expect([quiet!.result!.Deleted, quiet!.result!.Errors]).toEqual([undefined, undefined]);
    expect(await stored(bucket)).toEqual(["keep.txt"]);
  });

  it("names per-key errors (a '..' key, a version id) and deletes the others", async (ctx) => {
    const bucket = unique();
    await env.BUCKETS.put(`${bucket}/ok.txt`, "x");
    const [del] = await botoAll(ctx, [
      {
        op: "delete_objects",
        params: {
          Bucket: bucket,
          Delete: {
            Objects: [{ Key: "ok.txt" }, { Key: "a/../escape" }, { Key: "v.txt", VersionId: "3HL4kqtJlcpXroDTDmJ" }],
          },
        },
      },
    ]);
    expect(del!.status, del!.text).toBe(200);
    expect(del!.result!.Deleted).toEqual([{ Key: "ok.txt" }]);
    const errors = del!.result!.Errors as { Key: string; Code: string; Message: string }[];
    expect(errors.map((e) => [e.Key, e.Code])).toEqual([
      ["a/../escape", "InvalidArgument"],
      ["v.txt", "NoSuchVersion"],
    ]);
    expect(await stored(bucket)).toEqual([]);
  });

  it("needs Content-MD5 or an x-amz-checksum-* header that matches, a well-formed body of at most 1000 keys", async () => {
    const bucket = unique();
    await env.BUCKETS.put(`${bucket}/x`, "x");
    const xml = "<Delete><Object><Key>x</Key></Object></Delete>";
    const none = await rawDelete(bucket, xml);
    expect([none.status, await none.text()]).toEqual([
      400,
      expect.stringMatching(/<Code>InvalidRequest<\/Code>.*Content-MD5/s),
    ]);
    const wrong = await rawDelete(bucket, xml, { "content-md5": await md5("other") });
    expect([wrong.status, await wrong.text()]).toEqual([400, expect.stringMatching(/<Code>BadDigest<\/Code>/)]);
    expect(await stored(bucket)).toEqual(["x"]);
    for (const bad of [
      "<Delete><Object><Key>x</Key></Object>",
      "<Delete></Delete>",
      "<Other/>",
      `<Delete>${"<Object><Key>k</Key></Object>".repeat(1001)}</Delete>`,
    ]) {
      const r = await rawDelete(bucket, bad, { "content-md5": await md5(bad) });
      expect([r.status, await r.text()]).toEqual([400, expect.stringMatching(/<Code>MalformedXML<\/Code>/)]);
    }
    const ok = await rawDelete(bucket, xml, { "content-md5": await md5(xml) });
    expect([ok.status, await ok.text()]).toEqual([
      200,
      expect.stringMatching(
        /<DeleteResult xmlns="http:\/\/s3.amazonaws.com\/doc\/2006-03-01\/"><Deleted><Key>x<\/Key><\/Deleted><\/DeleteResult>/,
      ),
    ]);
    expect(await stored(bucket)).toEqual([]);
  });
});

describe("DeleteBucket", () => {
  it("409 BucketNotEmpty while it holds objects; 204 once empty, then gone from ListBuckets and free to create again", async (ctx) => {
    const bucket = unique();
    const [made, put, full] = await botoAll(ctx, [
      { op: "create_bucket", params: { Bucket: bucket } },
      { op: "put_object", params: { Bucket: bucket, Key: "k", Body: "v" } },
      { op: "delete_bucket", params: { Bucket: bucket } },
    ]);
    expect([made!.status, put!.status]).toEqual([200, 200]);
    expect([full!.status, full!.error!.Code]).toEqual([409, "BucketNotEmpty"]);
    const [emptied, gone, list, again] = await botoAll(ctx, [
      { op: "delete_objects", params: { Bucket: bucket, Delete: objects(["k"]) } },
      { op: "delete_bucket", params: { Bucket: bucket } },
      { op: "list_buckets" },
      { op: "create_bucket", params: { Bucket: bucket } },
    ]);
    expect([emptied!.status, gone!.status]).toEqual([200, 204]);
    expect((list!.result!.Buckets as { Name: string }[]).map((b) => b.Name)).not.toContain(bucket);
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM bucket_owners WHERE bucket = ?").bind(bucket).first("n"),
    ).toBe(1);
    expect(again!.status).toBe(200);
  });

  it("a bucket nobody owns is NoSuchBucket (404)", async (ctx) => {
    const [r] = await botoAll(ctx, [{ op: "delete_bucket", params: { Bucket: unique() } }]);
    expect([r!.status, r!.error!.Code]).toEqual([404, "NoSuchBucket"]);
  });
});

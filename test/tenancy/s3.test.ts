/**
 * Tenancy, the S3 endpoint ("one global key pair, and ListBuckets shows every tenant's buckets"): keys
 * are per account, made and deleted through the accounts API (the secret shown once); ListBuckets lists the
 * signer's own buckets; every operation on another account's bucket is AccessDenied, the same for existing and
 * missing keys, with none of the object's bytes; CreateBucket of a taken name is BucketAlreadyExists; the owner
 * grants and revokes other accounts with a bucket policy. Requests signed and answers parsed by botocore
 * (test/helpers/s3.ts); skipped with the reason when python3-boto3 is missing.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, type TestContext } from "vitest";
import { authed, envelope } from "../helpers/auth";
import { newAccount, tokenOf } from "../helpers/accounts";
import { botoAll, fromB64, type BotoAnswer, type BotoCall } from "../helpers/s3";
import { jsonInit } from "../helpers/wms";
import { grantPolicy, refused } from "./helpers";

const KEYS_PATH = "/api/v1/accounts/me/s3keys";
const A_BUCKET = "tenant-a-s3";
const SECRET_TEXT = "A's private object";

/** An account with a token and one S3 key made through the accounts API. */
interface S3Tenant {
  account: string;
  bearer: string;
  key: string;
  secret: string;
}

async function s3Tenant(): Promise<S3Tenant> {
  const a = await newAccount();
  const bearer = await tokenOf(a.client);
  const r = await authed(KEYS_PATH, { method: "POST" }, bearer);
  expect(r.status).toBe(201);
  expect(r.headers.get("cache-control")).toBe("no-store");
  const made = (await r.json()) as { accessKeyId: string; secretAccessKey: string };
  return { account: a.account, bearer, key: made.accessKeyId, secret: made.secretAccessKey };
}

/** The calls signed with `t`'s key. */
const as = (ctx: TestContext, t: S3Tenant, calls: BotoCall[]): Promise<BotoAnswer[]> =>
  botoAll(
    ctx,
    calls.map((c) => ({ ...c, key: t.key, secret: t.secret })),
  );

let a: S3Tenant;
let b: S3Tenant;

beforeAll(async () => {
  [a, b] = await Promise.all([s3Tenant(), s3Tenant()]);
});

describe("keys per account", () => {
  it("lists the account's keys without secrets; a deleted key signs nothing; another account's keys are 404", async (ctx) => {
    const extra = (await (await authed(KEYS_PATH, { method: "POST" }, a.bearer)).json()) as {
      accessKeyId: string;
      secretAccessKey: string;
    };
    const list = await authed(`/api/v1/accounts/${a.account}/s3keys`, {}, a.bearer);
    const text = await list.text();
    expect(
      JSON.parse(text)
        .data.map((k: { accessKeyId: string }) => k.accessKeyId)
        .sort(),
    ).toEqual([a.key, extra.accessKeyId].sort());
    expect(text).not.toContain(a.secret);
    expect(text).not.toContain(extra.secretAccessKey);
    expect((await authed(`/api/v1/accounts/${a.account}/s3keys`, {}, b.bearer)).status).toBe(404);
    expect((await authed(`${KEYS_PATH}/${extra.accessKeyId}`, { method: "DELETE" }, b.bearer)).status).toBe(404);
    const extraKey = { ...a, key: extra.accessKeyId, secret: extra.secretAccessKey };
    expect((await as(ctx, extraKey, [{ op: "list_buckets" }]))[0]!.status).toBe(200);
    expect((await authed(`${KEYS_PATH}/${extra.accessKeyId}`, { method: "DELETE" }, a.bearer)).status).toBe(204);
    const [gone] = await as(ctx, extraKey, [{ op: "list_buckets" }]);
    expect([gone!.status, gone!.error!.Code]).toEqual([403, "InvalidAccessKeyId"]);
  });

  it("an account holds at most 10 keys (400 naming the limit)", async () => {
    const t = await newAccount();
    const bearer = await tokenOf(t.client);
    for (let i = 0; i < 10; i++) expect((await authed(KEYS_PATH, { method: "POST" }, bearer)).status).toBe(201);
    const over = await authed(KEYS_PATH, { method: "POST" }, bearer);
    expect(over.status).toBe(400);
    expect((await envelope(over)).message).toMatch(/10 S3 keys/);
  });
});

describe("buckets per account", () => {
  beforeAll(async () => {
    await env.BUCKETS.put(`${A_BUCKET}/private/a.txt`, SECRET_TEXT);
  });

  it("ListBuckets lists only the signer's buckets; a taken name is BucketAlreadyExists", async (ctx) => {
    const [put, made, taken, mine] = await botoAll(ctx, [
      {
        op: "put_object",
        params: { Bucket: A_BUCKET, Key: "private/b.txt", Body: "A's second" },
        key: a.key,
        secret: a.secret,
      },
      { op: "create_bucket", params: { Bucket: "tenant-a-made" }, key: a.key, secret: a.secret },
      { op: "create_bucket", params: { Bucket: "tenant-a-made" }, key: b.key, secret: b.secret },
      { op: "create_bucket", params: { Bucket: "tenant-b-made" }, key: b.key, secret: b.secret },
    ]);
    expect([put!.status, made!.status, mine!.status]).toEqual([200, 200, 200]);
    expect([taken!.status, taken!.error!.Code]).toEqual([409, "BucketAlreadyExists"]);
    const [listA, listB] = await botoAll(ctx, [
      { op: "list_buckets", key: a.key, secret: a.secret },
      { op: "list_buckets", key: b.key, secret: b.secret },
    ]);
    const names = (r: BotoAnswer) => (r.result!.Buckets as { Name: string }[]).map((x) => x.Name);
    expect(names(listA!)).toEqual(["tenant-a-made", A_BUCKET]);
    expect(names(listB!)).toEqual(["tenant-b-made"]);
    expect((listA!.result!.Owner as { ID: string }).ID).toBe(a.account);
  });

  it("B gets AccessDenied for every operation on A's bucket, the same for existing and missing keys; A's objects stay", async (ctx) => {
    const before = (await env.BUCKETS.head(`${A_BUCKET}/private/a.txt`))!.etag;
    const on = (op: string, params: Record<string, unknown> = {}) => ({ op, params: { Bucket: A_BUCKET, ...params } });
    const answers = await as(ctx, b, [
      on("get_object", { Key: "private/a.txt" }),
      on("get_object", { Key: "private/no-such.txt" }),
      on("get_object", { Key: "private/a.txt", Range: "bytes=0-9" }),
      on("list_objects_v2", { Prefix: "private/" }),
      on("put_object", { Key: "private/a.txt", Body: "B was here" }),
      on("delete_object", { Key: "private/a.txt" }),
      on("delete_objects", { Delete: { Objects: [{ Key: "private/a.txt" }] } }),
      on("delete_bucket"),
      on("create_multipart_upload", { Key: "private/a.txt" }),
      on("get_bucket_policy"),
      on("put_bucket_policy", { Policy: grantPolicy(A_BUCKET, [b.account]) }),
    ]);
    for (const r of answers) {
      expect([r.status, r.error?.Code], r.text).toEqual([403, "AccessDenied"]);
      expect(r.text).not.toContain(SECRET_TEXT);
    }
    expect(new Set(answers.map((r) => r.error!.Message)).size).toBe(1);
    const [head] = await as(ctx, b, [on("head_object", { Key: "private/a.txt" })]);
    expect(head!.status).toBe(403);
    expect((await env.BUCKETS.head(`${A_BUCKET}/private/a.txt`))!.etag).toBe(before);
    expect(await (await env.BUCKETS.get(`${A_BUCKET}/private/a.txt`))!.text()).toBe(SECRET_TEXT);
  });

  it("A's bucket policy grants B the bucket (read and write) until A deletes it; only A sees the policy", async (ctx) => {
    const bucket = "tenant-a-granted";
    const text = grantPolicy(bucket, [`arn:aws:iam::${b.account}:root`]);
    const [none, put, got] = await as(ctx, a, [
      { op: "get_bucket_policy", params: { Bucket: bucket } },
      { op: "put_bucket_policy", params: { Bucket: bucket, Policy: text } },
      { op: "get_bucket_policy", params: { Bucket: bucket } },
    ]);
    expect([none!.status, none!.error!.Code]).toEqual([404, "NoSuchBucketPolicy"]);
    expect(put!.status).toBe(204);
    expect(JSON.parse(got!.result!.Policy as string)).toEqual(JSON.parse(text));
    await env.BUCKETS.put(`${bucket}/shared.txt`, "shared with B");
    const [read, write, theirs, drop] = await as(ctx, b, [
      { op: "get_object", params: { Bucket: bucket, Key: "shared.txt" } },
      { op: "put_object", params: { Bucket: bucket, Key: "from-b.txt", Body: "B's answer" } },
      { op: "get_bucket_policy", params: { Bucket: bucket } },
      { op: "delete_bucket", params: { Bucket: bucket } },
    ]);
    expect(new TextDecoder().decode(fromB64(read!.result!.Body as string))).toBe("shared with B");
    expect(write!.status).toBe(200);
    expect([theirs!.status, theirs!.error?.Code]).toEqual([403, "AccessDenied"]);
    expect([drop!.status, drop!.error?.Code]).toEqual([403, "AccessDenied"]); // only the owner deletes a bucket
    const [deleted] = await as(ctx, a, [{ op: "delete_bucket_policy", params: { Bucket: bucket } }]);
    expect(deleted!.status).toBe(204);
    const [after] = await as(ctx, b, [{ op: "get_object", params: { Bucket: bucket, Key: "shared.txt" } }]);
    expect([after!.status, after!.error?.Code]).toEqual([403, "AccessDenied"]);
  });

  it("refuses policies it would read as more or other than they say (MalformedPolicy)", async (ctx) => {
    const bucket = "tenant-a-policies";
    const bad = [
      grantPolicy(bucket, [b.account], { Effect: "Deny" }),
      grantPolicy(bucket, [b.account], { Action: "s3:GetObject" }),
      grantPolicy(bucket, [b.account], { Resource: `arn:aws:s3:::${bucket}/prefix/*` }),
      grantPolicy(bucket, ["*"]),
      grantPolicy(bucket, [b.account], { Condition: { IpAddress: { "aws:SourceIp": "10.0.0.0/8" } } }),
      "not json",
    ];
    const answers = await as(
      ctx,
      a,
      bad.map((Policy) => ({ op: "put_bucket_policy", params: { Bucket: bucket, Policy } })),
    );
    expect(answers.map((r) => [r.status, r.error?.Code])).toEqual(bad.map(() => [400, "MalformedPolicy"]));
  });
});

describe("descriptors with keys", () => {
  it("B cannot act as A by giving A's keys in a descriptor: 403 without the keys echoed", async () => {
    const body = {
      input: { bounds: { bbox: [0, 0, 1, 1] }, data: [{ type: "sentinel-2-l2a" }] },
      output: {
        width: 8,
        height: 8,
        delivery: { s3: { url: `s3://${A_BUCKET}/from-b`, accessKey: a.key, secretAccessKey: a.secret } },
      },
      evalscript:
        "//VERSION=3\nfunction setup(){return {input:['B04'],output:{bands:1}}}\nfunction evaluatePixel(s){return [s.B04]}",
    };
    await refused(await authed("/api/v1/async/process", jsonInit("POST", body), b.bearer), [a.secret, a.key]);
    expect((await env.BUCKETS.list({ prefix: `${A_BUCKET}/from-b` })).objects).toEqual([]);
  });
});

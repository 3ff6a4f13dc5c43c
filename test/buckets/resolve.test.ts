/**
 * Bucket descriptors -> object stores (src/buckets) for an account: local buckets in BUCKETS, R2 buckets bound
 * through BUCKET_BINDINGS (here the DATA binding plays the bound bucket), descriptor keys checked against the
 * account's S3 keys, and S3-compatible storage through aws4fetch, exercised against the Worker's own S3 endpoint (whose answers are
 * checked against botocore in test/s3/endpoint.test.ts) with the objects verified in R2 directly.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BucketAccessDenied, resolveBucket, type BucketEnv } from "../../src/buckets";
import { remoteBucket } from "../../src/buckets/remote";
import { EngineError } from "../../src/raster/errors";
import { BASE } from "../helpers/auth";
import { KEYS, s3Account } from "../helpers/s3";

const base = env as unknown as BucketEnv;
/** The account the descriptors are used by (the S3 test account, whose keys it may give). */
const ME = KEYS.account;
const unique = () => `t-${crypto.randomUUID().slice(0, 8)}`;
const text = async (s: ReadableStream) => new Response(s).text();
const worker = (r: Request) => (exports as unknown as { default: Fetcher }).default.fetch(r);

describe("resolveBucket", () => {
  it("keeps any bucket name in BUCKETS under <bucket>/<prefix>/<path>", async () => {
    const bucket = unique();
    const loc = await resolveBucket(base, ME, { url: `s3://${bucket}/out/run1/` });
    expect([loc.prefix, loc.key("/a/b.tif")]).toEqual(["out/run1", "out/run1/a/b.tif"]);
    await loc.store.put(loc.key("a/b.tif"), "local");
    expect(await (await env.BUCKETS.get(`${bucket}/out/run1/a/b.tif`))!.text()).toBe("local");
    const listing = await loc.store.list({ prefix: "out/", delimiter: "/" });
    expect(listing.prefixes).toEqual(["out/run1/"]);
  });

  it("maps a bucket named in BUCKET_BINDINGS (TOML table or JSON text) to that R2 binding, keys at its root", async () => {
    const bucket = unique();
    for (const bindings of [{ [bucket]: "DATA" }, JSON.stringify({ [bucket]: "DATA" })]) {
      const loc = await resolveBucket({ ...base, BUCKET_BINDINGS: bindings }, ME, { url: `s3://${bucket}/p` });
      await loc.store.put(loc.key("x.txt"), "bound");
      expect(await (await env.DATA.get("p/x.txt"))!.text()).toBe("bound");
      expect(await env.BUCKETS.head(`${bucket}/p/x.txt`)).toBeNull();
      expect((await loc.store.list({ prefix: "p/" })).objects.map((o) => o.key)).toContain("p/x.txt");
      await loc.store.delete(loc.key("x.txt"));
    }
    await expect(
      resolveBucket({ ...base, BUCKET_BINDINGS: { [bucket]: "NO_SUCH" } }, ME, { url: `s3://${bucket}` }),
    ).rejects.toThrow(/NO_SUCH.*not an R2 bucket binding/);
  });

  it("accepts the account's own S3 keys and iamRoleARN (ignored) in a descriptor; half keys and bad URLs are 400", async () => {
    const bucket = unique();
    const ok = await resolveBucket(base, ME, {
      url: `s3://${bucket}/k`,
      accessKey: KEYS.key,
      secretAccessKey: KEYS.secret,
    });
    const role = await resolveBucket(base, ME, { url: `s3://${bucket}/r`, iamRoleARN: "arn:aws:iam::1:role/r" });
    await ok.store.put(ok.key("a"), "keyed");
    await role.store.put(role.key("b"), "role");
    expect((await env.BUCKETS.list({ prefix: `${bucket}/` })).objects.map((o) => o.key)).toEqual([
      `${bucket}/k/a`,
      `${bucket}/r/b`,
    ]);
    const refused = [
      { url: `s3://${bucket}/k`, accessKey: KEYS.key },
      { url: "s3://Bad_Name/k" },
      { url: "s3://ok-name/a/../b" },
      { url: "https://ok-name/a" },
    ];
    for (const d of refused) {
      const err = await resolveBucket(base, ME, d).catch((e: unknown) => e);
      expect(err, JSON.stringify(d)).toBeInstanceOf(EngineError);
      expect((err as EngineError).kind).toBe("invalid-argument");
    }
  });

  it("refuses keys that are not the caller's (wrong secret, unknown, another account's) alike with 403, writing nothing", async () => {
    const bucket = unique();
    const other = await s3Account();
    const keys = [
      { accessKey: KEYS.key, secretAccessKey: "wrong" },
      { accessKey: "EOEDGE00000000000000", secretAccessKey: KEYS.secret },
      { accessKey: other.key, secretAccessKey: other.secret },
    ];
    const messages = new Set<string>();
    for (const k of keys) {
      const err = await resolveBucket(base, ME, { url: `s3://${bucket}/k`, ...k }).catch((e: unknown) => e);
      expect(err, JSON.stringify(k)).toBeInstanceOf(BucketAccessDenied);
      expect((err as BucketAccessDenied).kind).toBe("forbidden");
      messages.add((err as Error).message);
    }
    expect(messages.size).toBe(1);
    expect([...messages][0]).not.toContain(KEYS.secret);
    expect(
      await env.DB.prepare("SELECT account_id FROM bucket_owners WHERE bucket = ?").bind(bucket).first(),
    ).toBeNull();
  });

  it("gives an unowned bucket to its first user and refuses it to every other account, whatever the prefix", async () => {
    const bucket = unique();
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    await (await resolveBucket(base, a, { url: `s3://${bucket}/a` })).store.put("a/x", "A");
    for (const url of [`s3://${bucket}`, `s3://${bucket}/a`, `s3://${bucket}/b/other`]) {
      const err = await resolveBucket(base, b, { url }).catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(BucketAccessDenied);
    }
    expect(
      await env.DB.prepare("SELECT account_id FROM bucket_owners WHERE bucket = ?").bind(bucket).first("account_id"),
    ).toBe(a);
    expect(await (await resolveBucket(base, a, { url: `s3://${bucket}` })).store.head("a/x")).toMatchObject({
      size: 1,
    });
  });

  it("sends descriptors with keys to S3_ENDPOINT when configured (an unreachable one fails; nothing is written locally)", async () => {
    const bucket = unique();
    const loc = await resolveBucket({ ...base, S3_ENDPOINT: "http://127.0.0.1:9/s3" }, ME, {
      url: `s3://${bucket}/k`,
      accessKey: "AK",
      secretAccessKey: "SK",
    });
    await expect(loc.store.list({ prefix: "k/" })).rejects.toThrow();
    expect(await env.BUCKETS.head(`${bucket}/k/x`)).toBeNull();
  });
});

describe("remoteBucket (aws4fetch) against the S3 endpoint", () => {
  const config = {
    endpoint: `${BASE}/s3`,
    region: "us-east-1",
    accessKeyId: KEYS.key,
    secretAccessKey: KEYS.secret,
    fetcher: worker,
  };

  it("puts, gets with Range, heads, lists (delimiter, pages) and deletes", async () => {
    const bucket = unique();
    const store = remoteBucket(config, bucket);
    for (const k of ["r/1.txt", "r/2 two.txt", "r/d/3.txt", "s.txt"])
      await store.put(k, `body of ${k}`, { contentType: "text/plain" });
    expect(await (await env.BUCKETS.get(`${bucket}/r/2 two.txt`))!.text()).toBe("body of r/2 two.txt");
    const part = await store.get("r/2 two.txt", { offset: 8, length: 4 });
    expect([await text(part!.body), part!.size, part!.range]).toEqual(["r/2 ", 19, { offset: 8, length: 4 }]);
    expect(await store.head("r/1.txt")).toMatchObject({
      key: "r/1.txt",
      size: 15,
      contentType: "text/plain",
      etag: (await env.BUCKETS.head(`${bucket}/r/1.txt`))!.etag,
    });
    expect(await store.get("nope")).toBeNull();
    expect(await store.head("nope")).toBeNull();
    const dir = await store.list({ prefix: "r/", delimiter: "/" });
    expect([dir.objects.map((o) => o.key), dir.prefixes, dir.cursor]).toEqual([
      ["r/1.txt", "r/2 two.txt"],
      ["r/d/"],
      undefined,
    ]);
    const first = await store.list({ limit: 3 });
    const rest = await store.list({ limit: 3, cursor: first.cursor });
    expect([...first.objects, ...rest.objects].map((o) => o.key)).toEqual([
      "r/1.txt",
      "r/2 two.txt",
      "r/d/3.txt",
      "s.txt",
    ]);
    await store.delete(["r/1.txt", "s.txt"]);
    expect((await env.BUCKETS.list({ prefix: `${bucket}/` })).objects.map((o) => o.key)).toEqual([
      `${bucket}/r/2 two.txt`,
      `${bucket}/r/d/3.txt`,
    ]);
  });

  it("reports the storage's refusal (wrong secret) as invalid-argument naming SignatureDoesNotMatch", async () => {
    const store = remoteBucket({ ...config, secretAccessKey: "wrong" }, unique());
    await expect(store.head("x")).rejects.toThrow(); // HEAD answers carry no body
    await expect(store.list()).rejects.toMatchObject({
      kind: "invalid-argument",
      message: expect.stringContaining("SignatureDoesNotMatch"),
    });
  });
});

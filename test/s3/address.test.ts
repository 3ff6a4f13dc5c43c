/**
 * Where the S3 endpoint answers (src/s3/address.ts, src/index.ts): under /s3 on every address, at the root of the
 * S3_HOSTS addresses (127.0.0.2 on any port in vitest.config.ts), while the other addresses keep the API and the
 * console's static files, which the Worker now serves itself (wrangler.toml run_worker_first: a bucket may be named
 * like a file of web/, and ListBuckets is `GET /`).
 */
import { describe, expect, it } from "vitest";
import { s3Prefix } from "../../src/s3/address";
import { call } from "../helpers/auth";
import { botoAll } from "../helpers/s3";

/** An S3 address of the tests: S3 at its root. */
const ROOT = "http://127.0.0.2:9000";
const unique = () => `a-${crypto.randomUUID().slice(0, 8)}`;
const codeOf = (xml: string) => /<Code>(\w+)<\/Code>/.exec(xml)?.[1];

describe("S3 addresses", () => {
  it("reads S3_HOSTS entries as host:port (that address) or host (any port), case-insensitively", () => {
    const env = { S3_HOSTS: "S3.example.com, 127.0.0.1:8789" };
    const at = (url: string) => s3Prefix(new Request(url), env);
    expect(at("https://s3.example.com/bucket/key")).toBe("");
    expect(at("http://s3.example.com:8080/")).toBe("");
    expect(at("http://127.0.0.1:8789/bucket")).toBe("");
    expect(at("http://127.0.0.1:8787/bucket")).toBeUndefined();
    expect(at("http://127.0.0.1:8787/s3/bucket")).toBe("/s3");
    expect(at("https://api.example.com/s3")).toBe("/s3");
    expect(at("https://api.example.com/s3x/bucket")).toBeUndefined();
    expect(s3Prefix(new Request("http://127.0.0.1:8789/bucket"), {})).toBeUndefined();
  });

  it("serves S3 at the root of an S3 address (ListBuckets at /, buckets named like console files) and under /s3 elsewhere", async (ctx) => {
    const bucket = unique();
    const [put, list, fileNamed, fileGet, underS3, buckets, prefixed] = await botoAll(ctx, [
      { op: "put_object", endpoint: ROOT, params: { Bucket: bucket, Key: "dir/x.txt", Body: "at the root" } },
      { op: "list_objects_v2", endpoint: ROOT, params: { Bucket: bucket, Prefix: "dir/" } },
      {
        op: "put_object",
        endpoint: ROOT,
        params: { Bucket: "vendor", Key: "console.js", Body: "not the console's script" },
      },
      { op: "get_object", endpoint: ROOT, params: { Bucket: "vendor", Key: "console.js" } },
      { op: "get_object", params: { Bucket: bucket, Key: "dir/x.txt" } }, // the same object through http://localhost/s3
      { op: "list_buckets", endpoint: ROOT },
      { op: "get_object", endpoint: `${ROOT}/s3`, params: { Bucket: bucket, Key: "dir/x.txt" } }, // /s3 is no prefix there: a bucket "s3"
    ]);
    expect([put!.status, list!.status, fileNamed!.status]).toEqual([200, 200, 200]);
    expect((list!.result!.Contents as { Key: string }[]).map((c) => c.Key)).toEqual(["dir/x.txt"]);
    expect((buckets!.result!.Buckets as { Name: string }[]).map((b) => b.Name)).toEqual(
      expect.arrayContaining([bucket, "vendor"]),
    );
    expect(atob(fileGet!.result!.Body as string)).toBe("not the console's script");
    expect(atob(underS3!.result!.Body as string)).toBe("at the root");

    const anonymous = await call(`${ROOT}/`);
    expect([anonymous.status, anonymous.headers.get("content-type"), codeOf(await anonymous.text())]).toEqual([
      403,
      "application/xml",
      "AccessDenied",
    ]);
    expect([prefixed!.status, prefixed!.error?.Code]).toEqual([400, "InvalidBucketName"]);
  });

  it("keeps the API and the console's static files on the other addresses", async () => {
    const page = await call("/");
    expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    expect(await page.text()).toContain("<html");
    const script = await call("/vendor/console.js", { method: "HEAD" });
    expect([script.status, script.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
    const unknown = await call("/api/v1/no-such-endpoint");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { status: 404, reason: "Not Found" } });
    const missingFile = await call("/no-such-file.html");
    expect([missingFile.status, missingFile.headers.get("content-type")]).toEqual([404, "application/json"]);
    const conformance = await call("/api/v1/catalog/1.0.0/conformance");
    expect(conformance.status).toBe(200);
  });
});

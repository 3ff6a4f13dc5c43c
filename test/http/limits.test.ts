/**
 * The request body limit (4 MiB, src/http/limits.ts): a 413 envelope naming the limit, enforced on the declared
 * Content-Length (by the router, for every route) and on the bytes actually streamed (a 50 MB body is cut off
 * after the limit, not buffered), BYOC's JSON bodies included (they once took 40 MiB and 300 MiB bodies, 201).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, call, callWithEnv, envelope, token } from "../helpers/auth";
import { buildApi } from "../../src/routes";

const LIMIT = 4 * 1024 * 1024;
const ROUTES = ["/api/v1/process", "/api/v1/statistics", "/api/v1/catalog/1.0.0/search"];

let bearer: string;
beforeAll(async () => {
  bearer = await token();
});

/**
 * A valid JSON document of exactly `bytes` bytes that every route refuses as a request: `{"limit":0,"pad":"xxx…"}`
 * (no valid catalog page size; the other routes lack their required members). A search body without members would
 * be a valid search of every collection.
 */
const jsonOfSize = (bytes: number): string => `{"limit":0,"pad":"${"x".repeat(bytes - 20)}"}`;

/** A body stream of `total` bytes of JSON-ish filler in 64 KiB chunks, recording how many bytes were pulled. */
function countingStream(total: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk.slice());
    },
  });
  return { stream, pulled: () => sent };
}

/** `text` as a stream in 1 MiB chunks: no Content-Length, so only the counting while reading can enforce the limit. */
function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(at, (at += 1024 * 1024)));
    },
  });
}

async function expect413(r: Response): Promise<void> {
  expect(r.status).toBe(413);
  const e = await envelope(r);
  expect([e.status, e.reason, e.code]).toEqual([413, "Payload Too Large", "COMMON_PAYLOAD_TOO_LARGE"]);
  expect(e.message).toMatch(/at most 4 MiB \(4194304 bytes\)/);
}

describe.each(ROUTES)("%s body limit", (route) => {
  const post = (body: BodyInit, type = "application/json") =>
    authed(route, { method: "POST", headers: { "content-type": type }, body }, bearer);

  it("a JSON body of the limit plus one byte is a 413; one of exactly the limit is read (and rejected as a request, 400)", async () => {
    await expect413(await post(jsonOfSize(LIMIT + 1)));
    const r = await post(jsonOfSize(LIMIT));
    expect(r.status).toBe(400);
    expect((await envelope(r)).message).not.toMatch(/too large|not valid JSON/);
  });

  it("streamed without Content-Length: the limit plus one byte is a 413, exactly the limit is read", async () => {
    const send = (text: string) =>
      callWithEnv({}, route, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
        body: streamOf(text),
      });
    await expect413(await send(jsonOfSize(LIMIT + 1)));
    const r = await send(jsonOfSize(LIMIT));
    expect(r.status).toBe(400);
    expect((await envelope(r)).message).not.toMatch(/too large|not valid JSON/);
  });

  it("a 50 MB streamed body without Content-Length is cut off after the limit", async () => {
    const { stream, pulled } = countingStream(50 * 1024 * 1024);
    const r = await callWithEnv({}, route, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
      body: stream,
    });
    await expect413(r);
    expect(pulled()).toBeLessThanOrEqual(LIMIT + 2 * 64 * 1024);
  });

  it("a declared Content-Length over the limit is refused before the body is read", async () => {
    const { stream, pulled } = countingStream(50 * 1024 * 1024);
    const headers = {
      "content-type": "application/json",
      "content-length": String(50 * 1024 * 1024),
      authorization: `Bearer ${bearer}`,
    };
    await expect413(await callWithEnv({}, route, { method: "POST", headers, body: stream }));
    expect(pulled()).toBeLessThanOrEqual(2 * 64 * 1024);
  });
});

describe("multipart body limit", () => {
  it("a multipart request over the limit is a 413", async () => {
    const f = new FormData();
    f.append("request", "{}");
    f.append("evalscript", new Blob(["x".repeat(LIMIT)]));
    const r = await authed("/api/v1/process", { method: "POST", body: f }, bearer);
    await expect413(r);
  });
});

describe("BYOC bodies", () => {
  const COLLECTIONS = "/api/v1/byoc/collections";
  let collection: string;
  beforeAll(async () => {
    const r = await authed(
      COLLECTIONS,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "limits", s3Bucket: "limits-test" }),
      },
      bearer,
    );
    expect(r.status).toBe(201);
    collection = ((await r.json()) as { data: { id: string } }).data.id;
  });
  const send = (method: string, path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    callWithEnv({}, path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${bearer}`, ...headers },
      body,
    });

  it.each(["/api/v1/byoc/collections", "/byoc/v1/collections"])(
    "POST %s: the limit plus one byte is a 413, 40 MiB too; the limit is read (400)",
    async (path) => {
      await expect413(await send("POST", path, jsonOfSize(LIMIT + 1)));
      await expect413(await send("POST", path, jsonOfSize(40 * 1024 * 1024)));
      const r = await send("POST", path, jsonOfSize(LIMIT));
      expect(r.status).toBe(400);
      expect((await envelope(r)).message).not.toMatch(/too large|JSON/);
    },
  );

  it("a 300 MiB body streamed without Content-Length to the create, update and tile routes is cut off after the limit", async () => {
    for (const [method, path] of [
      ["POST", COLLECTIONS],
      ["PUT", `${COLLECTIONS}/${collection}`],
      ["POST", `${COLLECTIONS}/${collection}/tiles`],
    ] as const) {
      const { stream, pulled } = countingStream(300 * 1024 * 1024);
      await expect413(await send(method, path, stream));
      expect(pulled(), `${method} ${path}`).toBeLessThanOrEqual(LIMIT + 2 * 64 * 1024);
    }
  });
});

describe("every route with a body", () => {
  const withBody = buildApi()
    .routes()
    .filter((r) => r.method === "POST" || r.method === "PUT" || r.method === "PATCH");
  it.each(withBody.map((r) => [r.method, r.path, r.meta.maxBody ?? LIMIT] as const))(
    "%s %s: a declared Content-Length over its limit is a 413 naming it, before any byte is read",
    async (method, path, limit) => {
      const { stream, pulled } = countingStream(50 * 1024 * 1024);
      const concrete = path.replace(/:[A-Za-z]+\+?/g, "x");
      const headers = {
        "content-type": "application/json",
        "content-length": String(50 * 1024 * 1024),
        authorization: `Bearer ${bearer}`,
      };
      const r = await callWithEnv({}, concrete, { method, headers, body: stream });
      expect(r.status).toBe(413);
      expect(await r.text()).toContain(`(${limit} bytes)`); // the envelope, or the route's own format (OAuth errors)
      expect(pulled()).toBeLessThanOrEqual(2 * 64 * 1024);
    },
  );
});

describe("URL length (src/http/limits.ts MAX_URL_BYTES, 16 KiB: Cloudflare's edge limit)", () => {
  it("a URL over 16 KiB is a 414 in the error envelope, public and authenticated routes alike; 16 KiB itself is served", async () => {
    const base = "http://localhost/api/v1/catalog/1.0.0/collections?pad=";
    const at = (bytes: number) => base + "x".repeat(bytes - base.length);
    for (const [path, bearerOf] of [
      [at(16 * 1024 + 1), bearer],
      [at(60 * 1024), bearer],
      [at(20 * 1024), undefined],
    ] as const) {
      const r = bearerOf ? await authed(path, {}, bearerOf) : await call(path);
      expect(r.status).toBe(414);
      expect(r.headers.get("content-type")).toMatch(/application\/json/);
      const e = await envelope(r);
      expect(e).toMatchObject({ status: 414, reason: "URI Too Long", code: "COMMON_URI_TOO_LONG" });
      expect(e.message).toMatch(/at most 16384 are accepted/);
    }
    expect((await authed(at(16 * 1024), {}, bearer)).status).toBe(200);
  });
});

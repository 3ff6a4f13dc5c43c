/**
 * The error envelope on every body-taking route (Processing, Statistical, Catalog search): 401 without a token,
 * 405, 415, malformed JSON, multipart mistakes; and the CORS preflight browsers send before them. `errors` is always
 * a JSON object (the spec's `errors: object`, Sentinel Hub's OpenAPI schema Boom), for schema failures keyed by field.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, call, envelope, token } from "../helpers/auth";

const ROUTES = [
  "/api/v1/process",
  "/process/v1",
  "/api/v1/statistics",
  "/statistics/v1",
  "/api/v1/catalog/1.0.0/search",
];
const SCRIPT_ROUTES = ROUTES.filter((r) => !r.includes("catalog"));

let bearer: string;
beforeAll(async () => {
  bearer = await token();
});

/** Expects the envelope with `status` and `code`; returns its message. */
async function expectEnvelope(r: Response, status: number, code: string): Promise<string> {
  const text = await r.text();
  expect(r.status, text).toBe(status);
  expect(r.headers.get("content-type")).toBe("application/json");
  expect(r.headers.get("access-control-allow-origin")).toBe("*");
  const e = (JSON.parse(text) as { error: Record<string, unknown> }).error;
  expect(Object.keys(e).sort()).toEqual(["code", "errors", "message", "reason", "status"]);
  expect([e.status, e.code, typeof e.reason, typeof e.message]).toEqual([status, code, "string", "string"]);
  expect(e.errors !== null && typeof e.errors === "object" && !Array.isArray(e.errors), JSON.stringify(e.errors)).toBe(
    true,
  );
  return e.message as string;
}

const post = (route: string, body: BodyInit, type?: string): Promise<Response> =>
  authed(route, { method: "POST", body, headers: type ? { "content-type": type } : {} }, bearer);

describe.each(ROUTES)("%s", (route) => {
  it("401 without an Authorization header", async () => {
    const r = await call(route, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(r.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(await expectEnvelope(r, 401, "COMMON_UNAUTHORIZED")).toMatch(/Missing Authorization/);
  });

  it("405 with Allow for a method the route does not have", async () => {
    const r = await authed(route, { method: "PUT", body: "{}" }, bearer);
    expect(r.headers.get("allow")).toMatch(/POST/);
    expect(await expectEnvelope(r, 405, "COMMON_METHOD_NOT_ALLOWED")).toMatch(/PUT is not allowed/);
  });

  it("400 for malformed or empty JSON", async () => {
    expect(
      await expectEnvelope(await post(route, "{ not json", "application/json"), 400, "COMMON_BAD_PAYLOAD"),
    ).toMatch(/not valid JSON/);
    expect(await expectEnvelope(await post(route, "", "application/json"), 400, "COMMON_BAD_PAYLOAD")).toMatch(/empty/);
  });

  it("CORS preflight: 204 without a token, allowing the method and the headers the browser asks for", async () => {
    const r = await call(route, {
      method: "OPTIONS",
      headers: {
        origin: "https://apps.example.org",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,x-custom",
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-allow-methods")).toMatch(/\bPOST\b/);
    const allowed = r.headers.get("access-control-allow-headers")!.split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(["authorization", "content-type", "x-custom"]));
    expect(Number(r.headers.get("access-control-max-age"))).toBeGreaterThan(0);
    expect(await r.text()).toBe("");
  });
});

describe.each(SCRIPT_ROUTES)("%s Content-Type", (route) => {
  it("415 for a body that is neither JSON nor multipart", async () => {
    for (const type of ["text/plain", "application/xml", "application/x-www-form-urlencoded"])
      expect(await expectEnvelope(await post(route, "{}", type), 415, "COMMON_UNSUPPORTED_MEDIA_TYPE")).toMatch(
        /Unsupported Content-Type/,
      );
  });
});

describe.each(SCRIPT_ROUTES)("%s multipart/form-data", (route) => {
  const multipart = (parts: Record<string, string | Blob>): FormData => {
    const f = new FormData();
    for (const [k, v] of Object.entries(parts)) f.append(k, v);
    return f;
  };

  it("400 when the 'request' part is missing", async () => {
    const r = await post(route, multipart({ evalscript: "//VERSION=3" }));
    expect(await expectEnvelope(r, 400, "COMMON_BAD_PAYLOAD")).toMatch(/need a 'request' part/);
  });

  it("400 when the 'request' part is not JSON, also as a file part", async () => {
    for (const part of ["{oops", new Blob(["{oops"], { type: "application/json" })]) {
      const r = await post(route, multipart({ request: part, evalscript: "//VERSION=3" }));
      expect(await expectEnvelope(r, 400, "COMMON_BAD_PAYLOAD")).toMatch(/'request' part is not valid JSON/);
    }
  });

  it("400 for a multipart body that cannot be parsed", async () => {
    const r = await post(route, "--x\r\nnot a part", "multipart/form-data; boundary=x");
    expect(await expectEnvelope(r, 400, "COMMON_BAD_PAYLOAD")).toMatch(/Malformed multipart/);
  });
});

describe("errors of an invalid body", () => {
  it("one member per invalid field, keyed by its dotted path, valued with what is wrong", async () => {
    const body = {
      input: { bounds: { bbox: [0, 0, 1, 1] }, data: [{ type: "sentinel-2-l2a" }] },
      output: { width: "wide", responses: [{ identifier: "default", format: { type: 7 } }] },
    };
    const r = await post("/api/v1/process", JSON.stringify(body), "application/json");
    expect(await expectEnvelope(r, 400, "COMMON_BAD_PAYLOAD")).toMatch(/^Invalid process request at '/);
    const { errors } = (await envelope(await post("/api/v1/process", JSON.stringify(body), "application/json"))) as {
      errors: Record<string, string>;
    };
    expect(Object.keys(errors)).toEqual(
      expect.arrayContaining(["output.width", "output.responses.0.format.type", "evalscript"]),
    );
    for (const v of Object.values(errors)) expect(typeof v).toBe("string");
  });

  it("an unknown route and a 404 resource carry errors {}", async () => {
    expect((await envelope(await authed("/api/v1/nothing", {}, bearer))).errors).toEqual({});
    expect((await envelope(await authed(`/api/v2/batch/process/${crypto.randomUUID()}`, {}, bearer))).errors).toEqual(
      {},
    );
  });
});

describe("preflight elsewhere", () => {
  it("the token endpoint and unknown paths answer the preflight too; a bad header list is not reflected", async () => {
    for (const path of ["/auth/realms/main/protocol/openid-connect/token", "/api/v1/nothing"]) {
      const r = await call(path, {
        method: "OPTIONS",
        headers: { "access-control-request-headers": "content-type, bad header(x)" },
      });
      expect(r.status).toBe(204);
      expect(r.headers.get("access-control-allow-headers")).toBe("authorization, content-type, accept");
    }
  });
});

/** Router middleware: onion order, short-circuit, errors as the envelope, and the auth middleware of routes.ts. */
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Api, type Middleware } from "../../src/http/router";
import { ApiError } from "../../src/http/errors";
import type { Env } from "../../src/env";
import { call, token } from "../helpers/auth";

const fetchApi = (api: Api, path: string, method = "GET"): Promise<Response> =>
  api.fetch(new Request("http://localhost" + path, { method }), env as unknown as Env, createExecutionContext());

/** A middleware that logs `name>` before and `<name` after the rest of the chain. */
const tracer =
  (log: string[], name: string): Middleware =>
  async (_r, _e, _c, next, route) => {
    log.push(`${name}>${route.isPublic ? "public" : "private"}`);
    const res = await next();
    log.push(`<${name}`);
    return res;
  };

describe("Api middleware", () => {
  it("runs in registration order around the handler (onion), also when added after the routes", async () => {
    const log: string[] = [];
    const api = new Api()
      .on("GET", "/x", () => (log.push("handler"), new Response("ok")))
      .use(tracer(log, "a"))
      .use(tracer(log, "b"));
    const r = await fetchApi(api, "/x");
    expect(await r.text()).toBe("ok");
    expect(log).toEqual(["a>private", "b>private", "handler", "<b", "<a"]);
  });

  it("a middleware may answer without the handler, change the response, or throw an ApiError envelope", async () => {
    let handled = 0;
    const api = new Api()
      .use(async (_r, _e, _c, next) => {
        const res = await next();
        const out = new Response(res.body, res);
        out.headers.set("x-ratelimit-remaining", "7");
        return out;
      })
      .use(async (request, _e, _c, next) => {
        const q = new URL(request.url).searchParams.get("q");
        if (q === "stop") return new Response("stopped", { status: 429 });
        if (q === "throw") throw new ApiError(403, "no entry");
        return next();
      })
      .on("GET", "/y", () => (handled++, new Response("y")), true);
    const stopped = await fetchApi(api, "/y?q=stop");
    expect([stopped.status, await stopped.text(), stopped.headers.get("x-ratelimit-remaining")]).toEqual([
      429,
      "stopped",
      "7",
    ]);
    const thrown = await fetchApi(api, "/y?q=throw");
    expect(thrown.status).toBe(403);
    expect(((await thrown.json()) as { error: { message: string } }).error.message).toBe("no entry");
    const ok = await fetchApi(api, "/y");
    expect([ok.status, await ok.text(), ok.headers.get("x-ratelimit-remaining")]).toEqual([200, "y", "7"]);
    expect(handled).toBe(1);
  });

  it("unknown paths (404), wrong methods (405) and preflights never reach middleware", async () => {
    const log: string[] = [];
    const api = new Api().use(tracer(log, "a")).on("GET", "/x", () => new Response("ok"));
    expect((await fetchApi(api, "/nope")).status).toBe(404);
    expect((await fetchApi(api, "/x", "POST")).status).toBe(405);
    expect((await fetchApi(api, "/x", "OPTIONS")).status).toBe(204);
    expect(log).toEqual([]);
  });
});

describe("bearer auth registered in routes.ts", () => {
  it("public routes stay public, the others need a valid token", async () => {
    expect((await call("/auth/realms/main/protocol/openid-connect/certs")).status).toBe(200);
    expect((await call("/auth/realms/main/.well-known/openid-configuration")).status).toBe(200);
    const anonymous = await call("/api/v1/metadata/location");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const withToken = await call("/api/v1/metadata/location", {
      headers: { authorization: `Bearer ${await token()}` },
    });
    expect(withToken.status).toBe(200);
  });
});

/**
 * The HTTP router: itty-router with the spec's error envelope, middleware around every route (registered in
 * src/routes.ts: bearer auth first, rate limits next), 404 for unknown paths and 405 (with Allow) for known paths
 * with the wrong method.
 */
import { Router, type IRequest, type RouterType } from "itty-router";
import type { ZodType } from "zod";
import type { Env } from "../env";
import type { TokenClaims } from "./claims";
import { publicOrigin, urlOf, withHeaders } from "./base";
import { ApiError, errorResponse, renderError } from "./errors";
import { refuseDeclaredOversize, uriTooLong } from "./limits";
import { BOOKMARK_HEADER, withReadSession } from "./replica";

export type Handler = (request: AuthedRequest, env: Env, ctx: ExecutionContext) => Response | Promise<Response>;
export interface AuthedRequest extends IRequest {
  claims?: TokenClaims;
  /**
   * The rate limiter's decision for this request (set by the rate-limit middleware; absent when limits are off or
   * the route is public): a route that may run before it arrives gates its side effects on it (true: admitted).
   */
  admitted?: Promise<boolean>;
}

/**
 * The account of the request's token: every record and cache a request creates belongs to it.
 * @throws ApiError 401 when the route was registered as public (no verified token).
 */
export function accountOf(request: AuthedRequest): string {
  if (!request.claims)
    throw new ApiError(401, "This operation needs an access token ('Authorization: Bearer <token>').");
  return request.claims.account;
}
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * What a route is, given to `Api.on`: what the OpenAPI description (src/openapi) says of it (the zod schemas are
 * the ones the handler validates with, so the document cannot drift from the validation), and how the router and
 * middleware treat it (body limit, error format, the account it acts for, metering, early start). Every field is
 * optional; a route without metadata is still documented with a generic operation.
 */
export interface RouteMeta {
  /** One-line summary of the operation. */
  summary?: string;
  /** Longer description (CommonMark). */
  description?: string;
  /** Groups in the document (one per API area, e.g. "Process"). */
  tags?: string[];
  /** JSON request body schema (the one passed to `validate`). */
  body?: ZodType;
  /** Media types the body may be sent as; default `["application/json"]`. */
  bodyTypes?: string[];
  /** Query-string parameters as a zod object (each key one parameter). */
  query?: ZodType;
  /** Success status (default 200, 201 for a POST that creates) and its description and media type. */
  status?: number;
  response?: string;
  responseType?: string;
  /** True when no token is needed (the auth middleware lets the route through); the same as `on`'s boolean. */
  public?: boolean;
  /**
   * A public route guarded by its handler with another credential: the name of its OpenAPI security scheme
   * (`AdminToken`: the admin API's bearer secret, src/admin/guard.ts), instead of "no security".
   */
  securityScheme?: "AdminToken";
  /**
   * Largest body the route takes, in bytes (default MAX_BODY_BYTES, src/http/limits.ts): the router refuses a
   * larger declared Content-Length with 413 before the route runs; its reader counts the bytes streamed.
   */
  maxBody?: number;
  /**
   * The account a public route acts for, from the request (a WMS instance's owner: its id in the URL is the
   * credential); undefined when there is none (the handler answers, e.g. 404). Its calls are then rate-limited
   * and metered as that account's, like an authenticated call (src/ratelimit/middleware.ts).
   */
  account?: (request: AuthedRequest, env: Env) => Promise<string | undefined>;
  /**
   * The route spends processing units (it evaluates pixels, or starts work that will): the rate-limit middleware
   * also refuses it with 403 OUT_OF_PU once its account's monthly quota is used up. `true` for every call, or a
   * predicate for a route with several operations (WMS: GetMap spends, GetCapabilities does not). The one place
   * that says which calls are metered.
   */
  metered?: boolean | ((request: Request) => boolean);
  /**
   * The route only reads D1, and reads dominate: its handler's `env.DB` is a read session (D1 read replication,
   * ./replica.ts: it continues the client's `x-d1-bookmark` and answers with its own).
   */
  replicaReads?: boolean;
  /**
   * The handler may start before the rate limiter's decision arrives (src/ratelimit/headroom.ts): it changes
   * nothing before it answers, or gates what it changes on `request.admitted` (Processing charges its units so).
   */
  speculative?: boolean;
  /**
   * Renders whatever the route throws (its handler, the middleware around it, the router's body-size check) in
   * the route's own error format, keeping status and headers: the OGC routes answer ServiceExceptionReports (in
   * the WMS version of `request`), the token endpoint OAuth errors. Default: the JSON error envelope.
   */
  errors?: (err: unknown, request: Request) => Response;
}

/** What a middleware knows of the matched route: method, itty path pattern, whether it is public, its metadata. */
export interface RouteInfo {
  method: Method;
  path: string;
  isPublic: boolean;
  meta: RouteMeta;
}

/**
 * A middleware around a matched route (onion order: the first registered runs outermost). It may return its own
 * Response without calling `next` (e.g. 429), throw an ApiError (rendered as the envelope), set fields on the
 * request for later ones (auth sets `claims`), or change the Response `next()` resolves to (e.g. rate-limit headers).
 * Unknown paths (404/405) and CORS preflights never reach middleware.
 */
export type Middleware = (
  request: AuthedRequest,
  env: Env,
  ctx: ExecutionContext,
  next: () => Promise<Response>,
  route: RouteInfo,
) => Promise<Response>;

/** One route of the table: method, itty path, whether it is public, its metadata (possibly empty), its path RegExp. */
export interface RouteDef extends RouteInfo {
  pattern: RegExp;
}

/** Converts an itty path (`/a/:id/b`) into a RegExp for the 405 check. */
const toPattern = (path: string): RegExp =>
  new RegExp(
    "^" +
      path
        .replace(/\/:[^/]+\+/g, "/.+")
        .replace(/\/:[^/]+/g, "/[^/]+")
        .replace(/\/\*$/, "/.*") +
      "/?$",
  );

/** CORS headers on every response (any origin; tokens travel in Authorization, not cookies). */
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "authorization, content-type, accept",
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-expose-headers": `x-processingunits-spent, retry-after, x-ratelimit-remaining, x-ratelimit-violatedpolicy, server-timing, ${BOOKMARK_HEADER}`,
};

/**
 * CORS of a single-page-app client's token (its `allowed-origins` claim): `*` keeps any origin; otherwise the
 * response names the request's Origin when listed (with `Vary: Origin`) and no Access-Control-Allow-Origin at all
 * for another origin, so browsers on unlisted sites cannot read it. Tokens without the claim keep `*`.
 */
function restrictOrigin(headers: Headers, allowed: readonly string[] | undefined, origin: string | null): void {
  if (!allowed || allowed.includes("*")) return;
  headers.append("vary", "Origin");
  if (origin !== null && allowed.includes(origin)) headers.set("access-control-allow-origin", origin);
  else headers.delete("access-control-allow-origin");
}

/**
 * The answer to a CORS preflight (any path, no token: browsers never send one on OPTIONS): 204 allowing the
 * requested headers (Access-Control-Request-Headers, when it is a plain header-name list) or the default ones,
 * cached by the browser for a day (Fetch standard, CORS protocol).
 */
function preflight(request: Request): Response {
  const asked = request.headers.get("access-control-request-headers")?.trim().toLowerCase() ?? "";
  const headers: Record<string, string> = { "access-control-max-age": "86400" };
  if (/^[a-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[a-z0-9!#$%&'*+.^_`|~-]+)*$/.test(asked) && asked.length <= 1024)
    headers["access-control-allow-headers"] = [
      ...new Set([...CORS["access-control-allow-headers"].split(", "), ...asked.split(/\s*,\s*/)]),
    ].join(", ");
  return new Response(null, { status: 204, headers });
}

/**
 * The request as handlers see it: its URL moved to the origin of PUBLIC_BASE_URL (path and query kept), so that a
 * link a handler derives from `request.url` (e.g. a search's `self`) never carries the client's Host header.
 * Throws (a logged 500) when PUBLIC_BASE_URL is not configured.
 */
function atPublicOrigin(request: Request, env: Env): Request {
  const origin = publicOrigin(env);
  const url = urlOf(request);
  return url.origin === origin ? request : new Request(origin + url.pathname + url.search, request);
}

/** Collects routes, then serves them. */
export class Api {
  private readonly router: RouterType<AuthedRequest, [Env, ExecutionContext]> = Router<
    AuthedRequest,
    [Env, ExecutionContext]
  >();
  private readonly defs: RouteDef[] = [];
  private readonly middleware: Middleware[] = [];

  /**
   * Adds a middleware run around every route, after those added before it (whether routes were registered before
   * or after does not matter: the chain is read per request).
   */
  use(middleware: Middleware): this {
    this.middleware.push(middleware);
    return this;
  }

  /**
   * Registers a route. `options` is either `isPublic` (passed to middleware: the auth middleware lets public routes
   * through) or the route's metadata (RouteMeta: OpenAPI description, body limit, error format, rate limits and
   * metering), whose `public` field means the same.
   */
  on(method: Method, path: string, handler: Handler, options: boolean | RouteMeta = false): this {
    const meta = typeof options === "boolean" ? { public: options } : options;
    const isPublic = meta.public === true;
    const route: RouteInfo = { method, path, isPublic, meta };
    this.defs.push({ ...route, pattern: toPattern(path) });
    // the route's error format applies to its handler (whose errors middleware may render, e.g. to add headers)
    // and to the whole chain (a middleware's refusal, the declared body size)
    const own = meta.errors;
    const guard = (request: Request, run: () => Response | Promise<Response>): Response | Promise<Response> =>
      own
        ? Promise.resolve()
            .then(run)
            .catch((err: unknown) => own(err, request))
        : run();
    const run: Handler = meta.replicaReads
      ? (request, env, ctx) => withReadSession(request, env, (e) => Promise.resolve(handler(request, e, ctx)))
      : handler;
    const inner: Handler = (request, env, ctx) => guard(request, () => run(request, env, ctx));
    const wrapped: Handler = (request, env, ctx) =>
      guard(request, () => {
        refuseDeclaredOversize(request, meta.maxBody); // every route's; readers also count the bytes streamed
        return this.run(0, route, inner, request, env, ctx);
      });
    this.router[method.toLowerCase() as "get"](path, wrapped);
    return this;
  }

  /** The route table in registration order (what the OpenAPI document is generated from). */
  routes(): readonly RouteDef[] {
    return this.defs;
  }

  /** Runs middleware `i` (and, through `next`, the rest of the chain), then the handler. */
  private async run(
    i: number,
    route: RouteInfo,
    handler: Handler,
    request: AuthedRequest,
    env: Env,
    ctx: ExecutionContext,
  ): Promise<Response> {
    const mw = this.middleware[i];
    if (!mw) return handler(request, env, ctx);
    return mw(request, env, ctx, () => this.run(i + 1, route, handler, request, env, ctx), route);
  }

  /**
   * Handles a request; always returns a Response (error envelope on failure). HEAD is answered for every GET route
   * as RFC 9110 (9.3.2) says: the GET's status and headers (e.g. a file's Content-Length), without the body.
   */
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (request.method !== "HEAD") return this.handle(request, env, ctx);
    const got = await this.handle(new Request(request, { method: "GET" }), env, ctx);
    await got.body?.cancel();
    return new Response(null, { status: got.status, statusText: got.statusText, headers: got.headers });
  }

  private async handle(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    let response: Response;
    let routed: AuthedRequest | undefined;
    try {
      const tooLong = uriTooLong(request);
      if (tooLong) throw tooLong;
      if (request.method === "OPTIONS") response = preflight(request);
      else {
        routed = atPublicOrigin(request, env) as AuthedRequest;
        response = (await this.router.fetch(routed, env, ctx)) ?? this.unmatched(routed);
      }
    } catch (err) {
      response = renderError(err);
    }
    // every CORS header is set (a handler's own value kept), so `out` has mutable headers for restrictOrigin
    const out = withHeaders(
      response,
      Object.fromEntries(Object.entries(CORS).map(([k, v]) => [k, response.headers.get(k) ?? v])),
    );
    restrictOrigin(out.headers, routed?.claims?.["allowed-origins"], request.headers.get("origin"));
    return out;
  }

  private unmatched(request: Request): Response {
    const path = urlOf(request).pathname;
    const allowed = [...new Set(this.defs.filter((d) => d.pattern.test(path)).map((d) => d.method))];
    if (allowed.length > 0) {
      return errorResponse(
        405,
        `Method ${request.method} is not allowed on ${path}; use ${allowed.join(" or ")}.`,
        undefined,
        undefined,
        {
          allow: allowed.join(", "),
        },
      );
    }
    throw new ApiError(404, `No such endpoint: ${request.method} ${path}`);
  }
}

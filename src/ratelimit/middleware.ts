/**
 * The rate-limit middleware registered after bearer auth in src/routes.ts. What it does to a route is said by the
 * route's metadata (RouteMeta in src/http/router.ts), never by a list of paths kept here: `metered` (the call
 * spends processing units), `account` (the account a public route acts for), `speculative` (it may start before
 * the decision).
 */
import type { Env } from "../env";
import type { AuthedRequest, Middleware, RouteInfo } from "../http/router";
import { accountOf } from "../http/router";
import { renderError } from "../http/errors";
import { refusal, withLimitHeaders } from "./limiter";
import type { LimitVerdict } from "./object";
import { admitEarly, noteVerdict } from "./headroom";
import { leases } from "./lease";

/** True for a call that spends processing units (the route's `metered` metadata). */
export const isMetered = (request: Request, route: RouteInfo): boolean => {
  const m = route.meta.metered;
  return typeof m === "function" ? m(request) : m === true;
};

/**
 * The account whose limits a call takes: the token's, or for a public route the one its `account` metadata names
 * (undefined: none, e.g. the token endpoint, or a WMS URL naming no instance).
 */
async function accountFor(request: AuthedRequest, env: Env, route: RouteInfo): Promise<string | undefined> {
  if (route.meta.account) return route.meta.account(request, env);
  return route.isPublic ? undefined : accountOf(request);
}

/** The route's response (an error rendered as the envelope). */
async function respond(next: () => Promise<Response>): Promise<Response> {
  try {
    return await next();
  } catch (e) {
    return renderError(e);
  }
}

/**
 * Every call with an account (a token's, or a public route's `account`) takes one token from each policy of that
 * account (one RPC to its RateLimiter); a `metered` call is also checked against the account's monthly processing
 * units. Refused: a thrown 429 (or 403 OUT_OF_PU) ApiError with the rate-limit headers, rendered in the route's
 * error format (the envelope, or the route's `errors`); passed: the route's response (errors included) carries
 * X-RateLimit-Remaining, Retry-After and a Server-Timing entry `ratelimit;dur=<ms>` (the time the response waited
 * for the decision). A `speculative` route starts at once when this isolate's last decision for the account left
 * headroom (./headroom.ts): the decision arrives while it runs, and a refusal still answers 429/403 (its response
 * is dropped, `request.admitted` resolves false). Calls without an account pass untouched (the token endpoint
 * limits per client itself). With the variable RATE_LIMITS=off (benchmarks only, never set by default) every call
 * passes untouched. A call covered by this isolate's lease of the account's tokens (./lease.ts) makes no call:
 * it passes at once (`ratelimit;dur=0`), and once it has its response the next lease may be asked for ahead
 * ({@link renewAhead}).
 */
export const rateLimit: Middleware = async (request, env, ctx, next, route) => {
  if (env.RATE_LIMITS === "off") return next();
  const account = await accountFor(request, env, route);
  if (account === undefined) return next();
  const metered = isMetered(request, route);
  const decided = leases.decide(env, account, metered);
  if (!(decided instanceof Promise)) {
    request.admitted = Promise.resolve(true);
    const response = finish(await respond(next), decided, 0);
    renewAhead(env, ctx, account);
    return response;
  }
  const asked = decided.then((v) => (noteVerdict(account, v), v));
  request.admitted = asked.then(
    (v) => v.allowed,
    () => false,
  );
  const early = route.meta.speculative === true && admitEarly(account);
  const response = early ? await respond(next) : undefined;
  const t0 = performance.now();
  const verdict = await asked;
  const waited = performance.now() - t0;
  if (!verdict.allowed) {
    await response?.body?.cancel();
    throw refusal(verdict, "requests");
  }
  return finish(response ?? (await respond(next)), verdict, waited);
};

/**
 * Asks for the account's next lease ahead when the one that just served a request runs low (Leases.ahead), in
 * `ctx.waitUntil`, after that request's response was made: its call runs while the response goes out, so that the
 * account's next requests find a lease and none waits for the object. Its decision is noted for headroom.
 */
function renewAhead(env: Env, ctx: ExecutionContext, account: string): void {
  const call = leases.ahead(env, account);
  if (call) ctx.waitUntil(call.then((v) => v && noteVerdict(account, v)));
}

/**
 * The response with the rate-limit headers of `verdict` and the Server-Timing entry of the wait for it. A
 * Retry-After the route set itself (a 503 of the isolate's admission, src/pipeline/admission.ts) is kept.
 */
function finish(response: Response, verdict: LimitVerdict, waitedMs: number): Response {
  const own = response.headers.get("retry-after");
  const out = withLimitHeaders(response, verdict);
  if (own !== null) out.headers.set("retry-after", own);
  const timing = `ratelimit;dur=${waitedMs.toFixed(3)}`;
  const others = out.headers.get("server-timing");
  out.headers.set("server-timing", others ? `${others}, ${timing}` : timing);
  return out;
}

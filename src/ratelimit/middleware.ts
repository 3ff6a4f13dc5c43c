/** The rate-limit middleware registered after bearer auth in src/routes.ts. */
import type { Middleware, RouteInfo } from "../http/router";
import { accountOf } from "../http/router";
import { renderError } from "../http/errors";
import { refusal, takeToken, withLimitHeaders } from "./limiter";
import type { LimitVerdict } from "./object";
import { admitEarly, noteVerdict } from "./headroom";

/**
 * Route patterns that spend processing units (refused with 403 OUT_OF_PU once the month's quota is used up):
 * Processing, Statistics and async submission (both path forms), and START of a batch or statistical batch task
 * (creating, analysing and stopping a task spend nothing and stay allowed, so a user can always stop a task).
 */
const METERED = [
  /^\/(?:api\/v1\/(?:process|statistics|async\/process)|process\/v1|statistics\/v1|async\/v1\/process)$/,
  /^\/(?:api\/v2\/batch\/process|batch\/v2\/process|api\/v1\/statistics\/batch|statistics\/batch\/v1)\/:\w+\/start$/,
];

/**
 * Routes that may run while their limiter decision is on its way (see ./headroom.ts): their handlers change nothing
 * before they answer, or gate what they change on `request.admitted` (Processing charges its units with
 * chargeLater(..., request.admitted)). Reads of locations and the catalog, and the Processing API.
 */
const SPECULATIVE: readonly { method: string; path: RegExp }[] = [
  { method: "POST", path: /^\/(?:api\/v1\/process|process\/v1)$/ },
  { method: "GET", path: /^\/api\/v1\/(?:metadata\/location|catalog)(?:\/|$)/ },
];

/** True for a POST that spends processing units (see METERED). */
export const isMetered = (route: RouteInfo): boolean => route.method === "POST" && METERED.some((m) => m.test(route.path));

/** True for a route that may start before its limiter decision (see SPECULATIVE). */
export const isSpeculative = (route: RouteInfo): boolean => SPECULATIVE.some((s) => s.method === route.method && s.path.test(route.path));

/** The route's response (an error rendered as the envelope). */
async function respond(next: () => Promise<Response>): Promise<Response> {
  try {
    return await next();
  } catch (e) {
    return renderError(e);
  }
}

/**
 * Every authenticated call takes one token from each policy of its account (one RPC to the account's RateLimiter).
 * Refused: 429 (or 403 OUT_OF_PU for a metered call past the quota) in the envelope with the rate-limit headers;
 * passed: the route's response (errors included) carries X-RateLimit-Remaining, Retry-After and a Server-Timing
 * entry `ratelimit;dur=<ms>` (the time the response waited for the decision). A SPECULATIVE route starts at once
 * when this isolate's last decision for the account left headroom (./headroom.ts): the decision arrives while it
 * runs, and a refusal still answers 429/403 (its response is dropped, `request.admitted` resolves false). Public
 * routes (token endpoint, JWKS) pass untouched: the token endpoint limits per client itself. With the variable
 * RATE_LIMITS=off (benchmarks only, never set by default) every call passes untouched.
 */
export const rateLimit: Middleware = async (request, env, _ctx, next, route) => {
  if (route.isPublic || env.RATE_LIMITS === "off") return next();
  const account = accountOf(request);
  const asked = takeToken(env, { kind: "account", account }, isMetered(route)).then((v) => (noteVerdict(account, v), v));
  request.admitted = asked.then((v) => v.allowed, () => false);
  const early = isSpeculative(route) && admitEarly(account);
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

/** The response with the rate-limit headers of `verdict` and the Server-Timing entry of the wait for it. */
function finish(response: Response, verdict: LimitVerdict, waitedMs: number): Response {
  const out = withLimitHeaders(response, verdict);
  const timing = `ratelimit;dur=${waitedMs.toFixed(3)}`;
  const others = out.headers.get("server-timing");
  out.headers.set("server-timing", others ? `${others}, ${timing}` : timing);
  return out;
}

/** The rate-limit middleware registered after bearer auth in src/routes.ts. */
import type { Middleware, RouteInfo } from "../http/router";
import { accountOf } from "../http/router";
import { renderError } from "../http/errors";
import { refusal, takeToken, withLimitHeaders } from "./limiter";

/**
 * Route patterns that spend processing units (refused with 403 OUT_OF_PU once the month's quota is used up):
 * Processing, Statistics and async submission (both path forms), and START of a batch or statistical batch task
 * (creating, analysing and stopping a task spend nothing and stay allowed, so a user can always stop a task).
 */
const METERED = [
  /^\/(?:api\/v1\/(?:process|statistics|async\/process)|process\/v1|statistics\/v1|async\/v1\/process)$/,
  /^\/(?:api\/v2\/batch\/process|batch\/v2\/process|api\/v1\/statistics\/batch|statistics\/batch\/v1)\/:\w+\/start$/,
];

/** True for a POST that spends processing units (see METERED). */
export const isMetered = (route: RouteInfo): boolean => route.method === "POST" && METERED.some((m) => m.test(route.path));

/**
 * Every authenticated call takes one token from each policy of its account (one RPC to the account's RateLimiter).
 * Refused: 429 (or 403 OUT_OF_PU for a metered call past the quota) in the envelope with the rate-limit headers;
 * passed: the route's response (errors included) carries X-RateLimit-Remaining, Retry-After and a Server-Timing
 * entry `ratelimit;dur=<ms>` (the cost of the RPC, read by scripts/bench-limiter.mjs). Public routes
 * (token endpoint, JWKS) pass untouched: the token endpoint limits per client itself. With the variable
 * RATE_LIMITS=off (benchmarks only, never set by default) every call passes untouched.
 */
export const rateLimit: Middleware = async (request, env, _ctx, next, route) => {
  if (route.isPublic || env.RATE_LIMITS === "off") return next();
  const t0 = performance.now();
  const verdict = await takeToken(env, { kind: "account", account: accountOf(request) }, isMetered(route));
  const timing = `ratelimit;dur=${(performance.now() - t0).toFixed(3)}`;
  if (!verdict.allowed) throw refusal(verdict, "requests");
  let response: Response;
  try {
    response = await next();
  } catch (e) {
    response = renderError(e);
  }
  const out = withLimitHeaders(response, verdict);
  const others = out.headers.get("server-timing");
  out.headers.set("server-timing", others ? `${others}, ${timing}` : timing);
  return out;
};

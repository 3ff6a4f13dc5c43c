/**
 * The benchmark switch RATE_LIMITS=off (src/env.ts): the middleware lets every call through without asking the
 * account's RateLimiter; unset, the same calls are limited (basic plan: 20 per second, migration 0006).
 */
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AuthedRequest } from "../../src/http/router";
import { rateLimit } from "../../src/ratelimit/middleware";
import type { TokenClaims } from "../../src/http/claims";
import { newAccount, routeOf, setLimiterClock } from "../helpers/accounts";

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const ROUTE = routeOf("GET", "/api/v1/metadata/location");

/** `n` calls of the middleware for `account` with `vars` over the test env; how many reached the route, and the last response. */
async function calls(
  account: string,
  n: number,
  vars: Record<string, string> = {},
): Promise<{ passed: number; last?: Response; refused: number }> {
  const request = Object.assign(new Request(`http://localhost${ROUTE.path}`), {
    claims: { account } as TokenClaims,
  }) as unknown as AuthedRequest;
  let passed = 0,
    refused = 0,
    last: Response | undefined;
  for (let i = 0; i < n; i++) {
    try {
      last = await rateLimit(
        request,
        { ...env, ...vars },
        createExecutionContext(),
        async () => (passed++, new Response("ok")),
        ROUTE,
      );
    } catch {
      refused++;
    }
  }
  return { passed, last, refused };
}

describe("RATE_LIMITS=off", () => {
  it("passes every call untouched (no limiter headers); without it the basic plan's 20/s applies", async () => {
    const a = await newAccount({ plan: "basic" });
    await setLimiterClock(`account:${a.account}`, T0);
    const off = await calls(a.account, 30, { RATE_LIMITS: "off" });
    expect([off.passed, off.refused]).toEqual([30, 0]);
    expect(off.last!.headers.has("x-ratelimit-remaining")).toBe(false);
    expect(off.last!.headers.has("server-timing")).toBe(false);
    const on = await calls(a.account, 30);
    expect([on.passed, on.refused]).toEqual([20, 10]);
    const other = await calls(a.account, 1, { RATE_LIMITS: "on" }); // any other value limits: the bucket is empty
    expect([other.passed, other.refused]).toEqual([0, 1]);
  });
});

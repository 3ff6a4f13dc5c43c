/**
 * Requests started before their limiter decision (src/ratelimit/headroom.ts): only on speculative routes, only with
 * headroom from this isolate's last decision; a refusal still answers 429 and `request.admitted` resolves false.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AuthedRequest, RouteInfo } from "../../src/http/router";
import { rateLimit } from "../../src/ratelimit/middleware";
import { takeToken } from "../../src/ratelimit/limiter";
import type { TokenClaims } from "../../src/http/claims";
import { newAccount, routeOf, setLimiterClock } from "../helpers/accounts";

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const PROCESS = routeOf("POST", "/api/v1/process");
const CREATE = routeOf("POST", "/api/v1/async/process");

/** One call of the middleware: whether the route ran, the status (429/403 thrown as ApiError), `admitted`. */
async function once(
  account: string,
  route: RouteInfo,
): Promise<{ ran: boolean; status: number; admitted: boolean | undefined }> {
  const request = Object.assign(new Request(`http://localhost${route.path}`, { method: route.method }), {
    claims: { account } as TokenClaims,
  }) as unknown as AuthedRequest;
  let ran = false;
  let status: number;
  try {
    status = (
      await rateLimit(request, env, createExecutionContext(), async () => ((ran = true), new Response("ok")), route)
    ).status;
  } catch (e) {
    status = (e as { status: number }).status;
  }
  return { ran, status, admitted: await request.admitted };
}

/** Empties the account's buckets behind this isolate's back (as other isolates' requests would). */
async function drain(account: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await takeToken(env, { kind: "account", account });
}

describe("starting before the limiter's decision", () => {
  it("a speculative route runs with headroom, and its refusal is still a 429 with admitted false", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 10 }] });
    await setLimiterClock(`account:${a.account}`, T0);
    expect(await once(a.account, PROCESS)).toEqual({ ran: true, status: 200, admitted: true }); // no headroom known: waited
    await drain(a.account, 9); // another isolate takes the rest
    expect(await once(a.account, PROCESS)).toEqual({ ran: true, status: 429, admitted: false }); // ran early, refused
    expect(await once(a.account, PROCESS)).toEqual({ ran: false, status: 429, admitted: false }); // no headroom left: waits
  });

  it("other routes, or too little headroom, wait for the decision", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 10 }] });
    await setLimiterClock(`account:${a.account}`, T0);
    expect((await once(a.account, CREATE)).status).toBe(200);
    await drain(a.account, 9);
    expect(await once(a.account, CREATE)).toEqual({ ran: false, status: 429, admitted: false });
    const b = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 2 }] });
    await setLimiterClock(`account:${b.account}`, T0);
    expect((await once(b.account, PROCESS)).status).toBe(200); // 1 left: below MIN_HEADROOM
    await drain(b.account, 1);
    expect(await once(b.account, PROCESS)).toEqual({ ran: false, status: 429, admitted: false });
  });

  it("an account this isolate never saw starts once without waiting; then its decision counts", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 3 }] });
    await setLimiterClock(`account:${a.account}`, T0);
    await drain(a.account, 3); // used up elsewhere
    expect(await once(a.account, PROCESS)).toEqual({ ran: true, status: 429, admitted: false }); // cold: ran early
    expect(await once(a.account, PROCESS)).toEqual({ ran: false, status: 429, admitted: false });
  });
});

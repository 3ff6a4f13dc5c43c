/**
 * Rate-limit policies enforced by the RateLimiter Durable Object (spec, Limits and Errors 2), time driven by the
 * object's injectable clock (never slept): the spec's example, headers, no accumulation, per-client token limits.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/auth/clients";
import { authed, envelope } from "../helpers/auth";
import { newAccount, requestToken, setLimiterClock, tokenOf } from "../helpers/accounts";
import { durationMs } from "../../src/ratelimit/policy";
import type { RateLimiter } from "../../src/ratelimit/object";

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const LOCATIONS = "/api/v1/metadata/location";

/** `n` sequential calls of a cheap authenticated route; their responses. */
async function burst(bearer: string, n: number): Promise<Response[]> {
  const out: Response[] = [];
  for (let i = 0; i < n; i++) out.push(await authed(LOCATIONS, {}, bearer));
  return out;
}
const statuses = (rs: Response[]): number[] => rs.map((r) => r.status);
const count = (rs: Response[], status: number): number => rs.filter((r) => r.status === status).length;

describe("ISO 8601 sampling periods", () => {
  it("days, hours, minutes and seconds; not months or zero", () => {
    expect([
      durationMs("PT1S"),
      durationMs("PT1M"),
      durationMs("PT1H"),
      durationMs("P1D"),
      durationMs("P1DT1H30M0.5S"),
    ]).toEqual([1000, 60_000, 3_600_000, 86_400_000, 86_400_000 + 5_400_000 + 500]);
    expect([durationMs("P1M"), durationMs("PT0S"), durationMs("P"), durationMs("PT"), durationMs("1S")]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe("the spec's example: 20 per second and 10000 per day", () => {
  it("of 100 requests in one second only 20 pass; the 429s name the PT1S policy", async () => {
    const a = await newAccount({ plan: "basic" }); // basic: PT1S 20 + P1D 10000 (migration 0006)
    const bearer = await tokenOf(a.client);
    await setLimiterClock(`account:${a.account}`, T0);
    const rs = await burst(bearer, 100);
    expect(count(rs, 200)).toBe(20);
    expect(
      statuses(rs)
        .slice(0, 20)
        .every((s) => s === 200),
    ).toBe(true);
    expect(count(rs, 429)).toBe(80);
    // passing responses: tokens left of the emptiest bucket, Retry-After 0 while one is left, never the policy header
    expect(rs.slice(0, 20).map((r) => Number(r.headers.get("x-ratelimit-remaining")))).toEqual(
      [...Array(20).keys()].reverse(),
    );
    expect(rs.slice(0, 19).every((r) => r.headers.get("retry-after") === "0")).toBe(true);
    expect(rs[19]!.headers.get("retry-after")).toBe("50"); // 1 token of 20/s: 1000 ms / 20
    expect(rs.slice(0, 20).every((r) => !r.headers.has("x-ratelimit-violatedpolicy"))).toBe(true);
    const refused = rs[20]!;
    expect(refused.headers.get("x-ratelimit-violatedpolicy")).toBe('{"samplingPeriod":"PT1S","limit":20}');
    expect(refused.headers.get("retry-after")).toBe("50");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    const e = await envelope(refused);
    expect([e.status, e.reason, e.code]).toEqual([429, "Too Many Requests", "COMMON_TOO_MANY_REQUESTS"]);
    expect(e.message).toMatch(/20 per PT1S/);
  });

  it("tokens come back at 20/s, and idle time does not accumulate beyond 20", async () => {
    const a = await newAccount({ plan: "basic" });
    const bearer = await tokenOf(a.client);
    const name = `account:${a.account}`;
    await setLimiterClock(name, T0);
    expect(count(await burst(bearer, 25), 200)).toBe(20);
    await setLimiterClock(name, T0 + 49);
    expect(statuses(await burst(bearer, 1))).toEqual([429]);
    await setLimiterClock(name, T0 + 50);
    expect(statuses(await burst(bearer, 2))).toEqual([200, 429]);
    await setLimiterClock(name, T0 + 3_600_000); // an idle hour: still only 20
    expect(count(await burst(bearer, 30), 200)).toBe(20);
  });

  it("the day policy refuses once its limit is used, whatever the second policy allows", async () => {
    const a = await newAccount({
      policies: [
        { samplingPeriod: "PT1S", limit: 20 },
        { samplingPeriod: "P1D", limit: 30 },
      ],
    });
    const bearer = await tokenOf(a.client);
    const name = `account:${a.account}`;
    await setLimiterClock(name, T0);
    expect(count(await burst(bearer, 20), 200)).toBe(20);
    await setLimiterClock(name, T0 + 1000);
    const rs = await burst(bearer, 12);
    expect(statuses(rs)).toEqual([...Array(10).fill(200), 429, 429]);
    expect(rs[10]!.headers.get("x-ratelimit-violatedpolicy")).toBe('{"samplingPeriod":"P1D","limit":30}');
    // 30 per day refill one token every 2 880 000 ms; 1 s of it has refilled already
    expect(Number(rs[10]!.headers.get("retry-after"))).toBe(2_880_000 - 1000);
    // Retry-After stays in ms (Sentinel Hub's, what sentinelhub-py reads); the IETF draft's headers give seconds (rounded up)
    expect([
      rs[10]!.headers.get("ratelimit-reset"),
      rs[10]!.headers.get("ratelimit-remaining"),
      rs[10]!.headers.get("ratelimit"),
    ]).toEqual(["2879", "0", '"eoedge";r=0;t=2879']);
    const [left, wait] = [
      rs[9]!.headers.get("x-ratelimit-remaining"),
      String(Math.ceil(Number(rs[9]!.headers.get("retry-after")) / 1000)),
    ];
    expect([
      rs[9]!.headers.get("ratelimit-reset"),
      rs[9]!.headers.get("ratelimit-remaining"),
      rs[9]!.headers.get("ratelimit"),
    ]).toEqual([wait, left, `"eoedge";r=${left};t=${wait}`]);
  });

  it("a changed policy applies once the object's cached limits are a minute old", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1M", limit: 2 }] });
    const bearer = await tokenOf(a.client);
    const name = `account:${a.account}`;
    await setLimiterClock(name, T0);
    expect(statuses(await burst(bearer, 3))).toEqual([200, 200, 429]);
    await env.DB.prepare("UPDATE accounts SET policies = ? WHERE id = ?")
      .bind('[{"samplingPeriod":"PT1S","limit":5}]', a.account)
      .run();
    await setLimiterClock(name, T0 + 1000);
    expect(statuses(await burst(bearer, 1))).toEqual([429]); // still the cached 2/min
    await setLimiterClock(name, T0 + 60_000);
    expect(count(await burst(bearer, 8), 200)).toBe(5);
  });

  it("errors of a passing request carry the headers too; public routes carry none", async () => {
    const a = await newAccount();
    const bearer = await tokenOf(a.client);
    const r = await authed("/api/v1/metadata/location/nowhere", {}, bearer);
    expect(r.status).toBe(404);
    expect(r.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
    expect(r.headers.get("retry-after")).toBe("0");
    const jwks = await authed("/auth/realms/main/protocol/openid-connect/certs", {}, bearer);
    expect([jwks.status, jwks.headers.has("x-ratelimit-remaining"), jwks.headers.has("retry-after")]).toEqual([
      200,
      false,
      false,
    ]);
  });
});

describe("token requests, per client", () => {
  it("a client past its account's token policy gets 429 with the headers; another client of the account does not", async () => {
    const a = await newAccount({ tokenPolicies: [{ samplingPeriod: "PT1M", limit: 3 }] });
    await setLimiterClock(`client:${a.client.client_id}`, T0);
    const rs = [];
    for (let i = 0; i < 4; i++) rs.push(await requestToken(a.client));
    expect(statuses(rs)).toEqual([200, 200, 200, 429]);
    expect(rs.slice(0, 3).map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual(["2", "1", "0"]);
    expect(rs[3]!.headers.get("x-ratelimit-violatedpolicy")).toBe('{"samplingPeriod":"PT1M","limit":3}');
    expect(rs[3]!.headers.get("retry-after")).toBe("20000");
    // every token endpoint error is OAuth's {error, error_description} (what requests-oauthlib parses), the 429 too
    const body = (await rs[3]!.json()) as Record<string, unknown>;
    expect(body).toEqual({
      error: "too_many_requests",
      error_description: expect.stringMatching(/Too many token requests/),
    });
    const other = await createClient(env, { accountId: a.account, name: "second" });
    expect((await requestToken(other)).status).toBe(200);
  });
});

describe("the buckets outlive the object", () => {
  it("after eviction the emptied bucket is still empty", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 3 }] });
    const bearer = await tokenOf(a.client);
    const name = `account:${a.account}`;
    await setLimiterClock(name, T0);
    expect(statuses(await burst(bearer, 3))).toEqual([200, 200, 200]);
    await evictDurableObject(env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name)));
    await setLimiterClock(name, T0 + 1000);
    expect(statuses(await burst(bearer, 1))).toEqual([429]);
  });
});

describe("what the limiter writes", () => {
  /** The buckets record in the object's storage (undefined before the first write). */
  const stored = (name: string) =>
    runInDurableObject(env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name)), (_o: RateLimiter, state) =>
      state.storage.get<Record<string, { tokens: number }>>("buckets"),
    );

  it("long policies are written every limit/1000 takes, short ones never (a restart refills them)", async () => {
    const a = await newAccount({
      policies: [
        { samplingPeriod: "PT1S", limit: 3000 },
        { samplingPeriod: "PT1H", limit: 2000 },
      ],
    });
    const bearer = await tokenOf(a.client);
    const name = `account:${a.account}`;
    await setLimiterClock(name, T0);
    expect(statuses(await burst(bearer, 1))).toEqual([200]);
    expect(await stored(name)).toBeUndefined(); // 1 of the 2 takes a write may lag behind
    expect((await burst(bearer, 1))[0]!.headers.get("x-ratelimit-remaining")).toBe("1998");
    expect(await stored(name)).toEqual({ "PT1H/2000": { tokens: 1998, at: T0 } }); // the PT1S bucket is not written
    await evictDurableObject(env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name)));
    await setLimiterClock(name, T0);
    // the hour's bucket came back from storage: 1998 - 1 left (a fresh one would leave 1999)
    expect((await burst(bearer, 1))[0]!.headers.get("x-ratelimit-remaining")).toBe("1997");
  });

  it("a changed policy drops the old policy's bucket: it is not written, and a policy changed back starts full", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 2 }] });
    const bearer = await tokenOf(a.client);
    const name = `account:${a.account}`;
    const setPolicies = (json: string) =>
      env.DB.prepare("UPDATE accounts SET policies = ? WHERE id = ?").bind(json, a.account).run();
    await setLimiterClock(name, T0);
    expect((await burst(bearer, 1))[0]!.headers.get("x-ratelimit-remaining")).toBe("1");
    expect(await stored(name)).toEqual({ "PT1H/2": { tokens: 1, at: T0 } });
    await setPolicies('[{"samplingPeriod":"PT1H","limit":3}]');
    await setLimiterClock(name, T0 + 60_000);
    expect((await burst(bearer, 1))[0]!.headers.get("x-ratelimit-remaining")).toBe("2");
    expect(await stored(name)).toEqual({ "PT1H/3": { tokens: 2, at: T0 + 60_000 } });
    await setPolicies('[{"samplingPeriod":"PT1H","limit":2}]');
    await setLimiterClock(name, T0 + 120_000);
    // a fresh bucket (2 - 1); the first one kept would have refilled to 1.07 only and left 0
    expect((await burst(bearer, 1))[0]!.headers.get("x-ratelimit-remaining")).toBe("1");
  });
});

/**
 * Processing units per account: Process and Statistics charge what they report in `x-processingunits-spent`, and
 * an account past its monthly quota is refused with 403 OUT_OF_PU on metered calls only.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { authed, envelope } from "../helpers/auth";
import { newAccount, waitForUsage, setLimiterClock, tokenOf } from "../helpers/accounts";
import { seedSamples } from "../helpers/seed";
import { CRS, bandsScript, process } from "../helpers/process";
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { CHARGE_ATTEMPTS, chargeLater, chargeUnits, outOfUnits, unitsUsage } from "../../src/accounts/units";
import { FLUSH_MS, type RateLimiter } from "../../src/ratelimit/object";
import { takeToken } from "../../src/ratelimit/limiter";
import { CARRY_MS, type Charge } from "../../src/ratelimit/carry";
import type { Env } from "../../src/env";

const request = {
  input: {
    bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
      },
    ],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: bandsScript(["B04"]),
};
const statistics = {
  input: request.input,
  aggregation: {
    timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" },
    aggregationInterval: { of: "P1D" },
    width: 32,
    height: 32,
    evalscript: `//VERSION=3
function setup() { return { input: ["B04", "dataMask"], output: [{ id: "b", bands: 1 }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { b: [s.B04], dataMask: [s.dataMask] }; }`,
  },
};

/** The limiter's clock in the quota test: mid-January 2026 (UTC). */
const T = Date.UTC(2026, 0, 15, 12, 0, 0);
/** Charge ids the account's RateLimiter has counted. */
async function chargeIds(account: string): Promise<number> {
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`account:${account}`));
  return runInDurableObject(stub, (_o: RateLimiter, state) =>
    Number(state.storage.sql.exec("SELECT count(*) AS n FROM charges").one().n),
  );
}
const postStatistics = (bearer: string): Promise<Response> =>
  authed(
    "/api/v1/statistics",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(statistics) },
    bearer,
  );

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2_L2A_31UDS_20180419T110127_wc00002806639B424A");
});

describe("processing units", () => {
  it("Process and Statistics add what they report to the account's month, not to another account's", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    const bearer = await tokenOf(a.client);
    const r1 = await process(request, bearer);
    expect(r1.status).toBe(200);
    const spent1 = Number(r1.headers.get("x-processingunits-spent"));
    expect(spent1).toBeGreaterThan(0);
    // Process charges after its response (ctx.waitUntil): wait for it to land, then check it landed once
    await waitForUsage(a.account, spent1);
    const r2 = await postStatistics(bearer);
    expect(r2.status, await r2.clone().text()).toBe(200);
    const spent2 = Number(r2.headers.get("x-processingunits-spent"));
    // Statistics also charges after its response
    await waitForUsage(a.account, spent1 + spent2);
    const usage = await unitsUsage(env, a.account);
    expect(usage.used).toBeCloseTo(spent1 + spent2, 9);
    expect(usage.month).toBe(new Date().toISOString().slice(0, 7));
    expect((await unitsUsage(env, b.account)).used).toBe(0);
    const me = (await (await authed("/api/v1/accounts/me", {}, bearer)).json()) as {
      processingUnits: { used: number; quota: number | null };
    };
    expect(me.processingUnits.used).toBeCloseTo(spent1 + spent2, 9);
    expect(me.processingUnits.quota).toBeNull();
  });

  it("past the monthly quota: 403 OUT_OF_PU on Process and Statistics, other calls still pass", async () => {
    const a = await newAccount({ puQuota: 1 });
    const bearer = await tokenOf(a.client);
    await setLimiterClock(`account:${a.account}`, T);
    await chargeUnits(env, a.account, 0.6);
    expect(await outOfUnits(env, a.account)).toBe(false);
    expect((await process(request, bearer)).status).toBe(200);
    await chargeUnits(env, a.account, 0.4);
    expect(await outOfUnits(env, a.account)).toBe(true);
    const refused = await process(request, bearer);
    const e = await envelope(refused);
    expect([refused.status, e.code]).toEqual([403, "OUT_OF_PU"]);
    expect(e.message).toMatch(/Out of processing units: this account used [\d.]+ of its 1 processing units in 2026-01/);
    // Retry-After: until the quota is renewed, at the start of the next calendar month (UTC)
    expect(refused.headers.get("retry-after")).toBe(String(Date.UTC(2026, 1, 1) - T));
    expect(refused.headers.has("x-ratelimit-violatedpolicy")).toBe(false);
    expect((await postStatistics(bearer)).status).toBe(403);
    expect((await authed("/api/v1/metadata/location", {}, bearer)).status).toBe(200);
  });

  it("a Process charge lands after the response exactly once, however long one waits", async () => {
    const a = await newAccount();
    const r = await process(request, await tokenOf(a.client));
    expect(r.status).toBe(200);
    const spent = Number(r.headers.get("x-processingunits-spent"));
    expect(await waitForUsage(a.account, spent)).toBeCloseTo(spent, 9);
    await new Promise((r) => setTimeout(r, 200));
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(spent, 9);
  });

  it("a charge id counts once: a retried charge adds nothing", async () => {
    const a = await newAccount();
    await chargeUnits(env, a.account, 0.25, "charge-1");
    await chargeUnits(env, a.account, 0.25, "charge-1");
    const u = await chargeUnits(env, a.account, 0.5, "charge-2");
    expect(u.used).toBeCloseTo(0.75, 9);
    expect((await chargeUnits(env, a.account, 1)).used).toBeCloseTo(1.75, 9); // no id: always counted
  });

  it("chargeLater retries a failed call with the same id and runs inside waitUntil", async () => {
    const a = await newAccount();
    let calls = 0;
    const real = env.RATE_LIMITER;
    // a namespace whose first stub call fails after the charge landed (the answer is lost): the retry must not double it
    const flaky = {
      idFromName: (n: string) => real.idFromName(n),
      get: (id: DurableObjectId) => {
        const stub = real.get(id);
        return {
          chargeAll: async (account: string, charges: Charge[]) => {
            const out = await stub.chargeAll(account, charges);
            if (++calls === 1) throw new Error("connection lost after the charge");
            return out;
          },
        };
      },
    } as unknown as Env["RATE_LIMITER"];
    const ctx = createExecutionContext();
    const done = chargeLater(ctx, { RATE_LIMITER: flaky }, a.account, 0.5);
    await waitOnExecutionContext(ctx);
    await done;
    expect(calls).toBe(2);
    expect(CHARGE_ATTEMPTS).toBeGreaterThanOrEqual(2);
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(0.5, 9);
    expect(await chargeIds(a.account)).toBe(1);
  });

  it("one limiter call per metered request: each charge rides on the account's next decision, the last one alone", async () => {
    const a = await newAccount();
    const calls: string[] = [];
    const real = env.RATE_LIMITER;
    // the real namespace, counting the calls its stubs make
    const counting = {
      idFromName: (n: string) => real.idFromName(n),
      get: (id: DurableObjectId) => {
        const stub = real.get(id) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
        return new Proxy(
          {},
          {
            get:
              (_t, method: string) =>
              (...args: unknown[]) => (calls.push(method), stub[method]!(...args)),
          },
        );
      },
    } as unknown as Env["RATE_LIMITER"];
    const subject = { kind: "account" as const, account: a.account };
    const ctx = createExecutionContext();
    const charged: Promise<void>[] = [];
    for (let i = 0; i < 6; i++) {
      expect((await takeToken({ RATE_LIMITER: counting }, subject, true)).allowed).toBe(true); // the request's decision
      charged.push(chargeLater(ctx, { RATE_LIMITER: counting }, a.account, 0.125)); // its cost, known after it ran
    }
    expect(calls).toEqual(Array(6).fill("take"));
    await Promise.all(charged);
    await waitOnExecutionContext(ctx);
    // five charges rode on the next requests' decisions; the last waited CARRY_MS for one and went alone
    expect(calls).toEqual([...Array(6).fill("take"), "chargeAll"]);
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(0.75, 9);
    expect(await chargeIds(a.account)).toBe(6);
  });

  it("a decision counts the charges it carries at once and writes them after answering; a later call confirms them", async () => {
    const a = await newAccount();
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`account:${a.account}`));
    const subject = { kind: "account" as const, account: a.account };
    const charges = [{ id: crypto.randomUUID(), pu: 0.25 }];
    const first = await stub.take(subject, true, charges);
    expect([first.allowed, first.landed]).toEqual([true, []]); // counted, written after this answer
    expect((await stub.usage(a.account)).used).toBeCloseTo(0.25, 9);
    await new Promise((r) => setTimeout(r, FLUSH_MS + 20)); // the object writes them FLUSH_MS later
    const again = await stub.take(subject, true, charges); // the same charge carried again (not yet confirmed)
    expect(again.landed).toEqual([charges[0]!.id]);
    expect((await stub.usage(a.account)).used).toBeCloseTo(0.25, 9);
    expect(await chargeIds(a.account)).toBe(1);
    // carried again before its write: counted once too (chargeAll writes what take counted before its own)
    const other = [{ id: crypto.randomUUID(), pu: 0.5 }];
    await stub.take(subject, true, other);
    expect((await stub.chargeAll(a.account, other)).used).toBeCloseTo(0.75, 9);
    expect(await chargeIds(a.account)).toBe(2);
  });

  it("a carried charge whose call failed is sent again under its id, and counts once", async () => {
    const a = await newAccount();
    const real = env.RATE_LIMITER;
    let failTakes = 1;
    // the first take lands (the charge it carries is counted) but its answer is lost
    const flaky = {
      idFromName: (n: string) => real.idFromName(n),
      get: (id: DurableObjectId) => {
        const stub = real.get(id);
        return {
          take: async (...args: Parameters<RateLimiter["take"]>) => {
            const out = await stub.take(...args);
            if (failTakes-- > 0) throw new Error("connection lost after the decision");
            return out;
          },
          chargeAll: (account: string, charges: Charge[]) => stub.chargeAll(account, charges),
        };
      },
    } as unknown as Env["RATE_LIMITER"];
    const ctx = createExecutionContext();
    const done = chargeLater(ctx, { RATE_LIMITER: flaky }, a.account, 0.5);
    await new Promise((r) => setTimeout(r, 0)); // the charge is waiting
    await expect(takeToken({ RATE_LIMITER: flaky }, { kind: "account", account: a.account }, true)).rejects.toThrow(
      /connection lost/,
    );
    await done;
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(0.5, 9);
    expect(await chargeIds(a.account)).toBe(1);
    expect(CARRY_MS).toBeGreaterThan(0);
  });

  it("a Process request started before its limiter decision and refused charges nothing", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 10 }] });
    const bearer = await tokenOf(a.client);
    await setLimiterClock(`account:${a.account}`, T);
    const r1 = await process(request, bearer);
    expect(r1.status).toBe(200);
    const spent = Number(r1.headers.get("x-processingunits-spent"));
    await waitForUsage(a.account, spent);
    // other isolates take the 9 tokens left: this isolate still thinks there is headroom and starts the next one early
    for (let i = 0; i < 9; i++) await takeToken(env, { kind: "account", account: a.account });
    const r2 = await process(request, bearer);
    expect(r2.status).toBe(429);
    await new Promise((r) => setTimeout(r, 200));
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(spent, 9);
  });
});

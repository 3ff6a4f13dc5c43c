/**
 * Leases of an account's tokens (src/ratelimit/lease.ts): two books play two isolates against the account's real
 * RateLimiter object, their clocks and the object's driven by the test (never slept).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newAccount, setLimiterClock } from "../helpers/accounts";
import { LEASE_MS, Leases, MAX_LEASE } from "../../src/ratelimit/lease";
import type { LimitVerdict, RateLimiter } from "../../src/ratelimit/object";

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

/** A book whose clock the test moves, and the limiter calls it made. */
function isolate() {
  const clock = { now: T0 };
  const calls: unknown[][] = [];
  const real = env.RATE_LIMITER;
  const counting = {
    idFromName: (n: string) => real.idFromName(n),
    get: (id: DurableObjectId) => {
      const stub = real.get(id) as unknown as RateLimiter;
      return { take: (...args: Parameters<RateLimiter["take"]>) => (calls.push(args), stub.take(...args)) };
    },
  } as unknown as typeof real;
  const book = new Leases(() => clock.now);
  const decide = async (account: string, metered = false): Promise<LimitVerdict> =>
    book.decide({ RATE_LIMITER: counting }, account, metered);
  /** Leases.ahead: its call (what the middleware leaves to waitUntil), or undefined when none is due. */
  const ahead = (account: string) => book.ahead({ RATE_LIMITER: counting }, account);
  return { clock, calls, decide, ahead };
}

describe("an isolate's lease of an account's tokens", () => {
  it("two isolates leasing never pass more than the limit, and use all of it", async () => {
    const limit = 1000;
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit }] });
    await setLimiterClock(`account:${a.account}`, T0); // frozen: no refill
    const [one, two] = [isolate(), isolate()];
    let passed = 0;
    let local = 0;
    // the first window (80 requests each) sizes the leases, then both lease; they ask until both are refused twice
    for (let step = 0, refusedInARow = 0; refusedInARow < 4 && step < 3000; step++) {
      const who = step % 2 === 0 ? one : two;
      who.clock.now = T0 + Math.floor(step / 40) * (LEASE_MS / 4); // a window every 160 steps
      const calls = who.calls.length;
      const v = await who.decide(a.account);
      if (v.allowed) [passed, refusedInARow] = [passed + 1, 0];
      else refusedInARow++;
      if (v.allowed && who.calls.length === calls) local++;
    }
    expect(passed).toBe(limit);
    expect(local).toBeGreaterThan(limit / 2); // most requests made no call
    // the leases were sized by the last window (at most MAX_LEASE tokens per call)
    const asked = [...one.calls, ...two.calls].map((args) => (args[3] as { want: number }).want);
    expect(Math.max(...asked)).toBe(MAX_LEASE);
  });

  it("tokens a lease did not spend go back to the account with the next call", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 1000 }] });
    await setLimiterClock(`account:${a.account}`, T0);
    const one = isolate();
    for (let i = 0; i < 20; i++) await one.decide(a.account); // window 1: 20 requests, no lease
    one.clock.now = T0 + LEASE_MS;
    const leased = await one.decide(a.account); // window 2: asks for 16, takes them
    expect([leased.allowed, leased.granted, leased.remaining]).toEqual([true, MAX_LEASE, 1000 - 21]);
    expect((await one.decide(a.account)).remaining).toBe(1000 - 22); // spent locally
    expect(one.calls.length).toBe(21);
    // the lease ends unspent (14 tokens): the next call gives them back and takes its own
    one.clock.now = T0 + 3 * LEASE_MS;
    const after = await one.decide(a.account);
    expect(one.calls.at(-1)![3]).toEqual({ want: 1, back: MAX_LEASE - 2 });
    expect([after.granted, after.remaining]).toEqual([1, 1000 - 23]);
  });

  it("near the limit every request is the object's own decision (no lease), and refusals are exact", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 30 }] });
    await setLimiterClock(`account:${a.account}`, T0);
    const one = isolate();
    const remaining: number[] = [];
    const granted: (number | undefined)[] = [];
    for (let i = 0; i < 34; i++) {
      one.clock.now = T0 + Math.floor(i / 10) * LEASE_MS;
      const v = await one.decide(a.account);
      remaining.push(v.allowed ? v.remaining : -1);
      granted.push(v.granted);
    }
    // one isolate sees the tokens left count down by one, leased or not; the 31st request and later are refused
    expect(remaining).toEqual([...[...Array(30).keys()].reverse(), -1, -1, -1, -1]);
    // tokens granted per call (undefined: spent from a lease): leases of at most a quarter of what was left (4 of
    // 19, 3 of 14, ..., 1 of 4), none with fewer than 4 left; at the 21st the lease ended and its 2 came back
    const u = undefined;
    expect(granted.slice(10, 30)).toEqual([5, u, u, u, u, 4, u, u, u, 3, 3, u, u, 2, u, 2, u, 1, 1, 1]);
  });

  it("a metered call spends no lease of an account with a PU quota", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 1000 }], puQuota: 100 });
    await setLimiterClock(`account:${a.account}`, T0);
    const one = isolate();
    for (let i = 0; i < 10; i++) await one.decide(a.account, true);
    one.clock.now = T0 + LEASE_MS;
    expect((await one.decide(a.account, true)).granted).toBe(1); // metered: checked against the month, no lease
    expect((await one.decide(a.account, false)).granted).toBe(10); // not metered: leased (10 asked, as in the last window)
    const calls = one.calls.length;
    await one.decide(a.account, false); // from the lease
    await one.decide(a.account, true); // metered: a call of its own
    expect(one.calls.length).toBe(calls + 1);
  });

  it("a lease renewed ahead keeps a steady account's requests off the object, one call at a time", async () => {
    const limit = 1000;
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit }] });
    await setLimiterClock(`account:${a.account}`, T0);
    const one = isolate();
    for (let i = 0; i < 20; i++) await one.decide(a.account); // window 1: sizes the lease, none asked ahead
    expect(one.ahead(a.account)).toBeUndefined();
    let [passed, fromLease, requestCalls] = [20, 0, 0];
    // 200 requests, 40 per window: the first asks the object (16 tokens), then every one is the lease's
    for (let i = 0; i < 200; i++) {
      one.clock.now = T0 + LEASE_MS + i * (LEASE_MS / 40);
      const calls = one.calls.length;
      const v = await one.decide(a.account);
      expect(v.allowed).toBe(true);
      passed++;
      if (one.calls.length === calls) fromLease++;
      else requestCalls++;
      const renewal = one.ahead(a.account); // as the middleware does after the response
      if (renewal) {
        expect(one.ahead(a.account)).toBeUndefined(); // one in flight at a time
        expect(one.calls.at(-1)![3]).toEqual({ want: MAX_LEASE, back: 0 });
        expect((await renewal)?.granted).toBe(MAX_LEASE);
      }
    }
    expect([requestCalls, fromLease]).toEqual([1, 199]);
    // the renewals, 16 tokens each, asked at 8 left: 15 + 13 x 16 leased, 199 spent, 24 still held
    expect(one.calls.length - 20 - requestCalls).toBe(13);
    // the tokens left (the object's plus the lease's) are the limit less every request passed: none unaccounted
    expect((await one.decide(a.account)).remaining).toBe(limit - passed - 1);
  });

  it("renewals ahead by two isolates never pass more than the limit", async () => {
    const limit = 600;
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit }] });
    await setLimiterClock(`account:${a.account}`, T0);
    const [one, two] = [isolate(), isolate()];
    let passed = 0;
    for (let step = 0, refusedInARow = 0; refusedInARow < 4 && step < 3000; step++) {
      const who = step % 2 === 0 ? one : two;
      who.clock.now = T0 + Math.floor(step / 40) * (LEASE_MS / 4);
      const v = await who.decide(a.account);
      if (v.allowed) [passed, refusedInARow] = [passed + 1, 0];
      else refusedInARow++;
      await who.ahead(a.account);
    }
    expect(passed).toBe(limit);
  });

  it("near the limit no lease is asked ahead: requests stay the object's own decisions", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 60 }] });
    await setLimiterClock(`account:${a.account}`, T0);
    const one = isolate();
    for (let i = 0; i < 20; i++) await one.decide(a.account);
    one.clock.now = T0 + LEASE_MS;
    expect((await one.decide(a.account)).granted).toBe(10); // a quarter of the 39 left after its own
    for (let i = 0; i < 9; i++) {
      await one.decide(a.account);
      expect(one.ahead(a.account)).toBeUndefined(); // 30 left: a lease of 16 ahead would take over a quarter
    }
  });

  it("a lease asked ahead does not pass metered calls of an account with a PU quota", async () => {
    const a = await newAccount({ policies: [{ samplingPeriod: "PT1H", limit: 1000 }], puQuota: 100 });
    await setLimiterClock(`account:${a.account}`, T0);
    const one = isolate();
    for (let i = 0; i < 20; i++) await one.decide(a.account);
    one.clock.now = T0 + LEASE_MS;
    await one.decide(a.account); // leased: 16
    for (let i = 0; i < 8; i++) await one.decide(a.account);
    const renewal = one.ahead(a.account);
    expect(one.calls.at(-1)![1]).toBe(false); // asked as an unmetered call: the month is not checked for it
    expect((await renewal)?.granted).toBe(MAX_LEASE);
    const calls = one.calls.length;
    await one.decide(a.account, true); // metered: a call of its own
    await one.decide(a.account, false); // from the lease
    expect(one.calls.length).toBe(calls + 1);
  });
});

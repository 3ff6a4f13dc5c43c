/** Processing units counted per account (in the account's RateLimiter object, per calendar month UTC). */
import type { Env } from "../env";
import { limiterOf } from "../ratelimit/limiter";
import type { UnitsUsage } from "../ratelimit/object";

/** Processing units to count: a finite positive number, else 0. */
const units = (pu: number): number => (Number.isFinite(pu) && pu > 0 ? pu : 0);

/**
 * Adds `pu` processing units (Sentinel Hub's unit, as in `x-processingunits-spent` / `costPU`) to `account`'s
 * current month; returns the month's usage and quota. Called by Processing, Statistics, async and batch once a
 * request's cost is known; once the usage reaches the quota, metered calls are refused (403 OUT_OF_PU) and
 * {@link outOfUnits} is true (batch tasks stop with `stoppedStatusReason: OUT_OF_PU`). `id` makes the charge
 * idempotent (RateLimiter.charge).
 */
export async function chargeUnits(env: Pick<Env, "RATE_LIMITER">, account: string, pu: number, id?: string): Promise<UnitsUsage> {
  return limiterOf(env, { kind: "account", account }).charge(account, units(pu), id);
}

/** Attempts of {@link chargeLater} before it gives up and logs the lost charge. */
export const CHARGE_ATTEMPTS = 3;

/**
 * Charges `pu` to `account` after the response, off the request's critical path: the call runs in
 * `ctx.waitUntil` (the runtime keeps the invocation alive until it settles) with one charge id, retried up to
 * CHARGE_ATTEMPTS times when the Durable Object call fails; the id makes a retry of a charge that did land add
 * nothing, so the units are counted exactly once. A charge failing every attempt is logged (console.error with
 * account, units and id). `admitted` (the request's rate-limit decision, AuthedRequest.admitted): nothing is
 * charged unless it resolves true, so a request started before its decision and then refused costs nothing.
 * Returns the promise given to waitUntil (tests await it).
 */
export function chargeLater(
  ctx: Pick<ExecutionContext, "waitUntil">,
  env: Pick<Env, "RATE_LIMITER">,
  account: string,
  pu: number,
  admitted: Promise<boolean> = Promise.resolve(true),
): Promise<void> {
  const id = crypto.randomUUID();
  const attempt = async (left: number): Promise<void> => {
    try {
      await chargeUnits(env, account, pu, id);
    } catch (e) {
      if (left > 1) return attempt(left - 1);
      console.error(`processing units not charged: account ${account}, ${units(pu)} PU, charge ${id}:`, e);
    }
  };
  const done = admitted.then((yes) => (yes ? attempt(CHARGE_ATTEMPTS) : undefined));
  ctx.waitUntil(done);
  return done;
}

/** The account's processing units of the current month and its quota (null = none). */
export async function unitsUsage(env: Pick<Env, "RATE_LIMITER">, account: string): Promise<UnitsUsage> {
  return limiterOf(env, { kind: "account", account }).usage(account);
}

/** True when the account has a quota and has used it up this month (for long-running work to stop). */
export async function outOfUnits(env: Pick<Env, "RATE_LIMITER">, account: string): Promise<boolean> {
  return usedUp(await unitsUsage(env, account));
}

/** True when `u` has a quota and the month's usage reached it (the answer of {@link chargeUnits}, for tasks to stop). */
export const usedUp = (u: UnitsUsage): boolean => u.quota !== null && u.used >= u.quota;

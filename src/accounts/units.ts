/** Processing units counted per account (in the account's RateLimiter object, per calendar month UTC). */
import type { Env } from "../env";
import { limiterOf } from "../ratelimit/limiter";
import type { UnitsUsage } from "../ratelimit/object";

/**
 * Adds `pu` processing units (Sentinel Hub's unit, as in `x-processingunits-spent` / `costPU`) to `account`'s
 * current month; returns the month's usage and quota. Called by Processing, Statistics, async and batch once a
 * request's cost is known; once the usage reaches the quota, metered calls are refused (403 OUT_OF_PU) and
 * {@link outOfUnits} is true (batch tasks stop with `stoppedStatusReason: OUT_OF_PU`).
 */
export async function chargeUnits(env: Pick<Env, "RATE_LIMITER">, account: string, pu: number): Promise<UnitsUsage> {
  return limiterOf(env, { kind: "account", account }).charge(account, Number.isFinite(pu) && pu > 0 ? pu : 0);
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

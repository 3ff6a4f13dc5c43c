/** Processing units counted per account (in the account's RateLimiter object, per calendar month UTC). */
import type { Env } from "../env";
import { limiterOf } from "../ratelimit/limiter";
import type { UnitsUsage } from "../ratelimit/object";
import { addCharge, CARRY_MS, forget, POLL_MS, takeCharges } from "../ratelimit/carry";

/** Processing units to count: a finite positive number, else 0. */
const units = (pu: number): number => (Number.isFinite(pu) && pu > 0 ? pu : 0);

/**
 * Adds `pu` processing units (Sentinel Hub's unit, as in `x-processingunits-spent` / `costPU`) to `account`'s
 * current month; returns the month's usage and quota. Called by Processing, Statistics, async and batch once a
 * request's cost is known; once the usage reaches the quota, metered calls are refused (403 OUT_OF_PU) and
 * {@link outOfUnits} is true (batch tasks stop with `stoppedStatusReason: OUT_OF_PU`). `id` makes the charge
 * idempotent (RateLimiter.charge).
 */
export async function chargeUnits(
  env: Pick<Env, "RATE_LIMITER">,
  account: string,
  pu: number,
  id?: string,
): Promise<UnitsUsage> {
  return limiterOf(env, { kind: "account", account }).charge(account, units(pu), id);
}

/** Attempts of a charge sent on its own (by {@link chargeLater}) before it is given up and logged. */
export const CHARGE_ATTEMPTS = 3;

/**
 * Charges `pu` to `account` after the response, off the request's critical path and without a call of its own
 * when the account is busy: the charge (one charge id) waits in this isolate to ride on the next call to the
 * account's RateLimiter (the next request's decision, src/ratelimit/carry.ts), and is sent on its own after
 * CARRY_MS when none came, retried up to CHARGE_ATTEMPTS times when that call fails; the id makes a retry of a
 * charge that did land add nothing, so the units are counted exactly once. A charge failing every attempt is
 * logged (console.error with account, units and id). It all runs in `ctx.waitUntil` (the runtime keeps the
 * invocation alive until the charge has landed). `admitted` (the request's rate-limit decision,
 * AuthedRequest.admitted): nothing is charged unless it resolves true, so a request started before its decision
 * and then refused costs nothing. Returns the promise given to waitUntil (tests await it).
 */
export function chargeLater(
  ctx: Pick<ExecutionContext, "waitUntil">,
  env: Pick<Env, "RATE_LIMITER">,
  account: string,
  pu: number,
  admitted: Promise<boolean> = Promise.resolve(true),
): Promise<void> {
  const done = admitted.then((yes) => (yes ? chargeSoon(env, account, units(pu)) : undefined));
  ctx.waitUntil(done);
  return done;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** See {@link chargeLater}: resolves once the charge has landed, or has been given up (and logged). */
async function chargeSoon(env: Pick<Env, "RATE_LIMITER">, account: string, pu: number): Promise<void> {
  const w = addCharge(account, pu);
  await sleep(CARRY_MS);
  let attempts = 0;
  let failure: unknown;
  while (w.state !== "landed") {
    // carried by a call still running (it lands, or comes back to waiting if that call fails), or counted by a
    // decision that writes it after answering: the next call confirms it, else it is sent alone CARRY_MS later
    if (w.state === "sent" || (w.state === "carried" && Date.now() - (w.carriedAt ?? 0) < CARRY_MS)) {
      await sleep(POLL_MS);
      continue;
    }
    if (attempts++ >= CHARGE_ATTEMPTS) {
      forget(account, w);
      console.error(`processing units not charged: account ${account}, ${pu} PU, charge ${w.id}:`, failure);
      return;
    }
    const carried = takeCharges(account); // this one and every other charge of the account still waiting
    await carried
      .settle(limiterOf(env, { kind: "account", account }).chargeAll(account, carried.charges))
      .catch((e: unknown) => (failure = e));
  }
}

/**
 * The account's processing units of the current month and its quota (null = none), counting the charges of the
 * account waiting in this isolate (src/ratelimit/carry.ts: they ride on this call).
 */
export async function unitsUsage(env: Pick<Env, "RATE_LIMITER">, account: string): Promise<UnitsUsage> {
  const carried = takeCharges(account);
  return carried.settle(limiterOf(env, { kind: "account", account }).usage(account, carried.charges));
}

/** True when the account has a quota and has used it up this month (for long-running work to stop). */
export async function outOfUnits(env: Pick<Env, "RATE_LIMITER">, account: string): Promise<boolean> {
  return usedUp(await unitsUsage(env, account));
}

/** True when `u` has a quota and the month's usage reached it (the answer of {@link chargeUnits}, for tasks to stop). */
export const usedUp = (u: UnitsUsage): boolean => u.quota !== null && u.used >= u.quota;

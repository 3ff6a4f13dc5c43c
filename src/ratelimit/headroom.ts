/**
 * Headroom: what this isolate saw of each account's limiter, to let a request start before its decision arrives.
 *
 * Every decision's `remaining` (whole tokens left in the account's emptiest bucket) is noted with its time. A
 * request may start early when the last decision, less the requests started early since, still leaves at least
 * MIN_HEADROOM tokens, and is at most HEADROOM_TTL_MS old; and so may the first request of an account this
 * isolate has never seen (a cold isolate does not wait for a cold limiter object: at most one request's work per
 * account and isolate is wasted if it is refused). The decision itself is still the RateLimiter's: a
 * request started early and refused is answered 429 like any other (only its work is wasted, which happens only
 * when other isolates emptied the bucket in between), and the account's counts are exact.
 */
import { approxBytes, Lru } from "../raster/lru";
import type { LimitVerdict } from "./object";
import { REQUEST_CACHE_BYTES } from "../raster/memory";

/** Tokens that must be left (after the requests already started early) for one more to start early. */
export const MIN_HEADROOM = 2;
/** How long a decision is used for headroom, in ms. */
export const HEADROOM_TTL_MS = 10_000;
const MAX_ACCOUNTS = 4096;

/** Per account: tokens left at the last decision less requests started early since, and that decision's time. */
const seen = new Lru<{ left: number; at: number }>(MAX_ACCOUNTS, REQUEST_CACHE_BYTES / 10, approxBytes, true);

/** Notes a decision for `account` (refused and out-of-units decisions leave no headroom). */
export function noteVerdict(account: string, v: LimitVerdict, now = Date.now()): void {
  seen.set(account, { left: v.allowed ? v.remaining : 0, at: now });
}

/** True (and one token of headroom used) when a request of `account` may start before its decision. */
export function admitEarly(account: string, now = Date.now()): boolean {
  const s = seen.get(account);
  if (!s) {
    seen.set(account, { left: 0, at: now }); // the next ones wait for this one's decision
    return true;
  }
  if (now - s.at > HEADROOM_TTL_MS || now < s.at || s.left < MIN_HEADROOM) return false;
  s.left -= 1;
  return true;
}

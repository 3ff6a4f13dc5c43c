/**
 * Calling the RateLimiter object (one RPC per request, carrying the processing-unit charges of earlier requests:
 * ./carry.ts) and answering with the spec's headers (Limits, Errors 2):
 * `X-RateLimit-Remaining` and `Retry-After` (ms) on every rate-limited response, plus `X-RateLimit-ViolatedPolicy`
 * on the 429.
 */
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { withHeaders } from "../http/base";
import { Lru } from "../raster/lru";
import type { LeaseAsk, LimitSubject, LimitVerdict, RateLimiter } from "./object";
import { takeCharges } from "./carry";
import { REQUEST_CACHE_BYTES } from "../raster/memory";

/** Object ids by namespace and name (idFromName hashes the name; an id is plain data, safe to keep per isolate). */
const ids = new WeakMap<object, Lru<DurableObjectId>>();
const MAX_IDS = 4096;
/** Bytes a DurableObjectId holds (its 64 hex digits and the object). */
const ID_BYTES = 256;

/** The RateLimiter object of a subject: `account:<id>` or `client:<id>` (its id cached per isolate). */
export function limiterOf(env: Pick<Env, "RATE_LIMITER">, subject: LimitSubject): DurableObjectStub<RateLimiter> {
  const name = subject.kind === "client" ? `client:${subject.client}` : `account:${subject.account}`;
  let known = ids.get(env.RATE_LIMITER);
  if (!known)
    ids.set(
      env.RATE_LIMITER,
      (known = new Lru<DurableObjectId>(MAX_IDS, REQUEST_CACHE_BYTES / 10, () => ID_BYTES, true)),
    );
  let id = known.get(name);
  if (!id) known.set(name, (id = env.RATE_LIMITER.idFromName(name)));
  return env.RATE_LIMITER.get(id);
}

/**
 * One RPC to the subject's RateLimiter: takes a token from each of its policies (see RateLimiter.take); an
 * account's call carries the charges of its earlier requests waiting in this isolate (./carry.ts), and may ask for
 * a lease (./lease.ts).
 */
export function takeToken(
  env: Pick<Env, "RATE_LIMITER">,
  subject: LimitSubject,
  metered = false,
  lease?: LeaseAsk,
): Promise<LimitVerdict> {
  if (subject.kind !== "account") return limiterOf(env, subject).take(subject, metered);
  const carried = takeCharges(subject.account);
  return carried.settle(limiterOf(env, subject).take(subject, metered, carried.charges, lease));
}

/**
 * The rate-limit headers of a verdict: Sentinel Hub's X-RateLimit-Remaining and Retry-After in MILLISECONDS (its
 * convention, which sentinelhub-py reads), X-RateLimit-ViolatedPolicy only when a policy refused it; and for generic
 * HTTP clients the IETF draft's (draft-ietf-httpapi-ratelimit-headers) in SECONDS, rounded up: RateLimit-Remaining
 * and RateLimit-Reset (drafts up to -06) and RateLimit `"eoedge";r=<remaining>;t=<seconds>` (later drafts).
 */
export function limitHeaders(v: LimitVerdict): Record<string, string> {
  const reset = String(Math.ceil(v.retryAfterMs / 1000));
  const h: Record<string, string> = {
    "x-ratelimit-remaining": String(v.remaining),
    "retry-after": String(v.retryAfterMs),
    "ratelimit-remaining": String(v.remaining),
    "ratelimit-reset": reset,
    ratelimit: `"eoedge";r=${v.remaining};t=${reset}`,
  };
  if (v.violated)
    h["x-ratelimit-violatedpolicy"] = JSON.stringify({
      samplingPeriod: v.violated.samplingPeriod,
      limit: v.violated.limit,
    });
  return h;
}

/**
 * The error for a refused verdict: 403 `OUT_OF_PU` (the month's processing units are used up; Sentinel Hub answers
 * an exhausted monthly quota with 403) or 429 (a policy is violated), both with {@link limitHeaders}.
 */
export function refusal(v: LimitVerdict, what: string): ApiError {
  if (v.outOfUnits) {
    const { used, quota, month } = v.outOfUnits;
    return new ApiError(
      403,
      `Out of processing units: this account used ${used} of its ${quota} processing units in ${month} (UTC). Wait for next month or raise the account's quota.`,
      v.outOfUnits,
      "OUT_OF_PU",
      limitHeaders(v),
    );
  }
  const p = v.violated!;
  return new ApiError(
    429,
    `Too many ${what}: the rate-limit policy of ${p.limit} per ${p.samplingPeriod} is used up; retry after ${v.retryAfterMs} ms.`,
    { violatedPolicy: p },
    undefined,
    limitHeaders(v),
  );
}

/** `response` with the rate-limit headers of `v` (set in place when its headers are mutable, see withHeaders). */
export function withLimitHeaders(response: Response, v: LimitVerdict): Response {
  return withHeaders(response, limitHeaders(v));
}

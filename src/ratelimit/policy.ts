/**
 * Rate-limit policies: a sampling period (ISO 8601 duration) and a limit (requests per period), and their
 * token-bucket arithmetic (spec, Limits). Each policy is a bucket of capacity `limit` that refills continuously at
 * `limit / period` ("greedy" refill, as Bucket4j's Bandwidth.simple); a request takes one token from every bucket
 * and passes only when each has one. A full bucket stops filling: unused capacity does not accumulate.
 */
import { z } from "zod";

/** One policy, as sent in `X-RateLimit-ViolatedPolicy`: `{samplingPeriod: "PT1S", limit: 20}`. */
export interface Policy {
  samplingPeriod: string;
  limit: number;
}

const DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/**
 * Milliseconds of an ISO 8601 duration with days, hours, minutes and seconds (`PT1S`, `PT1M`, `P1D`, `P1DT12H`);
 * undefined for another form (years, months and weeks have no fixed length) or a zero duration.
 */
export function durationMs(iso: string): number | undefined {
  if (durations.has(iso)) return durations.get(iso);
  if (durations.size >= MAX_DURATIONS) durations.clear();
  const ms = parseDuration(iso);
  durations.set(iso, ms);
  return ms;
}

/** Durations already parsed (a take refills and prices each bucket by its policy's period, see {@link take}). */
const durations = new Map<string, number | undefined>();
const MAX_DURATIONS = 1024;

function parseDuration(iso: string): number | undefined {
  const m = DURATION.exec(iso);
  if (!m || iso === "P" || iso.endsWith("T")) return undefined;
  const [d, h, min, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number];
  const ms = ((d * 24 + h) * 60 + min) * 60_000 + s * 1000;
  return ms > 0 ? ms : undefined;
}

/** A list of policies (at least one): the shape stored in plans/accounts and accepted from operators. */
export const policiesSchema = z
  .array(
    z.object({
      samplingPeriod: z
        .string()
        .refine((s) => durationMs(s) !== undefined, "an ISO 8601 duration of days/hours/minutes/seconds, e.g. PT1S"),
      limit: z.number().int().positive(),
    }),
  )
  .min(1);

/** Parses a stored policy list (JSON text). Throws an Error naming `what` when it is not a valid list. */
export function parsePolicies(json: string, what: string): Policy[] {
  const r = policiesSchema.safeParse(JSON.parse(json));
  if (!r.success) throw new Error(`${what}: invalid rate-limit policies ${json.slice(0, 200)}`);
  return r.data;
}

/** A bucket's state: `tokens` (fractional) at time `at` (ms since epoch). */
export interface Bucket {
  tokens: number;
  at: number;
}

/** The bucket refilled up to `now` (capped at `limit`); a missing bucket starts full. */
export function refill(bucket: Bucket | undefined, p: Policy, now: number): Bucket {
  if (!bucket) return { tokens: p.limit, at: now };
  const elapsed = Math.max(0, now - bucket.at);
  return {
    tokens: Math.min(p.limit, bucket.tokens + (elapsed * p.limit) / durationMs(p.samplingPeriod)!),
    at: Math.max(now, bucket.at),
  };
}

/** Milliseconds until `bucket` holds one whole token (0 when it does), rounded up. */
export function msUntilToken(bucket: Bucket, p: Policy): number {
  return bucket.tokens >= 1 ? 0 : Math.ceil(((1 - bucket.tokens) * durationMs(p.samplingPeriod)!) / p.limit);
}

/** The outcome of one request against every policy. */
export interface Verdict {
  allowed: boolean;
  /** Whole tokens left in the emptiest bucket (X-RateLimit-Remaining). */
  remaining: number;
  /** Milliseconds until the next request can pass every policy (Retry-After); 0 when one can now. */
  retryAfterMs: number;
  /** The policy refused (the one that frees up last), only when not allowed. */
  violated?: Policy;
}

/**
 * Takes one token from every bucket when each holds one (otherwise from none). `buckets` is keyed by policy
 * (see {@link policyKey}) and is updated in place. Pure arithmetic: `now` comes from the caller's clock.
 */
export function take(policies: readonly Policy[], buckets: Map<string, Bucket>, now: number): Verdict {
  const filled = policies.map((p) => [p, refill(buckets.get(policyKey(p)), p, now)] as const);
  const short = filled.filter(([, b]) => b.tokens < 1);
  const allowed = short.length === 0;
  for (const [p, b] of filled) buckets.set(policyKey(p), allowed ? { tokens: b.tokens - 1, at: b.at } : b);
  const after = filled.map(([p]) => [p, buckets.get(policyKey(p))!] as const);
  const remaining = Math.max(0, Math.min(...after.map(([, b]) => Math.floor(b.tokens))));
  const waits = after.map(([p, b]) => [p, msUntilToken(b, p)] as const).sort((a, b) => b[1] - a[1]);
  const retryAfterMs = waits[0]?.[1] ?? 0;
  return allowed ? { allowed, remaining, retryAfterMs } : { allowed, remaining, retryAfterMs, violated: waits[0]![0] };
}

/** An isolate leases at most this share of the tokens left in the emptiest bucket (see {@link takeLease}). */
export const LEASE_SHARE = 1 / 4;

/**
 * {@link take}, plus up to `want - 1` more tokens from every bucket for the caller to spend later (a lease,
 * ./lease.ts): at most LEASE_SHARE of the whole tokens left in the emptiest bucket after the first, so that near a
 * limit every request is decided here, one at a time. `granted`: tokens taken (0 when refused, else 1 + leased);
 * `remaining` counts what is left after all of them.
 */
export function takeLease(
  policies: readonly Policy[],
  buckets: Map<string, Bucket>,
  now: number,
  want: number,
): Verdict & { granted: number } {
  const v = take(policies, buckets, now);
  if (!v.allowed) return { ...v, granted: 0 };
  const extra = Math.max(0, Math.min(Math.floor(want) - 1, Math.floor(v.remaining * LEASE_SHARE)));
  if (extra === 0) return { ...v, granted: 1 };
  for (const p of policies) {
    const b = buckets.get(policyKey(p))!;
    buckets.set(policyKey(p), { tokens: b.tokens - extra, at: b.at });
  }
  // the emptiest bucket kept at least 3/4 of its whole tokens (>= 3): one is still there, no wait
  return { ...v, remaining: v.remaining - extra, granted: 1 + extra };
}

/** Puts back `n` tokens a lease did not spend into every bucket (refilled to `now`, never above the limit). */
export function giveBack(policies: readonly Policy[], buckets: Map<string, Bucket>, now: number, n: number): void {
  if (!(n > 0)) return;
  for (const p of policies) {
    const b = refill(buckets.get(policyKey(p)), p, now);
    buckets.set(policyKey(p), { tokens: Math.min(p.limit, b.tokens + n), at: b.at });
  }
}

/** The key of a policy's bucket: a changed policy starts a new (full) bucket. */
export const policyKey = (p: Policy): string => `${p.samplingPeriod}/${p.limit}`;

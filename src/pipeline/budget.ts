/**
 * Plans sized before they run: the subrequests and D1 queries an evaluation (or a Statistical API series) will
 * make, estimated from its scenes, bands and strips, checked against what the invocation has left of the Paid
 * plan's limits (src/budget) before any pixel is read. A plan that would not fit is refused with a
 * RequestBudgetError (400, kind `request-budget`) naming the limit and the largest request of its kind that fits;
 * the counting wrapper still enforces the hard limits while it runs (the estimate is an upper bound for the usual
 * case, see READS_PER_BAND_STRIP).
 */
import { currentMeter, RequestBudgetError } from "../budget/meter";
import { D1_QUERY_LIMIT, PLAN_SHARE, SUBREQUEST_LIMIT } from "../budget/limits";

/**
 * R2 reads per band of a scene per strip: the COG header once (a prefix read; per isolate cached afterwards) and
 * the strip's blocks coalesced into one range (src/raster/cog); a whole small file is one read (file cache).
 * Measured with the counting wrapper (test/budget/counts.test.ts): 1-2 per band.
 */
export const READS_PER_BAND_STRIP = 2;

/** Sandbox calls of an evaluation besides one per strip: setup / preProcessScenes / open and finish. */
export const SANDBOX_CALLS = 3;

/** What a plan needs of the invocation's limits. */
export interface PlanNeed {
  subrequests: number;
  d1Queries: number;
}

/** Subrequests of one evaluation: its sources' scenes x bands, read per strip, plus its sandbox calls. */
export function evaluationSubrequests(sources: { scenes: number; bands: number }[], strips: number): number {
  const reads = sources.reduce((a, s) => a + s.scenes * Math.max(1, s.bands), 0) * READS_PER_BAND_STRIP * strips;
  return reads + strips + SANDBOX_CALLS;
}

/** What the plans of this invocation may still take: PLAN_SHARE of each limit, less what was used. */
export function planAllowance(): PlanNeed {
  const m = currentMeter();
  const reserve = (limit: number) => Math.floor(limit * (1 - PLAN_SHARE));
  return {
    subrequests: (m?.remaining().subrequests ?? SUBREQUEST_LIMIT) - reserve(SUBREQUEST_LIMIT),
    d1Queries: (m?.remaining().d1Queries ?? D1_QUERY_LIMIT) - reserve(D1_QUERY_LIMIT),
  };
}

/**
 * Throws a RequestBudgetError when `need` does not fit {@link planAllowance}. `what` names the request (e.g.
 * `The statistical request`); `fits(allowance)` says in words the largest request of its kind that fits.
 */
export function checkPlanBudget(need: PlanNeed, what: string, fits: (allowance: PlanNeed) => string): void {
  const allow = planAllowance();
  const over =
    need.subrequests > allow.subrequests
      ? {
          limit: "subrequests per invocation",
          max: SUBREQUEST_LIMIT,
          needed: need.subrequests,
          unit: "subrequests (storage reads, sandbox calls)",
        }
      : need.d1Queries > allow.d1Queries
        ? { limit: "D1 queries per invocation", max: D1_QUERY_LIMIT, needed: need.d1Queries, unit: "database queries" }
        : undefined;
  if (!over) return;
  const fit = fits(allow);
  throw new RequestBudgetError(
    `${what} would need about ${over.needed} ${over.unit}; one request may make at most ${over.max} (the ${over.limit} of Cloudflare Workers), of which ${Math.max(0, over.limit.startsWith("D1") ? allow.d1Queries : allow.subrequests)} are left for its plan. ${fit}.`,
    { limit: over.limit, max: over.max, needed: over.needed, fits: fit },
  );
}

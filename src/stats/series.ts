/**
 * The scenes of a Statistical API series, read with a bounded number of D1 queries and sized before it runs:
 * - one query per source for the acquisition times over the whole range (no item documents), which says which
 *   intervals have data and how many scenes each holds;
 * - the scenes themselves in chunks of consecutive intervals (one query per chunk of at most CHUNK_ITEMS items,
 *   split by interval in memory, each interval's scenes sorted in the source's mosaicking order and capped at
 *   MAX_SCENES as the per-interval search did); an interval with more items than a chunk holds gets its own query
 *   with LIMIT MAX_SCENES. A chunk is read when its first interval runs and dropped when its last one is done.
 * The queries and subrequests are known before any interval runs (checkSeriesBudget): a series that would not fit
 * one invocation is refused with a 400 naming the limit and the most intervals that fit.
 */
import type { Env } from "../env";
import { invalidArgument } from "../raster/errors";
import { MAX_SCENES } from "../pipeline/pipeline";
import { findSceneTimes, findScenes, sceneQueryFor, sortScenes, type Scene } from "../pipeline/scenes";
import type { Plan, PlannedSource } from "../pipeline/plan";
import { checkPlanBudget, evaluationSubrequests } from "../pipeline/budget";
import { isoTime, type Interval } from "./intervals";

/** Most acquisition times one source of a series may have in the time range (one query reads them). */
export const MAX_SERIES_ITEMS = 100_000;
/** Most items one chunk query reads (their documents are held until the chunk's intervals are done). */
export const CHUNK_ITEMS = 500;
/** D1 queries and subrequests a statistical request makes besides its series (auth, registry, limiter, charge). */
const FIXED = { subrequests: 12, d1Queries: 6 };

/** One query of a source's scenes: a run of intervals (indices into the series' intervals), or one big interval. */
interface Chunk {
  first: number;
  last: number;
  /** An interval with more items than CHUNK_ITEMS: read alone, MAX_SCENES in the source's order. */
  alone: boolean;
  scenes?: Promise<Scene[]>;
  left: number;
}

/** A planned series: its intervals with data and their scenes per source. */
export interface Series {
  /** The intervals with at least one acquisition of any source. */
  intervals: Interval[];
  /** D1 queries the series makes (times + chunks). */
  queries: number;
  /** Scenes of source `index` in interval `i` of `intervals` (mosaicking order, at most MAX_SCENES). */
  scenes(index: number, source: PlannedSource, i: number): Promise<Scene[]>;
  /** Marks interval `i` done (its chunks' documents are dropped once all their intervals are). */
  done(i: number): void;
  /** Items of each source per interval (for sizing). */
  counts: number[][];
}

/** Index of the first value of ascending `a` that is >= `t`. */
function lowerBound(a: number[], t: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Items per interval of ascending `times`. */
const countsOf = (times: number[], intervals: Interval[]) =>
  intervals.map((iv) => lowerBound(times, iv.to) - lowerBound(times, iv.from));

/** Chunks of consecutive intervals with items, at most CHUNK_ITEMS items each (a bigger interval alone). */
function chunksOf(counts: number[]): { chunks: Chunk[]; of: number[] } {
  const chunks: Chunk[] = [];
  const of = counts.map(() => -1);
  let open: Chunk | undefined;
  let items = 0;
  counts.forEach((n, i) => {
    if (n === 0) return;
    if (n > CHUNK_ITEMS) {
      open = undefined;
      of[i] = chunks.push({ first: i, last: i, alone: true, left: 1 }) - 1;
      return;
    }
    if (!open || items + n > CHUNK_ITEMS) {
      chunks.push((open = { first: i, last: i, alone: false, left: 0 }));
      items = 0;
    }
    open.last = i;
    items += n;
    open.left++;
    of[i] = chunks.length - 1;
  });
  return { chunks, of };
}

/**
 * Plans the series of `plan` over `intervals` (every source's acquisition times, one query each).
 * @throws EngineError invalid-argument when a source has more than MAX_SERIES_ITEMS acquisitions in the range.
 */
export async function planSeries(env: Env, plan: Plan, intervals: Interval[]): Promise<Series> {
  const from = intervals[0]?.from ?? 0;
  const to = (intervals[intervals.length - 1]?.to ?? 1) - 1;
  const times = await Promise.all(
    plan.sources.map((s) =>
      intervals.length ? findSceneTimes(env, s, sceneQueryFor(s, plan.lonLatBbox, from, to, MAX_SERIES_ITEMS)) : [],
    ),
  );
  if (times.some((t) => t.length >= MAX_SERIES_ITEMS))
    throw invalidArgument(
      `The time range holds more than ${MAX_SERIES_ITEMS} acquisitions over the area; at most ${MAX_SERIES_ITEMS} are allowed. Use a shorter timeRange or a smaller area.`,
    );
  const perSource = times.map((t) => countsOf(t, intervals));
  const keep = intervals.map((_, i) => perSource.some((c) => c[i]! > 0));
  const index = intervals.map((_, i) => i).filter((i) => keep[i]);
  const counts = perSource.map((c) => index.map((i) => c[i]!));
  const plans = counts.map(chunksOf);
  const kept = index.map((i) => intervals[i]!);
  return {
    intervals: kept,
    counts,
    queries: plan.sources.length + plans.reduce((a, p) => a + p.chunks.length, 0),
    async scenes(k, source, i) {
      const { chunks, of } = plans[k]!;
      const c = chunks[of[i]!];
      if (!c) return [];
      const iv = kept[i]!;
      const order = source.request.dataFilter?.mosaickingOrder ?? "mostRecent";
      if (c.alone)
        return (c.scenes ??= findScenes(
          env,
          source,
          sceneQueryFor(source, plan.lonLatBbox, iv.from, iv.to - 1, MAX_SCENES),
        ));
      c.scenes ??= findScenes(
        env,
        source,
        sceneQueryFor(source, plan.lonLatBbox, kept[c.first]!.from, kept[c.last]!.to - 1, CHUNK_ITEMS, "leastRecent"),
      );
      const all = await c.scenes;
      return sortScenes(
        all.filter((s) => s.time >= iv.from && s.time < iv.to),
        order,
      ).slice(0, MAX_SCENES);
    },
    done(i) {
      for (const { chunks, of } of plans) {
        const c = chunks[of[i]!];
        if (c && --c.left === 0) c.scenes = undefined;
      }
    },
  };
}

/**
 * Refuses a series that would not fit one invocation (RequestBudgetError, 400): its D1 queries, and its subrequests
 * estimated per interval (each source's scenes x bands, evaluationSubrequests) with `strips` strips each.
 */
export function checkSeriesBudget(plan: Plan, series: Series, strips: number): void {
  const n = series.intervals.length;
  const perInterval = series.intervals.map((_, i) =>
    evaluationSubrequests(
      plan.sources.map((s, k) => ({ scenes: Math.min(MAX_SCENES, series.counts[k]![i]!), bands: s.fileBands.length })),
      strips,
    ),
  );
  const subrequests = FIXED.subrequests + series.queries + perInterval.reduce((a, b) => a + b, 0);
  const need = { subrequests, d1Queries: FIXED.d1Queries + series.queries };
  checkPlanBudget(need, `The statistical request (${n} intervals with data)`, (allow) => {
    let used = FIXED.subrequests + plan.sources.length;
    let fit = 0;
    while (
      fit < n &&
      used + perInterval[fit]! + 1 <= allow.subrequests &&
      FIXED.d1Queries + plan.sources.length + fit < allow.d1Queries
    )
      used += perInterval[fit++]! + 1;
    const until = fit > 0 ? ` (up to ${isoTime(series.intervals[fit - 1]!.to)})` : "";
    return `At most ${fit} intervals with data fit${until}: use a shorter timeRange, a longer aggregationInterval or fewer bands`;
  });
}

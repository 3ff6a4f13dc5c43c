/**
 * Time sampling of a Statistical API request: `aggregation.timeRange` split into intervals of
 * `aggregationInterval.of` (an ISO 8601 period), with `lastIntervalBehavior` deciding what happens to a last
 * interval that would end after timeRange.to (Sentinel Hub OpenAPI `Aggregation`):
 * SKIP drops it (the default), SHORTEN ends it at timeRange.to, EXTEND keeps its full length.
 *
 * Calendar arithmetic is in UTC. Interval k starts at from + k * period, computed from `from` each time (so
 * P1M from Jan 31 gives Feb 28/29, Mar 31, Apr 30, ...): years and months first, the day clamped to the
 * month's length (as java.time's Period.addTo / LocalDate.plusMonths), then weeks and days.
 */
import { invalidArgument } from "../raster/errors";

/** Most intervals one request may have. */
export const MAX_INTERVALS = 1000;

export type LastIntervalBehavior = "SKIP" | "SHORTEN" | "EXTEND";

/** An ISO 8601 period of whole calendar units. */
export interface Period {
  years: number;
  months: number;
  days: number;
}

/** One aggregation interval, [from, to) in ms since the epoch. */
export interface Interval {
  from: number;
  to: number;
}

const PERIOD = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?$/;

/**
 * Parses `of` (P1D, P5D, P1W, P1M, P1Y, P1Y2M10D, ...). Throws 400 for anything else, including periods with a
 * time part (PT12H): the shortest interval is one day.
 */
export function parsePeriod(of: string): Period {
  const m = PERIOD.exec(of.trim().toUpperCase());
  const [y, mo, w, d] = (m?.slice(1) ?? []).map((v) => (v === undefined ? 0 : Number(v)));
  if (!m || of.trim().length < 3 || y! + mo! + w! + d! === 0)
    throw invalidArgument(
      `aggregationInterval.of '${of}' is not a supported ISO 8601 period: use whole days, weeks, months or years, e.g. P1D, P5D, P10D, P1W, P1M, P1Y (intervals shorter than one day are not supported).`,
    );
  return { years: y!, months: mo!, days: w! * 7 + d! };
}

const DAY_MS = 86_400_000;

/** `t` (ms) plus `k` times `p`, in UTC. */
export function addPeriod(t: number, p: Period, k: number): number {
  const d = new Date(t);
  const totalMonths = d.getUTCFullYear() * 12 + d.getUTCMonth() + (p.years * 12 + p.months) * k;
  const year = Math.floor(totalMonths / 12);
  const month = totalMonths - year * 12;
  const monthDays = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const timeOfDay = t - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const base = Date.UTC(year, month, Math.min(d.getUTCDate(), monthDays));
  return base + timeOfDay + p.days * k * DAY_MS;
}

/**
 * Splits [from, to] into intervals. Throws 400 when from > to or when there would be more than MAX_INTERVALS.
 */
export function splitIntervals(
  from: number,
  to: number,
  of: string,
  behavior: LastIntervalBehavior = "SKIP",
): Interval[] {
  if (from > to) throw invalidArgument("aggregation.timeRange.from must not be after aggregation.timeRange.to.");
  const period = parsePeriod(of);
  const out: Interval[] = [];
  for (let k = 0, start = from; start < to; k++) {
    if (out.length === MAX_INTERVALS)
      throw invalidArgument(
        `aggregation.timeRange split by ${of} gives more than ${MAX_INTERVALS} intervals; at most ${MAX_INTERVALS} are allowed. Use a longer aggregationInterval or a shorter timeRange.`,
      );
    const end = addPeriod(from, period, k + 1);
    if (end > to) {
      if (behavior === "SHORTEN") out.push({ from: start, to });
      if (behavior === "EXTEND") out.push({ from: start, to: end });
      break;
    }
    out.push({ from: start, to: end });
    start = end;
  }
  return out;
}

/** ISO 8601 UTC without milliseconds when they are 0 (2020-06-11T00:00:00Z), as Sentinel Hub writes intervals. */
export function isoTime(t: number): string {
  return new Date(t).toISOString().replace(".000Z", "Z");
}

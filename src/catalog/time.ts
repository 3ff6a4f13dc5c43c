/** RFC 3339 instants and STAC `datetime` intervals, as milliseconds since the Unix epoch (UTC). */
import { badRequest } from "../http/errors";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Parses an RFC 3339 date-time (`2020-01-01T00:00:00Z`, offsets allowed); null when not one. */
export function parseInstant(text: string): number | null {
  const m = RFC3339.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > 31 || h! > 23 || mi! > 59 || s! > 60) return null;
  const t = Date.parse(text.trim().replace(" ", "T").toUpperCase()); // RFC 3339 allows 't' and 'z'; Date.parse does not
  return Number.isFinite(t) && new Date(Date.UTC(y!, mo! - 1, d!)).getUTCDate() === d ? t : null;
}

/** Parses a calendar date (`2020-01-31`) as its UTC midnight; null when not one. */
export function parseDate(text: string): number | null {
  if (!DATE.test(text)) return null;
  const t = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().startsWith(text) ? t : null;
}

/** A closed time interval; an absent end is open. */
export interface TimeRange {
  start?: number;
  end?: number;
}

const OPEN = new Set(["..", ""]);

/**
 * Parses the STAC `datetime` parameter: an instant, or `<start>/<end>` where either end (not both) may be `..` or
 * empty (open). Throws a 400 ApiError naming what is wrong.
 */
export function parseDatetime(value: string): TimeRange {
  const text = value.trim().replace(/(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:\d{2})/g, "$1+$2"); // '+' decoded as space
  const parts = text.split("/");
  if (parts.length > 2) throw badRequest(`Invalid datetime '${value}': use an RFC 3339 instant or '<start>/<end>'.`);
  const ends = parts.map((p) => {
    if (parts.length === 2 && OPEN.has(p.trim())) return undefined;
    const t = parseInstant(p);
    if (t === null) {
      throw badRequest(
        `Invalid datetime '${value}': '${p}' is not an RFC 3339 date-time such as 2020-01-31T00:00:00Z` +
          (parts.length === 2 ? " (or '..' for an open end)." : "."),
      );
    }
    return t;
  });
  if (parts.length === 1) return { start: ends[0], end: ends[0] };
  const [start, end] = ends;
  if (start === undefined && end === undefined)
    throw badRequest(`Invalid datetime '${value}': at most one end of an interval may be open.`);
  if (start !== undefined && end !== undefined && start > end) {
    throw badRequest(`Invalid datetime '${value}': the start is after the end.`);
  }
  return { start, end };
}

/** ISO 8601 UTC text of a time in ms (`2020-01-01T00:00:00Z`, milliseconds only when not zero). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

/**
 * Search paging. `next` is an integer (Sentinel Hub's catalog and its clients send and expect one):
 * - below 2^40 it is an offset into the result list, the form Sentinel Hub documents and sentinelhub-js computes
 *   itself (`findTiles(..., maxCount, offset)`); such pages cost O(offset);
 * - from 2^40 on it is a keyset position issued by this service: `datetime_ms * 2048 + k`, i.e. "after the first
 *   k rows whose datetime is datetime_ms", in the search's datetime order (ascending or descending, then id and
 *   collection; src/storage/search.ts fullOrder). Resuming from it is an index seek, so every page costs the same
 *   whatever its depth. It fits a double exactly until the year 2109. Searches sorted by another field first
 *   (`sortby`) page with offsets only.
 */
import { badRequest } from "../http/errors";

const KEYSET_BASE = 2 ** 40;
const PER_MS = 2048;

/** Where a page starts. */
export type Position = { kind: "offset"; offset: number } | { kind: "keyset"; datetime: number; skip: number };

/** Reads `next` (absent = the start). Throws 400 for values that are not non-negative integers. */
export function decodeNext(next: unknown): Position {
  if (next === undefined || next === null || next === "") return { kind: "offset", offset: 0 };
  const n = typeof next === "string" && /^\d+$/.test(next) ? Number(next) : next;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw badRequest(`Invalid 'next' ${JSON.stringify(next)}: use the value of context.next (an integer >= 0).`);
  }
  if (n < KEYSET_BASE) return { kind: "offset", offset: n };
  return { kind: "keyset", datetime: Math.floor(n / PER_MS), skip: n % PER_MS };
}

/** Tracks the keyset position while rows are consumed in a datetime order. */
export class Cursor {
  constructor(
    public datetime: number | undefined = undefined,
    public skip = 0,
  ) {}

  /** Advances past one row with the given datetime. */
  consume(datetime: number): void {
    if (datetime === this.datetime) this.skip++;
    else {
      this.datetime = datetime;
      this.skip = 1;
    }
  }

  /** The `next` value resuming right after the consumed rows. Throws 400 in the (unrealistic) overflow case. */
  token(): number {
    const t = this.datetime ?? 0;
    if (this.skip >= PER_MS || t < 0 || t * PER_MS >= Number.MAX_SAFE_INTEGER) {
      throw badRequest(`Cannot page past more than ${PER_MS - 1} items with the same datetime; narrow the search.`);
    }
    const token = t * PER_MS + this.skip;
    if (token < KEYSET_BASE)
      throw badRequest("Keyset paging needs item datetimes after 1970-01-07; narrow the search.");
    return token;
  }
}

/** Tracks the position as a row count from the start, for orders that do not start with datetime. */
export class OffsetCursor {
  readonly datetime = undefined;
  constructor(public skip = 0) {}

  /** Advances past one row. */
  consume(): void {
    this.skip++;
  }
}

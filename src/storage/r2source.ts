/**
 * R2 objects as ByteSources for the raster engine (the rules of ./ranged.ts: one ranged get at open that also
 * brings the first PREFIX_BYTES, coalesced range gets, every get pinned with `onlyIf.etagMatches`).
 */
import { openRanged, type RangeBackend, type RangedSource, type SourceStats } from "./ranged";

export { COALESCE_GAP, PREFIX_BYTES, coalesce } from "./ranged";

/** Request counters: per source (`source.stats`) and for the whole isolate (`r2Stats`). */
export type R2Stats = SourceStats;

/** Isolate-wide counters (all r2Source instances). */
export const r2Stats: R2Stats = { heads: 0, gets: 0, bytes: 0 };

/** A ByteSource on one R2 object, with its own request counters. */
export type R2ByteSource = RangedSource;

/** Ranged gets and heads of `key` in an R2 bucket; a get with `etag` is conditional (`onlyIf.etagMatches`). */
export function r2Backend(bucket: R2Bucket, key: string): RangeBackend {
  return {
    async getRange(offset, length, etag) {
      const obj = await bucket.get(key, {
        range: { offset, length },
        ...(etag ? { onlyIf: { etagMatches: etag } } : {}),
      });
      if (!obj || !("arrayBuffer" in obj)) return null;
      return { size: obj.size, etag: obj.etag, bytes: await obj.arrayBuffer() };
    },
    async head() {
      const head = await bucket.head(key);
      return head ? { size: head.size, etag: head.etag } : null;
    },
  };
}

/**
 * Opens `key` in `bucket` as a ByteSource (`id` = key + "#" + etag), or null when the object does not exist.
 * `{ prefix: 0 }` opens with a head instead of a ranged get. Requests count in `source.stats` and `r2Stats`.
 * `read(ranges)` returns one ArrayBuffer per requested range, in request order; ranges are clamped to the
 * object size. Throws when the object changed since it was opened or a range read fails.
 */
export function r2Source(bucket: R2Bucket, key: string, opts: { prefix?: number } = {}): Promise<R2ByteSource | null> {
  return openRanged(r2Backend(bucket, key), key, key, { prefix: opts.prefix, shared: r2Stats });
}

/**
 * A ByteSource over any object storage that answers ranged gets (R2, a user's bucket): the opening, prefix,
 * coalescing and version-pinning rules shared by ./r2source.ts and ./sources.ts.
 *
 * Opening costs one request: by default a range get of the first PREFIX_BYTES, which returns size and etag
 * like a head would and also the bytes a COG header lives in (so a cold COG open needs no second round trip;
 * a warm one, with the header cached, costs the same single request as a head). `{ prefix: 0 }` uses head.
 * Reads inside the prefix are answered from memory; other ranges closer than COALESCE_GAP are merged into one
 * get, and all gets of one `read` run concurrently. Every get is pinned to the etag seen at open, so a file
 * replaced mid-request fails instead of mixing two versions.
 */
import type { ByteSource } from "../raster/types";

/** Ranges whose gap is smaller than this many bytes are read with one request. */
export const COALESCE_GAP = 16 * 1024;

/** Bytes read when opening (matches the COG header prefetch of src/raster/cog/header.ts). */
export const PREFIX_BYTES = 16 * 1024;

/** Request counters of a source. */
export interface SourceStats {
  /** `head` calls. */
  heads: number;
  /** (Range) `get` calls, including the one that opens the source. */
  gets: number;
  /** Bytes received by gets. */
  bytes: number;
}

/** A ByteSource on one stored object, with its own request counters. */
export interface RangedSource extends ByteSource {
  /** The object's key inside its bucket. */
  readonly key: string;
  /** The version read (every range is pinned to it). */
  readonly etag: string;
  readonly stats: SourceStats;
}

/** What a storage backend answers for one object. */
export interface RangeBackend {
  /**
   * Bytes [offset, offset + length) (clamped by the store at the object's end) with the object's total size and
   * etag; null when the object does not exist or (with `etag`) is no longer that version. May throw for a range the
   * store refuses (e.g. on an empty object).
   */
  getRange(
    offset: number,
    length: number,
    etag?: string,
  ): Promise<{ size: number; etag: string; bytes: ArrayBuffer } | null>;
  /** Size and etag, or null when the object does not exist. */
  head(): Promise<{ size: number; etag: string } | null>;
}

interface Span {
  offset: number;
  end: number;
  /** Indices of the requested ranges inside this span. */
  members: number[];
}

/**
 * Merges ranges into spans when the gap between neighbours is below `gap` bytes. Empty ranges are left out.
 * Each span lists the indices (into `ranges`) it serves.
 */
export function coalesce(ranges: { offset: number; length: number }[], gap = COALESCE_GAP): Span[] {
  const order = ranges
    .map((_, i) => i)
    .filter((i) => ranges[i]!.length > 0)
    .sort((a, b) => ranges[a]!.offset - ranges[b]!.offset);
  const spans: Span[] = [];
  for (const i of order) {
    const { offset, length } = ranges[i]!;
    const last = spans[spans.length - 1];
    if (last && offset - last.end < gap) {
      last.end = Math.max(last.end, offset + length);
      last.members.push(i);
    } else spans.push({ offset, end: offset + length, members: [i] });
  }
  return spans;
}

/** Adds one request to every counter set. */
function count(counters: SourceStats[], kind: "heads" | "gets", bytes = 0): void {
  for (const c of counters) {
    c[kind]++;
    c.bytes += bytes;
  }
}

/** Opens with a range get of the first `prefix` bytes (or a head): size, etag and the prefix bytes, or null. */
async function open(backend: RangeBackend, prefix: number, counters: SourceStats[]) {
  if (prefix > 0) {
    try {
      const got = await backend.getRange(0, prefix);
      if (!got) return null;
      count(counters, "gets", got.bytes.byteLength);
      return { ...got, bytes: got.bytes.byteLength === Math.min(prefix, got.size) ? got.bytes : new ArrayBuffer(0) };
    } catch {
      // e.g. a range the store refuses on an empty object: fall back to head
    }
  }
  count(counters, "heads");
  const head = await backend.head();
  return head ? { ...head, bytes: new ArrayBuffer(0) } : null;
}

/** Options of openRanged. */
export interface RangedOptions {
  /** Bytes read at open (default PREFIX_BYTES); 0 opens with a head. */
  prefix?: number;
  /** Counters shared by many sources (e.g. all R2 reads of the isolate), counted besides the source's own. */
  shared?: SourceStats;
}

/**
 * Opens object `key` through `backend` as a ByteSource with `id` = `name` + "#" + etag, or null when the object
 * does not exist. `read(ranges)` returns one ArrayBuffer per requested range, in request order; ranges are clamped
 * to the object size. Reads throw when the object changed since it was opened, a range is invalid or short.
 */
export async function openRanged(
  backend: RangeBackend,
  key: string,
  name: string,
  opts: RangedOptions = {},
): Promise<RangedSource | null> {
  const stats: SourceStats = { heads: 0, gets: 0, bytes: 0 };
  const counters = opts.shared ? [stats, opts.shared] : [stats];
  const opened = await open(backend, opts.prefix ?? PREFIX_BYTES, counters);
  if (!opened) return null;
  const { size, etag, bytes: prefix } = opened;

  async function getSpan(span: Span): Promise<ArrayBuffer> {
    const length = span.end - span.offset;
    const got = await backend.getRange(span.offset, length, etag);
    if (!got || got.etag !== etag) throw new Error(`object ${name} changed or vanished while reading (etag ${etag})`);
    count(counters, "gets", got.bytes.byteLength);
    if (got.bytes.byteLength !== length)
      throw new Error(`object ${name}: short read at ${span.offset} (${got.bytes.byteLength} of ${length} bytes)`);
    return got.bytes;
  }

  async function read(ranges: { offset: number; length: number }[]): Promise<ArrayBuffer[]> {
    const clamped = ranges.map(({ offset, length }) => {
      if (!(offset >= 0) || !(length >= 0)) throw new Error(`invalid byte range ${offset}+${length} of ${name}`);
      return { offset: Math.min(offset, size), length: Math.max(0, Math.min(length, size - offset)) };
    });
    const inPrefix = (r: { offset: number; length: number }) => r.offset + r.length <= prefix.byteLength;
    const out: ArrayBuffer[] = clamped.map((r) =>
      inPrefix(r) ? prefix.slice(r.offset, r.offset + r.length) : new ArrayBuffer(0),
    );
    const remote = clamped.map((r) => (inPrefix(r) ? { offset: r.offset, length: 0 } : r));
    await Promise.all(
      coalesce(remote).map(async (span) => {
        const buf = await getSpan(span);
        for (const i of span.members) {
          const r = clamped[i]!;
          const start = r.offset - span.offset;
          out[i] = start === 0 && r.length === buf.byteLength ? buf : buf.slice(start, start + r.length);
        }
      }),
    );
    return out;
  }

  return { id: `${name}#${etag}`, size, key, etag, stats, read };
}

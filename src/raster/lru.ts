/**
 * A small least-recently-used cache bounded by entry count and by total size (bytes, as given by `sizeOf`; each
 * per-isolate cache has its byte budget in src/raster/memory.ts, and {@link approxBytes} sizes plain data).
 * Shared by the per-isolate caches: the raster engine's (COG headers and blocks, prepared warps and index maps,
 * evalscripts, scene files) and the request path's (scene searches, verified tokens and clients, limiter ids and
 * headroom).
 * Lives per isolate (module scope); values must not be tied to one request (no streams or responses).
 */
export class Lru<V> {
  private readonly map = new Map<string, V>();
  private bytes = 0;

  /**
   * @param maxEntries most entries kept.
   * @param maxBytes most bytes kept (sizes by `sizeOf`, plus each key's when `countKeys`).
   * @param sizeOf a value's size in bytes.
   * @param countKeys add each key's string size (2 bytes a character + 16) to its entry's: for long keys (tokens).
   */
  constructor(
    private maxEntries: number,
    private maxBytes = Infinity,
    private readonly sizeOf: (v: V) => number = () => 0,
    private readonly countKeys = false,
  ) {}

  /** Bytes an entry is charged. */
  private size(key: string, v: V): number {
    return this.sizeOf(v) + (this.countKeys ? 16 + 2 * key.length : 0);
  }

  /** The value for `key` (marking it most recently used), or undefined. */
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  /** Stores `value`; evicts the least recently used entries beyond the bounds. Oversized values are not kept. */
  set(key: string, value: V): void {
    this.delete(key);
    const size = this.size(key, value);
    if (size > this.maxBytes || this.maxEntries <= 0) return;
    this.map.set(key, value);
    this.bytes += size;
    this.trim();
  }

  delete(key: string): void {
    const old = this.map.get(key);
    if (old === undefined) return;
    this.map.delete(key);
    this.bytes -= this.size(key, old);
  }

  /** Changes the bounds (and evicts what no longer fits). */
  resize(maxEntries: number, maxBytes = this.maxBytes): void {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.trim();
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }

  /** The keys held, least recently used first. */
  keys(): string[] {
    return [...this.map.keys()];
  }

  /** Number of entries, their total size and the byte budget. */
  get stats(): { entries: number; bytes: number; maxBytes: number } {
    return { entries: this.map.size, bytes: this.bytes, maxBytes: this.maxBytes };
  }

  private trim(): void {
    for (const [k, v] of this.map) {
      if (this.map.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= this.size(k, v);
    }
  }
}

/**
 * An estimate of the bytes `value` holds in a V8 heap, for caches of plain data (parsed JSON, records, small
 * typed arrays): strings 2 bytes a character, numbers 8, ArrayBuffers and typed arrays their byteLength, and a
 * header per object, array and property (V8's tagged layout, rounded up). Walks at most `depth` levels; shared
 * objects are counted each time they are reached (an over-estimate). Functions and other objects count as headers.
 */
export function approxBytes(value: unknown, depth = 8): number {
  if (typeof value === "string") return 16 + 2 * value.length;
  if (typeof value !== "object" || value === null) return 8;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return 64 + value.byteLength;
  if (depth === 0) return 32;
  let n = 32;
  if (Array.isArray(value)) for (const v of value) n += 8 + approxBytes(v, depth - 1);
  else for (const [k, v] of Object.entries(value)) n += 8 + approxBytes(k, 0) + approxBytes(v, depth - 1);
  return n;
}

/**
 * A small least-recently-used cache bounded by entry count and by total size (bytes, as given by `sizeOf`).
 * Shared by the per-isolate caches: the raster engine's (COG headers and blocks, prepared warps and index maps,
 * evalscripts, scene files) and the request path's (scene searches, verified tokens and clients, limiter ids and
 * headroom).
 * Lives per isolate (module scope); values must not be tied to one request (no streams or responses).
 */
export class Lru<V> {
  private readonly map = new Map<string, V>();
  private bytes = 0;

  constructor(
    private maxEntries: number,
    private maxBytes = Infinity,
    private readonly sizeOf: (v: V) => number = () => 0,
  ) {}

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
    const size = this.sizeOf(value);
    if (size > this.maxBytes || this.maxEntries <= 0) return;
    this.map.set(key, value);
    this.bytes += size;
    this.trim();
  }

  delete(key: string): void {
    const old = this.map.get(key);
    if (old === undefined) return;
    this.map.delete(key);
    this.bytes -= this.sizeOf(old);
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

  /** Number of entries, their total size and the byte budget. */
  get stats(): { entries: number; bytes: number; maxBytes: number } {
    return { entries: this.map.size, bytes: this.bytes, maxBytes: this.maxBytes };
  }

  private trim(): void {
    for (const [k, v] of this.map) {
      if (this.map.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= this.sizeOf(v);
    }
  }
}

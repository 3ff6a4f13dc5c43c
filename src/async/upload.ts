/**
 * Writes one object front to back in bounded memory: bytes are appended to fixed-size parts that go out as a
 * multipart upload as soon as they are full (R2's rule: every part but the last of one size, at least 5 MiB).
 * The FIRST part stays in memory until `close`, so bytes inside it can still be patched (the GeoTIFF header's
 * IFD offset, known only at the end: src/raster/encode/tiffstrips.ts). Memory: two parts plus the caller's chunk.
 * An object that fits in one part is written with one `put`; a store without multipart support gets one `put`
 * of the whole object at `close` (memory then grows with the object).
 */
import type { MultipartUpload, ObjectStore, StoredObject } from "../buckets";
import { startUpload } from "../buckets/upload";
import { concatBytes } from "../raster/encode/bytes";

/** Part size: 5 MiB, the smallest R2 and S3 accept for all parts but the last. */
export const PART_BYTES = 5 * 1024 * 1024;

/** An object being written; see the module docs. */
export class ObjectSink {
  private first: Uint8Array;
  private current: Uint8Array;
  private fill = 0;
  private parts = 0; // parts completed so far (the first one included, although still held)
  private upload?: MultipartUpload;
  private chunks: Uint8Array[] = []; // stores without multipart: everything after the first part

  /** @param partBytes part size in bytes (R2 and S3 refuse parts under 5 MiB but the last). */
  constructor(
    private readonly store: ObjectStore,
    private readonly key: string,
    private readonly contentType: string,
    private readonly partBytes = PART_BYTES,
  ) {
    this.first = new Uint8Array(partBytes);
    this.current = this.first;
  }

  /** Bytes written so far. */
  get size(): number {
    return this.parts * this.partBytes + this.fill;
  }

  /** Appends `bytes`, uploading every part that fills up (except the first, which is held). */
  async write(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, this.partBytes - this.fill);
      this.current.set(bytes.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      if (this.fill === this.partBytes) await this.flush();
    }
  }

  /**
   * Overwrites bytes at `offset` (they must lie in the first part, which is still in memory).
   * @throws Error otherwise (a bug of the caller).
   */
  patch(offset: number, bytes: Uint8Array): void {
    if (offset < 0 || offset + bytes.length > Math.min(this.partBytes, this.size))
      throw new Error(`upload: cannot patch bytes ${offset}..${offset + bytes.length} of ${this.key} any more`);
    this.first.set(bytes, offset);
  }

  /** Writes what is left and completes the object. */
  async close(): Promise<StoredObject> {
    const options = { contentType: this.contentType };
    if (this.parts === 0) return this.store.put(this.key, this.first.subarray(0, this.fill), options);
    const last = this.current.subarray(0, this.fill);
    if (!this.upload) return this.store.put(this.key, concatBytes([this.first, ...this.chunks, last]), options);
    await this.upload.uploadPart(1, this.first);
    if (last.length > 0) await this.upload.uploadPart(this.parts + 1, last);
    return this.upload.complete();
  }

  /** Drops an unfinished upload (after a failure). */
  async abort(): Promise<void> {
    await this.upload?.abort();
  }

  /** A part is full: the first is kept, later ones are uploaded (or kept when the store has no multipart). */
  private async flush(): Promise<void> {
    this.parts++;
    this.fill = 0;
    if (this.parts === 1) {
      this.current = new Uint8Array(this.partBytes);
      this.upload = await startUpload(this.store, this.key, { contentType: this.contentType });
      return;
    }
    if (this.upload) await this.upload.uploadPart(this.parts, this.current);
    else {
      this.chunks.push(this.current);
      this.current = new Uint8Array(this.partBytes);
    }
  }
}

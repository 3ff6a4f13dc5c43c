/**
 * Object storage as the task APIs see it: a bucket descriptor from a request (`s3.url` = `s3://<bucket>/<prefix>`,
 * optional access keys) resolves to an {@link ObjectStore} plus the key prefix inside it. Implementations: local
 * buckets in the BUCKETS R2 binding and R2 buckets bound in wrangler.toml (./local.ts), S3-compatible storage
 * (./remote.ts); ./index.ts chooses.
 * Keys are object keys inside the bucket (no leading `/`).
 */

/** Sentinel Hub's object-storage descriptor (`delivery.s3`, `input.s3` of batch / statistical batch requests). */
export interface BucketDescriptor {
  /** `s3://<bucket>/<prefix>`; the prefix may be empty. */
  url: string;
  accessKey?: string;
  secretAccessKey?: string;
  region?: string;
  iamRoleARN?: string;
}

/** Metadata of a stored object. */
export interface StoredObject {
  key: string;
  /** Bytes. */
  size: number;
  etag: string;
  uploaded: Date;
  contentType?: string;
  /** Custom metadata (R2 customMetadata): the S3 endpoint keeps an upload's checksum header here (src/s3/objects.ts). */
  metadata?: Record<string, string>;
}

/** An object's bytes (the whole object or the requested range). */
export interface ObjectBody extends StoredObject {
  body: ReadableStream<Uint8Array>;
  /** The byte range returned, when a range was asked for. */
  range?: { offset: number; length: number };
}

/** One page of a listing, keys in ascending order. */
export interface ObjectListing {
  objects: StoredObject[];
  /** Common prefixes when listed with a delimiter. */
  prefixes: string[];
  /** Present when more keys follow. */
  cursor?: string;
}

/** Options of {@link ObjectStore.list}: `limit` is at most 1000 keys (fewer may come back with a cursor). */
export interface ListOptions {
  prefix?: string;
  delimiter?: string;
  cursor?: string;
  startAfter?: string;
  limit?: number;
}

/** A part of a multipart upload: its 1-based number and the etag uploadPart answered. */
export interface UploadedPart {
  partNumber: number;
  etag: string;
}

/**
 * Multipart uploads (S3 semantics: parts of at least 5 MiB except the last, numbered 1-10000; the object appears
 * on complete). Failures from the storage (unknown upload id, a part too small) are thrown as its errors.
 */
export interface MultipartUploads {
  /** Starts an upload; answers its upload id. */
  create(key: string, options?: { contentType?: string }): Promise<string>;
  /** Stores one part; answers its etag. */
  uploadPart(
    key: string,
    uploadId: string,
    partNumber: number,
    body: ReadableStream | ArrayBuffer | ArrayBufferView | string,
  ): Promise<string>;
  complete(key: string, uploadId: string, parts: UploadedPart[]): Promise<StoredObject>;
  abort(key: string, uploadId: string): Promise<void>;
}

/** The operations the task APIs and the S3 endpoint need from a bucket. */
export interface ObjectStore {
  /** The bucket's name. */
  readonly bucket: string;
  /** Null when the key does not exist. */
  get(key: string, range?: { offset: number; length?: number }): Promise<ObjectBody | null>;
  head(key: string): Promise<StoredObject | null>;
  /**
   * Stores `body` (a stream must have a known length, e.g. a request body with Content-Length). `sha256` (hex): the
   * digest the bytes must have; R2 stores refuse a mismatch (throw, nothing stored), other stores ignore it.
   * `metadata`: custom metadata, kept by R2 stores (StoredObject.metadata), ignored by other stores.
   */
  put(
    key: string,
    body: ReadableStream | ArrayBuffer | ArrayBufferView | string,
    options?: { contentType?: string; sha256?: string; metadata?: Record<string, string> },
  ): Promise<StoredObject>;
  delete(keys: string | string[]): Promise<void>;
  /** `cursor` continues a previous listing; `startAfter` lists keys after this one (S3's start-after). */
  list(options?: ListOptions): Promise<ObjectListing>;
  /** Present when the storage supports multipart uploads (R2 buckets). */
  readonly multipart?: MultipartUploads;
}

/** A resolved descriptor: the store and the key prefix (without trailing `/`, "" for the bucket root). */
export interface BucketLocation {
  store: ObjectStore;
  prefix: string;
  /** `prefix` joined with `path` by one `/`. */
  key(path: string): string;
}

/**
 * One open multipart upload as a handle (see startUpload in ./upload.ts): parts by number, completed in
 * part-number order. Part rules (R2, stricter than S3): numbers 1..10000, every part at least 5 MiB and all of the
 * same size except the last (developers.cloudflare.com/r2/objects/multipart-objects).
 */
export interface MultipartUpload {
  uploadPart(partNumber: number, data: Uint8Array): Promise<void>;
  /** Joins the uploaded parts in part-number order into the object. */
  complete(): Promise<StoredObject>;
  /** Drops the upload and its parts. */
  abort(): Promise<void>;
}

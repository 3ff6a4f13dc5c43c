/**
 * Object storage as the task APIs see it: a bucket descriptor from a request (`s3.url` = `s3://<bucket>/<prefix>`,
 * optional access keys) resolves to an {@link ObjectStore} plus the key prefix inside it. Implementations: local
 * buckets in the BUCKETS R2 binding (./local.ts); buckets bound in wrangler.toml and S3-compatible storage join them.
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

/** The operations the task APIs and the S3 endpoint need from a bucket. */
export interface ObjectStore {
  /** The bucket's name. */
  readonly bucket: string;
  /** Null when the key does not exist. */
  get(key: string, range?: { offset: number; length?: number }): Promise<ObjectBody | null>;
  head(key: string): Promise<StoredObject | null>;
  put(key: string, body: ReadableStream | ArrayBuffer | ArrayBufferView | string, options?: { contentType?: string }): Promise<StoredObject>;
  delete(keys: string | string[]): Promise<void>;
  list(options?: { prefix?: string; delimiter?: string; cursor?: string; limit?: number }): Promise<ObjectListing>;
  /**
   * Starts a multipart upload of `key` (S3 CreateMultipartUpload / R2 `createMultipartUpload`), for objects
   * written piece by piece without holding them whole. Optional: a store without it is written with `put`.
   */
  createMultipartUpload?(key: string, options?: { contentType?: string }): Promise<MultipartUpload>;
}

/**
 * An open multipart upload. Part rules (R2, stricter than S3): numbers 1..10000, in any order; every part at
 * least 5 MiB and all of the same size except the last, which may be smaller (developers.cloudflare.com/r2/objects/multipart-objects).
 */
export interface MultipartUpload {
  uploadPart(partNumber: number, data: Uint8Array): Promise<void>;
  /** Joins the uploaded parts in part-number order into the object. */
  complete(): Promise<StoredObject>;
  /** Drops the upload and its parts. */
  abort(): Promise<void>;
}

/** A resolved descriptor: the store and the key prefix (without trailing `/`, "" for the bucket root). */
export interface BucketLocation {
  store: ObjectStore;
  prefix: string;
  /** `prefix` joined with `path` by one `/`. */
  key(path: string): string;
}

/**
 * Buckets in S3-compatible storage (AWS S3, Cloudflare R2's S3 API, MinIO, EO Edge's own /s3 endpoint), reached
 * path-style at `<endpoint>/<bucket>/<key>` with requests signed by aws4fetch (AWS Signature Version 4).
 * Operations: GetObject (with Range), HeadObject, PutObject, DeleteObject, ListObjectsV2 (S3 API reference).
 */
import { AwsClient } from "aws4fetch";
import { XMLParser } from "fast-xml-parser";
import { invalidArgument } from "../raster/errors";
import type { ListOptions, ObjectBody, ObjectListing, ObjectStore, StoredObject } from "./types";

/** Where and as whom: `endpoint` is an http(s) URL (a path prefix is kept), `region` the SigV4 region. */
export interface RemoteConfig {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The fetch to send signed requests with (tests pass the Worker's own); defaults to the global fetch. */
  fetcher?: (request: Request) => Promise<Response>;
}

/** Keys and tag values stay strings (a key "0012" must not become 12); list elements are always arrays. */
const xml = new XMLParser({
  parseTagValue: false,
  isArray: (name) => name === "Contents" || name === "CommonPrefixes",
});

const unquote = (etag: string | null | undefined): string => (etag ?? "").replace(/^(W\/)?"|"$/g, "");

/** Metadata from a GetObject/HeadObject answer (Content-Range gives the full size of a partial answer). */
function metaOf(key: string, r: Response): StoredObject {
  const total = /\/(\d+)$/.exec(r.headers.get("content-range") ?? "")?.[1];
  return {
    key,
    size: Number(total ?? r.headers.get("content-length") ?? 0),
    etag: unquote(r.headers.get("etag")),
    uploaded: new Date(r.headers.get("last-modified") ?? 0),
    contentType: r.headers.get("content-type") ?? undefined,
  };
}

/**
 * Throws for a failed answer: a 4xx (bad keys, missing bucket, refused access) is the caller's to fix and becomes
 * EngineError invalid-argument naming S3's error code and message; anything else a plain Error.
 */
async function failed(what: string, r: Response): Promise<never> {
  const text = await r.text();
  const body = text.startsWith("<")
    ? (xml.parse(text) as { Error?: { Code?: string; Message?: string } }).Error
    : undefined;
  const reason = body ? `${body.Code ?? ""}: ${body.Message ?? ""}` : `HTTP ${r.status}`;
  const message = `The S3 storage refused ${what} (${reason}).`;
  throw r.status >= 400 && r.status < 500 ? invalidArgument(message) : new Error(message);
}

/** Buffers a stream body (S3 PUT needs a Content-Length; a Worker streams without one). */
async function bytesOf(
  body: ReadableStream | ArrayBuffer | ArrayBufferView | string,
): Promise<ArrayBuffer | ArrayBufferView | string> {
  return body instanceof ReadableStream ? await new Response(body).arrayBuffer() : body;
}

/** One page of ListObjectsV2 parsed into an ObjectListing. */
function listingOf(text: string): ObjectListing {
  type Contents = { Key: string; Size: string; ETag?: string; LastModified?: string };
  const r = (
    xml.parse(text) as {
      ListBucketResult?: {
        Contents?: Contents[];
        CommonPrefixes?: { Prefix: string }[];
        IsTruncated?: string;
        NextContinuationToken?: string;
      };
    }
  ).ListBucketResult;
  if (!r) throw new Error("The S3 storage answered a listing without ListBucketResult.");
  return {
    objects: (r.Contents ?? []).map((c) => ({
      key: String(c.Key),
      size: Number(c.Size),
      etag: unquote(c.ETag),
      uploaded: new Date(c.LastModified ?? 0),
    })),
    prefixes: (r.CommonPrefixes ?? []).map((p) => String(p.Prefix)),
    cursor: r.IsTruncated === "true" ? r.NextContinuationToken : undefined,
  };
}

/** The ListObjectsV2 query of `options` (list-type=2, prefix, delimiter, continuation-token, start-after, max-keys). */
function listQuery(options: ListOptions): URLSearchParams {
  const q = new URLSearchParams({ "list-type": "2" });
  if (options.prefix) q.set("prefix", options.prefix);
  if (options.delimiter) q.set("delimiter", options.delimiter);
  if (options.cursor) q.set("continuation-token", options.cursor);
  if (options.startAfter) q.set("start-after", options.startAfter);
  if (options.limit) q.set("max-keys", String(options.limit));
  return q;
}

/** An ObjectStore for `bucket` on the S3-compatible storage of `config`. Failures: see {@link failed}. */
export function remoteBucket(config: RemoteConfig, bucket: string): ObjectStore {
  const aws = new AwsClient({
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    service: "s3",
    region: config.region,
    retries: 2,
  });
  const send = config.fetcher ?? ((r: Request) => fetch(r));
  const base = `${config.endpoint.replace(/\/+$/, "")}/${encodeURIComponent(bucket)}`;
  const urlOf = (key: string) => `${base}/${key.split("/").map(encodeURIComponent).join("/")}`;
  const call = async (url: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    send(await aws.sign(url, init));
  return {
    bucket,
    async get(key, range): Promise<ObjectBody | null> {
      const headers: Record<string, string> = range
        ? { range: `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}` }
        : {};
      const r = await call(urlOf(key), { headers });
      if (r.status === 404) return (await r.body?.cancel(), null);
      if (!r.ok) return failed(`GetObject ${bucket}/${key}`, r);
      const length = Number(r.headers.get("content-length") ?? 0);
      return { ...metaOf(key, r), body: r.body!, range: range ? { offset: range.offset, length } : undefined };
    },
    async head(key) {
      const r = await call(urlOf(key), { method: "HEAD" });
      if (r.status === 404) return null;
      return r.ok ? metaOf(key, r) : failed(`HeadObject ${bucket}/${key}`, r);
    },
    async put(key, body, options) {
      const bytes = await bytesOf(body);
      const headers: Record<string, string> = options?.contentType ? { "content-type": options.contentType } : {};
      const r = await call(urlOf(key), { method: "PUT", body: bytes, headers });
      if (!r.ok) return failed(`PutObject ${bucket}/${key}`, r);
      const size = typeof bytes === "string" ? new TextEncoder().encode(bytes).byteLength : bytes.byteLength;
      return {
        key,
        size,
        etag: unquote(r.headers.get("etag")),
        uploaded: new Date(),
        contentType: options?.contentType,
      };
    },
    async delete(keys) {
      for (const key of Array.isArray(keys) ? keys : [keys]) {
        const r = await call(urlOf(key), { method: "DELETE" });
        if (!r.ok && r.status !== 404) await failed(`DeleteObject ${bucket}/${key}`, r);
      }
    },
    async list(options = {}) {
      const r = await call(`${base}?${listQuery(options)}`);
      if (!r.ok) return failed(`ListObjectsV2 ${bucket}`, r);
      return listingOf(await r.text());
    },
  };
}

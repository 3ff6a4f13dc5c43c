/**
 * S3 clients for tests of the S3 endpoint (src/s3): requests signed by botocore and answers parsed by botocore
 * (test/services/py_s3.py through the PY_S3 binding of vitest.config.ts), sent to the Worker under test. When python3 or
 * boto3 is missing the calling test is SKIPPED with the reason (never passed silently).
 */
import { env } from "cloudflare:workers";
import { Crc32Js, Sha256Js } from "@smithy/core/checksum";
import { SignatureV4 } from "@smithy/signature-v4";
import type { TestContext } from "vitest";
import { createS3Key } from "../../src/buckets/keys";
import { BASE, call } from "./auth";

/** The endpoint URL clients are given (`--endpoint-url`). */
export const ENDPOINT = `${BASE}/s3`;

/** An account with an S3 key (`key` / `secret`, as boto3 calls them), stored in D1 as the accounts API stores it. */
export interface S3Account {
  account: string;
  key: string;
  secret: string;
}

/** A new account with one S3 key of the endpoint (src/buckets/keys.ts). */
export async function s3Account(): Promise<S3Account> {
  const account = crypto.randomUUID();
  const made = (await createS3Key(env, account))!;
  return { account, key: made.accessKeyId, secret: made.secretAccessKey };
}

/** The account and key boto calls sign with by default (made when this module loads, for each test file). */
export const KEYS: S3Account = await s3Account();

/** One botocore call: a boto3 S3 client method, its parameters (Body as bytes), how to sign. */
export interface BotoCall {
  op: string;
  params?: Record<string, unknown>;
  /** Keys to sign with (default KEYS). */
  key?: string;
  secret?: string;
  region?: string;
  /** Sign as at this UTC time (ISO without zone). */
  time?: string;
  /** A presigned URL valid this many seconds instead of a signed Authorization header. */
  presign?: number;
  /** The endpoint URL (default ENDPOINT; an https one makes botocore send aws-chunked uploads with trailers). */
  endpoint?: string;
  /** botocore's signature_version: "s3v4" (default) or "s3" (Signature Version 2). */
  signatureVersion?: "s3v4" | "s3";
}

/** The request botocore sends (body base64). */
export interface SignedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What a call comes back as: the HTTP answer and botocore's reading of it. */
export interface BotoAnswer {
  status: number;
  headers: Headers;
  text: string;
  result?: Record<string, unknown>;
  error?: { Code?: string; Message?: string; [k: string]: unknown };
}

const b64 = (bytes: Uint8Array): string => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
export const fromB64 = (s: string): Uint8Array => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function py(ctx: TestContext, items: object[]): Promise<any[]> {
  const r = await env.PY_S3.fetch("http://py/", { method: "POST", body: JSON.stringify({ items }) });
  if (r.status === 503) ctx.skip(`boto3 unavailable: ${(await r.text()).trim()}`);
  if (r.status !== 200) throw new Error(`test/services/py_s3.py failed: ${await r.text()}`);
  return ((await r.json()) as { results: any[] }).results;
}

const item = (c: BotoCall) => {
  const params = { ...c.params };
  if (params.Body instanceof Uint8Array) params.Body = b64(params.Body);
  else if (typeof params.Body === "string") params.Body = b64(new TextEncoder().encode(params.Body));
  return {
    endpoint: c.endpoint ?? ENDPOINT,
    key: c.key ?? KEYS.key,
    secret: c.secret ?? KEYS.secret,
    region: c.region,
    op: c.op,
    params,
    time: c.time,
    presign: c.presign,
    signature_version: c.signatureVersion,
  };
};

/** The requests botocore would send for `calls`. */
export const botoSign = (ctx: TestContext, calls: BotoCall[]): Promise<SignedRequest[]> => py(ctx, calls.map(item));

/** Sends a signed request to the Worker (Expect and Host dropped: the URL's host is the signed one). */
export function send(s: SignedRequest): Promise<Response> {
  const headers = new Headers(s.headers);
  headers.delete("expect");
  headers.delete("host");
  const body = s.method === "GET" || s.method === "HEAD" ? undefined : fromB64(s.body);
  return call(s.url, { method: s.method, headers, body });
}

/** A call and, optionally, how to change its signed request before sending (to forge bad requests). */
export type Tampered = BotoCall & { tamper?: (s: SignedRequest) => SignedRequest };

/**
 * Signs `calls` with botocore, sends them to the Worker one after the other (in order), then parses every answer
 * with botocore: two python3 runs for the whole list.
 */
export async function botoAll(ctx: TestContext, calls: Tampered[]): Promise<BotoAnswer[]> {
  const signed = await botoSign(ctx, calls);
  const answers: { status: number; headers: Headers; bytes: Uint8Array }[] = [];
  for (const [i, s] of signed.entries()) {
    const r = await send(calls[i]!.tamper ? calls[i]!.tamper!(s) : s);
    answers.push({ status: r.status, headers: r.headers, bytes: new Uint8Array(await r.arrayBuffer()) });
  }
  const parsed = await py(
    ctx,
    answers.map((a, i) => {
      const headers: Record<string, string> = {};
      a.headers.forEach((v, k) => (headers[k] = v));
      return {
        ...item(calls[i]!),
        presign: undefined,
        time: undefined,
        response: { status: a.status, headers, body: b64(a.bytes) },
      };
    }),
  );
  return answers.map((a, i) => ({
    status: a.status,
    headers: a.headers,
    text: new TextDecoder().decode(a.bytes),
    ...parsed[i],
  }));
}

/** One call of {@link botoAll}. */
export async function boto(
  ctx: TestContext,
  c: BotoCall,
  tamper?: (s: SignedRequest) => SignedRequest,
): Promise<BotoAnswer> {
  return (await botoAll(ctx, [{ ...c, tamper }]))[0]!;
}

/** The AWS SDK's SigV4 signer (@smithy/signature-v4, installed with @aws-sdk/client-s3), independent of src/s3's aws4fetch. */
export function sdkSigner(accessKeyId = KEYS.key, secretAccessKey = KEYS.secret, region = "us-east-1"): SignatureV4 {
  return new SignatureV4({
    credentials: { accessKeyId, secretAccessKey },
    region,
    service: "s3",
    sha256: Sha256Js,
    uriEscapePath: false,
    applyChecksum: false,
  });
}

/** The x-amz-content-sha256 of the three aws-chunked forms. */
export type ChunkedPayload =
  | "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
  | "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
  | "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";

/** An aws-chunked PUT before framing ({@link frame}), to send as built or tampered with. */
export interface ChunkedUpload {
  url: string;
  /** The signed headers, Authorization included. */
  headers: Record<string, string>;
  /** The chunks in order, the final empty one included; signed forms carry each chunk's signature. */
  chunks: { data: Uint8Array; signature?: string }[];
  /** Trailer lines (`name:value`), the trailer signature line last in the signed form. */
  trailer: string[];
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const hash = new Sha256Js();
  hash.update(data);
  return hex(await hash.digest());
}

/** Base64 CRC32 of `data` as S3 writes it (big-endian), by the AWS SDK's Crc32Js. */
export async function crc32Of(data: Uint8Array): Promise<string> {
  const crc = new Crc32Js();
  crc.update(data);
  return b64(await crc.digest());
}

/**
 * A PUT of `data` to `url` as the aws-chunked `payload` form, signed by {@link sdkSigner} with `o.keys` (default
 * KEYS) for `o.region` as at `o.date`: chunks of `o.chunkSize` bytes (default 64 KiB) and the final empty one; trailer forms end with `o.trailer`
 * (default an x-amz-checksum-crc32 line), signed by x-amz-trailer-signature in the signed form. Chunk and trailer
 * signatures as AWS documents them ("Transferring Payload in Multiple Chunks", "Including Trailing Headers");
 * test/s3/chunked.test.ts checks this against AWS's published example. `o.headers` are signed too.
 */
export async function chunkedUpload(
  url: string,
  data: Uint8Array,
  payload: ChunkedPayload,
  o: {
    keys?: { key: string; secret: string };
    region?: string;
    date?: Date;
    chunkSize?: number;
    trailer?: string[];
    headers?: Record<string, string>;
  } = {},
): Promise<ChunkedUpload> {
  const keys = o.keys ?? KEYS,
    region = o.region ?? "us-east-1",
    date = o.date ?? new Date(),
    size = o.chunkSize ?? 65536;
  const signer = sdkSigner(keys.key, keys.secret, region);
  const hasTrailer = payload.endsWith("-TRAILER");
  const trailer = hasTrailer ? (o.trailer ?? [`x-amz-checksum-crc32:${await crc32Of(data)}`]) : [];
  const headers: Record<string, string> = {
    "content-encoding": "aws-chunked",
    "x-amz-content-sha256": payload,
    "x-amz-decoded-content-length": String(data.length),
    ...o.headers,
  };
  if (hasTrailer) headers["x-amz-trailer"] = trailer.map((line) => line.slice(0, line.indexOf(":"))).join(",");
  const { hostname, port, pathname, protocol } = new URL(url);
  const signed = await signer.sign(
    {
      method: "PUT",
      protocol,
      hostname,
      port: port ? Number(port) : undefined,
      path: pathname,
      query: {},
      headers: { host: hostname, ...headers },
    },
    { signingDate: date },
  );
  const chunks: ChunkedUpload["chunks"] = [];
  for (let at = 0; at < data.length; at += size) chunks.push({ data: data.subarray(at, at + size) });
  chunks.push({ data: new Uint8Array(0) });
  if (payload.startsWith("STREAMING-AWS4-HMAC-SHA256-PAYLOAD")) {
    const longDate = signed.headers["x-amz-date"]!;
    const prefix = (algorithm: string) =>
      `${algorithm}\n${longDate}\n${longDate.slice(0, 8)}/${region}/s3/aws4_request\n`;
    let previous = /Signature=([0-9a-f]{64})/.exec(signed.headers.authorization!)![1]!;
    for (const c of chunks) {
      const text = `${prefix("AWS4-HMAC-SHA256-PAYLOAD")}${previous}\n${await sha256Hex("")}\n${await sha256Hex(c.data)}`;
      previous = c.signature = await signer.sign(text, { signingDate: date });
    }
    if (hasTrailer) {
      const text = `${prefix("AWS4-HMAC-SHA256-TRAILER")}${previous}\n${await sha256Hex(trailer.map((line) => `${line}\n`).join(""))}`;
      trailer.push(`x-amz-trailer-signature:${await signer.sign(text, { signingDate: date })}`);
    }
  }
  return { url, headers: signed.headers, chunks, trailer };
}

/** The body of an aws-chunked upload: `<hex size>[;chunk-signature=...]\r\n<data>\r\n` chunks, the final one, trailer lines, an empty line. */
export function frame(u: ChunkedUpload): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const c of u.chunks) {
    parts.push(enc.encode(`${c.data.length.toString(16)}${c.signature ? `;chunk-signature=${c.signature}` : ""}\r\n`));
    if (c.data.length) parts.push(c.data, enc.encode("\r\n"));
  }
  parts.push(enc.encode(u.trailer.map((line) => `${line}\r\n`).join("") + "\r\n"));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

/** Sends an aws-chunked upload (framed, or `body` instead) to the Worker. */
export function sendChunked(u: ChunkedUpload, body: Uint8Array = frame(u)): Promise<Response> {
  const headers = new Headers(u.headers);
  headers.delete("host");
  return call(u.url, { method: "PUT", headers, body });
}

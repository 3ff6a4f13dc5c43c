/**
 * S3 clients for tests of the S3 endpoint (src/s3): requests signed by botocore and answers parsed by botocore
 * (scripts/py_s3.py through the PY_S3 binding of vitest.config.ts), sent to the Worker under test. When python3 or
 * boto3 is missing the calling test is SKIPPED with the reason (never passed silently).
 */
import { env } from "cloudflare:workers";
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
  if (r.status !== 200) throw new Error(`scripts/py_s3.py failed: ${await r.text()}`);
  return ((await r.json()) as { results: any[] }).results;
}

const item = (c: BotoCall) => {
  const params = { ...c.params };
  if (params.Body instanceof Uint8Array) params.Body = b64(params.Body);
  else if (typeof params.Body === "string") params.Body = b64(new TextEncoder().encode(params.Body));
  return { endpoint: c.endpoint ?? ENDPOINT, key: c.key ?? KEYS.key, secret: c.secret ?? KEYS.secret, region: c.region, op: c.op, params, time: c.time, presign: c.presign };
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
  const parsed = await py(ctx, answers.map((a, i) => {
    const headers: Record<string, string> = {};
    a.headers.forEach((v, k) => (headers[k] = v));
    return { ...item(calls[i]!), presign: undefined, time: undefined, response: { status: a.status, headers, body: b64(a.bytes) } };
  }));
  return answers.map((a, i) => ({ status: a.status, headers: a.headers, text: new TextDecoder().decode(a.bytes), ...parsed[i] }));
}

/** One call of {@link botoAll}. */
export async function boto(ctx: TestContext, c: BotoCall, tamper?: (s: SignedRequest) => SignedRequest): Promise<BotoAnswer> {
  return (await botoAll(ctx, [{ ...c, tamper }]))[0]!;
}

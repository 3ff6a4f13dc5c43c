/** BYOC test helpers: files in a local bucket, accounts with tokens, API calls and waiting for ingestion. */
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { createClient } from "../../src/auth/clients";
import { localBucket } from "../../src/buckets/local";
import { authed, call, form, TOKEN_PATH } from "./auth";
import { sampleFile } from "./seed";

/**
 * Copies a file of data/ (or `fixtures/...`), or puts `bytes`, to `key` of local bucket `bucket`, straight into the
 * BUCKETS binding as an operator would: no account uses (claims) the bucket here, the first API call naming it does.
 */
export async function putInBucket(bucket: string, key: string, file: string | ArrayBuffer): Promise<void> {
  await localBucket(env.BUCKETS, bucket).put(key, typeof file === "string" ? await sampleFile(file) : file);
}

/** A bearer token of account `accountId`. */
export async function tokenOf(accountId: string): Promise<string> {
  const c = await createClient(env, { accountId, name: "byoc test" });
  const r = await call(TOKEN_PATH, form({ grant_type: "client_credentials", ...c }));
  return ((await r.json()) as { access_token: string }).access_token;
}

/** A JSON call of the API with a bearer token: status and parsed body (null for empty bodies). */
export async function api(
  bearer: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const init: RequestInit = { method, headers: { "content-type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const r = await authed(path, init, bearer);
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

/** Waits until tile `tile` of collection `c` is INGESTED or FAILED; returns its JSON. */
export async function settled(bearer: string, c: string, tile: string): Promise<any> {
  let t: any;
  await vi.waitFor(
    async () => {
      t = (await api(bearer, "GET", `/api/v1/byoc/collections/${c}/tiles/${tile}`)).json.data;
      if (t.status !== "INGESTED" && t.status !== "FAILED") throw new Error(`tile ${tile} is ${t.status}`);
    },
    { timeout: 20_000, interval: 100 },
  );
  return t;
}

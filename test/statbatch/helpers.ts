/** Helpers of the Statistical Batch tests: calls, bodies, waiting for a state, local bucket objects. */
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { authed } from "../helpers/auth";

export const BASE_PATH = "/api/v1/statistics/batch";

/** A JSON call with a bearer token. */
export const sb = (path: string, bearer: string, method = "GET", body?: unknown): Promise<Response> =>
  authed(
    BASE_PATH + path,
    body === undefined
      ? { method }
      : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    bearer,
  );

/** Puts an object into a local bucket (R2 binding BUCKETS, key `<bucket>/<key>`). */
export async function putObject(bucket: string, key: string, body: ArrayBuffer | Uint8Array | string): Promise<void> {
  await env.BUCKETS.put(`${bucket}/${key}`, body);
}

/** An object of a local bucket as JSON, or null when absent. */
export async function getJson(bucket: string, key: string): Promise<unknown> {
  const o = await env.BUCKETS.get(`${bucket}/${key}`);
  return o ? o.json() : null;
}

/** Keys (without the bucket) of a local bucket under `prefix`. */
export async function listKeys(bucket: string, prefix: string): Promise<string[]> {
  const r = await env.BUCKETS.list({ prefix: `${bucket}/${prefix}` });
  return r.objects.map((o) => o.key.slice(bucket.length + 1)).sort();
}

/**
 * A create body: features in s3://`bucket`/`gpkg`, output under s3://`bucket`/out, descriptors without keys (the
 * caller's account uses the bucket as its own: the first account to use it owns it, src/buckets/owners.ts).
 */
export function createBody(
  bucket: string,
  gpkg: string,
  aggregation: Record<string, unknown>,
  calculations?: unknown,
  output = `s3://${bucket}/out`,
) {
  return {
    input: {
      features: { s3: { url: `s3://${bucket}/${gpkg}` } as Record<string, string> },
      data: [{ type: "sentinel-2-l2a" }],
    },
    aggregation,
    ...(calculations === undefined ? {} : { calculations }),
    output: { s3: { url: output } as Record<string, string> },
  };
}

/** Polls the task's status until it is one of `states` (the queue consumer runs in the background). */
export async function waitForStatus(
  id: string,
  bearer: string,
  states: string[],
  timeout = 60_000,
): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  await vi.waitFor(
    async () => {
      last = (await (await sb(`/${id}/status`, bearer)).json()) as Record<string, unknown>;
      expect(states, JSON.stringify(last)).toContain(last.status);
    },
    { timeout, interval: 250 },
  );
  return last;
}

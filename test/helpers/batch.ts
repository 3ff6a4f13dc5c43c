/** Batch Processing v2 test helpers: calls, polling until a status, bucket listing, the COG validator. */
import { env } from "cloudflare:workers";
import { expect, vi, type TestContext } from "vitest";
import { authed } from "./auth";
import { pyDecode, type PyImage } from "./pydecode";

export const BATCH = "/api/v2/batch/process";

/** A JSON call of the batch API with `bearer`. */
export function batchCall(path: string, bearer: string, method = "GET", body?: unknown): Promise<Response> {
  const init: RequestInit = { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }) };
  return authed(BATCH + path, init, bearer);
}

/** The task JSON of `id`. */
export async function getTask(id: string, bearer: string): Promise<Record<string, unknown>> {
  const r = await batchCall(`/${id}`, bearer);
  expect(r.status).toBe(200);
  return (await r.json()) as Record<string, unknown>;
}

/** Polls the task until its status is one of `statuses` (the queue consumer runs in the same workerd). */
export async function waitForStatus(id: string, bearer: string, statuses: string[], timeout = 60_000): Promise<Record<string, unknown>> {
  return vi.waitFor(
    async () => {
      const t = await getTask(id, bearer);
      expect(statuses).toContain(t.status);
      return t;
    },
    { timeout, interval: 250 },
  );
}

/** Every key under `prefix` in the local bucket `bucket` (BUCKETS binding keys `<bucket>/<key>`), with its bytes. */
export async function bucketFiles(bucket: string, prefix: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  let cursor: string | undefined;
  do {
    const page = await env.BUCKETS.list({ prefix: `${bucket}/${prefix}`, cursor });
    for (const o of page.objects) out.set(o.key.slice(bucket.length + 1), new Uint8Array(await (await env.BUCKETS.get(o.key))!.arrayBuffer()));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

/** GDAL's COG validator result for a file, and its decodings (scripts/py_decode.py kind `cog`). */
export interface PyCog extends PyImage {
  cog: { warnings: string[]; errors: string[]; overviews: [number, number][]; block: [number, number] } | { error: string };
}

/** Validates and decodes TIFF files with GDAL / tifffile (skips the test when python3 lacks them). */
export async function validateCogs(ctx: TestContext, files: Uint8Array[]): Promise<PyCog[]> {
  // the PY_DECODE service takes kind "cog" (scripts/py_decode.py); pydecode.ts types only the older kinds
  return (await pyDecode(ctx, files.map((data) => ({ kind: "cog" as "tiff", data })))) as PyCog[];
}

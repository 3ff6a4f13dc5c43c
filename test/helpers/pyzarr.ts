/**
 * Reading a Zarr v2 store with zarr-python through the PY_ZARR service of vitest.config.ts (test/services/py_zarr.py):
 * the store's objects are sent as files; the test is SKIPPED when python3 lacks zarr (never passed silently).
 */
import { env } from "cloudflare:workers";
import type { TestContext } from "vitest";
import { base64 } from "./pydecode";

/** One array as zarr-python reads it (`data`: C-order little-endian values of numpy dtype `dtype`). */
export interface PyZarrArray {
  shape: number[];
  chunks: number[];
  zdtype: string;
  dtype: string;
  fill_value: number | null;
  compressor: Record<string, unknown> | null;
  attrs: Record<string, unknown>;
  data: string;
  values: number[] | null;
}

/** A group as zarr-python reads it. */
export interface PyZarrGroup {
  versions: Record<string, string>;
  attrs: Record<string, unknown>;
  arrays: Record<string, PyZarrArray>;
}

/** Reads the store made of `files` (keys relative to the group). */
export async function pyReadZarr(ctx: TestContext, files: Map<string, Uint8Array>): Promise<PyZarrGroup> {
  const body = JSON.stringify({ files: Object.fromEntries([...files].map(([k, v]) => [k, base64(v)])) });
  const r = await env.PY_ZARR.fetch("http://py/", { method: "POST", body });
  if (r.status === 503) ctx.skip(`zarr-python unavailable: ${(await r.text()).trim()}`);
  if (r.status !== 200) throw new Error(`test/services/py_zarr.py failed: ${await r.text()}`);
  return (await r.json()) as PyZarrGroup;
}

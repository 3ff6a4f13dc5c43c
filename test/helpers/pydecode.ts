/**
 * Decoding with the real clients' decoders (Pillow, tifffile without imagecodecs, GDAL, Python's tarfile and
 * email) through the PY_DECODE service of vitest.config.ts, which runs test/services/py_decode.py. When python3 or one
 * of its modules is missing the calling test is SKIPPED with the reason (never passed silently).
 */
import { env } from "cloudflare:workers";
import { expect, type TestContext } from "vitest";

/** A decoded array: shape (rows, cols[, bands]), numpy dtype name, samples in C order. */
export interface PyArray {
  shape: number[];
  dtype: string;
  data: string;
  error?: undefined;
}
/** A decoder's refusal. */
export interface PyError {
  error: string;
}
export type PyDecoded<T = object> = (PyArray & T) | PyError;

/** What one image decodes to with each decoder (tifffile for TIFF only). */
export interface PyImage {
  pillow: PyDecoded<{ format: string; mode: string; size: [number, number] }>;
  gdal: PyDecoded<{
    driver: string;
    geotransform: number[] | null;
    epsg: number | null;
    nodata: number | "nan" | null;
  }>;
  tifffile?: PyDecoded<{ compression: number; predictor: number }>;
}
/** A tar member or multipart part: its image decodings, or `json` for .json members. */
export type PyMember = Partial<PyImage> & { json?: unknown };
export interface PyTar {
  members: (PyMember & { name: string; size: number; type: string })[];
  error?: string;
}
export interface PyMultipart {
  multipart: boolean;
  defects: string[];
  parts: (PyMember & { headers: Record<string, string>; contentType: string; filename: string | null; size: number })[];
  error?: string;
}

type Kind = "png" | "jpeg" | "tiff" | "tar" | "multipart";
export interface PyItem {
  kind: Kind;
  data: Uint8Array;
  contentType?: string;
}

export function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/**
 * Decodes `items` in one python3 run; results are in item order (cast them to PyImage / PyTar / PyMultipart by
 * kind). Asserts that imagecodecs was not importable. Skips the test (ctx.skip) when python3 cannot decode.
 */
export async function pyDecode(ctx: TestContext, items: PyItem[]): Promise<unknown[]> {
  const body = JSON.stringify({
    items: items.map((i) => ({ kind: i.kind, contentType: i.contentType, data: base64(i.data) })),
  });
  const r = await env.PY_DECODE.fetch("http://py/", { method: "POST", body });
  if (r.status === 503) ctx.skip(`Python decoders unavailable: ${(await r.text()).trim()}`);
  if (r.status !== 200) throw new Error(`test/services/py_decode.py failed: ${await r.text()}`);
  const out = (await r.json()) as { imagecodecs: boolean; results: unknown[] };
  expect(out.imagecodecs).toBe(false);
  return out.results;
}

const ARRAYS: Record<string, (b: ArrayBuffer) => ArrayLike<number>> = {
  uint8: (b) => new Uint8Array(b),
  int8: (b) => new Int8Array(b),
  uint16: (b) => new Uint16Array(b),
  int16: (b) => new Int16Array(b),
  int32: (b) => new Int32Array(b),
  float32: (b) => new Float32Array(b),
};

/** The samples of a decoded array as a typed array of its dtype; fails the test when the decoder refused. */
export function samplesOf(decoded: PyDecoded | undefined): ArrayLike<number> {
  expect(decoded?.error).toBeUndefined();
  const a = decoded as PyArray;
  const make = ARRAYS[a.dtype];
  if (!make) throw new Error(`unexpected dtype ${a.dtype}`);
  const bin = atob(a.data);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return make(bytes.buffer);
}

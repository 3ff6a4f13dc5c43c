/** Batch Processing v2 test helpers: calls, polling until a status, bucket listing, the COG validator. */
import { env } from "cloudflare:workers";
import { expect, vi, type TestContext } from "vitest";
import { authed } from "./auth";
import { pyDecode, type PyImage } from "./pydecode";
import { CRS, bandsScript, process } from "./process";

export const BATCH = "/api/v2/batch/process";

/** An area inside 29RKH (EPSG:32629) that the UTM 20 km grid (id 0) cuts into 2 x 2 tiles (29RKH_0_3, _1_3, _0_4, _1_4). */
export const BOUNDS = { bbox: [205000, 2710000, 230000, 2730000], properties: { crs: CRS(32629) } };
export const DATA = [
  { type: "sentinel-2-l2a", dataFilter: { timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" } } },
];
export const SCRIPT = bandsScript(["B04", "B08"]);

/** A batch request over BOUNDS delivered to s3://<bucket>/<prefix>. */
export const batchRequest = (
  bucket: string,
  output: Record<string, unknown> = {},
  grid: Record<string, unknown> = {},
  bounds: object = BOUNDS,
) => ({
  processRequest: {
    input: { bounds, data: DATA },
    output: { responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
    evalscript: SCRIPT,
  },
  input: { type: "tiling-grid", id: 0, resolution: 60, ...grid },
  output: { type: "raster", delivery: { s3: { url: `s3://${bucket}/out` } }, ...output },
  description: "29RKH red and NIR",
});

/** An area inside one tile of the 20 km grid (29RKH_0_4). */
export const ONE_TILE = { bbox: [205000, 2710000, 206000, 2711000], properties: { crs: CRS(32629) } };

/** A JSON call of the batch API with `bearer`. */
export function batchCall(path: string, bearer: string, method = "GET", body?: unknown): Promise<Response> {
  const init: RequestInit = {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  };
  return authed(BATCH + path, init, bearer);
}

/** The task JSON of `id`. */
export async function getTask(id: string, bearer: string): Promise<Record<string, unknown>> {
  const r = await batchCall(`/${id}`, bearer);
  expect(r.status).toBe(200);
  return (await r.json()) as Record<string, unknown>;
}

/** Polls the task until its status is one of `statuses` (the queue consumer runs in the same workerd). */
export async function waitForStatus(
  id: string,
  bearer: string,
  statuses: string[],
  timeout = 60_000,
): Promise<Record<string, unknown>> {
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
    for (const o of page.objects)
      out.set(o.key.slice(bucket.length + 1), new Uint8Array(await (await env.BUCKETS.get(o.key))!.arrayBuffer()));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

/** GDAL's COG validator result for a file, and its decodings (test/services/py_decode.py kind `cog`). */
export interface PyCog extends PyImage {
  cog:
    | { warnings: string[]; errors: string[]; overviews: [number, number][]; block: [number, number] }
    | { error: string };
}

/** Validates and decodes TIFF files with GDAL / tifffile (skips the test when python3 lacks them). */
export async function validateCogs(ctx: TestContext, files: Uint8Array[]): Promise<PyCog[]> {
  // the PY_DECODE service takes kind "cog" (test/services/py_decode.py); pydecode.ts types only the older kinds
  return (await pyDecode(
    ctx,
    files.map((data) => ({ kind: "cog" as "tiff", data })),
  )) as PyCog[];
}

/**
 * The synchronous Process result (GeoTIFF bytes and PU spent) over the grid GDAL reports for a batch output
 * (`gdal`: geotransform, epsg, shape), with the same data and evalscript.
 */
export async function syncTile(
  gdal: PyImage["gdal"],
  bearer: string,
  data: unknown = DATA,
  evalscript = SCRIPT,
): Promise<{ bytes: Uint8Array; pu: number }> {
  const g = gdal as { geotransform: number[]; shape: number[]; epsg: number };
  const [x0, rx, , y1, , ry] = g.geotransform as [number, number, number, number, number, number];
  const [h, w] = g.shape as [number, number];
  const bounds = { bbox: [x0, y1 + h * ry, x0 + w * rx, y1], properties: { crs: CRS(g.epsg) } };
  const body = {
    input: { bounds, data },
    output: { width: w, height: h, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
    evalscript,
  };
  const r = await process(body, bearer);
  expect(r.status).toBe(200);
  return { bytes: new Uint8Array(await r.arrayBuffer()), pu: Number(r.headers.get("x-processingunits-spent")) };
}

/** Creates a task with `body`, analyses and starts it, and waits until it is DONE or FAILED. */
export async function runBatchTask(
  body: unknown,
  bearer: string,
): Promise<{ id: string; task: Record<string, unknown> }> {
  const created = await batchCall("", bearer, "POST", body);
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  expect((await batchCall(`/${id}/analyse`, bearer, "POST")).status).toBe(204);
  expect((await waitForStatus(id, bearer, ["ANALYSIS_DONE", "FAILED"])).status).toBe("ANALYSIS_DONE");
  expect((await batchCall(`/${id}/start`, bearer, "POST")).status).toBe(204);
  return { id, task: await waitForStatus(id, bearer, ["DONE", "FAILED"]) };
}

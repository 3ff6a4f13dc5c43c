/** Loads the GDAL references written by test/reference/ref_warp.py (test/fixtures/warp). */
import { env } from "cloudflare:workers";
import { sampleFile } from "../../helpers/seed";
import { r2Source, type R2ByteSource } from "../../../src/storage/r2source";

export interface WarpRef {
  file: string;
  band: number;
  epsg: number;
  bbox: [number, number, number, number];
  width: number;
  height: number;
  resampling?: "near" | "bilinear" | "cubic";
  gdalOverview?: number;
  gdalKernels?: string[];
  subsample?: number;
  stats?: { valid: number; sum: number };
}

/** -9999 marks no data in the reference arrays. */
export const REF_NODATA = -9999;

let refsCache: Record<string, unknown> | undefined;

export async function refs(): Promise<Record<string, unknown>> {
  refsCache ??= JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/warp/refs.json"))) as Record<
    string,
    unknown
  >;
  return refsCache;
}

/** A reference case and its array. */
export async function ref(name: string): Promise<{ meta: WarpRef; data: Float32Array }> {
  const meta = (await refs())[name] as WarpRef;
  if (!meta) throw new Error(`no reference ${name}`);
  return { meta, data: new Float32Array(await sampleFile(`fixtures/warp/${name}.bin`)) };
}

/** Copies a sample file into R2 (once per test file) and opens it as an R2 ByteSource. */
export async function sourceFor(path: string): Promise<R2ByteSource> {
  if (!(await env.DATA.head(path))) await env.DATA.put(path, await sampleFile(path));
  const s = await r2Source(env.DATA, path);
  if (!s) throw new Error(`missing ${path}`);
  return s;
}

export const B04 = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif";
export const B08 = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B08.tif";
export const BELGIUM = "sentinel-2-l2a/belgium/openEO_2023-06-04Z.tif";

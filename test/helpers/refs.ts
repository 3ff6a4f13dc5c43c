/** Reference arrays written by test/reference/references.py (GDAL + numpy on the same files). */
import { sampleFile } from "./seed";

export interface RefMeta {
  shape: number[];
  grid: { epsg: number; bbox: [number, number, number, number]; width: number; height: number };
}

let metaCache: Record<string, RefMeta> | undefined;

/** Loads test/fixtures/process/<name>.bin as Float32Array with its metadata. */
export async function reference(name: string): Promise<{ data: Float32Array; meta: RefMeta }> {
  metaCache ??= JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/process/references.json"))) as Record<
    string,
    RefMeta
  >;
  return { data: new Float32Array(await sampleFile(`fixtures/process/${name}.bin`)), meta: metaCache[name]! };
}

/** Compares two arrays: fraction of elements differing by more than `tol`, and the max abs difference. */
export function compare(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  tol: number,
): { mismatch: number; maxDiff: number } {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let bad = 0;
  let maxDiff = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    if (d > tol) bad++;
    if (d > maxDiff) maxDiff = d;
  }
  return { mismatch: bad / a.length, maxDiff };
}

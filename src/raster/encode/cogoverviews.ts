/**
 * Overviews of a Cloud Optimized GeoTIFF, as `gdaladdo` makes them (https://gdal.org/programs/gdaladdo.html):
 * - levels: the explicit decimation factors (`-levels`, e.g. [2, 4, 8]) or, without them, 2, 4, 8, ... until the
 *   smallest overview fits `minSize` x `minSize` (`-minsize`; GDAL's default is the block size); an image that
 *   already fits gets none;
 * - size of level f: ceil(width / f) x ceil(height / f) (GDAL's rounding, `(n + f - 1) / f`);
 * - resampling `nearest` (the source pixel under the overview pixel's centre), `average` (mean of the source
 *   pixels the overview pixel covers, nodata pixels excluded, integers rounded half away from zero) or `mode`
 *   (most frequent value, ties to the smallest). Every level is computed from the full-resolution image.
 */
import { invalidArgument } from "../errors";
import type { EncodeInput, SampleArray } from "./types";

/** Resampling kernels this writer implements (a subset of gdaladdo's `-r`). */
export const OVERVIEW_RESAMPLING = ["nearest", "average", "mode"] as const;
export type OverviewResampling = (typeof OVERVIEW_RESAMPLING)[number];

/**
 * The decimation factors of the overviews of a `width` x `height` image, ascending.
 * @throws EngineError invalid-argument for a factor that is not an integer >= 2.
 */
export function overviewFactors(
  width: number,
  height: number,
  levels: readonly number[] | undefined,
  minSize: number,
): number[] {
  if (levels !== undefined) {
    for (const f of levels)
      if (!Number.isInteger(f) || f < 2) throw invalidArgument(`Overview level ${f} must be an integer of at least 2.`);
    return [...new Set(levels)].sort((a, b) => a - b);
  }
  const out: number[] = [];
  for (let f = 2; Math.ceil(width / (f / 2)) > minSize || Math.ceil(height / (f / 2)) > minSize; f *= 2) out.push(f);
  return out;
}

/** One overview pixel from the source samples `values` (valid ones only), by kernel. */
function reduce(values: number[], kernel: OverviewResampling, integer: boolean): number {
  if (kernel === "average") {
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    return integer ? Math.sign(mean) * Math.round(Math.abs(mean)) : mean;
  }
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0]!;
  for (const [v, n] of counts) if (n > counts.get(best)! || (n === counts.get(best)! && v < best)) best = v;
  return best;
}

/** The source window [x0, x1) x [y0, y1) of overview pixel (col, row) at factor f. */
const window = (col: number, row: number, f: number, w: number, h: number) => ({
  x0: col * f,
  x1: Math.min(w, (col + 1) * f),
  y0: row * f,
  y1: Math.min(h, (row + 1) * f),
});

/**
 * The overview of `input` at decimation factor `f` (same bands, sampleType and nodata).
 * @throws EngineError invalid-argument for an unknown kernel.
 */
export function overview(input: EncodeInput, f: number, kernel: string): EncodeInput {
  if (!(OVERVIEW_RESAMPLING as readonly string[]).includes(kernel))
    throw invalidArgument(
      `Overview resampling '${kernel}' is not available; use one of ${OVERVIEW_RESAMPLING.join(", ")}.`,
    );
  const { width: w, height: h, bands, data, nodataValue } = input;
  const ow = Math.ceil(w / f);
  const oh = Math.ceil(h / f);
  const out = new (data.constructor as new (n: number) => SampleArray)(ow * oh * bands);
  const integer = input.sampleType !== "FLOAT32";
  for (let row = 0; row < oh; row++) {
    for (let col = 0; col < ow; col++) {
      const win = window(col, row, f, w, h);
      for (let b = 0; b < bands; b++)
        out[(row * ow + col) * bands + b] = pixel(input, win, b, kernel as OverviewResampling, integer, nodataValue);
    }
  }
  return { ...input, width: ow, height: oh, data: out };
}

/** One band of one overview pixel over its source window. */
function pixel(
  input: EncodeInput,
  win: ReturnType<typeof window>,
  b: number,
  kernel: OverviewResampling,
  integer: boolean,
  nodata?: number,
): number {
  const { width: w, bands, data } = input;
  if (kernel === "nearest") {
    const x = Math.min(win.x1 - 1, win.x0 + Math.floor((win.x1 - win.x0) / 2));
    const y = Math.min(win.y1 - 1, win.y0 + Math.floor((win.y1 - win.y0) / 2));
    return data[(y * w + x) * bands + b]!;
  }
  const values: number[] = [];
  for (let y = win.y0; y < win.y1; y++) {
    for (let x = win.x0; x < win.x1; x++) {
      const v = data[(y * w + x) * bands + b]!;
      if (v !== nodata && !Number.isNaN(v)) values.push(v);
    }
  }
  return values.length === 0 ? (nodata ?? 0) : reduce(values, kernel, integer);
}

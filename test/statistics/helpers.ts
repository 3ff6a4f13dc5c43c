/** Reference statistics of test/reference/ref_statistics.py and comparisons of API band statistics with them. */
import { expect } from "vitest";
import { authed } from "../helpers/auth";
import { sampleFile } from "../helpers/seed";
import type { BandStatisticsJson } from "../../src/stats/reduce";

type Num = number | "NaN";

export interface RefBand {
  stats: {
    min: Num;
    max: Num;
    mean: Num;
    stDev: Num;
    sampleCount: number;
    noDataCount: number;
    percentiles?: Record<string, Num>;
  };
  histogram?: { edges: number[]; counts: number[]; underflow: number; overflow: number };
}
export interface RefEntry {
  interval: { from: string; to: string };
  dates?: string[];
  bands: Record<string, RefBand>;
}
export interface RefGrid {
  epsg: number;
  bbox: [number, number, number, number];
  width: number;
  height: number;
}
export interface RefCase {
  timeRange: { from: string; to: string };
  of: string;
  calc: Calc;
  entries: RefEntry[];
  grid?: RefGrid;
  polygon?: number[][];
  geometryPixelCount?: number;
}
export interface Calc {
  percentiles?: { k: number[]; interpolation?: string };
  histogram?: Record<string, unknown>;
}
export interface References {
  calcs: Record<string, Calc>;
  wf_grid: RefGrid;
  wf_p1d_april: RefCase;
  wf_p1m_series: RefCase;
  wf_p10d: RefCase & { SKIP: RefEntry[]; SHORTEN: RefEntry[]; EXTEND: RefEntry[] };
  wf_polygon: RefCase;
  belgium_p1d: RefCase;
  rkh_tile: RefCase;
  unit: Record<string, Record<string, RefBand>>;
}

let cache: References | undefined;

/** test/fixtures/statistics/references.json */
export async function references(): Promise<References> {
  cache ??= JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/statistics/references.json"))) as References;
  return cache;
}

/** The request's `calculations` member for one output from a reference calc (statistics + histogram of all bands). */
export function calculations(output: string, c: Calc): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.percentiles) out.statistics = { default: { percentiles: c.percentiles } };
  if (c.histogram) out.histograms = { default: c.histogram };
  return { [output]: out };
}

function close(actual: Num, expected: Num, rel: number, what: string): void {
  if (expected === "NaN") return expect(actual, what).toBe("NaN");
  expect(typeof actual, what).toBe("number");
  const tol = rel * Math.max(1e-12, Math.abs(expected));
  expect(Math.abs((actual as number) - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(tol);
}

/**
 * Compares one band: counts, min, max and percentiles of sample values exactly (they are float32 values or
 * numpy's float64 blends of them), mean and stDev to 1e-9 relative (numpy sums pairwise), histogram exactly.
 */
export function expectBand(actual: BandStatisticsJson | undefined, ref: RefBand, what: string): void {
  expect(actual, what).toBeDefined();
  const a = actual!.stats;
  const e = ref.stats;
  expect([a.sampleCount, a.noDataCount], `${what} counts`).toEqual([e.sampleCount, e.noDataCount]);
  close(a.min, e.min, 0, `${what} min`);
  close(a.max, e.max, 0, `${what} max`);
  close(a.mean, e.mean, 1e-9, `${what} mean`);
  close(a.stDev, e.stDev, 1e-9, `${what} stDev`);
  expect(Object.keys(a.percentiles ?? {}), `${what} percentile labels`).toEqual(Object.keys(e.percentiles ?? {}));
  for (const [k, v] of Object.entries(e.percentiles ?? {})) close(a.percentiles![k]!, v, 1e-15, `${what} p${k}`);
  if (!ref.histogram) return expect(actual!.histogram, `${what} histogram`).toBeUndefined();
  const h = actual!.histogram!;
  expect(
    h.bins.map((b) => b.lowEdge).concat(h.bins.length ? [h.bins[h.bins.length - 1]!.highEdge] : []),
    `${what} edges`,
  ).toEqual(ref.histogram.edges);
  expect(
    h.bins.map((b) => b.count),
    `${what} counts`,
  ).toEqual(ref.histogram.counts);
  expect([h.underflow, h.overflow], `${what} under/overflow`).toEqual([
    ref.histogram.underflow,
    ref.histogram.overflow,
  ]);
}

/** POSTs a statistical request (JSON) with a bearer token. */
export function statistics(body: unknown, bearer: string, path = "/api/v1/statistics"): Promise<Response> {
  return authed(
    path,
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    bearer,
  );
}

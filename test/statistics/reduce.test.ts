/**
 * Reducers and the per-interval response shape on real West Flanders NDVI pixels (test/reference/ref_statistics.py),
 * compared with numpy: stats, every percentile interpolation, every histogram bin rule.
 */
import { describe, expect, it } from "vitest";
import { sampleFile } from "../helpers/seed";
import { expectBand, references } from "./helpers";
import { percentileLabel, reduceEvaluation, reducingSink } from "../../src/stats/reduce";
import type { CalculationRequest } from "../../src/stats/schema";
import { firstPass } from "../../src/raster/stats/kernels";
import { compileEvalscript } from "../../src/raster/evalscript";
import { HostPathRuntime } from "../../src/raster/evalscript/hostpath/runtime";
import {
  binEdges,
  histogram,
  interleavedBand,
  maskBytes,
  percentiles,
  planarBand,
  reduceBand,
  summarize,
} from "../../src/raster/stats";
import type { EvalResult, EvalSetup } from "../../src/raster/evalscript/types";

const SETUP: EvalSetup = {
  inputs: [],
  mosaicking: "SIMPLE",
  bands: [],
  outputs: [
    { id: "ndvi", bands: 1, sampleType: "FLOAT32" },
    { id: "dataMask", bands: 1, sampleType: "UINT8" },
  ],
};

async function evaluation(date: string): Promise<EvalResult> {
  const ndvi = new Float32Array(await sampleFile(`fixtures/statistics/wf_${date}_ndvi.bin`));
  const mask = Float32Array.from(new Uint8Array(await sampleFile(`fixtures/statistics/wf_${date}_mask.bin`)));
  return {
    outputs: {
      ndvi: { bands: 1, sampleType: "FLOAT32", values: ndvi },
      dataMask: { bands: 1, sampleType: "UINT8", values: mask },
    },
  };
}

describe("reducers vs numpy on West Flanders NDVI", () => {
  for (const date of ["2018-04-16", "2018-04-19"]) {
    it(`${date}: stats, percentiles (higher, linear, nearest, midpoint) and histograms (nBins, binWidth, bins)`, async () => {
      const refs = await references();
      const result = await evaluation(date);
      for (const [name, calc] of Object.entries(refs.calcs)) {
        const calcs = {
          default: {
            statistics: { default: { percentiles: calc.percentiles as never } },
            histograms: { default: calc.histogram as never },
          },
        };
        const out = reduceEvaluation(SETUP, result, null, calcs);
        expect(Object.keys(out)).toEqual(["ndvi"]);
        expectBand(out.ndvi!.bands.B0, refs.unit[date]![name]!, `${date} calc ${name}`);
      }
    });
  }

  it("a geometry mask removes pixels from the statistics; NaN samples count as no data", async () => {
    const result = await evaluation("2018-04-19");
    const n = 64 * 64;
    const half = new Uint8Array(n).map((_, i) => (i < n / 2 ? 1 : 0));
    const ndvi = result.outputs.ndvi!.values;
    ndvi[0] = NaN;
    const out = reduceEvaluation(SETUP, result, half, undefined).ndvi!.bands.B0!.stats;
    expect([out.sampleCount, out.noDataCount]).toEqual([n, n / 2 + 1]);
    const x = Float64Array.from(ndvi.subarray(1, n / 2));
    expect(out.min).toBe(Math.min(...x));
    expect(out.max).toBe(Math.max(...x));
    expect(out.percentiles).toBeUndefined();
  });

  it("reducing in place (consume) gives the same statistics, one-band and many-band outputs, with a geometry", async () => {
    const one = await evaluation("2018-04-16");
    const ndvi = one.outputs.ndvi!.values;
    const n = ndvi.length;
    const two = Float32Array.from({ length: 2 * n }, (_, i) => (i % 2 ? -ndvi[i >> 1]! : ndvi[i >> 1]! * 2));
    const setup: EvalSetup = { ...SETUP, outputs: [...SETUP.outputs, { id: "pair", bands: 2, sampleType: "FLOAT32" }] };
    const dataMask = one.outputs.dataMask!.values.map((v, i) => (i < 1000 ? 1 : v)); // valid pixels first, too
    const fresh = (): EvalResult => ({
      outputs: {
        ndvi: { ...one.outputs.ndvi!, values: ndvi.slice() },
        dataMask: { ...one.outputs.dataMask!, values: dataMask.slice() },
        pair: { bands: 2, sampleType: "FLOAT32", values: two.slice() },
      },
    });
    const geometry = new Uint8Array(n).map((_, i) => (i % 7 ? 1 : 0));
    const calcs = {
      default: {
        statistics: { default: { percentiles: { k: [10, 50, 90], interpolation: "higher" as const } } },
        histograms: { default: { nBins: 9 } },
      },
    };
    for (const g of [null, geometry]) {
      const kept = reduceEvaluation(setup, fresh(), g, calcs);
      expect(reduceEvaluation(setup, fresh(), g, calcs, true)).toEqual(kept);
      expect(Object.keys(kept)).toEqual(["ndvi", "pair"]);
    }
  });

  it("the reducing sink gives reduceEvaluation's statistics: pieces of any size, NaN, geometry, outputs in any order", async () => {
    const one = await evaluation("2018-04-16");
    const ndvi = one.outputs.ndvi!.values.map((v, i) => (i % 97 === 3 ? NaN : v));
    const dataMask = one.outputs.dataMask!.values.map((v, i) => (i % 89 === 5 ? NaN : i % 83 === 7 ? 0.5 : v));
    const n = ndvi.length;
    const geometry = new Uint8Array(n).map((_, i) => (i % 7 ? 1 : 0));
    const result: EvalResult = {
      outputs: {
        ndvi: { ...one.outputs.ndvi!, values: ndvi },
        dataMask: { ...one.outputs.dataMask!, values: dataMask },
      },
    };
    const calcs: (Record<string, CalculationRequest> | undefined)[] = [
      {
        ndvi: {
          statistics: { default: { percentiles: { k: [1, 50, 99.9], interpolation: "higher" as const } } },
          histograms: { default: { nBins: 7 } },
        },
      },
      { default: { histograms: { default: { binWidth: 0.05 } } } },
      undefined,
    ];
    for (const setup of [SETUP, { ...SETUP, outputs: [...SETUP.outputs].reverse() }])
      for (const calc of calcs)
        for (const g of [null, geometry]) {
          const r = reducingSink(setup, g, calc, n)!;
          // pieces of 1, 1000 and the rest, each evaluated in ranges of its choice, as the runtime gives them
          for (const [offset, len] of [
            [0, 1],
            [1, 1000],
            [1001, n - 1001],
          ] as const)
            r.sink.strip(offset, len, (targets, from, to) => {
              const byId = { ndvi, dataMask };
              r.sink.ids.forEach((id, k) =>
                targets[k]!.set(byId[id as "ndvi" | "dataMask"].subarray(offset + from, offset + to)),
              );
            });
          expect(r.finish()).toEqual(reduceEvaluation(setup, result, g, calc));
        }
    const many: EvalSetup = { ...SETUP, outputs: [...SETUP.outputs, { id: "pair", bands: 2, sampleType: "FLOAT32" }] };
    expect(reducingSink(many, null, undefined, n)).toBeNull();
  });

  it("the host path hands the outputs to the reducing sink: the same statistics, whole or in strips", async () => {
    const script = `//VERSION=3
function setup() { return { input: ["B04", "B08", "SCL", "dataMask"], output: [{ id: "ndvi", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { ndvi: [(s.B08 - s.B04) / (s.B08 + s.B04)], dataMask: [s.dataMask && [3, 8, 9].indexOf(s.SCL) < 0 ? 1 : 0] }; }`;
    const limits = { perCall: 2e7, totalBase: 1e9, totalPerSample: 2000, outputBands: 1e6, outputBytes: 1e12 };
    const rt = new HostPathRuntime({ compiled: compileEvalscript(script) } as never, "sink-test", limits as never);
    const setup = await rt.setup();
    expect(await rt.hostPath()).toBe(true);
    const [width, height] = [301, 233],
      n = width * height;
    const band = (f: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => f(i));
    const bands = {
      B04: band((i) => ((i * 37) % 1000) / 5000),
      B08: band((i) => ((i * 53) % 997) / 4000),
      SCL: band((i) => (i * 7) % 12),
    };
    const dataMask = Uint8Array.from({ length: n }, (_, i) => (i % 31 ? 1 : 0));
    const info = { id: "s", date: "2020-02-19T00:00:00Z" };
    const scene = (s: number, e: number) => ({
      info,
      dataMask: dataMask.subarray(s, e),
      bands: Object.fromEntries(Object.entries(bands).map(([k, v]) => [k, v.subarray(s, e)])),
    });
    const calc = {
      ndvi: {
        statistics: { default: { percentiles: { k: [5, 50, 95], interpolation: "linear" as const } } },
        histograms: { default: { nBins: 11 } },
      },
    };
    const geometry = new Uint8Array(n).map((_, i) => (i % 5 ? 1 : 0));
    const timeRange = { from: "", to: "" };
    for (const g of [null, geometry]) {
      const whole = { width, height, scenes: [scene(0, n)], timeRange };
      const expected = reduceEvaluation(setup, await rt.evaluate(whole), g, calc);
      const r1 = reducingSink(setup, g, calc, n)!;
      expect((await rt.evaluate(whole, r1.sink)).sunk).toBe(true);
      expect(r1.finish()).toEqual(expected);
      const rows = { width, height, rows: 40, scenes: [{ info }], timeRange };
      const load = async (row: number, count: number) => [scene(row * width, (row + count) * width)];
      const r2 = reducingSink(setup, g, calc, n)!;
      expect((await rt.evaluateRows(rows, load, r2.sink)).sunk).toBe(true);
      expect(r2.finish()).toEqual(expected);
      expect(reduceEvaluation(setup, await rt.evaluateRows(rows, load), g, calc)).toEqual(expected);
    }
  });

  it("no valid pixel: stats are 'NaN', histogram without explicit edges is empty", async () => {
    const result = await evaluation("2018-04-19");
    result.outputs.dataMask!.values.fill(0);
    const out = reduceEvaluation(SETUP, result, null, {
      ndvi: {
        histograms: { B0: { nBins: 4 } },
        statistics: { B0: { percentiles: { k: [50], interpolation: "higher" } } },
      },
    });
    const b = out.ndvi!.bands.B0!;
    expect(b.stats).toEqual({
      min: "NaN",
      max: "NaN",
      mean: "NaN",
      stDev: "NaN",
      sampleCount: 4096,
      noDataCount: 4096,
      percentiles: { "50.0": "NaN" },
    });
    expect(b.histogram).toEqual({ bins: [], overflow: 0, underflow: 0, overflowCount: 0, underflowCount: 0 });
  });
});

describe("reducer rules", () => {
  it("bin edges: low + i*width as Sentinel Hub writes them (sentinelhub-py's recorded response)", () => {
    // normal_stat_result.json: nBins 10 over [-1, 1] gives -1.0, -0.8, -0.6, -0.3999999999999999, ..., 0.20000000000000018
    const e = binEdges({ nBins: 10, lowEdge: -1, highEdge: 1 }, NaN, NaN)!;
    expect(Array.from(e)).toEqual([
      -1, -0.8, -0.6, -0.3999999999999999, -0.19999999999999996, 0, 0.20000000000000018, 0.40000000000000013,
      0.6000000000000001, 0.8, 1,
    ]);
  });

  it("last bin is closed, edges are inclusive low, out-of-range samples are under/overflow", () => {
    const h = histogram(Float32Array.from([-2, 0, 0.5, 1, 1.5, 2, 3]), Float64Array.from([0, 1, 2]));
    expect(Array.from(h.counts)).toEqual([2, 3]);
    expect([h.underflow, h.overflow]).toEqual([1, 1]);
  });

  it("binWidth: ceil((high-low)/width) bins; too many bins is an invalid-argument EngineError naming the limit", () => {
    expect(Array.from(binEdges({ binWidth: 0.25 }, 0, 0.6)!)).toEqual([0, 0.25, 0.5, 0.75]);
    expect(Array.from(binEdges({ binWidth: 1 }, 3, 3)!)).toEqual([3, 4]);
    expect(() => binEdges({ binWidth: 1e-6 }, 0, 1, 10_000)).toThrow(
      expect.objectContaining({ kind: "invalid-argument", limit: { name: "histogram bins", max: 10_000 } }),
    );
  });

  it("the unit-stride first pass (min / max after the gather) equals the strided one, signs of zero included", () => {
    const n = 70_000; // more than one chunk
    const rnd = (i: number) => Math.sin(i * 12.9898) * 43758.5453 - Math.floor(Math.sin(i * 12.9898) * 43758.5453);
    const cases: [string, (i: number) => number][] = [
      ["mixed", (i) => (i % 101 === 0 ? NaN : rnd(i) - 0.3)],
      ["min +0 first", (i) => (i === 5 ? 0 : i % 17 === 0 ? -0 : 0.25 + rnd(i))],
      ["min -0 first", (i) => (i === 66_000 ? 0 : i % 9_000 === 1 ? -0 : 1 + rnd(i))],
      ["max zeros", (i) => (i % 3 ? -0 : i % 7 ? 0 : -rnd(i))],
      ["constant", () => 0.5],
    ];
    for (const [name, f] of cases) {
      const values = Float32Array.from({ length: n }, (_, i) => f(i));
      const dmValues = Float32Array.from({ length: n }, (_, i) => (i % 13 === 0 ? 0 : i % 29 === 0 ? NaN : 1));
      // the same bands with stride 2 take the general loop
      const wide = new Float32Array(2 * n).map((_, j) => (j % 2 ? 0 : values[j >> 1]!));
      const wideDm = new Float32Array(2 * n).map((_, j) => (j % 2 ? 0 : dmValues[j >> 1]!));
      for (const high of [true, false]) {
        const a = firstPass(
          values,
          0,
          1,
          { band: planarBand(dmValues, n, 0), geometry: null, pixels: n },
          n,
          undefined,
          high,
        );
        const hiA = a.hi?.slice();
        const b = firstPass(
          wide,
          0,
          2,
          { band: interleavedBand(wideDm, 2, 0), geometry: null, pixels: n },
          n,
          undefined,
          high,
        );
        expect([a.sum, a.x.length], name).toEqual([b.sum, b.x.length]);
        expect(Object.is(a.min, b.min) && Object.is(a.max, b.max), `${name}: ${a.min} ${b.min} ${a.max} ${b.max}`).toBe(
          true,
        );
        expect(a.x, name).toEqual(b.x);
        if (high) expect(hiA, name).toEqual(b.hi);
      }
    }
  });

  it("percentiles follow numpy's definitions on a small set", () => {
    const x = Float64Array.from([4, 1, 3, 2]);
    expect(percentiles(x, [0, 40, 50, 100], "higher")).toEqual([1, 3, 3, 4]);
    expect(percentiles(x, [40, 50], "lower")).toEqual([2, 2]);
    expect(percentiles(x, [50], "linear")).toEqual([2.5]);
    expect(percentiles(x, [50], "midpoint")).toEqual([2.5]);
    expect(percentiles(Float64Array.from([1, 2, 3]), [25, 75], "nearest")).toEqual([1, 3]); // index 0.5 and 1.5 round to even
    expect(summarize(Float64Array.from([2])).stDev).toBe(0);
  });

  it("the radix select (float32) gives the same percentiles as a sorted copy (float64) for every method", async () => {
    const real = new Float32Array(await sampleFile("fixtures/statistics/wf_2018-04-16_ndvi.bin")); // has negatives
    const edge = Float32Array.from([-0, 0, -1e-30, 1e-30, 3e38, -3e38, -Infinity, Infinity, 0.5, 0.5, 0.5]);
    const x = new Float32Array(real.length + edge.length * 300);
    x.set(real);
    for (let i = 0; i < 300; i++) x.set(edge, real.length + i * edge.length);
    const ks = Array.from({ length: 201 }, (_, i) => i / 2);
    for (const method of ["higher", "lower", "nearest", "linear", "midpoint"] as const) {
      expect(percentiles(x, ks, method), method).toEqual(percentiles(Float64Array.from(x), ks, method));
    }
  });

  it("a histogram counted in the radix select's passes equals its own pass, edges on and between float32 values", async () => {
    const real = new Float32Array(await sampleFile("fixtures/statistics/wf_2018-04-16_ndvi.bin"));
    const edge = Float32Array.from([-0, 0, -1e-30, 1e-30, 1e-45, -1e-45, 3e38, -3e38, -Infinity, Infinity, 0.1, 0.5]);
    const x = new Float32Array(real.length + edge.length * 50);
    x.set(real);
    for (let i = 0; i < 50; i++) x.set(edge, real.length + i * edge.length);
    const finite = x.filter((v) => Number.isFinite(v)); // edges from its min and max
    const f = Math.fround;
    const specs = [
      { nBins: 20 },
      { nBins: 7, lowEdge: -0.2, highEdge: 0.6 },
      { binWidth: 0.01, lowEdge: -1, highEdge: 1 },
      { nBins: 1000, lowEdge: -1, highEdge: 1 }, // more threshold buckets than one pass counts: the histogram's own pass
      { binWidth: 1e-7, lowEdge: 0.5, highEdge: 0.5039 }, // 39000 edges in two buckets: more keys than the kernels hold
      {
        bins: [
          -3e38,
          -1,
          -1e-30,
          -1e-45,
          -0,
          0,
          1e-45,
          1e-30,
          0.1,
          f(0.1),
          0.25,
          f(0.3),
          0.3,
          0.5,
          0.5,
          0.5 + 1e-16,
          1,
        ],
      },
      { bins: [f(0.2), 0.2 + 1e-17, 0.3, 3e38] },
    ];
    for (const values of [x, finite])
      for (const histogram of specs) {
        const mask = new Uint8Array(values.length).fill(1);
        const own = reduceBand(planarBand(values, values.length, 0), mask, { histogram });
        const joint = reduceBand(planarBand(values, values.length, 0), mask, { histogram, percentiles: [1, 50, 99] });
        if (values === x && !("lowEdge" in histogram || "bins" in histogram)) continue; // no edges: +-Infinity
        expect(joint.histogram, JSON.stringify(histogram)).toEqual(own.histogram);
        expect(joint.histogram!.counts.reduce((a, c) => a + c, 0)).toBeGreaterThan(0);
      }
  });

  it("a histogram with thousands of edges in the median's bucket, counted in the select's passes", async () => {
    const x = new Float32Array(await sampleFile("fixtures/statistics/wf_2018-04-16_ndvi.bin")).filter((v) => v === v);
    const median = percentiles(x, [50])[0]!;
    const bins = Array.from({ length: 3000 }, (_, i) => median - 1.5e-6 + i * 1e-9); // one bucket: 1/128 of 0.3
    const mask = new Uint8Array(x.length).fill(1);
    const own = reduceBand(planarBand(x, x.length, 0), mask, { histogram: { bins } });
    const joint = reduceBand(planarBand(x, x.length, 0), mask, { histogram: { bins }, percentiles: [50] });
    expect(joint.histogram).toEqual(own.histogram);
    expect(own.histogram!.underflow + own.histogram!.overflow).toBeLessThan(x.length);
  });

  it("a data mask band counts as its mask bytes: zeros, NaN, geometry, strides, chunk edges, float64", async () => {
    const ndvi = new Float32Array(await sampleFile("fixtures/statistics/wf_2018-04-16_ndvi.bin"));
    const n = 3 * 65536 + 1234; // more than one chunk of the kernels, a partial last one
    const x = Float32Array.from({ length: n }, (_, i) => ndvi[i % ndvi.length]!);
    const dm = Float32Array.from({ length: 2 * n }, (_, i) => [1, 0, NaN, 0.5, -2, 1, 1][(i * 7919) % 7]!);
    const geometry = Uint8Array.from({ length: n }, (_, i) => (i % 11 === 3 ? 0 : 1));
    const calc = { percentiles: [1, 50, 99], histogram: { nBins: 20 } };
    for (const g of [null, geometry])
      for (const [values, stride] of [
        [dm.subarray(0, n), 1],
        [dm, 2],
        [Float64Array.from(dm), 2],
      ] as const) {
        const mask = { band: interleavedBand(values, stride, stride - 1), geometry: g, pixels: n };
        const bytes = maskBytes(mask);
        expect(bytes.reduce((a, b) => a + b, 0)).toBeLessThan(n * 0.75); // 0, NaN and the geometry count not
        const want = reduceBand(planarBand(x, n, 0), bytes, calc);
        expect(reduceBand(planarBand(x, n, 0), mask, calc)).toEqual(want);
        expect(reduceBand(planarBand(Float64Array.from(x), n, 0), mask, calc).summary.count).toBe(want.summary.count);
      }
  });

  it("percentile labels as Java's Double.toString", () => {
    expect([50, 33.3, 99.9, 0, 100, 0.0001].map(percentileLabel)).toEqual([
      "50.0",
      "33.3",
      "99.9",
      "0.0",
      "100.0",
      "1.0E-4",
    ]);
  });
});

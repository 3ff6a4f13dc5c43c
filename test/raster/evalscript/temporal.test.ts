/**
 * Multi-temporal real scripts (ORBIT mosaicking, preProcessScenes, legacy filterScenes, implicit globals) on
 * the real West Flanders 64x64 time series (DN, 19 dates), compared with their formulas in plain JS.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { SceneData, SceneInfo, TimeRange } from "../../../src/raster/evalscript";
import { f32, load, nd, wfInfos, wfScene, WF_DATES } from "./helpers";

const W = 64;
const N = W * W;
const BANDS = ["B02", "B03", "B04", "B08", "SCL"];
const pixels = new Map<string, { bands: Record<string, Float32Array>; dataMask: Uint8Array }>();

beforeAll(async () => {
  for (const d of WF_DATES) pixels.set(`wf-${d}`, await wfScene(d, BANDS));
});

const scenesOf = (infos: SceneInfo[]): SceneData[] => infos.map((info) => ({ info, ...pixels.get(info.id)! }));
const inRange = (t: TimeRange) => wfInfos().filter((s) => s.date >= t.from && s.date <= t.to);
const dates = (infos: SceneInfo[]) => infos.map((s) => s.date.slice(0, 10));
const px = (id: string, band: string, i: number) => pixels.get(id)!.bands[band]![i]!;

/** Reflectance (DN / 10000) copies of scenes, for scripts whose thresholds are reflectance. */
const reflectance = (scenes: SceneData[]): SceneData[] =>
  scenes.map((s) => ({
    ...s,
    bands: Object.fromEntries(Object.entries(s.bands).map(([b, v]) => [b, b === "SCL" ? v : v.map((x) => x / 10000)])),
  }));

/** Runs preProcessScenes and evaluate like the Processing API would (`refl`: bands in reflectance). */
async function temporal(name: string, range: TimeRange, refl = false) {
  const rt = await load(name);
  const setup = await rt.setup();
  const chosen = await rt.preProcessScenes(inRange(range), range);
  const scenes = refl ? reflectance(scenesOf(chosen)) : scenesOf(chosen);
  const result = await rt.evaluate({ width: W, height: W, scenes, timeRange: range });
  return { setup, chosen, result };
}

describe("ORBIT scripts on the real West Flanders time series", () => {
  it("max_ndvi: preProcessScenes keeps the last 93 days, colour of the max NDVI", async () => {
    const range = { from: "2018-01-01T00:00:00Z", to: "2018-09-30T23:59:59Z" };
    const { setup, chosen, result } = await temporal("sentinel-2__max_ndvi__script.js", range);
    expect(setup.mosaicking).toBe("ORBIT");
    expect(dates(chosen)).toEqual(["2018-09-01", "2018-08-07", "2018-07-15"]);
    const limits = [
      -1.1, -0.2, -0.1, 0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6,
    ];
    const colors = [
      [0, 0, 0],
      [0.75, 0.75, 0.75],
      [0.86, 0.86, 0.86],
      [1, 1, 0.88],
      [1, 0.98, 0.8],
      [0.93, 0.91, 0.71],
      [0.87, 0.85, 0.61],
      [0.8, 0.78, 0.51],
      [0.74, 0.72, 0.42],
      [0.69, 0.76, 0.38],
      [0.64, 0.8, 0.35],
      [0.57, 0.75, 0.32],
      [0.5, 0.7, 0.28],
      [0.44, 0.64, 0.25],
      [0.38, 0.59, 0.21],
      [0.31, 0.54, 0.18],
      [0.25, 0.49, 0.14],
      [0.19, 0.43, 0.11],
      [0.13, 0.38, 0.07],
      [0.06, 0.33, 0.04],
      [0, 0.27, 0],
    ];
    const values = result.outputs.default!.values;
    const seen = new Set<number>();
    for (let i = 0; i < N; i++) {
      const max = Math.max(0, ...chosen.map((s) => nd(px(s.id, "B08", i), px(s.id, "B04", i))));
      const k = limits.findIndex((l) => max < l);
      const c = colors[k < 0 ? colors.length - 1 : k]!;
      seen.add(k);
      expect([0, 1, 2].map((j) => values[i * 3 + j])).toEqual(c.map(f32));
    }
    expect(seen.size).toBeGreaterThan(3);
  });

  it("ndvi_difference: DN units, enums, sorted latest + closest to 10 days before, implicit global", async () => {
    const range = { from: "2017-01-01T00:00:00Z", to: "2018-12-31T23:59:59Z" };
    const { setup, chosen, result } = await temporal("sentinel-2__ndvi_difference__script.js", range);
    expect(setup.inputs).toEqual([{ bands: ["B04", "B08", "SCL", "dataMask"], units: ["DN", "DN", "DN", "DN"] }]);
    expect(setup.outputs).toEqual([{ id: "default", bands: 1, sampleType: "FLOAT32" }]);
    expect(dates(chosen)).toEqual(["2018-11-17", "2018-10-13"]);
    const [a, b] = chosen.map((s) => s.id) as [string, string];
    const mask = (id: string, i: number) => pixels.get(id)!.dataMask[i]!;
    const values = result.outputs.default!.values;
    for (let i = 0; i < N; i++) {
      const want =
        mask(a, i) * mask(b, i) === 1
          ? nd(px(a, "B08", i), px(a, "B04", i)) - nd(px(b, "B08", i), px(b, "B04", i))
          : NaN;
      if (Number.isNaN(want)) expect(values[i]).toBeNaN();
      else expect(values[i]).toBe(f32(want));
    }
  });

  it("ndvi_difference with a single scene: preProcessScenes returns it twice, duplicates kept", async () => {
    const rt = await load("sentinel-2__ndvi_difference__script.js");
    const range = { from: "2018-09-01T00:00:00Z", to: "2018-09-02T00:00:00Z" };
    const chosen = await rt.preProcessScenes(inRange(range), range);
    expect(dates(chosen)).toEqual(["2018-09-01", "2018-09-01"]);
    const r = await rt.evaluate({ width: W, height: W, scenes: scenesOf(chosen), timeRange: range });
    const mask = pixels.get(chosen[0]!.id)!.dataMask;
    const values = r.outputs.default!.values;
    let [zeros, bad] = [0, 0];
    for (let i = 0; i < N; i++) {
      if (mask[i] === 1 ? values[i] !== 0 : !Number.isNaN(values[i])) bad++;
      if (values[i] === 0) zeros++;
    }
    expect(bad).toBe(0);
    expect(zeros).toBe(mask.reduce((a, v) => a + v, 0));
    expect(zeros).toBeGreaterThan(N / 2);
  });

  it("agriculture growth stage: legacy filterScenes and scenes[i].date.getMonth()", async () => {
    const range = { from: "2018-01-01T00:00:00Z", to: "2018-09-30T23:59:59Z" };
    const { chosen, result } = await temporal("sentinel-2__agriculture_growth_stage__script.js", range);
    expect(dates(chosen)).toEqual(["2018-09-01", "2018-08-07", "2018-07-15"]);
    const ndvi = (id: string, i: number) => nd(px(id, "B08", i), px(id, "B04", i));
    const stretch = (v: number) => (v - 0.1) / 0.6;
    const [sep, aug, jul] = chosen.map((s) => s.id) as [string, string, string];
    const values = result.outputs.default!.values;
    for (let i = 0; i < N; i++) {
      expect([values[i * 3], values[i * 3 + 1], values[i * 3 + 2]]).toEqual(
        [stretch(ndvi(jul, i)), stretch(ndvi(aug, i)), stretch(ndvi(sep, i))].map(f32),
      );
    }
  });

  it("cloudless mosaic first quartile: UINT16 DN, a sort per pixel over 12 months of scenes", async () => {
    const range = { from: "2017-01-01T00:00:00Z", to: "2018-11-30T23:59:59Z" };
    const { setup, chosen, result } = await temporal(
      "sentinel-2__cloudless_mosaic__L2A-first_quartile_4bands.js",
      range,
    );
    expect(setup.outputs[0]!.sampleType).toBe("UINT16");
    expect(chosen.length).toBe(dates(inRange(range)).filter((d) => d >= "2017-11-23").length);
    const bad = new Set([1, 3, 8, 9, 10, 11]);
    const values = result.outputs.default!.values;
    for (let i = 0; i < N; i++) {
      const ok = chosen.filter((s) => ["B02", "B03", "B04", "B08"].every((b) => px(s.id, b, i) > 0));
      const valid = ok.filter((s) => !bad.has(px(s.id, "SCL", i)));
      const use = valid.length ? valid : ok;
      const q1 = (b: string) =>
        use.length ? use.map((s) => px(s.id, b, i)).sort((x, y) => x - y)[Math.floor(use.length / 4)]! : 0;
      expect([0, 1, 2, 3].map((k) => values[i * 4 + k])).toEqual(["B04", "B03", "B02", "B08"].map(q1));
    }
  });

  it("monthly composite: filterScenes keeps the last 31 days, colour of the best ratio among blue-clear samples", async () => {
    const range = { from: "2018-01-01T00:00:00Z", to: "2018-04-30T23:59:59Z" };
    const { chosen, result } = await temporal("sentinel-2__monthly_composite__script.js", range, true);
    expect(dates(chosen)).toEqual(["2018-04-26", "2018-04-21", "2018-04-19", "2018-04-16", "2018-04-14", "2018-04-11"]);
    const values = result.outputs.default!.values;
    const kinds = new Map<string, number>();
    for (let i = 0; i < N; i++) {
      const want = monthlyComposite(
        chosen.map((s) => s.id),
        i,
      );
      kinds.set(want.kind, (kinds.get(want.kind) ?? 0) + 1);
      expect([values[i * 3], values[i * 3 + 1], values[i * 3 + 2]]).toEqual(want.rgb.map(f32));
    }
    expect(kinds.get("low")).toBeGreaterThan(N / 2);
  });

  it("forest cut: filterScenes keeps 14 x 31 days before 'to'; NDVI drop against the same months of last year", async () => {
    const range = { from: "2017-01-01T00:00:00Z", to: "2018-11-30T23:59:59Z" };
    const { chosen, result } = await temporal("sentinel-2__forest_cut_temporal_detection__script.js", range, true);
    const cutoff = Date.parse(range.to) - 14 * 31 * 24 * 3600 * 1000;
    expect(dates(chosen)).toEqual(dates(inRange(range).filter((s) => Date.parse(s.date) >= cutoff)));
    expect(dates(chosen)).not.toContain("2017-08-24");
    expect(chosen.length).toBe(18);
    const values = result.outputs.default!.values;
    for (let i = 0; i < N; i++) {
      expect([values[i * 3], values[i * 3 + 1], values[i * 3 + 2]]).toEqual(forestCut(chosen, i).map(f32));
    }
  });
});

/** A band of a West Flanders date in reflectance as the scripts see it (float32; bands the files lack read as 0). */
const refl = (id: string, b: string, i: number): number =>
  pixels.get(id)!.bands[b] ? Math.fround(px(id, b, i) / 10000) : 0;

/** Index of the first maximum of a[k] / b[k] (the scripts' indexOfMaxRatio). */
function indexOfMaxRatio(a: number[], b: number[]): number {
  let best = 0;
  for (let k = 1; k < a.length; k++) if (a[k]! / b[k]! > a[best]! / b[best]!) best = k;
  return best;
}

/**
 * monthly_composite's evaluatePixel written out from the script (reflectance; B05 and B11 are not in the West
 * Flanders files and read as 0): "low" = best ratio among samples with B02 < 0.12 (B02/B08 when more than two
 * are water, else B08/B03), "high" = best B03/B02 among 0.12 < B02 < 0.45, "snow" = medians, else red.
 */
function monthlyComposite(ids: string[], i: number): { kind: string; rgb: number[] } {
  const r = (id: string, b: string) => refl(id, b, i);
  const valid = ids.filter((id) => r(id, "B02") > 0 && r(id, "B03") > 0);
  const low = valid.filter((id) => r(id, "B02") < 0.12);
  const high = valid.filter((id) => r(id, "B02") < 0.45 && r(id, "B02") > 0.12);
  const snow = valid.filter(
    (id) => (r(id, "B03") - r(id, "B11")) / (0.01 + r(id, "B03") + r(id, "B11")) > 0.2 && r(id, "B04") > 0.2,
  );
  const water = low.filter((id) => nd(r(id, "B03"), r(id, "B08")) > 0).length;
  const colour = (id: string) => [
    2.8 * r(id, "B04") + 0.1 * r(id, "B05"),
    2.8 * r(id, "B03") + 0.15 * r(id, "B08"),
    2.8 * r(id, "B02"),
  ];
  const best = (list: string[], a: string, b: string) =>
    list[
      indexOfMaxRatio(
        list.map((id) => r(id, a)),
        list.map((id) => r(id, b)),
      )
    ]!;
  if (low.length) return { kind: "low", rgb: colour(water > 2 ? best(low, "B02", "B08") : best(low, "B08", "B03")) };
  if (high.length) return { kind: "high", rgb: colour(best(high, "B03", "B02")) };
  const median = (b: string) => snow.map((id) => r(id, b)).sort((x, y) => x - y)[Math.floor(snow.length / 2)]!;
  if (snow.length) return { kind: "snow", rgb: [1.1 * median("B04"), 1.3 * median("B03"), 1.1 * median("B02")] };
  return { kind: "none", rgb: [1, 0, 0] };
}

/**
 * forest_cut_temporal_detection's evaluatePixel written out (months are 0-based getMonth() values of the most recent
 * scene and the two before it; B02 < 0.18 samples count; red when NDVI dropped by >= 0.25 from a > 0.7 last year).
 */
function forestCut(chosen: SceneInfo[], i: number): number[] {
  const r = (id: string, b: string) => refl(id, b, i);
  const ndvi = (id: string) =>
    r(id, "B08") + r(id, "B04") !== 0 ? (r(id, "B08") - r(id, "B04")) / (r(id, "B08") + r(id, "B04")) : 0;
  const t0 = new Date(chosen[0]!.date);
  const months = [0, 1, 2].map((k) => (t0.getUTCMonth() - k <= 0 ? 12 - (t0.getUTCMonth() - k) : t0.getUTCMonth() - k));
  const years = [0, 1, 2].map((k) => (t0.getUTCMonth() - k <= 0 ? t0.getUTCFullYear() - 1 : t0.getUTCFullYear()));
  let [cur, curN, prev, prevN] = [0, 0, 0, 0];
  const lastYear: number[][] = [[], [], []];
  for (const s of chosen) {
    const d = new Date(s.date);
    if (r(s.id, "B04") === 0 || r(s.id, "B03") === 0 || !months.includes(d.getUTCMonth()) || !(r(s.id, "B02") < 0.18))
      continue;
    if (years.includes(d.getUTCFullYear())) [cur, curN] = [cur + ndvi(s.id), curN + 1];
    else if (years.includes(d.getUTCFullYear() + 1)) {
      prev += ndvi(s.id);
      prevN++;
      const k = months.indexOf(d.getUTCMonth());
      lastYear[k]!.push(ndvi(s.id));
    }
  }
  const mean = (a: number[]) => (a.length ? a.reduce((x, y) => x + parseFloat(String(y)), 0) / a.length : 1);
  const difference = prev / prevN - cur / curN;
  const s0 = chosen[0]!.id;
  const ndwi = r(s0, "B03") + r(s0, "B08") !== 0 ? (r(s0, "B03") - r(s0, "B08")) / (r(s0, "B03") + r(s0, "B08")) : -1;
  const cut = ndwi < 0.5 && difference >= 0.25 && prev / prevN > 0.7 && lastYear.every((a) => mean(a) > 0.7);
  const red = cut
    ? 2.8 * (2 / 3) * 10 * difference * r(s0, "B04") + 0.1 * r(s0, "B05")
    : 2.8 * r(s0, "B04") + 0.1 * r(s0, "B05");
  return [red / 0.8, (2.8 * r(s0, "B03") + 0.15 * r(s0, "B08")) / 0.8, (2.8 * r(s0, "B02")) / 0.8];
}

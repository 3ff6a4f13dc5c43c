/**
 * Real single-date scripts from data/evalscripts on real pixels of the 29RKH L2A scene (a 64x64 window at column 480, row 48 of
 * its 200 m grid, reflectance = DN / 10000), each compared with the script's documented formula computed
 * here in plain JS.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { toSampleType, type EvalResult } from "../../../src/raster/evalscript";
import { f32, nd, ones, rkhWindow, RKH_INFO, run, script } from "./helpers";
import { clmFromScl, sceneAngles } from "../../../src/pipeline/bands";
import { sampleItems } from "../../helpers/seed";

const W = 64;
const N = W * W;
const BANDS = ["B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B11", "B12", "SCL"];
let px: Record<string, Float32Array>;

beforeAll(async () => {
  px = await rkhWindow(BANDS, 480, 48, W, W); // SCL 5, 8, 9, 10 (bare soil, clouds, cirrus)
});

const b = (name: string, i: number): number => px[name]![i]!;

/** Runs a real script on the window with the given extra bands. */
async function runRkh(name: string, extra: Record<string, Float32Array> = {}): Promise<EvalResult> {
  return run(name, {
    width: W,
    height: W,
    scenes: [{ info: RKH_INFO, bands: { ...px, ...extra }, dataMask: ones(N) }],
  });
}

/** Expects `values` (band-interleaved) to equal `ref(i)` per pixel, to Float32 precision. */
function expectPixels(values: Float32Array, bands: number, ref: (i: number) => number[], tol = 0): void {
  expect(values.length).toBe(N * bands);
  let worst = 0;
  for (let i = 0; i < N; i++) {
    const r = ref(i);
    for (let k = 0; k < bands; k++) {
      const got = values[i * bands + k]!;
      const want = f32(r[k]!);
      if (Number.isNaN(want)) expect(got).toBeNaN();
      else worst = Math.max(worst, Math.abs(got - want));
    }
  }
  expect(worst).toBeLessThanOrEqual(tol);
}

/** Linear interpolation of a [value, 0xRRGGBB] ramp, clamped (ColorRampVisualizer as documented). */
function ramp(stops: [number, number][], v: number): number[] {
  const rgb = (c: number) => [(c >> 16) & 255, (c >> 8) & 255, c & 255].map((x) => x / 255);
  if (v <= stops[0]![0]) return rgb(stops[0]![1]);
  for (let k = 1; k < stops.length; k++) {
    const [v1, c1] = stops[k]!;
    const [v0, c0] = stops[k - 1]!;
    if (v <= v1) return rgb(c0).map((x, j) => x + (rgb(c1)[j]! - x) * ((v - v0) / (v1 - v0)));
  }
  return rgb(stops[stops.length - 1]![1]);
}

async function rampOf(name: string): Promise<[number, number][]> {
  return [...(await script(name)).matchAll(/\[\s*(-?[\d.]+),\s*0x([0-9a-fA-F]{6})\s*\]/g)].map((m) => [
    Number(m[1]),
    parseInt(m[2]!, 16),
  ]);
}

describe("real scripts on real 29RKH pixels", () => {
  it("true_color: 2.5 x reflectance, AUTO -> UINT8", async () => {
    const r = await runRkh("sentinel-2__true_color__script.js");
    const out = r.outputs.default!;
    expect(out).toMatchObject({ bands: 4, sampleType: "AUTO" });
    expectPixels(out.values, 4, (i) => [2.5 * b("B04", i), 2.5 * b("B03", i), 2.5 * b("B02", i), 1]);
    const bytes = toSampleType(out.values, "AUTO");
    expect(bytes).toBeInstanceOf(Uint8Array);
    for (let i = 0; i < N * 4; i++) expect(bytes[i]).toBe(Math.min(255, Math.max(0, Math.round(out.values[i]! * 255))));
  });

  it("ndvi raw: FLOAT32 index(B08, B04) returned as a single number", async () => {
    const out = (await runRkh("sentinel-2__ndvi__raw.js")).outputs.default!;
    expect(out).toMatchObject({ bands: 1, sampleType: "FLOAT32" });
    expectPixels(out.values, 1, (i) => [nd(b("B08", i), b("B04", i))]);
    expect(toSampleType(out.values, "FLOAT32")).toBe(out.values);
  });

  it("ndvi script: ColorRampVisualizer colours + dataMask", async () => {
    const stops = await rampOf("sentinel-2__ndvi__script.js");
    expect(stops).toHaveLength(21);
    const out = (await runRkh("sentinel-2__ndvi__script.js")).outputs.default!;
    expectPixels(out.values, 4, (i) => [...ramp(stops, nd(b("B08", i), b("B04", i))), 1], 1e-6);
  });

  it("ndvi eob: four outputs (default, index, eobrowserStats, dataMask)", async () => {
    const stops = await rampOf("sentinel-2__ndvi__eob.js");
    const r = await runRkh("sentinel-2__ndvi__eob.js");
    expect(Object.keys(r.outputs)).toEqual(["default", "index", "eobrowserStats", "dataMask"]);
    expect(r.outputs.index).toMatchObject({ bands: 1, sampleType: "FLOAT32" });
    const ndvi = (i: number) => nd(b("B08", i), b("B04", i));
    const cloud = (i: number) => {
      const bRatio = (b("B03", i) - 0.175) / (0.39 - 0.175);
      return bRatio > 1 || (bRatio > 0 && nd(b("B03", i), b("B04", i)) > 0) ? 1 : 0;
    };
    expectPixels(r.outputs.default!.values, 4, (i) => [...ramp(stops, ndvi(i)), 1], 1e-6);
    expectPixels(r.outputs.index!.values, 1, (i) => [ndvi(i)]);
    expectPixels(r.outputs.eobrowserStats!.values, 2, (i) => [ndvi(i), cloud(i)]);
    expectPixels(r.outputs.dataMask!.values, 1, () => [1]);
  });

  it("cab: neural network on B03..B12 and the service's angle bands (sceneAngles of the real item)", async () => {
    const item = (await sampleItems()).find((i) => i.id === RKH_INFO.id)!;
    const angles = sceneAngles(item);
    // the item's view: metadata (earth-search, from the product's MTD mean sun angles); no view angles -> nadir
    expect(angles).toEqual({
      sunZenithAngles: 90 - 48.293248430895,
      sunAzimuthAngles: 147.671041914385,
      viewZenithMean: 0,
      viewAzimuthMean: 0,
    });
    const extra = Object.fromEntries(Object.entries(angles).map(([k, v]) => [k, new Float32Array(N).fill(v)]));
    const out = (await runRkh("sentinel-2__cab__script.js", extra)).outputs.default!;
    expect(out).toMatchObject({ bands: 1, sampleType: "AUTO" });
    expectPixels(out.values, 1, (i) => [cabReference(i, extra) / 300], 1e-6);
  });

  it("simple water bodies mapping: 4 outputs from SCL and water indices", async () => {
    const r = await runRkh("sentinel-2__simple_water_bodies_mapping-swbm__script.js");
    const water = (i: number) =>
      nd(b("B03", i), b("B11", i)) > 0.1 || nd(b("B03", i), b("B08", i)) > 0.2 || nd(b("B05", i), b("B11", i)) > 0.03
        ? 1
        : 0;
    const cloud = (i: number) => (b("SCL", i) === 8 || b("SCL", i) === 9 ? 1 : 0);
    const rgb = (i: number) => [2 * b("B04", i), 2 * b("B03", i), 2 * b("B02", i), 1];
    expectPixels(r.outputs.default!.values, 4, (i) => (cloud(i) || !water(i) ? rgb(i) : [0, 0, 2, 1]));
    expectPixels(r.outputs.index!.values, 1, (i) => [nd(b("B03", i), b("B11", i))]);
    expectPixels(r.outputs.eobrowserStats!.values, 2, (i) => [water(i), cloud(i)]);
    let clouds = 0;
    for (let i = 0; i < N; i++) clouds += cloud(i);
    expect(clouds).toBeGreaterThan(0);
  });

  it("scene classification: SCL palette", async () => {
    const palette: Record<number, number[]> = {
      0: [0, 0, 0],
      1: [255, 0, 0],
      2: [47, 47, 47],
      3: [100, 50, 0],
      4: [0, 160, 0],
      5: [255, 230, 90],
      6: [0, 0, 255],
      7: [128, 128, 128],
      8: [192, 192, 192],
      9: [255, 255, 255],
      10: [100, 200, 255],
      11: [255, 150, 255],
    };
    const out = (await runRkh("sentinel-2__scene-classification__script.js")).outputs.default!;
    expectPixels(out.values, 4, (i) => [...palette[b("SCL", i)]!.map((c) => c / 255), 1]);
    expect(new Set(px.SCL).size).toBeGreaterThanOrEqual(3);
  });

  it("landslide (header //VERSION=3.Landslide_detection.UNSPIDER) with CLM", async () => {
    const clm = clmFromScl(px.SCL!, ones(N)); // the service's CLM, checked against the documented rule
    expect(Array.from(clm)).toEqual(
      Array.from(px.SCL!, (s) => (s === 0 ? 255 : s === 8 || s === 9 || s === 10 ? 1 : 0)),
    );
    expect(new Set(clm)).toEqual(new Set([0, 1]));
    const out = (await runRkh("sentinel-2__landslide_detection_rapid_mapping__script.js", { CLM: clm })).outputs
      .default!;
    expectPixels(out.values, 3, (i) => {
      const [b02, b03, b04, b08, b11] = ["B02", "B03", "B04", "B08", "B11"].map((n) => b(n, i)) as number[];
      const bsi = (b11! + b04! - (b08! + b02!)) / (b11! + b04! + (b08! + b02!));
      const ndvi = nd(b08!, b04!);
      const ndwi = nd(b03!, b08!);
      if (clm[i] === 1) return [b04!, b03!, 3 * b02!];
      if (ndwi > 0.15) return [0, 0.2, ndwi];
      if (b11! > 0.8 || ndvi < 0.15) return [1.5, 0.7, -1];
      return ndvi > 0.25 ? [0, 0.2 * ndvi, 0] : [3.5 * bsi, 0.3, 0];
    });
  });

  it("false colour urban (reads B11 it did not request): NaN green, 0 after AUTO", async () => {
    const out = (
      await run("sentinel-2__false-color-urban-rgb__script.js", {
        width: W,
        height: W,
        scenes: [{ info: RKH_INFO, bands: { B12: px.B12!, B8A: px.B8A!, B04: px.B04! }, dataMask: ones(N) }],
      })
    ).outputs.default!;
    expectPixels(out.values, 4, (i) => [2.5 * b("B12", i), NaN, 2.5 * b("B04", i), 1]);
    const bytes = toSampleType(out.values, "AUTO");
    for (let i = 0; i < N; i++) expect(bytes[i * 4 + 1]).toBe(0);
  });
});

/** CAB (Sentinel Hub custom script "cab", biophysical processor network) written out from its formula. */
function cabReference(i: number, extra: Record<string, Float32Array>): number {
  const norm = (v: number, lo: number, hi: number) => (2 * (v - lo)) / (hi - lo) - 1;
  const deg = Math.PI / 180;
  const a = (n: string) => extra[n]![i]!;
  const x = [
    norm(b("B03", i), 0, 0.253061520471542),
    norm(b("B04", i), 0, 0.290393577911328),
    norm(b("B05", i), 0, 0.305398915248555),
    norm(b("B06", i), 0.006637972542253, 0.608900395797889),
    norm(b("B07", i), 0.013972727018939, 0.753827384322927),
    norm(b("B8A", i), 0.026690138082061, 0.782011770669178),
    norm(b("B11", i), 0.016388074192258, 0.493761397883092),
    norm(b("B12", i), 0, 0.493025984460231),
    norm(Math.cos(a("viewZenithMean") * deg), 0.918595400582046, 1),
    norm(Math.cos(a("sunZenithAngles") * deg), 0.342022871159208, 0.936206429175402),
    Math.cos((a("sunAzimuthAngles") - a("viewAzimuthMean")) * deg),
  ];
  const neurons: [number, number[]][] = [
    [
      4.24229967015519,
      [
        0.40039655525658, 0.607936279259404, 0.137468650780226, -2.95586657346164, -3.18674668772957, 2.20680075124643,
        -0.313784336139636, 0.256063547510639, -0.071613219805105, 0.510113504210111, 0.142813982138661,
      ],
    ],
    [
      -0.259569088225796,
      [
        -0.250781102414872, 0.439086302920381, -1.1605909375223, -1.86193525026961, 0.981359868451638, 1.63423083425484,
        -0.872527934645577, 0.448240475035072, 0.037078083501217, 0.030044189670404, 0.005956686619403,
      ],
    ],
    [
      3.13039262733836,
      [
        0.552080132568747, -0.502919673166901, 6.10504192496623, -1.2943861191408, -1.0599563883528, -1.39409290241882,
        0.324752732710706, -1.75887182282768, -0.036663679860328, -0.183105291400739, -0.038145312117381,
      ],
    ],
    [
      0.77442357718162,
      [
        0.211591184882422, -0.248788896074327, 0.887151598039092, 1.14367589557141, -0.753968830338323,
        -1.18545695307676, 0.541897860471577, -0.252685834607768, -0.023414901078143, -0.046022503549557,
        -0.006570284080657,
      ],
    ],
    [
      2.58427664853461,
      [
        0.254790234231378, -0.724968611431065, 0.731872806026834, 2.30345382102127, -0.849907966921912,
        -6.42531550053727, 2.23884455845903, -0.19993757429799, 0.097303331714567, 0.334528254938326, 0.113075306591838,
      ],
    ],
  ];
  const n = neurons.map(([bias, w]) => {
    const sum = w.reduce((s, wk, k) => s + wk * x[k]!, bias);
    return 2 / (1 + Math.exp(-2 * sum)) - 1;
  });
  const l2 = [-0.35276004059919, -0.603407399151276, 0.135099379384275, -1.73567312385193, -0.147546813318256].reduce(
    (s, wk, k) => s + wk * n[k]!,
    0.463426463933822,
  );
  return 0.5 * (l2 + 1) * (873.908222110306 - 0.007426692959872) + 0.007426692959872;
}

/**
 * updateOutput, updateOutputMetadata (userData), TILE scenes, data fusion, row blocks and sampleType
 * conversion, on real West Flanders / 29RKH pixels.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { toSampleType, type SceneData } from "../../../src/raster/evalscript";
import { f32, load, nd, ones, rkhWindow, RKH_INFO, run, wfInfos, wfScene } from "./helpers";

const W = 64;
const N = W * W;
let series: SceneData[];

beforeAll(async () => {
  const infos = wfInfos().slice(0, 5);
  series = [];
  for (const info of infos) series.push({ info, ...(await wfScene(info.date.slice(0, 10), ["B04", "B08"])) });
});

/** NDVI time series as in Sentinel Hub's multi-temporal examples: one band per (kept) orbit. */
const TIME_SERIES = `//VERSION=3
function setup() {
  return { input: [{ bands: ["B04", "B08", "dataMask"] }], output: { id: "default", bands: 1, sampleType: SampleType.FLOAT32 }, mosaicking: Mosaicking.ORBIT };
}
function preProcessScenes(collections) {
  collections.scenes.orbits = collections.scenes.orbits.filter((orbit, i) => i % 2 === 0);
  return collections;
}
function updateOutput(outputs, collection) {
  Object.values(outputs).forEach((output) => { output.bands = collection.scenes.length; });
}
let valid = 0;
function evaluatePixel(samples, scenes, inputMetadata, customData, outputMetadata) {
  customData.pixels = (customData.pixels || 0) + 1;
  valid += samples.filter((s) => s.dataMask === 1).length;
  return samples.map((s) => index(s.B08, s.B04));
}
function updateOutputMetadata(scenes, inputMetadata, outputMetadata) {
  outputMetadata.userData = { dates: scenes.orbits.map((o) => o.dateFrom), to: scenes.orbits.map((o) => o.dateTo),
    tiles: scenes.orbits.map((o) => o.tiles[0].tileOriginalId), legacy: scenes[0].date, valid, factor: inputMetadata.normalizationFactor };
}`;

describe("updateOutput and updateOutputMetadata", () => {
  it("one band per kept orbit, userData for userdata.json", async () => {
    const rt = await load(TIME_SERIES);
    const chosen = await rt.preProcessScenes(series.map((s) => s.info));
    expect(chosen.map((s) => s.id)).toEqual([series[0]!.info.id, series[2]!.info.id, series[4]!.info.id]);
    const scenes = chosen.map((info) => series.find((s) => s.info === info)!);
    const r = await rt.evaluate({ width: W, height: W, scenes });
    const out = r.outputs.default!;
    expect(out.bands).toBe(3);
    for (let i = 0; i < N; i++) {
      scenes.forEach((s, k) => expect(out.values[i * 3 + k]).toBe(f32(nd(s.bands.B08![i]!, s.bands.B04![i]!))));
    }
    const days = scenes.map((s) => s.info.date.slice(0, 10));
    expect(r.userData).toEqual({
      dates: days.map((d) => `${d}T00:00:00Z`),
      to: days.map((d) => `${d}T23:59:59Z`),
      tiles: scenes.map((s) => s.info.id),
      legacy: scenes[0]!.info.date.replace("Z", ".000Z"),
      valid: scenes.reduce((n, s) => n + s.dataMask.reduce((a, v) => a + v, 0), 0),
      factor: 0.0001,
    });
  });

  it("row blocks give the same values and keep script state across blocks", async () => {
    const rt = await load(TIME_SERIES);
    const whole = await rt.evaluate({ width: W, height: W, scenes: series });
    const blocks = await (await load(TIME_SERIES, { blockBytes: 5000 })).evaluate({
      width: W,
      height: W,
      scenes: series,
      customData: {},
    });
    expect(blocks.outputs.default!.values).toEqual(whole.outputs.default!.values);
    expect(blocks.userData).toEqual(whole.userData);
  });

  it("updateOutput setting an invalid band count is a 400", async () => {
    const rt = await load(TIME_SERIES.replace("output.bands = collection.scenes.length", "output.bands = 0"));
    await expect(rt.evaluate({ width: W, height: W, scenes: series })).rejects.toThrow(
      /TypeError: updateOutput set output "default"\.bands to 0; it must be a positive integer/,
    );
  });
});

describe("TILE mosaicking and data fusion", () => {
  it("TILE: samples per tile, scenes.tiles with date, tileOriginalId, cloudCoverage", async () => {
    const src = `//VERSION=3
function setup() { return { input: ["B04", "dataMask"], output: { bands: 2, sampleType: "FLOAT32" }, mosaicking: "TILE" }; }
function evaluatePixel(samples, scenes) { return [samples.length, samples[scenes.tiles.length - 1].B04]; }
function updateOutputMetadata(scenes, im, om) { om.userData = scenes.tiles; }`;
    const scenes = series.slice(0, 2);
    const r = await run(src, { width: W, height: W, scenes });
    for (let i = 0; i < N; i += 7)
      expect([r.outputs.default!.values[i * 2], r.outputs.default!.values[i * 2 + 1]]).toEqual([
        2,
        scenes[1]!.bands.B04![i],
      ]);
    expect(r.userData).toEqual(scenes.map((s) => ({ date: s.info.date, tileOriginalId: s.info.id, cloudCoverage: 1 })));
  });

  it("data fusion: samples keyed by datasource id", async () => {
    const px = await rkhWindow(["B04", "B08"], 480, 48, W, W);
    const src = `//VERSION=3
function setup() { return { input: [{ datasource: "red", bands: ["B04"] }, { datasource: "nir", bands: ["B08", "dataMask"] }], output: { bands: 1, sampleType: "FLOAT32" } }; }
function evaluatePixel(samples) { return [index(samples.nir[0].B08, samples.red[0].B04) * samples.nir[0].dataMask]; }`;
    const rt = await load(src);
    expect((await rt.setup()).bands).toEqual(["B04", "B08", "dataMask"]);
    const r = await rt.evaluate({
      width: W,
      height: W,
      scenes: [
        { info: RKH_INFO, datasource: "red", bands: { B04: px.B04! }, dataMask: ones(N) },
        { info: RKH_INFO, datasource: "nir", bands: { B08: px.B08! }, dataMask: ones(N) },
      ],
    });
    for (let i = 0; i < N; i++) expect(r.outputs.default!.values[i]).toBe(f32(nd(px.B08![i]!, px.B04![i]!)));
  });
});

describe("toSampleType", () => {
  const raw = Float32Array.from([
    -1,
    -0.5,
    0,
    0.2,
    0.5,
    0.998,
    1,
    1.5,
    127.5,
    255.5,
    32767.6,
    65535.4,
    70000,
    NaN,
    Infinity,
    -Infinity,
  ]);
  it.each([
    ["AUTO", Uint8Array, [0, 0, 0, 51, 128, 254, 255, 255, 255, 255, 255, 255, 255, 0, 255, 0]],
    ["UINT8", Uint8Array, [0, 0, 0, 0, 1, 1, 1, 2, 128, 255, 255, 255, 255, 0, 255, 0]],
    ["INT8", Int8Array, [-1, 0, 0, 0, 1, 1, 1, 2, 127, 127, 127, 127, 127, 0, 127, -128]],
    ["UINT16", Uint16Array, [0, 0, 0, 0, 1, 1, 1, 2, 128, 256, 32768, 65535, 65535, 0, 65535, 0]],
    ["INT16", Int16Array, [-1, 0, 0, 0, 1, 1, 1, 2, 128, 256, 32767, 32767, 32767, 0, 32767, -32768]],
  ] as const)("%s: round, clamp, NaN -> 0", (type, ArrayType, want) => {
    const out = toSampleType(raw, type);
    expect(out).toBeInstanceOf(ArrayType);
    expect([...out]).toEqual(want);
  });

  it("FLOAT32 keeps the values (NaN included)", () => {
    expect(toSampleType(raw, "FLOAT32")).toBe(raw);
  });
});

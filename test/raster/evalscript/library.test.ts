/**
 * The utility library inside the sandbox against Sentinel Hub's documented examples
 * (docs.sentinel-hub.com/api/latest/evalscript/functions, the colorBlend FAQ), the behaviour of their runtime
 * library (getColorFromValue, processList, clamp, EO Browser's overrides, the legacy gradients), and real scripts of
 * data/evalscripts that call it, on real 29RKH pixels, against their formula computed here.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { LIBRARY_NAMES } from "../../../src/raster/evalscript/sandbox/library";
import { f32, nd, ones, rkhWindow, RKH_INFO, run } from "./helpers";

/** Evaluates `expr` (an object literal) in the sandbox and returns it through userData. */
async function inSandbox(expr: string, prelude = ""): Promise<Record<string, unknown>> {
  const src = `//VERSION=3
${prelude}
function setup() { return { input: ["dataMask"], output: { bands: 1 } }; }
function evaluatePixel(s) { return [0]; }
function updateOutputMetadata(scenes, im, om) { om.userData = ${expr}; }`;
  return (await run(src, { width: 1, height: 1, scenes: [] })).userData as Record<string, unknown>;
}

describe("utility library", () => {
  it("ColorMapVisualizer: the documented example and the default map", async () => {
    const r = await inSandbox(`{
      steps: [199, 200, 250, 299, 300].map((v) => new ColorMapVisualizer([[200, 0xff0000], [300, 0x0000ff]]).process(v)),
      def: ColorMapVisualizer.createDefaultColorMap().process(0.45) }`);
    expect(r.steps).toEqual([
      [1, 0, 0],
      [1, 0, 0],
      [1, 0, 0],
      [1, 0, 0],
      [0, 0, 1],
    ]);
    expect(r.def).toEqual([0x33 / 255, 1, 1]);
  });

  it("colorBlend / valueInterpolate: the documented example, clamping, numbers", async () => {
    const r = await inSandbox(`{
      faq: colorBlend(0.25, [0, 0.2, 0.4, 0.6, 0.8, 1], [[0,0,0], [0.1,0.2,0.5], [0.25,0.4,0.5], [0.4,0.6,0.5], [0.75,0.8,0.5], [1,1,0.5]]),
      below: colorBlend(-1, [0, 1], [[0, 0, 0], [1, 1, 1]]), above: valueInterpolate(2, [0, 1], [[0, 0, 0], [1, 1, 1]]),
      num: valueInterpolate(0.5, [0, 1], [10, 20]), map: colorMap(0.5, [0, 1], [1, 2]) }`);
    const faq = r.faq as number[];
    [0.1375, 0.25, 0.5].forEach((v, i) => expect(faq[i]).toBeCloseTo(v, 12));
    expect(r).toMatchObject({ below: [0, 0, 0], above: [1, 1, 1], num: 15, map: 2 });
  });

  it("ColorRampVisualizer: hex and [0,1] colours, unsorted ramps, minVal/maxVal rescaling", async () => {
    const r = await inSandbox(`{
      mid: new ColorRampVisualizer([[0, 0x000000], [1, 0xffffff]]).process(0.5),
      arrays: new ColorRampVisualizer([[0, [0, 0, 1]], [10, [1, 0, 0]]]).process(2.5),
      unsorted: new ColorRampVisualizer([[1, 0xff0000], [0, 0x0000ff]]).process(0.25),
      rescaled: new ColorRampVisualizer([[0, 0x000000], [1, 0xffffff]], 100, 200).process(150),
      clamped: new ColorRampVisualizer([[0, 0x000000], [1, 0xffffff]]).process(7),
      temperature: ColorRampVisualizer.createRedTemperature(0, 1).process(1) }`);
    expect(r.mid).toEqual([0.5, 0.5, 0.5]);
    expect(r.arrays).toEqual([0.25, 0, 0.75]);
    expect(r.unsorted).toEqual([0.25, 0, 0.75]);
    expect(r.rescaled).toEqual([0.5, 0.5, 0.5]);
    expect(r.clamped).toEqual([1, 1, 1]);
    expect(r.temperature).toEqual([1, 1, 1]);
  });

  it("index, inverse, combine, visualizers, enums", async () => {
    const r = await inSandbox(`{
      index: [index(3, 1), index(0, 0), index(-1, 1)], inverse: [inverse(4), inverse(0) === JAVA_DOUBLE_MAX_VAL],
      combine: combine(0xff0000, 0x0000ff, 0.5), combineArrays: combine([1, 0, 0], [0, 0, 1], 0.25),
      hcs: new HighlightCompressVisualizerSingle(0, 1).process(0.5), hc: new HighlightCompressVisualizer(0, 0.5).process(0.49),
      def: new DefaultVisualizer(0, 2).process(1), gamma: new DefaultVisualizer(0, 1, 1, 0, 2).process(0.5), id: new Identity().process(3),
      gradient: ColorGradientVisualizer.createWhiteGreen(0, 1).process(0), enums: [SampleType.UINT16, Mosaicking.ORBIT],
      qa: decodeLs8Qa(2720).cloudConfidence }`);
    expect(r).toMatchObject({
      index: [0.5, 0, 0],
      inverse: [0.25, true],
      combine: 0x800080,
      combineArrays: [0.25, 0, 0.75],
    });
    expect(r).toMatchObject({
      hcs: [0.5],
      def: 0.5,
      gamma: 0.25,
      id: [3],
      gradient: [0, 0, 0],
      enums: ["UINT16", "ORBIT"],
      qa: 1,
    });
    expect(r.hc).toBeCloseTo(0.92 + (0.98 - 0.92) * (0.08 / 1.08), 12);
  });
});

describe("the rest of Sentinel Hub's runtime library", () => {
  it("defines every name of LIBRARY_NAMES in the sandbox", async () => {
    const r = await inSandbox(`{ ${LIBRARY_NAMES.map((n) => `${n}: typeof ${n}`).join(", ")} }`);
    for (const n of LIBRARY_NAMES) expect(r[n], n).not.toBe("undefined");
  });

  it("ColorMapVisualizer.getColorFromValue: the step's colour as given; processList", async () => {
    const r = await inSandbox(`{
      hex: [199, 200, 250, 299, 300, 1e9].map((v) => new ColorMapVisualizer([[200, 0xff0000], [300, 0x0000ff]]).getColorFromValue(v)),
      def: [-2, -0.15, 0.45, 0.95].map((v) => ColorMapVisualizer.createDefaultColorMap().getColorFromValue(v)),
      arrays: new ColorMapVisualizer([[0, [0, 0, 1]], [1, [1, 0, 0]]]).getColorFromValue(0.5),
      list: new ColorMapVisualizer([[0, 0x000000], [1, 0xffffff]]).processList([0.5, 1]) }`);
    expect(r.hex).toEqual([0xff0000, 0xff0000, 0xff0000, 0xff0000, 0x0000ff, 0x0000ff]);
    expect(r.def).toEqual([0x000000, 0xff0000, 0x33ffff, 0x006600]);
    expect(r.arrays).toEqual([0, 0, 1]);
    expect(r.list).toEqual([
      [0, 0, 0],
      [1, 1, 1],
    ]);
  });

  it("DefaultVisualizer / HighlightCompress*: clamp, the highlight fields, gamma unclamped, processList", async () => {
    const r = await inSandbox(`{
      clamp: new DefaultVisualizer().clamp(5, 0, 1), hc: new HighlightCompressVisualizer(0, 0.4),
      gamma: new DefaultVisualizer(0, 1, 1, 0, 2).process(2), plain: new DefaultVisualizer(0, 1).processList([-1, 0.25, 3]),
      single: new HighlightCompressVisualizerSingle(-1, 1).processList([0, 3]), id: new Identity().processList([1, [2, 3]]),
      hcList: new HighlightCompressVisualizer(0, 0.5).processList([0.25, 0.49]) }`);
    expect(r.clamp).toBe(1);
    expect(r.hc).toMatchObject({
      highlightPoint: 0.92,
      clipPoint: 2,
      highlightAdjust: true,
      minValue: 0,
      maxValue: 0.4,
      gain: 1,
    });
    expect((r.hc as { highlightFactor: number }).highlightFactor).toBeCloseTo(0.08 / 1.08, 15);
    expect(r).toMatchObject({ gamma: 4, plain: [0, 0.25, 1], single: [[0.5], [1]], id: [[1], [2, 3]] });
    const [a, b] = r.hcList as number[];
    expect(a).toBe(0.5);
    expect(b).toBeCloseTo(0.92 + 0.06 * (0.08 / 1.08), 12);
  });

  it("EO Browser's gainOverride / rangeOverrides variables of the script", async () => {
    const r = await inSandbox(
      `(() => {
      const v = new DefaultVisualizer(0, 1);
      return { gain: v.gain, first: v.process(0.2, 0), other: v.process(0.2, 1), list: v.processList([0.2, 0.2]) }; })()`,
      "var gainOverride = 2;\nlet rangeOverrides = [[0.2, 0.6]];",
    );
    expect(r).toMatchObject({ gain: 2, other: 0.4 });
    expect(r.first).toBeCloseTo(0.5, 15);
    const [l0, l1] = r.list as number[];
    expect(l0).toBeCloseTo(0.5, 15);
    expect(l1).toBe(0.4);
    // A script that declares none gets the constructor's values
    const plain = await inSandbox(
      `(() => { const v = new DefaultVisualizer(0, 1); return { gain: v.gain, other: v.process(0.2, 1) }; })()`,
    );
    expect(plain).toEqual({ gain: 1, other: 0.2 });
  });

  it("the legacy gradients as globals, used by ColorGradientVisualizer and its statics", async () => {
    const r = await inSandbox(`{
      blueRed: blueRed[0], redTemperature: redTemperature.length, greenWhite: greenWhite[1],
      same: new ColorGradientVisualizer(greenWhite, 0, 10).process(4.5).join() === ColorGradientVisualizer.createWhiteGreen(0, 10).process(4.5).join(),
      hex: ColorGradientVisualizer.createBlueRed(0, 1).getColor(0.5) }`);
    // blueRed at 0.5: between [0.625 -> 0.375, 0x00ffff] and [0.375 -> 0.625, 0xffff00], half way
    expect(r).toMatchObject({
      blueRed: [1, 0x000080],
      redTemperature: 5,
      greenWhite: [0.6, 0x006600],
      same: true,
      hex: 0x80ff80,
    });
  });
});

describe("real scripts of data/evalscripts that call the library, on real 29RKH pixels", () => {
  const W = 32;
  const N = W * W;
  let px: Record<string, Float32Array>;
  beforeAll(async () => {
    px = await rkhWindow(["B03", "B08", "B11", "B12"], 480, 48, W, W);
  });
  const runScript = async (name: string) =>
    (await run(name, { width: W, height: W, scenes: [{ info: RKH_INFO, bands: px, dataMask: ones(N) }] })).outputs
      .default!.values;
  const b = (band: string, i: number): number => px[band]![i]!;

  it("fire_boundary: HighlightCompressVisualizerSingle(-1, 1) = clamp((v + 1) / 2, 0, 1), no highlight (maxValue 1)", async () => {
    const values = await runScript("sentinel-2__fire_boundary__script.js");
    for (let i = 0; i < N; i++) {
      const v = (8.5 * (b("B12", i) - b("B11", i))) / (b("B12", i) + b("B11", i) + 0.25);
      expect(values[i]).toBe(f32(Math.min(1, Math.max(0, (v + 1) / 2))));
    }
  });

  it("ndwi: two ColorRampVisualizers (white -> green for -ndwi, white -> blue for ndwi^(1/4))", async () => {
    const values = await runScript("sentinel-2__ndwi__script.js");
    const lerp = (to: number[], t: number) => to.map((c) => 1 + (c - 1) * Math.min(1, Math.max(0, t)));
    for (let i = 0; i < N; i++) {
      const v = nd(b("B03", i), b("B08", i));
      const want = v < 0 ? lerp([0, 0x80 / 255, 0], -v) : lerp([0, 0, 0xcc / 255], Math.sqrt(Math.sqrt(v)));
      want.forEach((w, k) => expect(Math.abs(values[i * 3 + k]! - w)).toBeLessThan(1e-6));
    }
  });

  it("ndsi: Identity returns [index(B03, B11)]", async () => {
    const values = await runScript("sentinel-2__ndsi__script.js");
    for (let i = 0; i < N; i++) expect(values[i]).toBe(f32(nd(b("B03", i), b("B11", i))));
  });
});

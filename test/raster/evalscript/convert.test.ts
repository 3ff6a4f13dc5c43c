/**
 * Outputs converted to their stored sampleType inside the sandbox (EvalInput.convert, used by the Processing
 * API) equal the host's toSampleType of the raw values, for every sampleType, on real pixels plus edge values
 * (NaN, negatives, values beyond each range), in one block and in row blocks, and one isolate's evaluations
 * of different sizes in turn (the sandbox writes converted outputs to a scratch array it reuses, values.js).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { toSampleType, type EvalInput, type SampleType } from "../../../src/raster/evalscript";
import { load, ones, RKH, RKH_INFO, scale, window } from "./helpers";

const W = 64;
let input: EvalInput;

beforeAll(async () => {
  const B04 = scale(await window(`${RKH}/B04.tif`, 0, 300, 300, W, W), 1e-4);
  input = { width: W, height: W, scenes: [{ info: RKH_INFO, bands: { B04 }, dataMask: ones(W * W) }] };
});

/** Band 0: scaled reflectance; band 1: edge values that cycle through NaN, negatives and huge numbers. */
const script = (sampleType: SampleType) => `//VERSION=3
var EDGES = [NaN, -1e9, -129.5, -0.5, -0.3, 0.4999, 0.5, 1.5, 254.5, 255.5, 32767.5, 65535.5, 1e9, Infinity, -Infinity];
var k = 0;
function setup(){ return { input: ["B04"], output: { bands: 2, sampleType: "${sampleType}" } }; }
function evaluatePixel(s){ k++; return [s.B04 * ${sampleType === "AUTO" ? 3 : 40000}, EDGES[k % EDGES.length]]; }`;

describe("in-sandbox sampleType conversion", () => {
  for (const sampleType of ["AUTO", "UINT8", "UINT16", "INT8", "INT16", "FLOAT32"] as SampleType[]) {
    it(`${sampleType}: stored equals toSampleType(raw), whole image and row blocks`, async () => {
      const rt = await load(script(sampleType));
      const raw = (await rt.evaluate(input)).outputs.default!;
      expect(raw.stored).toBeUndefined();
      const expected = Array.from(toSampleType(raw.values, sampleType));
      const converted = (await rt.evaluate({ ...input, convert: true })).outputs.default!;
      expect(converted.values).toHaveLength(0);
      expect(Array.from(converted.stored!)).toEqual(expected);
      const blocks = await (await load(script(sampleType), { blockBytes: 4 * W * 16 })).evaluate({
        ...input,
        convert: true,
      });
      expect(Array.from(blocks.outputs.default!.stored!)).toEqual(expected);
      expect(blocks.outputs.default!.stored!.constructor).toBe(converted.stored!.constructor);
    });
  }
});

describe("the sandbox's reused scratch of converted outputs", () => {
  it("evaluations of different sizes in one isolate, in turn: each equals its own raw values converted", async () => {
    const rt = await load(`${script("UINT16")}\n// a fresh isolate: its scratch starts empty`);
    const crop = (w: number, x0: number): EvalInput => {
      const B04 = new Float32Array(w * w);
      const src = input.scenes[0]!.bands.B04!;
      for (let y = 0; y < w; y++) for (let x = 0; x < w; x++) B04[y * w + x] = src[y * W + x0 + x]!;
      return { width: w, height: w, scenes: [{ info: RKH_INFO, bands: { B04 }, dataMask: ones(w * w) }] };
    };
    for (const [w, x0] of [
      [W / 4, 30],
      [W / 2, 7],
      [W, 0],
      [W / 4, 3],
      [W, 0],
    ] as const) {
      const one = crop(w, x0);
      const raw = (await rt.evaluate(one)).outputs.default!;
      const converted = (await rt.evaluate({ ...one, convert: true })).outputs.default!;
      expect(converted.stored, `${w}x${w} at ${x0}`).toHaveLength(w * w * 2);
      expect(Array.from(converted.stored!), `${w}x${w} at ${x0}`).toEqual(
        Array.from(toSampleType(raw.values, "UINT16")),
      );
    }
  });
});

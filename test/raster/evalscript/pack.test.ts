/**
 * Band values sent as integers and a scale (pack.ts): real reflectance (29RKH, DN / 10000 as the pipeline's
 * convertUnits computes it) and SCL classes pack to Uint16 / Uint8; values that are not exact multiples
 * (NaN, -0, fractions of DN, DN above 65535) stay Float32. The sandbox's unpacking is checked end to end by
 * every evaluation test (both paths, bit for bit) and here by a script returning the bands it got.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { packBand, type PackedBand } from "../../../src/raster/evalscript/pack";
import { convertUnits } from "../../../src/pipeline/bands";
import { ones, RKH, RKH_INFO, run, window } from "./helpers";

const W = 64;
const N = W * W;
let dn: Float32Array;
let scl: Float32Array;

beforeAll(async () => {
  dn = await window(`${RKH}/B04.tif`, 0, 300, 300, W, W);
  scl = await window(`${RKH}/SCL.tif`, 0, 20, 20, W, W);
});

/** Reflectance exactly as the pipeline computes it (baseline 4 offset -1000, harmonized). */
function reflectance(offset: number): Float32Array {
  const def = { name: "B04", units: ["REFLECTANCE", "DN"] } as never;
  const item = { properties: { "s2:processing_baseline": offset ? "04.00" : "02.14" } } as never;
  return convertUnits(Float32Array.from(dn), ones(N), def, "REFLECTANCE", { optical: true } as never, item, true);
}

describe("packBand", () => {
  it("reflectance (DN + offset) / 10000 packs to its DN, exactly", () => {
    for (const offset of [0, -1000]) {
      const r = reflectance(offset);
      const p = packBand(r) as PackedBand;
      expect(p.scale).toBe(1 / 10000);
      expect(p.dn).toBeInstanceOf(Uint16Array);
      expect(Array.from(p.dn)).toEqual(Array.from(dn, (v) => Math.max(0, v + offset)));
      expect(Float32Array.from(p.dn, (q) => q * p.scale)).toEqual(r);
    }
  });

  it("SCL classes pack to Uint8 with scale 1; other values stay Float32", () => {
    const p = packBand(scl) as PackedBand;
    expect(p.scale).toBe(1);
    expect(p.dn).toBeInstanceOf(Uint8Array);
    expect(Array.from(p.dn)).toEqual(Array.from(scl));
    for (const odd of [NaN, -0, 0.00005, 70000, -1, 0.12345]) {
      const a = reflectance(0);
      a[100] = odd;
      expect(packBand(a), `${odd}`).toBe(a);
    }
  });

  it("the sandbox gets the same Float32 values from packed bands", async () => {
    const r = reflectance(-1000);
    const src = `//VERSION=3
function setup() { return { input: ["B04", "SCL"], output: { bands: 2, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [s.B04, s.SCL]; }`;
    const out = (await run(src, { width: W, height: W, scenes: [{ info: RKH_INFO, bands: { B04: r, SCL: scl }, dataMask: ones(N) }] })).outputs.default!.values;
    expect(out.filter((_, i) => i % 2 === 0)).toEqual(r);
    expect(out.filter((_, i) => i % 2 === 1)).toEqual(scl);
  });
});

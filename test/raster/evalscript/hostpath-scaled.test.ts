/**
 * True colour in AUTO (`[2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask]`), written by the host path's fused
 * loops (src/raster/evalscript/hostpath/output.ts: writeScaled3MaskPacked into a 4-byte aligned output, else
 * writeScaled3MaskAuto, both checked): the stored bytes against the AUTO store at
 * every step of the stored value (float32 values around each), the Sentinel-2 reflectance grid (DN / 10000), a
 * random sweep and the special values, for positive, negative and zero constants; then true colour scripts
 * against the sandbox, bit for bit (./differential.ts), over the 29RKH window (NaN, +-Infinity, -0 in B12).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { SceneData } from "../../../src/raster/evalscript";
import { outputWriter } from "../../../src/raster/evalscript/hostpath/output";
import { differential, rkhScene, W } from "./differential";

/** The AUTO store of a value y (sandbox/values.js toStored). */
const store = (y: number) => Uint8ClampedArray.of(Math.fround(y) * 255)[0]!;

/** The float32 values next to float32 v (d ulps either side, by bits). */
function around(v: number, d: number): number[] {
  const f = new Float32Array(1),
    b = new Int32Array(f.buffer);
  f[0] = v;
  const k = b[0]!;
  return Array.from({ length: 2 * d + 1 }, (_, i) => ((b[0] = k + i - d), f[0]!)).filter((x) => !Number.isNaN(x));
}

/** Band values that reach every step of the stored value of v * x, the reflectance grid, a sweep and the specials. */
function valuesFor(x: number): Float32Array {
  const xs = [NaN, Infinity, -Infinity, 0, -0, 1e-45, -1e-45, 3.4e38, -3.4e38, 1e-38];
  for (let j = 0; j <= 256; j++) xs.push(...around(Math.fround((j - 0.5) / 255 / x), 40));
  for (let d = 0; d < 65536; d++) xs.push(d / 10000);
  for (let i = 0; i < 100000; i++) xs.push((Math.random() * 1.3 - 0.05) / x);
  return Float32Array.from(xs);
}

describe("true colour and dataMask in AUTO against the AUTO store", () => {
  it("every step, the reflectance grid, a sweep and the specials", () => {
    for (const x of [2.5, 1, 3.5, 0.7, 1 / 3, 1e-3, 4096, -2.5, 0]) {
      const b0 = valuesFor(x || 1),
        n = b0.length;
      const bands = [b0, b0.slice().reverse(), valuesFor(x * 1.3 || 1).subarray(0, n)];
      const xs = [x, x, x * 1.3];
      const m = Uint8Array.from({ length: n }, (_, i) => i % 3);
      // aligned: the 32-bit stores; one byte in: the byte stores
      for (const out of [new Uint8Array(n * 4), new Uint8Array(n * 4 + 1).subarray(1)]) {
        const writes = [...xs.map((x, k) => ({ kind: "scaled" as const, k, x })), { kind: "mask" as const }];
        const write = outputWriter({ sampleType: "AUTO", convert: true, array: out }, writes, [], m, bands, [], []);
        for (let p = 0; p < n; p += 1024) write(p, p * 4, Math.min(1024, n - p));
        const mask = [0, 255, 255];
        for (let i = 0; i < n; i++) {
          const want = [...[0, 1, 2].map((j) => store(bands[j]![i]! * xs[j]!)), mask[m[i]!]!];
          const got = Array.from(out.subarray(i * 4, i * 4 + 4));
          if (got.some((v, j) => v !== want[j]))
            expect(got, `x ${x}, offset ${out.byteOffset}: ${bands.map((b) => b[i])}`).toEqual(want);
        }
      }
    }
  });
});

describe("true colour scripts: host path against the sandbox, bit for bit", () => {
  let scene: SceneData;
  beforeAll(async () => {
    scene = await rkhScene();
  });
  const scripts = [
    `//VERSION=3
function setup(){return {input:["B02","B03","B04","dataMask"],output:{bands:4}}}
function evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02,s.dataMask]}`,
    `//VERSION=3
function setup(){return {input:["B02","B03","B12"],output:{bands:3}}}
function evaluatePixel(s){return [s.B12*3.5,2.5*s.B03,s.B02*1.7]}`,
    `//VERSION=3
function setup(){return {input:["B02","B03","B04","dataMask"],output:{bands:4,sampleType:"UINT8"}}}
function evaluatePixel(s){return [255*s.B04,255*s.B03,637.5*s.B02,s.dataMask]}`,
    `//VERSION=3
function setup(){return {input:["B02","B03","B12","dataMask"],output:{bands:5}}}
function evaluatePixel(s){return [2.5*s.B12,2.5*s.B03,2.5*s.B02,s.dataMask,0.5]}`,
  ];
  it.each(scripts)("%s", async (text) => {
    expect(await differential(text, { width: W, height: W, scenes: [scene] })).toBe(true);
  });
});

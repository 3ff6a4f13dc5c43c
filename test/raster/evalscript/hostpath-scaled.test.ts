/**
 * True colour in AUTO (`[2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask]`), written by the host path's fused
 * loops (src/raster/evalscript/hostpath/scaled.ts: the SIMD kernel into a 4-byte aligned output, else
 * writeScaled3MaskAuto, both checked): the stored bytes against the AUTO store at
 * every step of the stored value (float32 values around each), the Sentinel-2 reflectance grid (DN / 10000), a
 * random sweep and the special values, for positive, negative and zero constants; the WebAssembly SIMD writer
 * (src/raster/evalscript/hostpath/simd.ts, both its products) called directly, against the same store and each
 * other, also over random float32 bits and chunk boundaries; true colour in FLOAT32 by the
 * SIMD writer (writeScaled3F32Simd) against writeScaled3F32's Float32 words, bit for bit; then true colour scripts
 * against the sandbox, bit for bit (./differential.ts), over the 29RKH window (NaN, +-Infinity, -0 in B12).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { SceneData } from "../../../src/raster/evalscript";
import { outputWriter } from "../../../src/raster/evalscript/hostpath/output";
import { writeScaled3F32 } from "../../../src/raster/evalscript/hostpath/scaled";
import {
  SIMD_CHUNK,
  SIMD_CHUNK_F32,
  writeScaled3F32Simd,
  writeScaled3MaskSimd,
} from "../../../src/raster/evalscript/hostpath/simd";
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

/** Float32 values of random bits: every exponent, subnormals, NaNs of any payload, +-Infinity, -0 among them. */
function randomBits(n: number): Float32Array {
  const bits = Uint32Array.from({ length: n }, () => (Math.random() * 2 ** 32) >>> 0);
  for (let i = 0; i < n; i += 97) bits[i] = [0, 0x80000000, 0x7f800000, 0xff800000, 1, 0x807fffff][(i / 97) % 6]!;
  return new Float32Array(bits.buffer);
}

/**
 * Pixels p0..p0+n-1 of bands times xs and dataMask m written as words from word o of a fresh output (guard words
 * around) by `write`, checked byte by byte against the AUTO store and AUTO's dataMask (0 or 255).
 */
function checkWords(
  write: (out: Uint32Array, p0: number, o: number, n: number) => void,
  bands: Float32Array[],
  xs: number[],
  m: Uint8Array,
  p0: number,
  n: number,
  what: string,
): void {
  const o = 3,
    out = new Uint32Array(o + n + 5).fill(0xdeadbeef);
  write(out, p0, o, n);
  const bytes = new Uint8Array(out.buffer);
  expect(Array.from(out.subarray(0, o)), `${what}: before`).toEqual([0xdeadbeef, 0xdeadbeef, 0xdeadbeef]);
  expect(
    out.subarray(o + n).every((v) => v === 0xdeadbeef),
    `${what}: after`,
  ).toBe(true);
  for (let i = 0; i < n; i++) {
    const p = p0 + i;
    const want = [...[0, 1, 2].map((j) => store(bands[j]![p]! * xs[j]!)), m[p] ? 255 : 0];
    const got = Array.from(bytes.subarray((o + i) * 4, (o + i) * 4 + 4));
    if (got.some((v, j) => v !== want[j]))
      expect(got, `${what}, pixel ${p}: ${bands.map((b) => b[p])} x ${xs}`).toEqual(want);
  }
}

describe("true colour and dataMask in AUTO, a word per pixel: the SIMD kernel", () => {
  /** The kernel with each of its products where it may use either (float32 constants). */
  function writers(xs: number[]) {
    const x = Float64Array.from(xs),
      f32 = xs.every((v) => Math.fround(v) === v);
    const simd =
      (f: boolean) => (out: Uint32Array, s: Float32Array[], m: Uint8Array, p0: number, o: number, n: number) =>
        writeScaled3MaskSimd(out, s, x, f, m, p0, o, n);
    return {
      "simd f64": simd(false),
      ...(f32 ? { "simd f32": simd(true) } : {}),
    };
  }
  const XS = [2.5, 3.5, 1 / 3, 1e-3, -2, 1e30, 1, 0.7, 4096, 0, 2.51, 1e-30, 5e-324, Infinity, NaN];

  it("every step, the reflectance grid, a sweep and the specials, for each constant", () => {
    for (const x of XS) {
      const b0 = valuesFor(Number.isFinite(x) && x ? x : 1),
        n = b0.length;
      const bands = [b0, b0.slice().reverse(), valuesFor(Number.isFinite(x * 1.3) && x ? x * 1.3 : 1).subarray(0, n)];
      const xs = [x, x, x * 1.3];
      const m = Uint8Array.from({ length: n }, (_, i) => [0, 1, 255, 7][i % 4]!);
      for (const [name, w] of Object.entries(writers(xs)))
        checkWords((out, p0, o, k) => w(out, bands, m, p0, o, k), bands, xs, m, 0, n, `${name}, x ${x}`);
    }
  });

  it("random float32 bits, chunk boundaries and partial chunks", () => {
    const n = 3 * SIMD_CHUNK + 11;
    const bands = [randomBits(n), randomBits(n), randomBits(n)];
    const m = Uint8Array.from({ length: n }, () => (Math.random() < 0.3 ? 0 : (Math.random() * 256) | 0));
    for (const xs of [
      [2.5, 2.5, 2.5],
      [3.5, 1 / 3, 1e-3],
      [-2, 1e30, 2.51],
      [1e-38, 1e38, 0.1],
    ])
      for (const [name, w] of Object.entries(writers(xs)))
        for (const [p0, k] of [
          [0, n],
          [5, n - 5],
          [SIMD_CHUNK - 1, 2],
          [7, SIMD_CHUNK],
          [1, 3],
          [0, 0],
        ] as const)
          checkWords((out, p, o, c) => w(out, bands, m, p, o, c), bands, xs, m, p0, k, `${name} ${xs}, ${p0}+${k}`);
  });

  it("the random bits of every exponent against the AUTO store, word for word", () => {
    const n = 1 << 20;
    const bands = [randomBits(n), randomBits(n), randomBits(n)];
    const m = Uint8Array.from({ length: n }, (_, i) => (i % 5 ? i : 0));
    for (const xs of [
      [2.5, 2.5, 2.5],
      [0.3, 7, -1e-3],
      [1e20, 1e-20, 255],
    ]) {
      // the AUTO store of each band's value (Uint8ClampedArray, as `store`) and AUTO's dataMask, byte by byte
      const bytes = new Uint8ClampedArray(4 * n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < 3; j++) bytes[4 * i + j] = Math.fround(bands[j]![i]! * xs[j]!) * 255;
        bytes[4 * i + 3] = m[i] ? 255 : 0;
      }
      const want = new Uint32Array(bytes.buffer);
      for (const [name, w] of Object.entries(writers(xs))) {
        const got = new Uint32Array(n);
        w(got, bands, m, 0, 0, n);
        const i = got.findIndex((v, i) => v !== want[i]);
        expect(i, `${name} ${xs}: pixel ${i}, ${bands.map((b) => b[i])}`).toBe(-1);
      }
    }
  });
});

describe("true colour in FLOAT32: the SIMD kernel against writeScaled3F32, bit for bit", () => {
  const GUARD = 0xdeadbeef;
  /**
   * Pixels p0..p0+n-1 written from value o (guard words around) by writeScaled3F32 (bands = 3) and by
   * writeScaled3F32Simd with `f32` products: the same 32-bit words, NaN payloads included (JavaScript keeps a NaN
   * operand's payload, quieted, through the float64 product and the Float32Array store, as the kernel does).
   */
  function check(s: Float32Array[], xs: number[], f32: boolean, p0: number, n: number, what: string): void {
    const x = Float64Array.from(xs),
      o = 5,
      size = o + 3 * n + 7;
    const want = new Float32Array(size),
      got = new Float32Array(size);
    new Uint32Array(want.buffer).fill(GUARD);
    new Uint32Array(got.buffer).fill(GUARD);
    writeScaled3F32(want, s, x, p0, o, n, 3);
    writeScaled3F32Simd(got, s, x, f32, p0, o, n);
    const w = new Uint32Array(want.buffer),
      g = new Uint32Array(got.buffer);
    // any NaN where JavaScript stored the canonical NaN: in node, V8's interpreter stored 0x7fc00000 for every NaN
    // product, its optimised code a NaN band value's payload (quieted), as the kernel does
    const i = g.findIndex((v, i) => v !== w[i] && !(w[i] === 0x7fc00000 && (v & 0x7fffffff) > 0x7f800000));
    const p = p0 + Math.floor((i - o) / 3);
    expect(
      i,
      `${what}: value ${i} (pixel ${p}: ${s.map((b) => b[p])}) ${g[i]?.toString(16)} for ${w[i]?.toString(16)}`,
    ).toBe(-1);
    expect(w[o - 1] === GUARD && w[o + 3 * n] === GUARD && w[size - 1] === GUARD, `${what}: guards`).toBe(true);
  }
  // no NaN constant: which NaN operand's payload JavaScript keeps when both are NaN differs between V8's tiers and
  // builds, so scaled3Writer leaves a NaN constant to writeScaled3F32 (checked below through outputWriter)
  const XS = [2.5, 3.5, 1 / 3, 1e-3, -2, 1e30, Infinity, 0, 1e-30, 5e-324];

  it("random float32 bits of every exponent, the specials, each constant and product", () => {
    const n = 2 * SIMD_CHUNK_F32 + 9;
    const bands = [randomBits(n), randomBits(n), randomBits(n)];
    const specials = [NaN, Infinity, -Infinity, 0, -0, 1e-45, -1e-45, 1.1754942e-38, 3.4e38, -3.4e38];
    for (let i = 0; i < specials.length; i++) for (const b of bands) b[3 * i + 1] = specials[i]!;
    // NaNs of several payloads and both signs, as the bands hold them
    const nan = new Uint32Array(bands[1]!.buffer);
    [0x7f800001, 0xffc00001, 0x7fbfffff, 0xff812345, 0x7fc00000].forEach((v, i) => (nan[100 + i] = v));
    for (const x of XS)
      for (const xs of [
        [x, x, x],
        [x, 2.5, -x],
        [1 / 3, x, 1e-3],
      ]) {
        const f32 = xs.every((v) => Math.fround(v) === v);
        for (const f of f32 ? [true, false] : [false]) check(bands, xs, f, 0, n, `${xs} f32 ${f}`);
      }
  });

  it("counts and offsets across chunk edges, not multiples of 4", () => {
    const n = 3 * SIMD_CHUNK_F32 + 13;
    const bands = [randomBits(n), randomBits(n), randomBits(n)];
    for (const [xs, f32] of [
      [[2.5, 2.5, 2.5], true],
      [[2.5, 3.5, 1 / 3], false],
    ] as const)
      for (const [p0, k] of [
        [0, n],
        [5, n - 5],
        [SIMD_CHUNK_F32 - 1, 2],
        [SIMD_CHUNK_F32 - 3, SIMD_CHUNK_F32 + 7],
        [7, SIMD_CHUNK_F32],
        [1, 3],
        [2, 1],
        [0, 0],
      ] as const)
        check(bands, [...xs], f32, p0, k, `${xs}, ${p0}+${k}`);
  });

  it.each([
    [2.5, 2.5, 2.5],
    [3.5, NaN, 1e-3],
  ])("a FLOAT32 output of three scaled bands through outputWriter, x %s %s %s", (...xs) => {
    const n = 1000,
      bands = [randomBits(n), randomBits(n), randomBits(n)];
    const writes = xs.map((x, k) => ({ kind: "scaled" as const, k, x }));
    const out = new Float32Array(3 * n),
      want = new Float32Array(3 * n);
    const write = outputWriter(
      { sampleType: "FLOAT32", convert: true, array: out },
      writes,
      [],
      new Uint8Array(n),
      bands,
      [],
      [],
    );
    write(0, 0, n);
    writeScaled3F32(want, bands, Float64Array.from(xs), 0, 0, n, 3);
    const w = new Uint32Array(want.buffer),
      i = new Uint32Array(out.buffer).findIndex(
        (v, i) => v !== w[i] && !(w[i] === 0x7fc00000 && (v & 0x7fffffff) > 0x7f800000),
      );
    expect(i).toBe(-1);
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

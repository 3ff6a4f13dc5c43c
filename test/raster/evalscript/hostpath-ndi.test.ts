/**
 * NDI classes with the dataMask (`n < 0.1 ? [1, 0.8, 0.2, s.dataMask] : [0.2, 0.6, 0.2, s.dataMask]`, n an NDI
 * of two bands), written by the host path's WebAssembly SIMD kernel (src/raster/evalscript/hostpath/simd.ts
 * writeNdiClassSimd, picked by output.ts packedWriter when interpret.ts fusableOf offers the NDI's register):
 * the kernel against a scalar reference and the fused writer against the JavaScript path it replaces (OP.NDIB
 * into a register, then packLess / packLessOrEqual), word for word, over the Sentinel-2 reflectance grid, random
 * float32 bits (NaN, +-Infinity, -0, subnormals), x + y == 0, thresholds 0.1, 0, -0.5, 1/3, NaN, +-Infinity, -0,
 * all four comparisons, dataMask values with zeros and > 1, offsets and counts across chunks; which programs fuse
 * (fusableOf's rule); then NDI class scripts against the sandbox, bit for bit (./differential.ts), over the 29RKH
 * window (NaN, +-Infinity, -0 in B12).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { SceneData } from "../../../src/raster/evalscript";
import { compileProgram, literalSetup } from "../../../src/raster/evalscript/hostpath/compile";
import { fusableOf, indexb } from "../../../src/raster/evalscript/hostpath/interpret";
import { OP } from "../../../src/raster/evalscript/hostpath/ops";
import { ndib, outputWriter } from "../../../src/raster/evalscript/hostpath/output";
import {
  NDI_CLASS_INDEX,
  NDI_CLASS_MODES,
  SIMD_CHUNK,
  writeNdiClassSimd,
} from "../../../src/raster/evalscript/hostpath/simd";
import type { Write } from "../../../src/raster/evalscript/hostpath/fuse";
import type { OutputTarget } from "../../../src/raster/evalscript/hostpath/stored";
import { normalizeSetup } from "../../../src/raster/evalscript/host/setup";
import { differential, rkhScene, W } from "./differential";

const THRESHOLDS = [0.1, 0, -0, -0.5, 1 / 3, NaN, Infinity, -Infinity, 1, -1];
const MODES = Object.values(NDI_CLASS_MODES);

/** Float32 values of random bits: every exponent, subnormals, NaNs of any payload, +-Infinity, -0 among them. */
function randomBits(n: number): Float32Array {
  const bits = Uint32Array.from({ length: n }, () => (Math.random() * 2 ** 32) >>> 0);
  for (let i = 0; i < n; i += 89) bits[i] = [0, 0x80000000, 0x7f800000, 0xff800000, 1, 0x807fffff][(i / 89) % 6]!;
  return new Float32Array(bits.buffer);
}

/**
 * Bands x, y of n pixels: reflectances (DN / 10000 of random DN, and the grid's first values), random float32
 * bits, and pairs whose sum is 0 (x = -y, 0 and -0 in every sign, +-Infinity against each other), interleaved.
 */
function bandsOf(n: number): [Float32Array, Float32Array] {
  const x = new Float32Array(n),
    y = new Float32Array(n);
  const bx = randomBits(n),
    by = randomBits(n);
  const zero: [number, number][] = [
    [0, 0],
    [0, -0],
    [-0, 0],
    [-0, -0],
    [Infinity, -Infinity],
    [-Infinity, Infinity],
    [NaN, 0.5],
    [0.25, -0.25],
    [1e-45, -1e-45],
  ];
  for (let i = 0; i < n; i++) {
    const r = i % 4;
    if (r === 0) [x[i], y[i]] = [((i * 7919) % 65536) / 10000, Math.floor(Math.random() * 12000) / 10000];
    else if (r === 1) [x[i], y[i]] = [bx[i]!, by[i]!];
    else if (r === 2) [x[i], y[i]] = zero[(i >> 2) % zero.length]!;
    else [x[i], y[i]] = [Math.floor(Math.random() * 10000) / 10000, (i % 10000) / 10000];
  }
  return [x, y];
}

/** dataMask bytes: zeros, ones and every other value. */
const maskOf = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i % 3 ? (i * 37) & 255 : 0));

/** JavaScript's comparison of mode (NDI_CLASS_MODES) between the NDI v and c. */
function compare(mode: number, v: number, c: number): boolean {
  return [v < c, v <= c, c < v, c <= v][mode]!;
}

describe("NDI classes: the SIMD kernel against a scalar reference", () => {
  const rows = Uint32Array.from({ length: 512 }, (_, i) => (Math.imul(i + 1, 0x9e3779b1) >>> 0) | 1);
  it("every comparison and threshold, offsets and counts across chunks, guard words intact", () => {
    const n = 2 * SIMD_CHUNK + 13;
    const [x, y] = bandsOf(n),
      m = maskOf(n);
    for (const c of THRESHOLDS)
      for (const mode of [...MODES, ...MODES.map((m) => m + NDI_CLASS_INDEX)])
        for (const [p0, k] of [
          [0, n],
          [5, n - 5],
          [SIMD_CHUNK - 1, 2],
          [7, SIMD_CHUNK],
          [1, 3],
          [3, SIMD_CHUNK + 1],
          [0, 0],
        ] as const) {
          const o = 3,
            out = new Uint32Array(o + k + 5).fill(0xdeadbeef);
          writeNdiClassSimd(out, x, y, c, mode, m, rows, p0, o, k);
          const what = `c ${c}, mode ${mode}, ${p0}+${k}`;
          expect(Array.from(out.subarray(0, o)), `${what}: before`).toEqual([0xdeadbeef, 0xdeadbeef, 0xdeadbeef]);
          expect(
            out.subarray(o + k).every((v) => v === 0xdeadbeef),
            `${what}: after`,
          ).toBe(true);
          for (let i = 0; i < k; i++) {
            const p = p0 + i,
              s = x[p]! + y[p]!,
              v = mode & NDI_CLASS_INDEX && s == 0 ? 0 : (x[p]! - y[p]!) / s;
            const want = rows[(compare(mode & 3, v, c) ? 256 : 0) | m[p]!]!;
            if (out[o + i] !== want) expect(out[o + i], `${what}, pixel ${p}: ${x[p]}, ${y[p]}`).toBe(want);
          }
        }
  });
});

/** The stored pixel's writes of an NDI class: two comparisons of registers a, b, a constant, the dataMask. */
function classWrites(a: number, b: number, orEqual: boolean, q: number): Write[] {
  const all: Write[] = [
    { kind: "compare", a, b, orEqual, x: 1, y: 0.2 },
    { kind: "compare", a, b, orEqual, x: 0.8, y: 0.6 },
    { kind: "const", x: 0.2 },
    { kind: "mask" },
  ];
  return q === 4 ? all : q === 2 ? [all[0]!, all[3]!] : [all[0]!];
}

describe("NDI classes: the fused writer against the JavaScript path (NDIB / INDEXB register, packLess)", () => {
  const n = 3 * 1024 * 7 + 5;
  const [x, y] = bandsOf(n),
    m = maskOf(n);
  const bands = [x, y];
  const targets: [string, number, (k: number) => OutputTarget][] = [
    ["AUTO", 4, (k) => ({ sampleType: "AUTO", convert: true, array: new Uint8Array(k * 4) })],
    ["UINT16", 2, (k) => ({ sampleType: "UINT16", convert: true, array: new Uint16Array(k * 2) })],
    ["FLOAT32", 1, (k) => ({ sampleType: "FLOAT32", convert: true, array: new Float32Array(k) })],
  ];
  it.each(targets)("%s, every comparison and threshold, NDI and index", (_name, q, target) => {
    for (const index of [false, true])
      for (const c of THRESHOLDS)
        for (const mirrored of [false, true])
          for (const orEqual of [false, true]) {
            // registers: 0 holds c, 1 the NDI (as the compiler allocates them for the NDVI script)
            const writes = classWrites(mirrored ? 0 : 1, mirrored ? 1 : 0, orEqual, q);
            const regs = [new Float64Array(1024).fill(c), new Float64Array(1024)];
            const js = target(n),
              fused = target(n);
            const jsWrite = outputWriter(js, writes, regs, m, bands, [], []);
            expect(jsWrite.whole).toBeUndefined();
            for (let p = 0; p < n; p += 1024) {
              const k = Math.min(1024, n - p);
              (index ? indexb : ndib)(regs[1]!, x, y, p, k);
              jsWrite(p, p * q, k);
            }
            const fusable = { ndi: new Map([[1, { k: 0, j: 1, index }]]), consts: new Map([[0, c]]) };
            const write = outputWriter(fused, writes, [], m, bands, [], [], fusable);
            expect([write.whole, write.covers]).toEqual([true, [1]]);
            write(0, 0, 11);
            write(11, 11 * q, n - 11);
            const [a, b] = [new Uint32Array(js.array.buffer), new Uint32Array(fused.array.buffer)];
            const i = b.findIndex((v, i) => v !== a[i]);
            expect(
              i,
              `index ${index}, c ${c}, mirrored ${mirrored}, orEqual ${orEqual}: pixel ${i}, ${x[i]}, ${y[i]}`,
            ).toBe(-1);
          }
  });
});

describe("which programs fuse the NDI into the writer (fusableOf)", () => {
  const programOf = (setup: string, body: string) => {
    const text = `//VERSION=3\nfunction setup(){return ${setup}}\nfunction evaluatePixel(s){${body}}`;
    return compileProgram(text, normalizeSetup(literalSetup(text)));
  };
  const ONE = `{input:["B04","B08","dataMask"],output:{bands:4}}`;
  it.each([
    "let n=(s.B08-s.B04)/(s.B08+s.B04);return n<0.1?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask]",
    "let n=(s.B08-s.B04)/(s.B04+s.B08);return 0.1>n?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask]",
    "let n=(s.B08-s.B04)/(s.B08+s.B04);return n>=-0.5?[0.2,0.6,0.2,s.dataMask]:[1,0.8,0.2,s.dataMask]",
    "let n=(s.B08-s.B04)/(s.B08+s.B04);return 1/3<n?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask]",
    "let n=index(s.B08,s.B04);return n<0.1?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask]",
  ])("fused: %s", (body) => {
    const p = programOf(ONE, body);
    const f = fusableOf(p);
    expect(p.ops.map((o) => o.code)).toEqual([body.includes("index") ? OP.INDEXB : OP.NDIB]);
    expect([...f.ndi.keys()]).toEqual([p.ops[0]!.d]);
    const t: OutputTarget = { sampleType: "AUTO", convert: true, array: new Uint8Array(8) };
    const bands = [new Float32Array(2), new Float32Array(2)];
    const w = outputWriter(t, p.outputs[0]!.writes, [], new Uint8Array(2), bands, [], [], f);
    expect([w.whole, w.covers]).toEqual([true, [p.ops[0]!.d]]);
  });
  it.each([
    // the NDI also an output band: offered (one output reads it), but that output is no packed class
    [ONE, "let n=(s.B08-s.B04)/(s.B08+s.B04);return n<0.1?[1,0.8,n,s.dataMask]:[0.2,0.6,n,s.dataMask]"],
    // read by an operation
    [ONE, "let n=(s.B08-s.B04)/(s.B08+s.B04);return n*2<0.1?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask]"],
    // read by two outputs
    [
      `{input:["B04","B08","dataMask"],output:[{id:"a",bands:4},{id:"b",bands:4}]}`,
      "let n=(s.B08-s.B04)/(s.B08+s.B04);let c=n<0.1?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask];return {a:c,b:c}",
    ],
  ])("not fused: %s %s", (setup, body) => {
    const p = programOf(setup, body);
    const f = fusableOf(p);
    const regs = Array.from({ length: p.regs }, () => new Float64Array(1024));
    const bands = p.bands.map(() => new Float32Array(2));
    for (const out of p.outputs) {
      const t: OutputTarget = { sampleType: "AUTO", convert: true, array: new Uint8Array(2 * out.writes.length) };
      const w = outputWriter(t, out.writes, regs, new Uint8Array(2), bands, p.ramps, p.luts, f);
      expect([w.whole, w.covers]).toEqual([undefined, undefined]);
    }
    expect(p.ops.some((o) => o.code === OP.NDIB)).toBe(true);
    expect(p.ops.length).toBeGreaterThan(0);
  });
});

describe("NDI class scripts: host path against the sandbox, bit for bit", () => {
  let scene: SceneData;
  beforeAll(async () => {
    scene = await rkhScene();
  });
  const classes = (n: string, cmp: string, setup = `{input:["B04","B08","dataMask"],output:{bands:4}}`) =>
    `//VERSION=3
function setup(){return ${setup}}
function evaluatePixel(s){let n=${n};return ${cmp}?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask]}`;
  const B12 = `{input:["B11","B12","dataMask"],output:{bands:4}}`;
  it.each([
    classes("(s.B08-s.B04)/(s.B08+s.B04)", "n<0.1"),
    classes("(s.B08-s.B04)/(s.B04+s.B08)", "n<=0"),
    classes("(s.B08-s.B04)/(s.B08+s.B04)", "0.3>n"),
    classes("(s.B08-s.B04)/(s.B08+s.B04)", "n>=1/3"),
    classes("(s.B04-s.B08)/(s.B04+s.B08)", "-0.5<n"),
    classes("(s.B12-s.B11)/(s.B12+s.B11)", "n<0.05", B12),
    classes("(s.B12-s.B11)/(s.B12+s.B11)", "n>=0", B12),
    classes("(s.B12-s.B11)/(s.B12+s.B11)", "n<Infinity", B12),
    classes("(s.B12-s.B11)/(s.B12+s.B11)", "n<=NaN", B12),
    classes("index(s.B08,s.B04)", "n<0.1"),
    classes("index(s.B12,s.B11)", "n<=0", B12),
    classes("index(s.B12,s.B11)", "0.2<n", B12),
    `//VERSION=3
function setup(){return {input:["B04","B08","dataMask"],output:{bands:2,sampleType:"UINT16"}}}
function evaluatePixel(s){let n=(s.B08-s.B04)/(s.B08+s.B04);return n<0.1?[1000,s.dataMask]:[70000,s.dataMask]}`,
  ])("%s", async (text) => {
    expect(await differential(text, { width: W, height: W, scenes: [scene] })).toBe(true);
  });
});

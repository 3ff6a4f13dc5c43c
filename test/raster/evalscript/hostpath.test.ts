/**
 * The differential test of the host path (src/raster/evalscript/hostpath): every script of data/evalscripts and a
 * generated corpus (fast-check) run through the host path and through the sandbox (forced with `sandbox: true`),
 * on real pixels of the 29RKH L2A scene (with a no-data strip and a few NaN / Infinity / -0 band values), raw
 * (FLOAT values) and converted to the stored sample types (./differential.ts); outputs must be equal bit for bit
 * (NaN payloads aside, see helpers.ts), errors equal. The repository scripts that must take the host path are
 * listed. Colour ramps written as outputs: hostpath-ramps.test.ts.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  compileEvalscript,
  loadEvalscript,
  type EvalInput,
  type EvalscriptRuntime,
} from "../../../src/raster/evalscript";
import type { SceneData } from "../../../src/raster/evalscript/types";
import { HostPathRuntime } from "../../../src/raster/evalscript/hostpath/runtime";
import { rampIndex, rampTable } from "../../../src/raster/evalscript/hostpath/ramp";
import { compileProgram, literalSetup } from "../../../src/raster/evalscript/hostpath/compile";
import { OP } from "../../../src/raster/evalscript/hostpath/ops";
import { normalizeSetup } from "../../../src/raster/evalscript/host/setup";
import { differential as differentialOf, outcome, rkhScene, W } from "./differential";
import { expectSameOutcome, RKH_INFO, script } from "./helpers";

/** data/evalscripts that take the host path (the others: other mosaicking, scene filters, a V1 body). */
const HOST = [
  "barren_soil__script",
  "cab__script",
  "evi__eob",
  "evi__raw",
  "evi__script",
  "false-color-urban-rgb__script",
  "fire_boundary__fire_boundary_script",
  "fire_boundary__script",
  "l2a_optimized__script",
  "landslide_detection_rapid_mapping__script",
  "ndmi__eob",
  "ndsi__script",
  "ndvi__eob",
  "ndvi__raw",
  "ndvi__script",
  "ndwi__eob",
  "ndwi__raw",
  "ndwi__script",
  "scene-classification__script",
  "simple_water_bodies_mapping-swbm__script",
  "true_color__script",
];
const SANDBOX: Record<string, RegExp> = {
  agriculture_growth_stage__script: /SIMPLE/,
  burned_area__script: /SIMPLE/,
  cloud_statistics__script: /SIMPLE/,
  "cloudless_mosaic__L2A-first_quartile_4bands": /SIMPLE/,
  forest_cut_temporal_detection__script: /SIMPLE/,
  max_ndvi__script: /SIMPLE/,
  monthly_composite__script: /SIMPLE/,
  ndvi_difference__script: /SIMPLE/,
};

let scene: SceneData;

beforeAll(async () => {
  scene = await rkhScene();
}, 120_000);

/** differential over the window (or `input`). */
const differential = (text: string, input: EvalInput = { width: W, height: W, scenes: [scene] }) =>
  differentialOf(text, input);

describe("host path against the sandbox, bit for bit", () => {
  it.each([...HOST, ...Object.keys(SANDBOX)])("data/evalscripts %s", async (name) => {
    const path = await differential(await script(`sentinel-2__${name}.js`));
    if (HOST.includes(name)) expect(path).toBe(true);
    else expect(path).toMatch(SANDBOX[name]!);
  });

  it("evaluates a strip session (evaluateRows) as the sandbox does", async () => {
    const text = await script("sentinel-2__ndvi__eob.js");
    const compiled = compileEvalscript(text);
    const [host, sandbox] = [
      await loadEvalscript(env, compiled),
      await loadEvalscript(env, compiled, {}, "", { sandbox: true }),
    ];
    const rows = (rt: EvalscriptRuntime, convert: boolean) =>
      outcome(
        rt.evaluateRows(
          { width: W, height: W, rows: 17, scenes: [{ info: RKH_INFO }], convert },
          async (row, count) => [
            {
              info: RKH_INFO,
              bands: Object.fromEntries(
                Object.entries(scene.bands).map(([k, v]) => [k, v.slice(row * W, (row + count) * W)]),
              ),
              dataMask: scene.dataMask.slice(row * W, (row + count) * W),
            },
          ],
        ),
      );
    for (const convert of [false, true]) expectSameOutcome(await rows(sandbox, convert), await rows(host, convert));
  });

  // the shapes ../../../src/raster/evalscript/hostpath/fuse.ts rewrites (and output.ts writes in one loop: three
  // bands times constants, with and without the dataMask after them), over B12 (NaN, +-Infinity, -0 among its values)
  it.each(["AUTO", "UINT8", "INT8", "UINT16", "INT16", "FLOAT32"])("superinstructions, %s", async (type) => {
    const text = `//VERSION=3
function setup(){return {input:["B04","B08","B12","dataMask"],output:{bands:19,sampleType:"${type}"}}}
function evaluatePixel(s){
  let n=(s.B08-s.B12)/(s.B08+s.B12), m=(s.B12-2*s.B04)/(2*s.B04+s.B12);
  return [n, m*(s.B04-1), 2.5*s.B12, s.B12*-0, n<0.1?1:0.2, m>=s.B04?-1:NaN, n>0?300:-0, s.dataMask, 0.5, m<=0?0.75:2, s.B12!==s.B12?1:0, index(s.B12, s.B04),
    2.5*s.B12, s.B04*-0.5, 3*s.B08, s.dataMask, s.B12*1e38, 0.1*s.B04, s.B08*2];
}`;
    expect(await differential(text)).toBe(true);
  });

  // EvalInput.outputs (a Process request's response identifiers): the host path computes only those outputs
  it.each([
    ["ndvi__eob", ["default"]],
    ["evi__eob", ["index", "dataMask"]],
    ["ndwi__eob", ["eobrowserStats"]],
    ["ndmi__eob", ["userdata"]],
  ])("computes only the outputs asked for: %s %j", async (name, outputs) => {
    const compiled = compileEvalscript(await script(`sentinel-2__${name}.js`));
    const host = await loadEvalscript(env, compiled);
    const sandbox = await loadEvalscript(env, compiled, {}, "", { sandbox: true });
    for (const convert of [false, true]) {
      const input = { width: W, height: W, scenes: [scene], convert, outputs };
      const want = await sandbox.evaluate(input);
      want.outputs = Object.fromEntries(Object.entries(want.outputs).filter(([id]) => outputs.includes(id)));
      expectSameOutcome({ result: want }, await outcome(host.evaluate(input)), `${name} ${convert}`);
    }
    expect(await (host as HostPathRuntime).hostPath()).toBe(true);
  });

  it("checks every output even when one is asked for (the sandbox's error)", async () => {
    const text = `//VERSION=3
function setup(){return {input:["B04"],output:[{id:"default",bands:1},{id:"other",bands:2}]}}
function evaluatePixel(s){return {default:[s.B04], other:[s.B04]}}`;
    const compiled = compileEvalscript(text);
    const [host, sandbox] = [
      await loadEvalscript(env, compiled),
      await loadEvalscript(env, compiled, {}, "", { sandbox: true }),
    ];
    const input = { width: W, height: W, scenes: [scene], outputs: ["default"] };
    const a = await outcome(sandbox.evaluate(input));
    expect(a.error).toBeDefined();
    expectSameOutcome(a, await outcome(host.evaluate(input)));
  });

  // ColorRampVisualizer's segment search (program.ts rampIndex, a branch-free binary search) over 1 to 22 stops,
  // repeated stops included, at the stops, between them and at B12's NaN / +-Infinity / -0
  it.each([1, 2, 3, 5, 8, 21, 22])("ColorRampVisualizer segments, %i stops", async (n) => {
    const stops = Array.from({ length: n }, (_, i) => [
      i === 3 ? -0.1 + 0.05 * (i - 1) : -0.1 + 0.05 * i,
      i * 0x0b0d07,
    ]);
    const text = `//VERSION=3
const viz = new ColorRampVisualizer(${JSON.stringify(stops)});
function setup(){return {input:["B04","B08","B12"],output:{bands:9,sampleType:"FLOAT32"}}}
function evaluatePixel(s){
  const v = index(s.B08, s.B04), t = Math.round(s.B04 * 1e3) / 20 - 0.1 + 0.05 * 2;
  return [...viz.process(v), ...viz.process(s.B12), ...viz.process(t)];
}`;
    expect(await differential(text)).toBe(true);
  });

  it("ColorRampVisualizer segments by bucket agree with the definition (uneven stops, bucket edges)", () => {
    const reference = (v: number[], x: number) => {
      if (!(x > v[0]!)) return 0;
      for (let i = 1; i < v.length; i++) if (x <= v[i]!) return i;
      return v.length;
    };
    const ramps = [
      [
        -0.5, -0.2, -0.1, 0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55,
        0.6, 1,
      ],
      [0, 1e-9, 2e-9, 3e-9, 1],
      [-1e300, 0, 1e300],
      [0.1, 0.1, 0.2, 0.2, 0.3],
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30],
    ];
    for (const v of ramps) {
      const t = rampTable(
        v,
        v.map(() => [0, 0, 0]),
      );
      const lo = v[0]!,
        hi = v[v.length - 1]!;
      const xs = [NaN, Infinity, -Infinity, 0, -0, ...v, ...v.map((x) => x + Math.abs(x) * 1e-15 + 1e-300)];
      for (let g = -2; g <= 258; g++) {
        const edge = lo + (g * (hi - lo)) / 256;
        xs.push(edge, edge * (1 + 1e-15), edge * (1 - 1e-15), edge + 1e-12, edge - 1e-12);
      }
      for (let i = 0; i < 20000; i++) xs.push(lo + (hi - lo) * (i / 20000) * 1.1 - (hi - lo) * 0.05);
      const wrong = xs.filter((x) => rampIndex(t, x) !== reference(v, x));
      expect(wrong, JSON.stringify(v)).toEqual([]);
    }
  });

  // choices on x === K of constants as one table lookup (../../../src/raster/evalscript/hostpath/finite.ts): a
  // switch over SCL, a repeated key (the first wins), key 0 against -0, key 255, keys out of the table, x NaN /
  // +-Infinity / -0 / negative / fractional (B12), and chains too short for a table
  it.each(["AUTO", "UINT8", "INT8", "UINT16", "INT16", "FLOAT32"])("switch and equality chains, %s", async (type) => {
    const text = `//VERSION=3
function setup(){return {input:["B04","B08","B12","SCL"],output:{bands:6,sampleType:"${type}"}}}
function cls(c){switch(c){case 0: return 0.1; case 1: return -0; case 2: return NaN; case 3: return Infinity;
  case 4: return 0.4; case 5: return 300; case 6: return -200; case 7: return 0.7; case 8: return 1; case 9: return 0.9;
  case 10: return 1e40; case 11: return -1e-40; default: return 0.5;}}
function evaluatePixel(s){
  const x = Math.round(s.B12 * 300), y = Math.floor(s.B08 * 1000) - 200, z = s.B12;
  return [cls(s.SCL), x === 3 ? 1 : x === 0 ? -0 : x === 3 ? 7 : x === 255 ? 2 : NaN,
    z === 0 ? 1 : z === 1 ? 2 : z === 2 ? 3 : 4, y === 0 ? 5 : y === 1 ? 6 : y === 2 ? 7 : y === 5 ? 8 : -1,
    x === 256 ? 1 : x === 1 ? 2 : x === 2 ? 3 : 0.25, x === 0.5 ? 1 : x === 1 ? 2 : x === 2 ? 3 : 0.75];
}`;
    expect(await differential(text)).toBe(true);
  });

  // the shapes ../../../src/raster/evalscript/hostpath/finite.ts turns into table lookups: SCL classes (integers),
  // B12 (0 in the no-data strip, NaN, +-Infinity, -0 among its values), the dataMask, one to three inputs
  it.each(["FLOAT32", "AUTO", "INT16"])("finite-domain lookups, %s", async (type) => {
    const text = `//VERSION=3
const CLOUD = [3, 8, 9, 10];
function setup(){return {input:["B12","SCL","dataMask"],output:{bands:13,sampleType:"${type}"}}}
function evaluatePixel(s){
  const c = CLOUD.indexOf(s.SCL);
  return [c, [0, 4, 5].includes(s.SCL) ? 1 : 0, s.dataMask && c < 0 ? 1 : 0, (s.SCL === 4 || s.SCL == 5) && !s.dataMask,
    [0, 1, 2].indexOf(s.B12), s.B12 === 0 ? -0 : 0.5, s.B12 !== -0 ? c * 2 : NaN, (s.SCL === 6) * 2 + (s.B12 === 0),
    s.dataMask * 3 + (s.SCL === 4) - (s.B12 === 0), -s.dataMask, [4095, 4094, 0.5, NaN].indexOf(s.SCL) + 0.25,
    !(s.SCL === 7) ? Math.sqrt(c + 2) : Infinity, s.dataMask && s.SCL !== 300 ? 2 : 0];
}`;
    expect(await differential(text)).toBe(true);
    const program = compileProgram(text, normalizeSetup(literalSetup(text)));
    // a lookup only output bands read is a `lut` write (into the output), the others OP.LUT operations
    const writes = program.outputs.flatMap((o) => o.writes).flatMap((w) => (w.kind === "lut" ? [w.t] : []));
    const tables = [...program.ops.filter((o) => o.code === OP.LUT).map((o) => o.k), ...writes];
    const lookups = tables.map((k) => program.luts[k]!.doms.length);
    expect(lookups.length).toBeGreaterThanOrEqual(10); // NaN and 0.5 are no table keys: that indexOf stays a chain
    expect(lookups.filter((n) => n === 2).length).toBeGreaterThanOrEqual(3); // dataMask + SCL, SCL + B12
  });

  it.each([
    [
      "AUTO",
      4,
      "let n = (s.B08 - s.B04) / (s.B08 + s.B04); return n < 0.1 ? [1, 0.8, 0.2, s.dataMask] : [0.2, 0.6, 0.2, s.dataMask]",
    ],
    ["UINT8", 4, "return s.B12 >= 0.1 ? [300, 0.5, s.dataMask, -3] : [127.5, 2, s.dataMask, 1e9]"],
    ["INT8", 4, "return [s.dataMask, -200, 1.5, 127.5]"],
    ["UINT16", 2, "return s.B04 <= s.B12 ? [70000, s.dataMask] : [0.5, s.dataMask]"],
    ["INT16", 2, "return s.B04 > s.B08 ? [s.dataMask, -40000] : [s.dataMask, 2.5]"],
    ["FLOAT32", 1, "return s.B12 > 0.2 ? [NaN] : [-0]"],
    ["UINT8", 4, "return [s.B04 < 0.1 ? 1 : 0, s.B08 < 0.2 ? 1 : 0, 0, s.dataMask]"],
    ["AUTO", 4, "return [2.5 * s.B04, 2.5 * s.B03, 3 * s.B12, s.dataMask]"],
    ["FLOAT32", 4, "return [2.5 * s.B04, 2.5 * s.B03, 3 * s.B12, s.dataMask]"],
    ["AUTO", 5, "return [2.5 * s.B04, 2.5 * s.B03, 1e9 * s.B12, s.dataMask, 1]"],
    ["FLOAT32", 1, "return [(s.B12 - s.B04) / (s.B12 + s.B04)]"],
    ["FLOAT32", 2, "let n = (s.B08 - s.B04) / (s.B08 + s.B04); return [n, n < 0.1 ? 1 : 0]"],
    ["AUTO", 2, "return [(s.B08 - s.B12) / (s.B12 + s.B08), s.dataMask]"],
    ["INT16", 3, "let n = (s.B08 - s.B04) / (s.B08 + s.B04); return [1000 * n, n, n]"],
  ])("outputs written a pixel at a time: %s, %i bands", async (type, bands, body) => {
    const text = `//VERSION=3\nfunction setup(){return {input:["B03","B04","B08","B12","dataMask"],output:{bands:${bands},sampleType:"${type}"}}}\nfunction evaluatePixel(s){${body}}`;
    expect(await differential(text)).toBe(true);
  });

  it("no scene (an empty pseudo-scene) and an absent band", async () => {
    const text = `//VERSION=3\nfunction setup(){return {input:["B04","B08","dataMask"],output:{bands:3}}}\nfunction evaluatePixel(s){return [s.B04, s.dataMask, s.B99]}`;
    expect(
      await differential(text, {
        width: 8,
        height: 8,
        scenes: [],
        timeRange: { from: "2020-01-01T00:00:00Z", to: "2020-01-02T00:00:00Z" },
      }),
    ).toBe(true);
  });
});

/** Expressions over the sample `s`: bands (one absent), awkward constants, every operator, Math, index, a helper. */
const expression: fc.Arbitrary<string> = fc.letrec<{ e: string; bin: string; un: string; cond: string; call: string }>(
  (tie) => ({
    e: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom("s.B02", "s.B03", "s.B04", "s.B08", "s.B11", "s.B12", "s.SCL", "s.dataMask", "s.B99"),
      fc
        .constantFrom(
          "0",
          "-0",
          "1",
          "0.5",
          "2.5",
          "-1",
          "3",
          "1e308",
          "NaN",
          "Infinity",
          "0.1",
          "255",
          "true",
          "false",
          "undefined",
          "null",
          "K",
        )
        .map((c) => (c.startsWith("-") ? `(${c})` : c)),
      tie("bin"),
      tie("un"),
      tie("cond"),
      tie("call"),
    ),
    bin: fc
      .tuple(
        tie("e"),
        fc.constantFrom(
          "+",
          "-",
          "*",
          "/",
          "%",
          "**",
          "<",
          "<=",
          ">",
          ">=",
          "===",
          "!==",
          "==",
          "!=",
          "&&",
          "||",
          "&",
          "|",
          "^",
          "<<",
          ">>",
          ">>>",
        ),
        tie("e"),
      )
      .map(([a, o, b]) => `(${a} ${o} ${b})`),
    un: fc.tuple(fc.constantFrom("-", "+", "!", "~"), tie("e")).map(([o, a]) => `(${o} ${a})`),
    cond: fc.tuple(tie("e"), tie("e"), tie("e")).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    call: fc.oneof(
      fc
        .tuple(
          fc.constantFrom(
            "Math.sqrt",
            "Math.abs",
            "Math.floor",
            "Math.round",
            "Math.exp",
            "Math.log",
            "Math.sin",
            "Math.atan",
            "Math.sign",
            "Math.cbrt",
            "Math.tanh",
            "isNaN",
            "-ramp.process",
            "+id.process",
          ),
          tie("e"),
        )
        .map(([f, a]) => (f.endsWith(".process") ? `(${f}(${a})[${f.startsWith("-") ? 1 : 0}])` : `${f}(${a})`)),
      fc
        .tuple(
          fc.constantFrom("Math.pow", "Math.atan2", "Math.min", "Math.max", "index", "h", "colorBlend"),
          tie("e"),
          tie("e"),
        )
        .map(([f, a, b]) => (f === "colorBlend" ? `colorBlend(${a}, [0, 0.1, 0.3], [0, 0.5, 1])` : `${f}(${a}, ${b})`)),
    ),
  }),
).e;

/** A script around generated expressions: constants, a helper, a ramp, if/else returns, one to three outputs. */
const program = fc
  .record({
    x: expression,
    c: expression,
    a: expression,
    b: expression,
    d: expression,
    type: fc.constantFrom("AUTO", "UINT8", "INT16", "UINT16", "INT8", "FLOAT32"),
    multi: fc.boolean(),
  })
  .map(({ x, c, a, b, d, type, multi }) => {
    const out = multi
      ? `[{ id: "default", bands: 2, sampleType: "${type}" }, { id: "index", bands: 1, sampleType: "FLOAT32" }]`
      : `{ bands: 2, sampleType: "${type}" }`;
    const ret = (p: string, q: string) => (multi ? `{ default: [${p}, ${q}], index: [+(${q})] }` : `[${p}, ${q}]`);
    return (
      `//VERSION=3\nconst K = 0.25;\nconst ramp = new ColorRampVisualizer([[-1, 0x0000ff], [0, 0xffffff], [1, 0xff0000]]);\nconst id = new Identity();\n` +
      `function setup() { return { input: ["B02", "B03", "B04", "B08", "B11", "B12", "SCL", "dataMask"], output: ${out} }; }\n` +
      `function h(p, q) { if (p > q) { return p - q; } let t = p * 0.5; if (q !== q) t = -1; return t + q; }\n` +
      `function evaluatePixel(s) {\n  let x = +${x};\n  if (${c}) { x = x * 2; return ${ret(`+${a}`, "x")}; }\n  return ${ret(`+${b}`, `+${d}`)};\n}\n`
    );
  });

describe("generated scripts: host path against the sandbox, bit for bit", () => {
  it("agree on 60 generated scripts, most of them on the host path", async () => {
    let host = 0;
    await fc.assert(
      fc.asyncProperty(program, async (text) => {
        if ((await differential(text)) === true) host++;
      }),
      { numRuns: 60, seed: 39 },
    );
    expect(host).toBeGreaterThanOrEqual(40); // 43 with this seed; the rest mix types per pixel (a number or a boolean)
  }, 300_000);
});

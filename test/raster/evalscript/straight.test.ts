/**
 * Straight-line evaluatePixel bodies (straight.ts) and the column loop without per-pixel bookkeeping
 * (columnloop.ts): which bodies qualify, and that the loop gives the general path's values, errors and budget
 * stops bit for bit on real 29RKH pixels (helpers.ts `run` compares the column path with the forced general
 * path), also when the request's total runs out in a later block after blocks run by the fast loop.
 */
import { parse } from "acorn";
import { beforeAll, describe, expect, it } from "vitest";
import { compileEvalscript, type EvalInput } from "../../../src/raster/evalscript";
import type { AnyNode } from "../../../src/raster/evalscript/ast";
import { bindingCounts } from "../../../src/raster/evalscript/samplereads";
import { isStraightLine } from "../../../src/raster/evalscript/straight";
import { ones, rkhWindow, RKH_INFO, run } from "./helpers";

/** isStraightLine of `function evaluatePixel(<param>) {<body>}` after the top-level code `extra`. */
function straight(body: string, extra = "", param = "s"): boolean {
  const program = parse(`${extra}\nfunction evaluatePixel(${param}) {${body}}`, { ecmaVersion: "latest", sourceType: "script" }) as unknown as AnyNode;
  const fn = (program.body as AnyNode[]).find((n) => n.type === "FunctionDeclaration" && (n.id as AnyNode).name === "evaluatePixel")!;
  const p = (fn.params as AnyNode[])[0]!;
  const locals = p.type === "ObjectPattern" ? (p.properties as AnyNode[]).map((q) => (q.value as AnyNode).name as string) : [];
  return isStraightLine(fn, p.type === "Identifier" ? (p.name as string) : undefined, locals, bindingCounts(program as never));
}

describe("straight-line bodies", () => {
  it("band maths, locals, conditionals, Math and index(), returned literals and conditionals of them qualify", () => {
    for (const body of [
      "return [2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02];",
      "let n = (s.B08 - s.B04) / (s.B08 + s.B04); return n < 0.1 ? [1, 0.8, 0.2, s.dataMask] : [0.2, 0.6, 0.2, s.dataMask];",
      "var a = index(s.B08, s.B04), b = Math.max(0, Math.min(1, a)); if (b > 0.5) { a += 1; } return { ndvi: [a], dataMask: [s.dataMask ? 1 : 0] };",
      "let x = s.B04 ?? NaN; return x === undefined || x !== x ? [Math.PI, , 0] : [typeof x === 'number' ? x : -1, ++x, 'y' + x];",
      "return s.B04;",
    ]) expect(straight(body), body).toBe(true);
    expect(straight("return [B04 * 2, B08];", "", "{ B04, B08 }")).toBe(true);
  });

  it("anything that could call script code, tick or charge does not", () => {
    for (const [body, extra] of [
      ["return [k * s.B04];", "var k = 2;"], // a script global (could be an object with valueOf)
      ["return [CLOUD.indexOf(s.SCL)];", "const CLOUD = [3, 8];"], // a method call (guarded: charges)
      ["return [Math.max(s.B04, 1)];", "var Math = { max: function () { return 1; } };"], // Math bound by the script
      ["return [index(s.B04, s.B08)];", "function index(a, b) { return a - b; }"], // index bound by the script
      ["return [f(s.B04)];", "function f(v) { return v; }"], // a call of a script function
      ["let t = 0; for (let j = 0; j < 3; j++) t += j; return [t];", ""], // a loop ticks per iteration
      ["return [s.B04 in o];", "var o = {};"],
      ["return [/x/.test('x') ? 1 : 0];", ""],
      ["return [1n + 1n];", ""],
      ["if (s.B04) { var t = 1; } return [t];", ""], // a declaration in a nested block
      ["let n = 1; return [n];", "var n = 0;"], // a local whose name the script binds twice
      ["return { __proto__: p, default: [1] };", "var p = {};"],
      ["return [...[s.B04]];", ""],
      ["return [Math.max(...[s.B04, 1])];", ""],
      ["return [`${s.B04}`];", ""],
      ["return [s.B04, (() => 1)()];", ""],
      ["const a = s; return [a.B04];", ""], // an alias of the sample
      ["return [this === undefined ? 1 : 0];", ""],
    ]) expect(straight(body, extra), body).toBe(false);
  });
});

describe("the loop of a straight-line body", () => {
  const W = 32;
  let input: EvalInput;
  beforeAll(async () => {
    const bands = await rkhWindow(["B04", "B08"], 470, 60, W, W);
    input = { width: W, height: W, scenes: [{ info: RKH_INFO, bands, dataMask: ones(W * W) }] };
  });
  const src = (ep: string, bands = 1) =>
    `//VERSION=3\nfunction setup() { return { input: ["B04", "B08", "dataMask"], output: { bands: ${bands}, sampleType: "FLOAT32" } }; }\nfunction evaluatePixel(s) { ${ep} }`;
  const NDVI = src("return [(s.B08 - s.B04) / (s.B08 + s.B04)];");

  it("is compiled for NDVI and gives the values of the general path and of an oracle", async () => {
    expect(compileEvalscript(NDVI).code).toContain("var i0=i");
    const out = (await run(NDVI, input)).outputs.default!.values;
    const { B04, B08 } = input.scenes[0]!.bands as Record<string, Float32Array>;
    for (const i of [0, 333, W * W - 1]) expect(out[i]).toBe(Math.fround((B08![i]! - B04![i]!) / (B08![i]! + B04![i]!)));
  });

  it("a total that covers every pixel exactly runs to the end; one tick less stops at the last pixel, as the general path", async () => {
    const px = W * W;
    await expect(run(NDVI, input, { totalBase: 0, totalPerSample: 1 })).resolves.toBeTruthy();
    const e = await run(NDVI, input, { totalBase: -1, totalPerSample: 1 }).catch((x: Error) => x);
    expect(String(e)).toMatch(new RegExp(`column ${(px - 1) % W}, row ${Math.floor((px - 1) / W)}`));
  });

  it("the total running out in a later block (earlier blocks on the fast loop) stops at the general path's pixel", async () => {
    for (const spare of [-W * 20, -3]) {
      const e = await run(NDVI, input, { totalBase: spare, totalPerSample: 1, blockBytes: 4 * W * 8 }).catch((x: Error) => x);
      expect(e, `total = pixels ${spare}`).toBeInstanceOf(Error);
      expect(String(e)).toMatch(/budget|total/i);
    }
  });

  it("a writer error part-way through a block names the general path's pixel", async () => {
    const e = await run(src("return s.B04 > 0.3 ? [1, 2, 3] : [s.B04, s.B08];", 2), input).catch((x: Error) => x);
    expect(String(e)).toMatch(/evaluatePixel returned 3 values for output "default", which has 2 band\(s\)/);
  });
});

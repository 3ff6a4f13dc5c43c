/**
 * Direct writes of returned literals in the column copy (returns.ts): which literals write straight into the
 * outputs, and that every shape (fits, does not fit, NaN, non-numbers, early returns, try/finally, literals of
 * helpers, budget stops) gives the general path's values and errors bit for bit on real 29RKH pixels (helpers.ts
 * `run` compares the column path with the forced general path), plus values checked against an oracle computed
 * here from the input bands.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { compileEvalscript, type EvalInput } from "../../../src/raster/evalscript";
import { f32, ones, rkhWindow, RKH_INFO, run } from "./helpers";

const W = 32;
const ONE = (bands: number, type = "FLOAT32") => `function setup() { return { input: ["B04", "B08", "dataMask"], output: { bands: ${bands}, sampleType: "${type}" } }; }`;
const TWO = `function setup() { return { input: ["B04", "B08", "dataMask"], output: [{ id: "a", bands: 2, sampleType: "FLOAT32" }, { id: "m", bands: 1, sampleType: "FLOAT32" }] }; }`;
const text = (setup: string, ep: string) => `//VERSION=3\n${setup}\n${ep}`;
/** Whether the column copy has direct writes (the setup function of returns.ts is emitted). */
const direct = (src: string) => /c[u]=function\(S,V,B\)/.test(compileEvalscript(src).code);

describe("direct writes of returned literals", () => {
  let input: EvalInput;
  let b04: Float32Array, b08: Float32Array;
  beforeAll(async () => {
    const bands = await rkhWindow(["B04", "B08"], 470, 60, W, W);
    [b04, b08] = [bands.B04!, bands.B08!];
    const dataMask = ones(W * W);
    for (let i = 0; i < W; i++) dataMask[i] = 0;
    input = { width: W, height: W, scenes: [{ info: RKH_INFO, bands, dataMask }] };
  });

  it("the bench's NDVI ternary (AUTO, converted in the sandbox, and FLOAT32) writes directly and gives the oracle's values", async () => {
    const ep = "function evaluatePixel(s) { let n = (s.B08 - s.B04) / (s.B08 + s.B04); return n < 0.1 ? [1, 0.8, 0.2, s.dataMask] : [0.2, 0.6, 0.2, s.dataMask]; }";
    for (const type of ["FLOAT32", "AUTO"]) {
      const src = text(ONE(4, type), ep);
      expect(direct(src)).toBe(true);
      const out = (await run(src, { ...input, convert: true })).outputs.default!;
      const got = out.stored?.length ? out.stored : out.values;
      for (const i of [0, 40, 517, W * W - 1]) {
        const n = (b08[i]! - b04[i]!) / (b08[i]! + b04[i]!), m = i < W ? 0 : 1;
        const want = (n < 0.1 ? [1, 0.8, 0.2, m] : [0.2, 0.6, 0.2, m]).map((v) => (type === "FLOAT32" ? f32(v) : Math.round(f32(v) * 255)));
        expect(Array.from(got.slice(i * 4, i * 4 + 4))).toEqual(want);
      }
    }
  });

  it("several outputs: the object's keys in another order than the outputs, values as the oracle", async () => {
    const src = text(TWO, "function evaluatePixel(s) { return { m: [s.dataMask], a: [s.B04 * 2, s.B08 - s.B04] }; }");
    expect(direct(src)).toBe(true);
    const r = await run(src, input);
    for (const i of [3, 100, 1000]) {
      expect(Array.from(r.outputs.a!.values.slice(i * 2, i * 2 + 2))).toEqual([f32(b04[i]! * 2), f32(b08[i]! - b04[i]!)]);
      expect(r.outputs.m!.values[i]).toBe(i < W ? 0 : 1);
    }
  });

  it.each([
    // NaN computed at run time (its bits as the general path stores them), NaN constants, Infinity
    [ONE(2), "function evaluatePixel(s) { const z = s.B04 - s.B04; return [z / z, s.dataMask ? s.B08 / z : NaN]; }"],
    // non-numbers: booleans, strings, undefined (a band not requested), null, an object with valueOf (called in the writer)
    [ONE(3), "var calls = 0; const o = { valueOf() { return ++calls; } };\nfunction evaluatePixel(s) { return s.B04 > 0.1 ? [s.B04 > 0.2, '0.5', s.B11] : [null, o, calls]; }"],
    // an element whose conversion throws: on both paths in the writer, outside the script's try/catch
    [ONE(2), "const bad = { valueOf() { throw new RangeError('boom'); } };\nfunction evaluatePixel(s) { try { return [s.B04 > 0.2 ? bad : 1, 1]; } catch (e) { return [7, 7]; } }"],
    // no space after return, negative constants, a conditional of literals
    [ONE(2), "function evaluatePixel(s) { if (s.B04 > 0.2) return[-1, s.B08]; return(s.B08 > 0.3)?[s.B04,-0.5]:[0, 1]; }"],
    // early returns from a loop and a switch, nested ternaries, a literal with a wrong band count on some pixels
    [ONE(2), "function evaluatePixel(s) { for (let k = 0; k < 3; k++) { if (s.B04 > 0.1 * k) return k ? [k, s.B08] : [s.B04, k]; } switch (s.dataMask) { case 0: return [0]; } return s.B08 > 0.4 ? [1] : [2, 2]; }"],
    // literals returned by a helper or a nested arrow (not rewritten), try/finally overriding the value
    [ONE(2), "function h(x) { return [x, 1]; }\nfunction evaluatePixel(s) { const f = () => [5, 2]; try { return s.B04 > 0.15 ? h(s.B04) : [3, 4]; } finally { if (s.B08 > 0.35) return f(); } }"],
    // several outputs: a missing id, a wrong length, an extra key, an object for only some pixels
    [TWO, "function evaluatePixel(s) { return s.B04 > 0.3 ? { a: [1, 2], m: [3], x: [4] } : { a: [s.B04, s.B08], m: [s.dataMask] }; }"],
    [TWO, "function evaluatePixel(s) { return s.B04 > 0.3 ? { a: [1, 2, 3], m: [0] } : { m: [s.dataMask], a: [s.B04, s.B08] }; }"],
    [TWO, "function evaluatePixel(s) { return s.B04 > 0.3 ? { a: [1, 2] } : { a: [s.B04, s.B08], m: [s.dataMask] }; }"],
    [ONE(2), "function evaluatePixel(s) { return s.B04 > 0.3 ? [1, 2, 3] : [s.B04, s.B08]; }"],
    // one output returned as an object of it (the general path's single-output form), and as a number
    [ONE(1), "function evaluatePixel(s) { return s.B04 > 0.2 ? { default: [s.B04] } : s.B04 > 0.1 ? [s.B08] : s.dataMask; }"],
  ])("%s %s: both paths give the same values or error", async (setup, ep) => {
    const src = text(setup, ep);
    expect(direct(src)).toBe(true);
    await run(src, input).catch((e: Error) => expect(e.message).toMatch(/evaluatePixel (must return|returned)|boom/));
  });

  it("the errors of mismatched shapes name the same pixel as the general path", async () => {
    const e = await run(text(ONE(2), "function evaluatePixel(s) { return s.B04 > 0.3 ? [1, 2, 3] : [s.B04, s.B08]; }"), input).catch((x: Error) => x);
    expect(String(e)).toMatch(/evaluatePixel returned 3 values for output "default", which has 2 band\(s\)/);
  });

  it("an error part-way through a literal: same message, line, column and pixel", async () => {
    const e = await run(text(ONE(2), "function evaluatePixel(s) {\n  return [s.B04, s.B08 > 0.35 ? nope.x : 1];\n}"), input).catch((x: Error) => x);
    expect(String(e)).toMatch(/ReferenceError: nope is not defined at line 4, column 33 \(evaluatePixel, output pixel column \d+, row \d+\)/);
  });

  it("the total budget runs out at the same pixel on both paths", async () => {
    const src = text(ONE(2), "function evaluatePixel(s) { let k = 0; for (let j = 0; j < 5; j++) k += j; return [k, s.B04]; }");
    const e = await run(src, input, { totalBase: 0, totalPerSample: 3 }).catch((x: Error) => x);
    expect(String(e)).toMatch(/budget|ticks|stopped/i);
  });

  it("literals that cannot write directly keep the reused values (spread, hole, shorthand, no elements; every literal of a copy when one cannot or past 8 elements)", () => {
    for (const ep of ["function evaluatePixel(s) { const a = [1]; return [...a, s.B04]; }", "function evaluatePixel(s) { return [, s.B04]; }", "function evaluatePixel(s) { const a = [1, 2]; return { a, m: [1] }; }", "function evaluatePixel(s) { return []; }", "function evaluatePixel(s) { return s.B04 > 0.1 ? [s.B04, 1] : [...[s.B08], 2]; }", "function evaluatePixel(s) { return s.B04 > 0.1 ? [1, 2, 3] : s.B04 > 0.2 ? [4, 5, 6] : [s.B04, s.B08, 0]; }"]) {
      expect(direct(text(ONE(2), ep)), ep).toBe(false);
    }
  });
});

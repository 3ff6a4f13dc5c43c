/**
 * The writer of several outputs (src/raster/evalscript/host/writers.ts, the generated sandbox module "writers.js"):
 * values land in the right output and band for outputs inside and past the unrolled slots, every value form the
 * generic writer takes still works, each value's `length` is read once, and mismatches give the same errors.
 * Every run goes through both runtimes (the host path where it applies and the sandbox, helpers.ts `load`), compared bit for bit;
 * the expected values are computed here from the real band values (Math.fround of the same arithmetic).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { EvalInput } from "../../../src/raster/evalscript";
import { WRITER_SLOTS } from "../../../src/raster/evalscript/host/writers";
import { rejection } from "../../helpers/engine";
import { f32, ones, rkhWindow, RKH_INFO, run } from "./helpers";

const W = 24;
const N = W * W;
let px: Record<string, Float32Array>;

beforeAll(async () => {
  px = await rkhWindow(["B04", "B08"], 300, 200, W, W);
});

const input = (): EvalInput => ({ width: W, height: W, scenes: [{ info: RKH_INFO, bands: px, dataMask: ones(N) }] });

/** A script with `outputs` (FLOAT32) whose evaluatePixel(s) body is `body`, after the top-level `extra`. */
const script = (outputs: { id: string; bands: number }[], body: string, extra = "") => `//VERSION=3
function setup() { return { input: ["B04", "B08"], output: ${JSON.stringify(outputs.map((o) => ({ ...o, sampleType: "FLOAT32" })))} }; }
${extra}
function evaluatePixel(s) { ${body} }`;

/** Outputs o0 .. o{n-1}, output k with k % 3 + 1 bands: band j of pixel i holds B04 * k + B08 * j. */
const many = (n: number) => Array.from({ length: n }, (_, k) => ({ id: `o${k}`, bands: (k % 3) + 1 }));
const manyBody = (n: number) =>
  `return {${many(n)
    .map((o, k) => `${o.id}: [${Array.from({ length: o.bands }, (_, j) => `s.B04 * ${k} + s.B08 * ${j}`).join(", ")}]`)
    .join(", ")}};`;

describe("the writer of several outputs", () => {
  it(`writes every band of every output, inside and past the ${WRITER_SLOTS} unrolled slots`, async () => {
    const n = WRITER_SLOTS + 3;
    const r = await run(script(many(n), manyBody(n)), input());
    expect(Object.keys(r.outputs)).toEqual(many(n).map((o) => o.id));
    for (const [k, o] of many(n).entries()) {
      const v = r.outputs[o.id]!.values;
      expect(v.length).toBe(N * o.bands);
      for (const i of [0, 1, W + 3, N - 1]) {
        for (let j = 0; j < o.bands; j++)
          expect(v[i * o.bands + j], `${o.id} pixel ${i} band ${j}`).toBe(f32(px.B04![i]! * k + px.B08![i]! * j));
      }
    }
  });

  it("takes every value form of the generic writer and reads each length once", async () => {
    const outputs = [
      { id: "scalar", bands: 1 },
      { id: "typed", bands: 2 },
      { id: "inherited", bands: 1 },
      { id: "counted", bands: 1 },
      { id: "flag", bands: 1 },
    ];
    const extra = `let reads = 0;
const counted = { get length() { reads++; return 1; }, 0: 7 };
function updateOutputMetadata(scenes, inputMetadata, outputMetadata) { outputMetadata.userData = { reads }; }`;
    const body = `const t = new Float32Array(2); t[0] = s.B04; t[1] = s.B08;
const r = Object.create({ inherited: [s.B08 - s.B04] });
r.scalar = s.B08; r.typed = t; r.counted = counted; r.flag = [s.B04 > s.B08];
return r;`;
    const r = await run(script(outputs, body, extra), input());
    expect(r.userData).toEqual({ reads: N });
    for (const i of [0, 5, N - 1]) {
      const [b4, b8] = [px.B04![i]!, px.B08![i]!];
      expect(r.outputs.scalar!.values[i]).toBe(b8);
      expect([r.outputs.typed!.values[2 * i], r.outputs.typed!.values[2 * i + 1]]).toEqual([b4, b8]);
      expect(r.outputs.inherited!.values[i]).toBe(f32(b8 - b4));
      expect(r.outputs.counted!.values[i]).toBe(7);
      expect(r.outputs.flag!.values[i]).toBe(b4 > b8 ? 1 : 0);
    }
  });

  it.each([
    [
      "a value of the wrong length in an unrolled slot",
      3,
      "o1: [1, 2, 3]",
      /evaluatePixel returned 3 values for output "o1", which has 2 band\(s\) in setup\(\)/,
    ],
    [
      "a value of the wrong length past the slots",
      WRITER_SLOTS + 2,
      `o${WRITER_SLOTS + 1}: [1, 2, 3, 4]`,
      new RegExp(`evaluatePixel returned 4 values for output "o${WRITER_SLOTS + 1}", which has 1 band`),
    ],
    ["null for an output", 2, "o0: null", /evaluatePixel returned null for output "o0", which has 1 band\(s\)/],
    [
      "a plain object for an output",
      2,
      "o1: { x: 1 }",
      /evaluatePixel returned an object for output "o1", which has 2 band\(s\)/,
    ],
    [
      "undefined for an output",
      WRITER_SLOTS,
      `o${WRITER_SLOTS - 1}: undefined`,
      new RegExp(`evaluatePixel returned undefined for output "o${WRITER_SLOTS - 1}"`),
    ],
  ])("%s: the generic writer's error", async (_, n, override, message) => {
    const body = manyBody(n).replace(/\};$/, `, ${override}};`);
    const e = await rejection(run(script(many(n), body), input()));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(message);
    expect(e.message).toContain("(evaluatePixel, output pixel column 0, row 0)");
  });

  it("an id the object lacks, and a value that is no object, name the outputs", async () => {
    const lacks = manyBody(WRITER_SLOTS).replace(`o${WRITER_SLOTS - 2}:`, "other:");
    expect((await rejection(run(script(many(WRITER_SLOTS), lacks), input()))).message).toMatch(
      new RegExp(`evaluatePixel returned no value for output "o${WRITER_SLOTS - 2}"`),
    );
    const scalar = await rejection(run(script(many(2), "return s.B04;"), input()));
    expect(scalar.message).toMatch(/evaluatePixel must return an object with one array per output id \(o0, o1\)/);
  });

  it("that error is the script's even when its call used the whole per-call budget (9 ticks: entry and 8 loop turns)", async () => {
    const src = script(many(4), "for (var j = 0; j < 8; j++) {} return s.B04;");
    expect((await rejection(run(src, input(), { perCall: 8 }))).message).toMatch(
      /one call ran more than 8 loop iterations/,
    );
    expect((await rejection(run(src, input(), { perCall: 9 }))).message).toMatch(
      /evaluatePixel must return an object with one array per output id \(o0, o1, o2, o3\)/,
    );
  });
});

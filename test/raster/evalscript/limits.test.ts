/**
 * Output and size limits: output bands and bytes per request, userdata, setup() value, error
 * message and script text. Each breach is a 400 whose message gives the limit; none reaches the RPC or a 500.
 */
import { describe, expect, it } from "vitest";
import { rejection, type RenderedEngineError } from "../../helpers/engine";
import { HOST_LIMITS, SANDBOX_LIMITS } from "../../../src/raster/evalscript/limits";
import type { EvalInput } from "../../../src/raster/evalscript";
import { load, ones, RKH_INFO, run } from "./helpers";

const input = (w: number, h = w): EvalInput => ({
  width: w,
  height: h,
  scenes: [{ info: RKH_INFO, bands: { B04: new Float32Array(w * h).fill(0.25) }, dataMask: ones(w * h) }],
});

const script = (output: string, body = "return [1];", extra = "") => `//VERSION=3
function setup() { return { input: ["B04"], output: ${output} }; }
${extra}
function evaluatePixel(s) { ${body} }`;

async function failure(p: Promise<unknown>): Promise<RenderedEngineError> {
  const e = await rejection(p);
  expect(e.status).toBe(400);
  return e;
}

/** A string of 2^n characters made by doubling (no repeat(), so no allocation cap is involved). */
const doubled = (n: number) => `(function () { var t = "x"; for (var k = 0; k < ${n}; k++) t += t; return t; })()`;

describe("output limits", () => {
  it("more output bands than the limit (setup, several outputs) -> 400 before any pixel", async () => {
    const e = await failure(
      run(
        script('[{ id: "a", bands: 600, sampleType: "FLOAT32" }, { id: "b", bands: 401 }]', "return { a: [], b: [] };"),
        input(2),
      ),
    );
    expect(e.message).toContain(
      `the outputs have 1001 bands in all; the limit is ${HOST_LIMITS.outputBands} bands per request`,
    );
    expect([e.kind, e.code]).toEqual(["limit-exceeded", "EXECUTION_ERROR"]);
  });

  it("10000 FLOAT32 bands at 128 x 128 (a 655 MB response before) -> 400", async () => {
    const e = await failure(run(script('{ bands: 10000, sampleType: "FLOAT32" }'), input(128)));
    expect(e.message).toContain("the outputs have 10000 bands in all");
  });

  it("updateOutput raising the band count over the limit -> 400 naming updateOutput", async () => {
    const e = await failure(
      run(
        script("{ bands: 1 }", "return [1];", "function updateOutput(outputs) { outputs.default.bands = 5000; }"),
        input(2),
      ),
    );
    expect(e.message).toMatch(
      /^Failed to evaluate script! The evalscript was stopped \(updateOutput\): the outputs have 5000 bands in all/,
    );
  });

  it("raw output bytes over the limit -> 400; at the limit it runs", async () => {
    const e = await failure(
      run(script('{ bands: 11, sampleType: "FLOAT32" }'), { width: 2500, height: 2500, scenes: [] }),
    );
    expect(e.message).toContain(
      `the outputs would be 275000000 bytes (2500x2500 pixels); the limit is ${HOST_LIMITS.outputBytes} bytes per request`,
    );
    expect(HOST_LIMITS.outputBytes).toBeGreaterThanOrEqual(2500 * 2500 * 4 * 10);
    const limit = 64 * 64 * (3 * 4 + 2 * 2 + 1);
    const outputs =
      '[{ id: "f", bands: 3, sampleType: "FLOAT32" }, { id: "u", bands: 2, sampleType: "UINT16" }, { id: "b", bands: 1 }]';
    const ok = await run(script(outputs, "return { f: [1, 2, 3], u: [4, 5], b: [1] };"), input(64), {
      outputBytes: limit,
    });
    expect(ok.outputs.u!.values[1]).toBe(5);
    const over = await failure(
      run(script(outputs, "return { f: [1, 2, 3], u: [4, 5], b: [1] };"), input(64), { outputBytes: limit - 1 }),
    );
    expect(over.message).toContain(
      `the outputs would be ${limit} bytes (64x64 pixels); the limit is ${limit - 1} bytes`,
    );
  });
});

describe("size limits", () => {
  it("userdata over the limit -> 400 naming it", async () => {
    const src = script(
      "{ bands: 1 }",
      "return [1];",
      `function updateOutputMetadata(sc, im, om) { om.userData = { big: ${doubled(24)} }; }`,
    );
    const e = await failure(run(src, input(2)));
    const chars = JSON.stringify({ big: "x".repeat(2 ** 24) }).length;
    expect(e.message).toContain(
      `outputMetadata.userData is ${chars} characters of JSON; the limit is ${SANDBOX_LIMITS.userDataChars}`,
    );
  });

  it("a setup() value over the limit -> 400 naming it", async () => {
    const src = script(`{ bands: 1 }, junk: ${doubled(21)}`);
    const e = await failure(run(src, input(2)));
    const chars = JSON.stringify({ input: ["B04"], output: { bands: 1 }, junk: "x".repeat(2 ** 21) }).length;
    expect(e.message).toContain(
      `the value setup() returns is ${chars} characters of JSON; the limit is ${SANDBOX_LIMITS.setupChars}`,
    );
  });

  it("a 32 MiB error message is cut to the limit, saying by how much", async () => {
    const e = await failure(run(script("{ bands: 1 }", `throw new Error(${doubled(25)});`), input(2)));
    const more = 2 ** 25 - SANDBOX_LIMITS.messageChars;
    expect(e.message).toMatch(
      new RegExp(
        `^Failed to evaluate script! Error: x{${SANDBOX_LIMITS.messageChars}}\\.\\.\\. \\(${more} more characters\\) at line 4`,
      ),
    );
    expect(e.message.length).toBeLessThan(SANDBOX_LIMITS.messageChars + 200);
  });

  it("an evalscript over the size limit -> 400 before parsing", async () => {
    const src = script("{ bands: 1 }") + "\n//" + "x".repeat(HOST_LIMITS.scriptChars);
    const e = await failure(load(src));
    expect(e.message).toBe(
      `The evalscript has ${src.length} characters; the limit is ${HOST_LIMITS.scriptChars} characters.`,
    );
    expect([e.kind, e.code, e.error.limit]).toEqual([
      "invalid-argument",
      "COMMON_BAD_PAYLOAD",
      { name: "scriptChars", max: HOST_LIMITS.scriptChars },
    ]);
  });
});

/**
 * Sandbox behaviour: runaway scripts end as 400s while concurrent requests are served, runtime errors
 * carry the user's line:column, no network, implicit globals, and the pixel loop's output checks.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { rejection, rendered, type RenderedEngineError } from "../../helpers/engine";
import type { EvalInput } from "../../../src/raster/evalscript";
import { env } from "cloudflare:workers";
import { compileEvalscript, loadEvalscript } from "../../../src/raster/evalscript";
import { CERTS_PATH } from "../../../src/auth/routes";
import { call } from "../../helpers/auth";
import { f32, load, ones, rkhWindow, RKH_INFO, run } from "./helpers";

const W = 32;
const N = W * W;
let px: Record<string, Float32Array>;

beforeAll(async () => {
  px = await rkhWindow(["B02", "B03", "B04", "B08"], 100, 100, W, W);
});

const input = (): EvalInput => ({ width: W, height: W, scenes: [{ info: RKH_INFO, bands: px, dataMask: ones(N) }] });

/** A script whose evaluatePixel body is `body` (line 4 of the script). */
const withBody = (body: string, extra = "") => `//VERSION=3
function setup() { return { input: ["B04", "B08", "dataMask"], output: { bands: 1, sampleType: "FLOAT32" } }; }
${extra}
function evaluatePixel(s) { ${body} }`;

const failure = rejection;

/** A normal request right after a failure: true colour on real pixels is still computed. */
async function stillServes(): Promise<void> {
  const r = await run("sentinel-2__true_color__script.js", input());
  expect(r.outputs.default!.values[0]).toBe(f32(2.5 * px.B04![0]!));
}

/** Runs `bad` while a true-colour request runs: the outcome, never the time, is asserted (a 400, and a 200). */
async function failsWhileServing(bad: Promise<unknown>): Promise<RenderedEngineError> {
  const [e, good] = await Promise.all([failure(bad), run("sentinel-2__true_color__script.js", input())]);
  expect(good.outputs.default!.values[0]).toBe(f32(2.5 * px.B04![0]!));
  return e;
}

describe("runaway scripts", () => {
  it.each([
    ["while (true) {}", 4, 29],
    ["for (;;);", 4, 29],
    ["let i = 0; do { i++; } while (i > 0); return [i];", 4, 40],
    ["while (true) { try { for (;;) {} } catch (e) {} }", 4, 29],
  ])("%s -> 400 naming the loop, then the next request works", async (body, line, column) => {
    const e = await failsWhileServing(run(withBody(body), input()));
    expect(e.status).toBe(400);
    expect(e.code).toBe("EXECUTION_ERROR");
    expect(e.kind).toBe("budget-exceeded");
    expect(e.message).toContain(`at line ${line}, column ${column} (evaluatePixel, output pixel column 0, row 0)`);
    expect(e.message).toMatch(/endless loop/);
    await stillServes();
  });

  it("requests running at the same time as a runaway script are served", async () => {
    const [bad, good, http] = await Promise.allSettled([
      run(withBody("for (;;) {}"), input()),
      run("sentinel-2__true_color__script.js", input()),
      call(CERTS_PATH),
    ]);
    expect(bad.status === "rejected" && rendered(bad.reason).status).toBe(400);
    expect(good.status === "fulfilled" && good.value.outputs.default!.values[1]).toBe(f32(2.5 * px.B03![0]!));
    expect(http.status === "fulfilled" && http.value.status).toBe(200);
  });

  it("endless recursion -> 400 naming the recursive function", async () => {
    const e = await failsWhileServing(
      run(withBody("return [f(0)];", "function f(n) { return f(n + 1) + 1; }"), input()),
    );
    expect(e.message).toMatch(
      /^Failed to evaluate script! RangeError: Maximum call stack size exceeded at line 3, column \d+ \(evaluatePixel, in f,/,
    );
    expect(e.message).toMatch(/endless recursion/);
    await stillServes();
  });

  it("endless loops in top-level code, setup and preProcessScenes", async () => {
    const top = withBody("return [1];", "var x = 0; while (x >= 0) x++;");
    expect((await failure(run(top, input()))).message).toMatch(/stopped at line 3, column 12 \(top-level code\)/);
    const inSetup = withBody("return [1];").replace("function setup() {", "function setup() { for (;;) {}");
    expect((await failure(run(inSetup, input()))).message).toMatch(/stopped at line 2, column 20 \(setup\)/);
    const pre = await load(withBody("return [1];", "function preProcessScenes(c) { while (c) {} }"));
    expect((await failure(pre.preProcessScenes([RKH_INFO]))).message).toMatch(
      /stopped at line 3, column 32 \(preProcessScenes\)/,
    );
    await stillServes();
  });

  it("a total budget stops long but finite per-pixel work", async () => {
    const slow = withBody("let t = 0; for (let k = 0; k < 1e5; k++) t += k; return [t];");
    const e = await failure(run(slow, input(), { totalBase: 1e6, totalPerSample: 0 }));
    expect(e.message).toMatch(
      /exceeded the execution budget of this request \(1000000 loop iterations, function calls/,
    );
    expect([e.kind, e.error.limit]).toEqual(["budget-exceeded", { name: "ticksPerRequest", max: 1000000 }]);
  });
});

describe("errors in script code", () => {
  it("runtime error: message, user line:column, function and pixel", async () => {
    const src = withBody("return [s.B04 / s.B08];", "function helper(s) {\n  return s.missing.value;\n}").replace(
      "return [s.B04 / s.B08];",
      "return [helper(s)];",
    );
    const e = await failure(run(src, input()));
    expect(e.message).toBe(
      "Failed to evaluate script! TypeError: Cannot read properties of undefined (reading 'value') at line 4, column 20 " +
        "(evaluatePixel, in helper, output pixel column 0, row 0).",
    );
    expect(e.errors).toEqual({
      stage: "evaluatePixel",
      function: "helper",
      line: 4,
      column: 20,
      pixel: { col: 0, row: 0 },
    });
  });

  it("error at a later pixel, thrown string, error in setup", async () => {
    const limit = [...px.B04!].sort((a, b) => a - b)[Math.floor(N * 0.9)]!;
    const body = `if (s.B04 >= ${limit}) throw new Error('too bright: ' + s.B04.toFixed(2)); return [1];`;
    const late = withBody(body);
    const first = [...px.B04!].findIndex((v) => v >= limit);
    expect(first).toBeGreaterThan(0);
    const e = await failure(run(late, input()));
    expect(e.message).toMatch(/^Failed to evaluate script! Error: too bright: 0\.\d\d at line 4/);
    expect(e.message).toContain(
      `at line 4, column ${29 + body.indexOf("new Error")} (evaluatePixel, output pixel column ${first % W}, row ${Math.floor(first / W)})`,
    );
    const nope = await failure(run(withBody('throw "nope";'), input()));
    expect(nope.message).toBe("Failed to evaluate script! Error: nope (evaluatePixel, output pixel column 0, row 0).");
    expect([nope.kind, nope.status, nope.code]).toEqual(["script-error", 400, "EXECUTION_ERROR"]);
    const badSetup = withBody("return [1];").replace("return { input", "return undefinedThing || { input");
    expect((await failure(run(badSetup, input()))).message).toMatch(
      /ReferenceError: undefinedThing is not defined at line 2, column 20 \(setup\)/,
    );
  });

  it("a syntax error only the engine sees (module fails to start) is a 400 with the user's position", async () => {
    const compiled = compileEvalscript(withBody("return [1];"));
    const broken = { ...compiled, code: compiled.code.replace("return [1];", "return [1]);") };
    const e = await failure((await loadEvalscript(env, broken, {}, "", { sandbox: true })).setup()); // the host path reads setup() from the source
    expect(e.status).toBe(400);
    expect(e.message).toBe(
      `Evalscript syntax error at line 4, column ${29 + "return [1]".length}: Unexpected token ')'.`,
    );
    await stillServes();
  });

  it("wrong number of values for an output", async () => {
    const e = await failure(run(withBody("return [s.B04, s.B08];"), input()));
    expect(e.message).toMatch(
      /evaluatePixel returned 2 values for output "default", which has 1 band\(s\) in setup\(\)/,
    );
    const multi = withBody("return { a: [1] };").replace(
      'output: { bands: 1, sampleType: "FLOAT32" }',
      'output: [{ id: "a", bands: 1 }, { id: "b", bands: 2 }]',
    );
    expect((await failure(run(multi, input()))).message).toMatch(/evaluatePixel returned no value for output "b"/);
  });

  it("invalid setup() values are 400s naming the field", async () => {
    const cases: [string, RegExp][] = [
      [
        'output: { bands: 1, sampleType: "UINT32" }',
        /output\.sampleType must be one of AUTO, INT8, UINT8, INT16, UINT16, FLOAT32, got "UINT32"/,
      ],
      ["output: [{ bands: 1 }, { bands: 2 }]", /output ids must be unique, "default" is used twice/],
      ["output: { bands: 0 }", /output\.bands must be the number of output bands/],
      ['output: { bands: 1 }, mosaicking: "DAILY"', /mosaicking must be one of SIMPLE, ORBIT, TILE/],
    ];
    for (const [out, msg] of cases) {
      const src = withBody("return [1];").replace('output: { bands: 1, sampleType: "FLOAT32" }', out);
      expect((await failure(run(src, input()))).message).toMatch(msg);
    }
    const units = withBody("return [1];").replace(
      'input: ["B04", "B08", "dataMask"]',
      'input: [{ bands: ["B04", "B08"], units: ["DN"] }]',
    );
    expect((await failure(run(units, input()))).message).toMatch(
      /input\[0\]\.units must be one string or an array of 2 strings/,
    );
  });
});

describe("isolation and language", () => {
  it("no network and no bindings", async () => {
    // fetch's rejection arrives after the call that made it: it is recorded on customData, which lives for the
    // whole row-block session (the next block's call and updateOutputMetadata see it)
    const src = withBody(
      `if (!cd.asked) { cd.asked = true; try { fetch("https://example.com/").then(() => { cd.net = "fetched"; }, (e) => { cd.net = "rejected: " + e.message; }); } catch (e) { cd.net = "threw: " + e.message; } }
  return [1];`,
      "function updateOutputMetadata(scenes, im, om) { om.userData = { net: cdSeen, bindings: [typeof LOADER, typeof DB, typeof DATA, typeof env] }; }",
    ).replace("function evaluatePixel(s) {", "var cdSeen; function evaluatePixel(s, sc, im, cd) { cdSeen = cd.net;");
    const rt = await load(src);
    await rt.setup();
    const r = await rt.evaluateRows(
      { width: W, height: W, rows: W / 2, scenes: [{ info: RKH_INFO }] },
      async (row, rows) => [
        {
          info: RKH_INFO,
          bands: { B04: px.B04!.slice(row * W, (row + rows) * W), B08: px.B08!.slice(row * W, (row + rows) * W) },
          dataMask: ones(rows * W),
        },
      ],
    );
    const ud = r.userData as { net: string; bindings: string[] };
    expect(ud.net).toMatch(/not permitted to access the internet/);
    expect(ud.bindings).toEqual(["undefined", "undefined", "undefined", "undefined"]);
  });

  it("implicit globals (sloppy mode) and per-request script state", async () => {
    const src = withBody(
      "count++; last = s.B04; return [count];",
      "count = 0;\nfunction updateOutputMetadata(sc, im, om) { om.userData = { count: count, last: last }; }",
    );
    const rt = await load(src);
    for (let k = 0; k < 2; k++) {
      const r = await rt.evaluate(input());
      expect(r.userData).toEqual({ count: N, last: f32(px.B04![N - 1]!) });
      expect(r.outputs.default!.values[N - 1]).toBe(N);
    }
  });
});

/**
 * The column function (specialize.ts): which evaluatePixel shapes get one (and which band parameters), which
 * are refused and why; and tricky accepted scripts evaluated on real 29RKH pixels through both paths, equal bit
 * for bit (helpers.ts `run` compares the column path with the forced general path).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { compileEvalscript, type EvalInput } from "../../../src/raster/evalscript";
import { ones, rkhWindow, RKH_INFO, run } from "./helpers";

const SETUP = `function setup() { return { input: ["B04", "B08", "dataMask"], output: [{ id: "default", bands: 2, sampleType: "FLOAT32" }, { id: "m", bands: 1 }] }; }`;
const script = (ep: string, extra = "") => `//VERSION=3\n${SETUP}\n${ep}\n${extra}`;
const column = (src: string) => compileEvalscript(src).column;

/** The body of a V2 script under Sentinel Hub's V2-to-V3 wrapper, reading its list's first sample. */
const ORIG = "function orig(samples) { var sample = samples[0]; return { default: [sample.B04, samples[0].B08], m: [1] }; }";

/** Helpers declared as variables (the arrow reads B02, the function expression B05, the expression-bodied arrow B04 B08 and ar's). */
const VARS = "\nconst ar = (p) => { return p.B02; };\nlet fe = function named(p) { return p.B05 + 1; };\nconst ex = (k, p) => (p.B04 * k, { v: p.B08 > 0.3 ? ar(p) : k });";

describe("which scripts get a column function", () => {
  it.each([
    ["function evaluatePixel(s) { return [s.B08, s.B04]; }", ["B08", "B04"]],
    ["function evaluatePixel(s) { return [s['B04'], s.B04 * 2]; }", ["B04"]],
    ["function evaluatePixel({ B04, B08: nir }) { return [nir, B04]; }", ["B04", "B08"]],
    ["function evaluatePixel(s, scenes) { const f = (x) => x * 2; return [f(s.B04), 1]; }", ["B04"]],
    ["function evaluatePixel(s) { n++; return [n, s.dataMask]; }", ["dataMask"]],
    // helpers: their bands join evaluatePixel's, in the order the calls are met; transitively; none at all
    ["function evaluatePixel(s) { return [f(s), s.B04]; }", ["B08", "B03", "B04"]],
    ["function evaluatePixel(s) { return [g(2, s), n]; }", ["B04", "B08", "B03"]],
    ["function evaluatePixel(s) { return [none(s), s.B11]; }", ["B11"]],
    ["function evaluatePixel(s) { const p = s; let q = p; return [q.B12, f(p) + f(s)]; }", ["B12", "B08", "B03"]],
    ["function evaluatePixel(s) { let { B04, B08: nir } = s; var { B02 } = s; return [nir - B04, B02]; }", ["B04", "B08", "B02"]],
    // Sentinel Hub's V2-to-V3 wrapper: the sample in a one-element list, the other parameters past orig's
    ["function evaluatePixel(s, scene, m, c, om) { const r = orig([s], [scene], m, c, om); return r[Object.keys(r)[0]]; }", ["B04", "B08"]],
    // helpers declared as top-level variables: an arrow and a named function expression, block bodies
    ["function evaluatePixel(s) { return [ar(s), fe(s) + ex(2, s).v]; }", ["B02", "B05", "B04", "B08"]],
  ])("%s -> %j", (ep, bands) => {
    const helpers = "function f(p) { return p.B08 - p.B03; }\nfunction g(k, p) { return p.B04 * k + f(p); }\nfunction none(p) { return 1; }\n" + ORIG + VARS;
    expect(column(script(ep, `var n = 0;\n${helpers}\nvar z = f({ B08: 1, B03: 0 }) + g(1, 2);`))).toEqual({ bands });
  });

  const helper = (body: string, params = "p") => `function h(${params}) { ${body} }`;
  it.each([
    [helper("return n ? g(p, n - 1) : p.B04;", "p, n") + "\nfunction g(q, n) { return h(q, n); }", "return [h(s, 2)];", /the sample comes back to helper h \(recursion\)/],
    [helper("return n ? h({ B04: 1 }, 0) + p.B04 : p.B04;", "p, n"), "return [h(s, 2)];", /helper h refers to h/],
    [helper("return p.B04;") + "\nh = null;", "return [h(s)];", /not a top-level function declared once/],
    [helper("return p.B04;") + "\nfunction k(h) { return h; }", "return [h(s)];", /not a top-level function declared once/],
    [helper("return p.B04;") + "\nvar alias = h;", "return [h(s)];", /helper h is used other than called/],
    [helper("return arguments[0].B04;"), "return [h(s)];", /helper h uses arguments/],
    [helper("return this.B04;"), "return [h(s)];", /helper h uses this/],
    [helper("return evaluatePixel.length + p.B04;"), "return [h(s)];", /helper h refers to evaluatePixel/],
    [helper("keep = p; return 1;"), "return [h(s)];", /helper h uses the sample "p" other than reading/],
    [helper("return [1].map(() => p.B04)[0];"), "return [h(s)];", /a function inside helper h captures the sample "p"/],
    [helper("return p.B04 * k;", "p, k = 1"), "return [h(s)];", /helper h has a parameter with a default/],
    [helper("return 1;", ""), "return [h(s)];", /beyond its parameters/],
    [helper("return p.B04;", "p, q"), "return [h(s, s)];", /passes the sample twice to h/],
    [helper("return p.B04;"), "const a = []; return [h(...a, s)];", /spread argument/],
    ["", "return [Math.max(s)];", /passes the sample to something other than a named function/],
    ["", "var x = p.B04; var p = s; return [x];", /alias "p" before its declaration/],
    ["", "if (s.B04) { var p = s; } return [p.B08];", /uses the sample "s" other than reading/],
    ["", "let p = s; p = 2; return [p];", /uses the sample "p" other than reading/],
    ["", "const p = s; { let p = 1; } return [p];", /redeclares its sample "p"/],
    ["", "const { B04, ...rest } = s; return [B04];", /rest or computed keys/],
    [helper("return p.B04;"), "return [h([s, 1])];", /uses the sample "s" other than reading/],
    ["const ex = (p) => () => p.B04;", "return [ex(s)()];", /captures the sample "p"/],
    ["const ex = (p, k) => k ? p.B04 : () => 2;", "return [ex(s, 1)];", /arrow body ends with another arrow's body/],
    ["var re = function (p) { return p.B04; };\nre = null;", "return [re(s)];", /passed to re, which is not a top-level function/],
    ["const named = function inner(p) { return inner.length + p.B04; };", "return [named(s)];", /helper named refers to inner/],
    [helper("return p.length;"), "return [h([s])];", /helper h uses its sample list "p" other than as p\[0\]/],
    [helper("return p[1].B04;"), "return [h([s])];", /helper h uses its sample list "p" other than as p\[0\]/],
    [helper("return p[0] = 1;"), "return [h([s])];", /helper h uses the sample "p\[0\]" other than reading/],
    [helper("return p.B04 + q.length;", "p, q"), "return [h(s, scenes)];", /uses its parameter "scenes"/],
    [helper("return p.B04;"), "return [h(s, scenes), scenes.length];", /uses its parameter "scenes"/],
    [helper("return p.B04;"), "{ let scenes = []; return [h(s, scenes)]; }", /uses its parameter "scenes"/],
    [helper("return p.B04;"), "return [h(s, [scenes, 1])];", /uses its parameter "scenes"/],
  ])("%s / evaluatePixel: %s -> refused", (extra, body, why) => {
    const c = column(script(`function evaluatePixel(s, scenes) { ${body} }`, extra));
    expect("refused" in c && c.refused).toMatch(why);
  });

  it.each([
    ["function evaluatePixel(s) { return isCloud(s); }", /passed to isCloud, which is not a top-level function/],
    ["function evaluatePixel(s) { s.B04 = 1; return [s.B04]; }", /other than reading sample/],
    ["function evaluatePixel(s) { delete s.B04; return [1]; }", /other than reading sample/],
    ["function evaluatePixel(s) { return [s.B04.toFixed(2)]; }", /other than reading sample/],
    ["function evaluatePixel(s) { for (const x of s.B04) {} return [1]; }", /other than reading sample/],
    ["function evaluatePixel(s) { const k = 'B04'; return [s[k]]; }", /computed key/],
    ["function evaluatePixel(s) { return [s.toString]; }", /Object.prototype/],
    ["function evaluatePixel(s) { return [(() => s.B04)()]; }", /captures the sample/],
    ["function evaluatePixel(s) { return [this.x]; }", /uses this/],
    ["function evaluatePixel(s) { return [arguments.length]; }", /uses arguments/],
    ["function evaluatePixel(s, scenes) { return [scenes.length]; }", /parameter "scenes"/],
    ["function evaluatePixel(s, a, b, c, om) { om.userData = 1; return [1]; }", /parameter "om"/],
    ["function evaluatePixel(s) { return evaluatePixel.length; }", /refers to itself/],
    ["function evaluatePixel(s) { return [s.B04]; }\n({ evaluatePixel } = { evaluatePixel: (s) => [1] });", /assigned/],
    ["function evaluatePixel(s) { return [s.B04]; }\nif (true) { function evaluatePixel(s) { return [2]; } }", /more than once/],
    ["var evaluatePixel = function (s) { return [s.B04]; };", /not a top-level function declaration/],
    ["function evaluatePixel({ B04 = 0 }) { return [B04]; }", /defaults/],
    ["function evaluatePixel(s) { with (Math) { return [s.B04]; } }", /evaluatePixel uses with/],
    ["function evaluatePixel(s) { return [f()]; }\nfunction f() { return f.caller.arguments.length; }", /a function.s (caller|arguments) property/],
  ])("%s -> refused", (ep, why) => {
    const c = column(script(ep));
    expect("refused" in c && c.refused).toMatch(why);
  });
});

describe("accepted scripts give the general path's values, errors and budget stops", () => {
  const W = 32;
  let input: EvalInput;
  beforeAll(async () => {
    const bands = await rkhWindow(["B04", "B08"], 470, 60, W, W);
    const dataMask = ones(W * W);
    for (let i = 0; i < W; i++) dataMask[i] = 0;
    input = { width: W, height: W, scenes: [{ info: RKH_INFO, bands, dataMask }] };
  });
  /** Runs both paths (helpers.ts `run`) on a script that must have a column function (unless `refused`). */
  const both = (ep: string, extra = "", setup = SETUP, refused = false) => {
    const text = `//VERSION=3\n${setup}\n${ep}\n${extra}`;
    expect("bands" in compileEvalscript(text).column).toBe(!refused);
    return run(text, input);
  };

  it.each([
    // multiple outputs, object literal with arrays, comments and parentheses between values, NaN
    "function evaluatePixel(s) { return { default: [ /* a */ (s.B08 - s.B04) / (s.B08 + s.B04), (s.dataMask, s.B04) ], m: [s.dataMask ? 0.5 : NaN] }; }",
    // destructuring, implicit global state carried from pixel to pixel, a band not requested (undefined)
    "function evaluatePixel({ B04, B08, B11 }) { k = (k || 0) + 1; return { default: [k * B04, B11], m: [B08 > 0.3] }; }",
    // literals in the branches of a conditional return, one of them a wrong band count on some pixels
    "function evaluatePixel(s) { const n = index(s.B08, s.B04); return n < 0.1 ? { default: [1, n], m: [s.dataMask] } : { default: n > 0.5 ? [0.2, n] : [n], m: [0] }; }",
    // a single number for a 2-band output: the same TypeError from both paths
    "function evaluatePixel(s) { return s.B04 > 0.2 ? { default: [s.B04, 1], m: [1] } : 3; }",
  ])("%s", async (ep) => {
    await both(ep).catch((e: Error) => expect(e.message).toMatch(/evaluatePixel (must return|returned)/));
  });

  it("an error part-way through the literal names the same user line, column and pixel", async () => {
    const e = await both("function evaluatePixel(s) {\n  return { default: [s.B04, s.B08 > 0.35 ? nope.x : 1], m: [1] };\n}").catch((x: Error) => x);
    expect((e as Error).message).toMatch(/ReferenceError: nope is not defined at line 4, column 44 \(evaluatePixel, output pixel column \d+, row \d+\)/);
  });

  const HELPERS = [
    "function cloud(p, t) { calls++; let c = 0; for (let i = 0; i < 3; i++) c += p.B04 > t * i ? 1 : 0; return c + twice(p); }",
    "function twice(q) { const { B08 } = q; return q.B04 * 2 + B08; }",
    "var calls = 0;",
  ].join("\n");

  it.each([
    // helpers (nested, extra parameters, loops, state), an alias and a destructuring declaration
    "function evaluatePixel(s) { const a = s; let { dataMask, B08: nir } = s; return { default: [cloud(a, 0.1), calls], m: [dataMask ? twice(s) - nir : NaN] }; }",
    // the helper also called with a plain object (the original runs there)
    "function evaluatePixel(s) { return { default: [cloud(s, 0.2), cloud({ B04: 1, B08: 2 }, 0.2)], m: [1] }; }",
  ])("%s", async (ep) => {
    await both(ep, HELPERS);
  });

  it("a helper calling itself by name with another object: refused (in a copy the name would be the copy)", async () => {
    await both("function evaluatePixel(s) { return { default: [self(s, 1), 1], m: [1] }; }", "function self(p, n) { return n ? self({ B04: 1 }, 0) + p.B04 : p.B04; }", SETUP, true);
  });

  it("Sentinel Hub's V2-to-V3 wrapper, with an error part-way in the wrapped function", async () => {
    const ep = "function evaluatePixel(s, scene, m, c, om) { const r = orig([s], [scene], m, c, om); return r[Object.keys(r)[0]]; }";
    const setup = `function setup() { return { input: ["B04", "B08"], output: { bands: 2, sampleType: "FLOAT32" } }; }`;
    await both(ep, ORIG, setup);
    const e = await both(ep, ORIG.replace("samples[0].B08]", "samples[0].B08 > 0.35 ? nope : 1]"), setup).catch((x: Error) => x);
    expect((e as Error).message).toMatch(/ReferenceError: nope is not defined at line 4, column \d+ \(evaluatePixel, in orig, output pixel/);
  });

  it("helpers declared as variables: values, and an error naming the function expression", async () => {
    const setup = `function setup() { return { input: ["B02", "B05", "B04"], output: { bands: 2, sampleType: "FLOAT32" } }; }`;
    await both("function evaluatePixel(s) { return [ar(s), fe(s) + ex(2, s).v]; }", VARS, setup);
    await both("function evaluatePixel(s) { return [ex(1, s).v, ex(0, s).v]; }", VARS, setup);
    // an arrow inside the expression body, ending before it
    await both("function evaluatePixel(s) { return [ex2(s, (f) => f()), 1]; }", "const ex2 = (p, q) => p.B04 + q(() => 1);", setup);
    // a body that is one sample read (a replacement from the body's first to its last character)
    await both("function evaluatePixel(s) { return [bare(s), 1]; }", "var bare = (p) => p.B04;", setup);
    const e = await both("function evaluatePixel(s) { return [ar(s), fe(s)]; }", VARS.replace("p.B05 + 1", "p.B05 + (p.B04 > 0.2 ? nope : 1)"), setup).catch((x: Error) => x);
    expect((e as Error).message).toMatch(/ReferenceError: nope is not defined at line 6, column \d+ \(evaluatePixel, in named, output pixel/);
  });

  it("an error inside a helper names the helper and the same user line, column and pixel", async () => {
    const e = await both("function evaluatePixel(s) {\n  return { default: [h(s), 1], m: [1] };\n}", "function h(p) {\n  return p.B08 > 0.35 ? nope.x : p.B04;\n}").catch((x: Error) => x);
    expect((e as Error).message).toMatch(/ReferenceError: nope is not defined at line 7, column 25 \(evaluatePixel, in h, output pixel column \d+, row \d+\)/);
  });

  it("an endless loop inside a helper ends in the same 400", async () => {
    const e = await both("function evaluatePixel(s) { return { default: [h(1, s), 1], m: [1] }; }", "function h(k, p) { while (p.B04 >= 0) {} return k; }").catch((x: Error) => x);
    expect((e as Error).message).toMatch(/stopped at line 4, column 20 \(evaluatePixel, in h,/);
  });

  it("an endless loop inside evaluatePixel ends in the same 400", async () => {
    const e = await both("function evaluatePixel(s) { while (s.B04 >= 0) {} return { default: [1, 1], m: [1] }; }").catch((x: Error) => x);
    expect((e as Error).message).toMatch(/stopped at line 3, column 29 \(evaluatePixel/);
  });
});

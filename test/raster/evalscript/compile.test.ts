/**
 * Validation and compilation: version header, syntax errors with the user's line:column, V1 bodies, missing
 * functions, and instrumentation that keeps lines and maps columns back. All 30 real scripts compile (except
 * the V1-bodied ndyi).
 */
import { describe, expect, it } from "vitest";
import { parse } from "acorn";
import { thrown, type RenderedEngineError } from "../../helpers/engine";
import { compileEvalscript } from "../../../src/raster/evalscript";
import { bindableGlobals, scanNames } from "../../../src/raster/evalscript/compile/globals";
import { instrument } from "../../../src/raster/evalscript/compile/instrument";
import { LIBRARY_NAMES } from "../../../src/raster/evalscript/sandbox/library";
import { script } from "./helpers";

const BODY = `
function setup() { return { input: ["B04"], output: { bands: 1 } }; }
function evaluatePixel(s) { return [s.B04]; }`;

function compileError(source: string): RenderedEngineError {
  return thrown(() => compileEvalscript(source));
}

const ALL = [
  "agriculture_growth_stage__script",
  "barren_soil__script",
  "burned_area__script",
  "cab__script",
  "cloud_statistics__script",
  "cloudless_mosaic__L2A-first_quartile_4bands",
  "evi__eob",
  "evi__raw",
  "evi__script",
  "false-color-urban-rgb__script",
  "fire_boundary__fire_boundary_script",
  "fire_boundary__script",
  "forest_cut_temporal_detection__script",
  "l2a_optimized__script",
  "landslide_detection_rapid_mapping__script",
  "max_ndvi__script",
  "monthly_composite__script",
  "ndmi__eob",
  "ndsi__script",
  "ndvi__eob",
  "ndvi__raw",
  "ndvi__script",
  "ndvi_difference__script",
  "ndwi__eob",
  "ndwi__raw",
  "ndwi__script",
  "scene-classification__script",
  "simple_water_bodies_mapping-swbm__script",
  "true_color__script",
];

describe("version header", () => {
  it.each([
    ["//VERSION=3" + BODY],
    ["//VERSION=3.Landslide_detection.UNSPIDER" + BODY],
    ["//VERSION=3 (auto-converted from 1)" + BODY],
    ["  //VERSION=3  \r\n" + BODY],
    ["\uFEFF\n\n//VERSION=3" + BODY],
  ])("accepts %j", (src) => {
    expect(compileEvalscript(src).code).toContain("evaluatePixel");
  });

  it.each([["//VERSION=2" + BODY], ["//VERSION=30" + BODY], ["// VERSION=3" + BODY], [BODY], ["//version=3" + BODY]])(
    "rejects %j",
    (src) => {
      const e = compileError(src);
      expect([e.kind, e.status, e.code]).toEqual(["unsupported", 400, "COMMON_BAD_PAYLOAD"]);
      expect(e.message).toMatch(/first line must be \/\/VERSION=3/);
    },
  );

  it("rejects an empty script", () => {
    expect(compileError("  \n").message).toMatch(/empty/);
    expect(compileError("  \n").kind).toBe("invalid-argument");
  });
});

describe("syntax errors", () => {
  it("names the user's line and column", () => {
    const e = compileError(
      '//VERSION=3\nfunction setup() {\n  return { input: ["B04"], output: { bands: 1 } };\n}\nfunction evaluatePixel(s) {\n  return [s.B04 * ];\n}',
    );
    expect(e.message).toMatch(/^Evalscript syntax error at line 6, column 19: Unexpected token/);
    expect(e.errors).toEqual({ line: 6, column: 19, message: "Unexpected token" });
    expect([e.kind, e.status, e.code]).toEqual(["script-syntax", 400, "COMMON_BAD_PAYLOAD"]);
  });

  it("explains the V1-bodied ndyi script", async () => {
    const e = compileError(await script("sentinel-2__ndyi__script.js"));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/line 10, column 3: 'return' outside of function/);
    expect(e.message).toMatch(/version 1 script/);
    expect(e.message).toMatch(/must define setup\(\) and evaluatePixel\(sample\)/);
  });

  it("requires evaluatePixel and setup", () => {
    expect(compileError("//VERSION=3\nfunction setup() { return {}; }").message).toMatch(
      /does not define evaluatePixel\(\)/,
    );
    expect(compileError("//VERSION=3\nfunction setup() { return {}; }").kind).toBe("invalid-argument");
    expect(compileError("//VERSION=3\nfunction evaluatePixel(s) { return [1]; }").message).toMatch(
      /does not define setup\(\)/,
    );
  });
});

describe("real scripts", () => {
  it.each(ALL)("compiles sentinel-2__%s", async (name) => {
    const c = compileEvalscript(await script(`sentinel-2__${name}.js`));
    // the user's lines keep their numbers (the wrapper's suffix adds two line breaks)
    expect(c.code.split("\n").length).toBe(c.source.split(/\r\n|\r|\n/).length + 2);
  });
});

describe("instrumentation", () => {
  const src = [
    "//VERSION=3",
    "function f(a) { 'use strict'; let n = 0; while (a > 0) a--; for (;;) { if (n++ > 3) break; } return n; }",
    "const g = (x) => x * 2, h = () => ({ k: 1 });",
    "do n++; while (n < 2)",
    "for (const k in { a: 1 }) for (const v of [1]) n += v;",
  ].join("\n");

  it("guards every loop and function without adding lines", () => {
    const { code } = instrument(src, parse(src, { ecmaVersion: "latest" }), "P;", "", { counter: "k", stop: "s" });
    const lines = code.split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe("P;//VERSION=3");
    expect(lines[1]).toContain("{ 'use strict';if(--k<0)s(); let n");
    expect(lines[1]).toContain("while (a > 0) {if(--k<0)s();a--;}");
    expect(lines[2]).toBe("const g = (x) => (--k<0&&s(),x * 2), h = () => ((--k<0&&s(),{ k: 1 }));");
    expect(lines[3]).toBe("do {if(--k<0)s();n++;} while (n < 2)");
    expect((lines[4]!.match(/s\(\)/g) ?? []).length).toBe(2);
    expect(() => parse(code, { ecmaVersion: "latest" })).not.toThrow();
  });

  it("maps generated columns back to the user's columns", () => {
    const { code, map } = instrument(src, parse(src, { ecmaVersion: "latest" }), "P;", "", { counter: "k", stop: "s" });
    const line = code.split("\n")[2]!;
    const col = line.indexOf("x * 2") + 1;
    expect(map.toUser(3, col)).toEqual({ line: 3, column: src.split("\n")[2]!.indexOf("x * 2") + 1 });
    // inside an inserted tick: the start of the guarded loop
    const tickCol = code.split("\n")[3]!.indexOf("s()") + 1;
    expect(map.toUser(4, tickCol)).toEqual({ line: 4, column: 1 });
    expect(map.toUser(1, 3)).toEqual({ line: 1, column: 1 });
  });
});

describe("globals bound as locals", () => {
  it("binds used builtins, library names and implicit globals, not declared or unknown read-only names", () => {
    const src = [
      "//VERSION=3",
      "function setup() { return { input: ['B04'], output: { bands: 1 } }; }",
      "function colorBlend(v) { return v; }",
      "function evaluatePixel(s) { for (i = 0; i < 2; i++) total += Math.abs(index(s.B04, B08)); return [colorBlend(total), s.Math]; }",
    ].join("\n");
    const program = parse(src, { ecmaVersion: "latest" });
    expect(bindableGlobals(scanNames(program), LIBRARY_NAMES)).toEqual(["Math", "i", "index", "total"]);
    const code = compileEvalscript(src).code;
    const g = /const (__eo\$[0-9a-f]{16}g)=globalThis/.exec(code)![1];
    expect(code.split("\n")[0]).toContain(
      `{var Math=${g}.Math,i=${g}.i,index=${g}.index,total=${g}.total;return function(){`,
    );
  });
});

/**
 * Globals that pixel code writes (src/raster/evalscript/hostpath statements.ts pixelGlobals): a pixel may read
 * such a global only after writing it, else it would see the previous pixel's value and the script runs in the
 * sandbox. Every script runs on both evaluators (./differential.ts) and must agree bit for bit, errors included;
 * each case states which path it takes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { SceneData } from "../../../src/raster/evalscript/types";
import { differential, rkhScene, W } from "./differential";

const SETUP = `function setup(){return {input:["B04","B08","SCL","dataMask"],output:{bands:3}}}`;

describe("globals written by pixel code: host path against the sandbox", () => {
  let scene: SceneData;
  beforeAll(async () => {
    scene = await rkhScene();
  }, 120_000);
  const run = (body: string) =>
    differential(`//VERSION=3\n${SETUP}\n${body}`, { width: W, height: W, scenes: [scene] });

  it("written before read on every path: the host path", async () => {
    // a top-level var, an undeclared (sloppy-mode) global, one written in a helper, an array, a let, a counter
    const body = `var nr, vis = [0, 0, 0];
let k = 3;
function pick(s) { band = s.B08; return band; }
function evaluatePixel(s) {
  nr = pick(s); u = s.B04 * 2; k = 0.5; vis = [u, nr, k];
  if (s.SCL === 4) { u = 1; } else { u = 0; }
  n = 0; n++; n += 2;
  return [vis[0] + u, vis[1] * n, index(nr, s.B04) * k];
}`;
    expect(await run(body)).toBe(true);
  });

  it.each([
    [
      "read before written",
      "var g = 1;\nfunction evaluatePixel(s){ const x = g; g = s.B04; return [x, g, 0]; }",
      /g read before/,
    ],
    [
      "written on some pixels only",
      "var g;\nfunction evaluatePixel(s){ if (s.B04 > 0.1) g = 2; return [g, 0, 0]; }",
      /g read before/,
    ],
    ["a counter across pixels", "var c = 0;\nfunction evaluatePixel(s){ c++; return [c, 0, 0]; }", /c read before/],
    [
      "a top-level const assigned",
      "const C = 1;\nfunction evaluatePixel(s){ C = 2; return [C, 0, 0]; }",
      /C, a constant/,
    ],
    [
      "a local const assigned",
      "function evaluatePixel(s){ const c = 1; c = s.B04; return [c, 0, 0]; }",
      /c, a constant/,
    ],
    [
      "a library global assigned",
      "function evaluatePixel(s){ index = 1; return [index, 0, 0]; }",
      /index, a constant or a global/,
    ],
  ])("%s: the sandbox", async (_what, body, reason) => {
    expect(await run(body)).toMatch(reason);
  });
});

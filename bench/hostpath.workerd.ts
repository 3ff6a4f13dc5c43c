/**
 * The host path's evaluation alone, in workerd: the four scripts of the processing section's eval rows (NDVI and
 * true colour, UINT8 / AUTO and FLOAT32, bench/bench-processing.mjs) and its floor ([0] over B04 + B08), each
 * evaluated (HostPathRuntime.evaluate, converted as for encoding) over a 1024 x 1024 window of the 29RKH scene,
 * HOSTPATH_ROUNDS rounds (default 40) of 5 evaluations per script in turn; prints the median and the least round
 * (ms per evaluation, workerd's clock moves in whole ms) and the median's Mpx/s. A benchmark, not a test: run it with
 * `npm run bench:transfer -- bench/hostpath.workerd.ts` (timings are printed, never asserted).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { compileEvalscript, loadEvalscript } from "../src/raster/evalscript";
import { HostPathRuntime } from "../src/raster/evalscript/hostpath/runtime";
import { RKH_INFO, ones, rkhWindow } from "../test/raster/evalscript/helpers";

const SCRIPTS: Record<string, string> = {
  "NDVI UINT8": `//VERSION=3
function setup(){return {input:["B04","B08","dataMask"],output:{bands:4}}}
function evaluatePixel(s){let n=(s.B08-s.B04)/(s.B08+s.B04);return n<0.1?[1,0.8,0.2,s.dataMask]:[0.2,0.6,0.2,s.dataMask]}`,
  "true colour UINT8": `//VERSION=3
function setup(){return {input:["B02","B03","B04","dataMask"],output:{bands:4}}}
function evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02,s.dataMask]}`,
  "NDVI FLOAT32": `//VERSION=3
function setup(){return {input:["B04","B08"],output:{bands:1,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return (s.B08-s.B04)/(s.B08+s.B04)}`,
  "true colour FLOAT32": `//VERSION=3
function setup(){return {input:["B02","B03","B04"],output:{bands:3,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02]}`,
  "floor [0]": `//VERSION=3
function setup(){return {input:["B04","B08"],output:{bands:1,sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [0]}`,
};
const W = 1024;
const ROUNDS = Number(process.env.HOSTPATH_ROUNDS ?? 40);

describe("host path evaluation, 1024 x 1024", () => {
  it("times each script", async () => {
    const bands = await rkhWindow(["B02", "B03", "B04", "B08"], 0, 0, W, W);
    const input = { width: W, height: W, scenes: [{ info: RKH_INFO, bands, dataMask: ones(W * W) }], convert: true };
    const rows = await Promise.all(
      Object.entries(SCRIPTS).map(async ([name, text]) => {
        const runtime = await loadEvalscript(env, compileEvalscript(text));
        expect(await (runtime as HostPathRuntime).hostPath()).toBe(true);
        return { name, runtime, ms: [] as number[] };
      }),
    );
    for (let r = 0; r < ROUNDS + 1; r++)
      for (const row of rows) {
        const t = performance.now();
        for (let i = 0; i < 5; i++) await row.runtime.evaluate(input);
        if (r > 0) row.ms.push((performance.now() - t) / 5); // round 0 warms up
      }
    for (const { name, ms } of rows) {
      const median = [...ms].sort((a, b) => a - b)[ms.length >> 1]!;
      const least = Math.min(...ms);
      console.log(
        `${name}: median ${median.toFixed(2)} ms (${((W * W) / 1e3 / median).toFixed(1)} Mpx/s), least ${least.toFixed(2)}`,
      );
    }
  }, 600_000);
});

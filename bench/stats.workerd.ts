/**
 * The Statistical API's engine stages in workerd, no server: bench/bench-stats-engine.mjs's request (the NDVI + SCL
 * script over 29RKH, 1098 x 1098, 3 strips) through the host path's evaluateRows into the reducers' sink (the first
 * pass included, as the server runs it) and the rest of the reduction, timed apart
 * (that one runs them in node, whose V8 optimises some loops differently). workerd's clock moves only at I/O, so
 * each timed call ends at one (a SAMPLE_DATA fetch) and the means of K calls resolve fractions of a millisecond.
 * A benchmark, not a test: `EO_EDGE_VITEST=bench npx vitest run bench/stats.workerd.ts` (medians of 10 rounds of K).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { compileEvalscript } from "../src/raster/evalscript";
import { HostPathRuntime } from "../src/raster/evalscript/hostpath/runtime";
import { SANDBOX_BLOCK_BYTES } from "../src/raster/memory";
import { reduceEvaluation, reducingSink } from "../src/stats/reduce";
import { window } from "../test/helpers/raster";
import { RKH, upsample2 } from "../test/raster/evalscript/helpers";
import { stripInput } from "./lib/stats-strips.mjs";

const W = 1098;
const SCRIPT = await (await env.SAMPLE_DATA.fetch("http://data/fixtures/statistics/ndvi_scl.js")).text();
const CALC = {
  ndvi: { statistics: { default: { percentiles: { k: [1, 50, 99] } } }, histograms: { default: { nBins: 20 } } },
};
const LIMITS = { perCall: 2e7, totalBase: 1e9, totalPerSample: 2000, outputBands: 1e6, outputBytes: 1e12 };

describe("statistics engine in workerd", () => {
  it("prints eval and reduce ms", async () => {
    const b04 = await window(`${RKH}/B04.tif`, 0, 0, 0, W, W);
    const b08 = await window(`${RKH}/B08.tif`, 0, 0, 0, W, W);
    const scl = upsample2(await window(`${RKH}/SCL.tif`, 0, 0, 0, W / 2, W / 2), W / 2, W / 2);
    const B04 = b04.map((v) => v / 10000);
    const B08 = b08.map((v) => v / 10000);
    const MASK = Uint8Array.from(b04, (v, i) => (v !== 0 && b08[i] !== 0 ? 1 : 0));
    const rt = new HostPathRuntime({ compiled: compileEvalscript(SCRIPT) } as never, "bench-stats", LIMITS);
    const setup = await rt.setup();
    expect(await rt.hostPath()).toBe(true);
    const { input, load } = stripInput(W, SANDBOX_BLOCK_BYTES, { mask: MASK, b04: B04, b08: B08, scl });
    const tick = async () => (await env.SAMPLE_DATA.fetch("http://data/none")).arrayBuffer();
    const REPS = 10;
    const K = 5;
    const ev: number[] = [],
      red: number[] = [];
    let last = "";
    for (let r = 0; r < REPS + 2; r++) {
      let te = 0,
        tr = 0;
      for (let k = 0; k < K; k++) {
        await tick();
        const t0 = performance.now();
        const reducing = reducingSink(setup, null, CALC as never, W * W)!;
        const result = await rt.evaluateRows(input as never, load as never, reducing.sink);
        await tick();
        const t1 = performance.now();
        const out = result.sunk ? reducing.finish() : reduceEvaluation(setup, result, null, CALC as never, true);
        await tick();
        const t2 = performance.now();
        te += t1 - t0;
        tr += t2 - t1;
        last = JSON.stringify(out);
      }
      if (r >= 2) ev.push(te / K), red.push(tr / K);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    console.log(
      `workerd: eval ${med(ev).toFixed(2)} ms, reduce ${med(red).toFixed(2)} ms (medians of ${REPS} x ${K})\n${last.slice(0, 400)}`,
    );
  }, 300_000);
});

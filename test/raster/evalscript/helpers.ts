/**
 * Helpers of the evalscript tests: real scripts from data/evalscripts, real pixel windows read with geotiff.js
 * from data/ (via the SAMPLE_DATA binding), and a one-call runner over the real Worker Loader.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { window } from "../../helpers/raster";
import {
  compileEvalscript,
  loadEvalscript,
  type EvalInput,
  type EvalResult,
  type EvalscriptRuntime,
  type SceneInfo,
} from "../../../src/raster/evalscript";
import type { RuntimeLimits } from "../../../src/raster/evalscript/host/runtime";
import { sampleFile } from "../../helpers/seed";

/** Text of a real evalscript in data/evalscripts. */
export async function script(name: string): Promise<string> {
  return new TextDecoder().decode(await sampleFile(`evalscripts/${name}`));
}

/**
 * Compiles and loads a script (text or data/evalscripts file name ending in .js). Its evaluations run twice,
 * through the default runtime (the host path where the script has one, ../../../src/raster/evalscript/hostpath)
 * and through the sandbox (forced), and must agree bit for bit
 * (values, stored types, userData, or the same error): see {@link bothPaths}.
 */
export async function load(source: string, limits?: Partial<RuntimeLimits>): Promise<EvalscriptRuntime> {
  const text = source.endsWith(".js") && !source.includes("\n") ? await script(source) : source;
  const compiled = compileEvalscript(text);
  return bothPaths(
    await loadEvalscript(env, compiled, limits),
    await loadEvalscript(env, compiled, limits, "", { sandbox: true }),
  );
}

/** The outcome of an evaluation: its result or the error it threw. */
async function outcome(p: Promise<EvalResult>): Promise<{ result?: EvalResult; error?: unknown }> {
  try {
    return { result: await p };
  } catch (error) {
    return { error };
  }
}

/**
 * Index of the first element where two typed arrays differ bit for bit, or -1. NaNs count as equal whatever
 * their sign and payload bits: the sign of a computed NaN depends on the JIT tier that ran the pixel (measured on
 * the sandbox alone: `[2.5 * (0 / 0), ..]` over 65536 pixels gave 1042 positive NaNs on the first, still
 * interpreted, evaluation and none on the next ones), so those bits are not deterministic even on one path.
 */
function firstDifference(a: ArrayBufferView, b: ArrayBufferView): number {
  const words = a instanceof Float32Array;
  const u = words
    ? new Uint32Array(a.buffer, a.byteOffset, a.byteLength >> 2)
    : new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const v = words
    ? new Uint32Array(b.buffer, b.byteOffset, b.byteLength >> 2)
    : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  const x = a as Float32Array;
  const y = b as Float32Array;
  if (u.length !== v.length) return Math.min(u.length, v.length);
  for (let i = 0; i < u.length; i++)
    if (u[i] !== v[i] && !(words && Number.isNaN(x[i]) && Number.isNaN(y[i]))) return i;
  return -1;
}

/** Throws unless two outcomes are the same: equal errors, or outputs equal bit for bit and equal userData. */
export function expectSameOutcome(
  a: { result?: EvalResult; error?: unknown },
  b: { result?: EvalResult; error?: unknown },
  what = "",
): void {
  if (a.error || b.error) {
    // where V8 runs out of stack (which call, which frame) depends on the frames below, as on one path
    // from one run to the next: the position is not compared, the pixel is
    const deep = /Maximum call stack size exceeded/.test(String(a.error));
    const norm = (e: unknown) =>
      deep ? String(e).replace(/at line \d+, column \d+ \([^,]*,( in [^,]*,)?/, "at (") : String(e);
    // the details of a stack overflow list one entry per error ({stage, function?, line, column, pixel}): their
    // positions are left out entry by entry, as in the message (spreading the list blanked only top-level keys)
    const position = ({ line: _l, column: _c, function: _f, ...rest }: Record<string, unknown>) => rest;
    const details = (e: unknown) => {
      const d = (e as { details?: object })?.details;
      if (!deep) return { ...d };
      return Array.isArray(d) ? d.map((x: Record<string, unknown>) => position(x)) : position({ ...d });
    };
    expect(norm(b.error), `${what} error of the second runtime`).toBe(norm(a.error));
    expect(details(b.error), what).toEqual(details(a.error));
    return;
  }
  const [x, y] = [a.result!, b.result!];
  expect(Object.keys(y.outputs), what).toEqual(Object.keys(x.outputs));
  for (const [id, o] of Object.entries(x.outputs)) {
    const g = y.outputs[id]!;
    expect(
      { ...g, values: g.values.constructor.name, stored: g.stored?.constructor.name },
      `${what} output ${id}`,
    ).toEqual({ ...o, values: o.values.constructor.name, stored: o.stored?.constructor.name });
    for (const k of ["values", "stored"] as const) {
      const [u, v] = [o[k], g[k]];
      if (!u || !v) continue;
      const at = firstDifference(u, v);
      expect(at, `${what} output ${id}.${k}: first difference at ${at} (${u[at]} vs ${v[at]})`).toBe(-1);
    }
  }
  expect(y.userData, `${what} userData`).toEqual(x.userData);
}

/** A runtime whose evaluations run on `main` (the default runtime) and on `sandbox` and are compared (expectSameOutcome). */
function bothPaths(main: EvalscriptRuntime, sandbox: EvalscriptRuntime): EvalscriptRuntime {
  const compare = async (run: (rt: EvalscriptRuntime) => Promise<EvalResult>): Promise<EvalResult> => {
    const a = await outcome(run(main));
    expectSameOutcome(a, await outcome(run(sandbox)));
    if (a.error) throw a.error;
    return a.result!;
  };
  return {
    compiled: main.compiled,
    setup: () => main.setup(),
    preProcessScenes: (...args) => main.preProcessScenes(...args),
    evaluate: (input) => compare((rt) => rt.evaluate(input)),
    evaluateRows: (input, loadRows) => compare((rt) => rt.evaluateRows(input, loadRows)),
  };
}

/** Runs a whole evaluation: setup, evaluate. */
export async function run(source: string, input: EvalInput, limits?: Partial<RuntimeLimits>): Promise<EvalResult> {
  const rt = await load(source, limits);
  await rt.setup();
  return rt.evaluate(input);
}

export { window };

/** Nearest-neighbour 2x upsampling (20 m band onto a 10 m grid). */
export function upsample2(a: Float32Array, w: number, h: number): Float32Array {
  const out = new Float32Array(4 * w * h);
  for (let y = 0; y < 2 * h; y++) for (let x = 0; x < 2 * w; x++) out[y * 2 * w + x] = a[(y >> 1) * w + (x >> 1)]!;
  return out;
}

export const scale = (a: Float32Array, f: number): Float32Array => a.map((v) => v * f);
export const ones = (n: number): Uint8Array => new Uint8Array(n).fill(1);

/** The 29RKH L2A scene (2020-02-19, baseline 02.14: reflectance = DN / 10000), on its 200 m (549 px) grid. */
export const RKH = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A";
const RKH_10M = new Set(["B02", "B03", "B04", "B08"]);

/** Bands of a RKH window in reflectance (SCL as class numbers), 10 m bands from their 200 m overview. */
export async function rkhWindow(
  bands: string[],
  x0: number,
  y0: number,
  w: number,
  h: number,
): Promise<Record<string, Float32Array>> {
  const out: Record<string, Float32Array> = {};
  for (const b of bands) {
    const v = await window(`${RKH}/${b}.tif`, RKH_10M.has(b) ? 1 : 0, x0, y0, w, h);
    out[b] = b === "SCL" ? v : scale(v, 1 / 10000);
  }
  return out;
}

export const RKH_INFO: SceneInfo = {
  id: "S2A_29RKH_20200219_0_L2A",
  date: "2020-02-19T11:34:25Z",
  cloudCoverage: 4.05,
};

/** West Flanders 64x64 time series (19 dates, DN, baseline 02.06 so no offset). */
export const WF_DATES = [
  "2017-08-24",
  "2017-09-26",
  "2017-11-02",
  "2018-01-16",
  "2018-02-25",
  "2018-03-25",
  "2018-04-11",
  "2018-04-14",
  "2018-04-16",
  "2018-04-19",
  "2018-04-21",
  "2018-04-26",
  "2018-05-24",
  "2018-06-25",
  "2018-07-15",
  "2018-08-07",
  "2018-09-01",
  "2018-10-13",
  "2018-11-17",
];

/** Scene records of the West Flanders dates, most recent first (Sentinel Hub's order). */
export function wfInfos(): SceneInfo[] {
  return [...WF_DATES].reverse().map((d) => ({ id: `wf-${d}`, date: `${d}T10:50:00Z`, cloudCoverage: 1 }));
}

/** DN bands of one West Flanders date (SCL upsampled to 10 m), dataMask from B04's nodata 0. */
export async function wfScene(
  date: string,
  bands: string[],
): Promise<{ bands: Record<string, Float32Array>; dataMask: Uint8Array }> {
  const out: Record<string, Float32Array> = {};
  for (const b of bands) {
    const path = `sentinel-2-l2a/westflanders/${date}/${b}.tif`;
    out[b] = b === "SCL" ? upsample2(await window(path, 0, 0, 0, 32, 32), 32, 32) : await window(path, 0, 0, 0, 64, 64);
  }
  const b04 = out.B04 ?? (await window(`sentinel-2-l2a/westflanders/${date}/B04.tif`, 0, 0, 0, 64, 64));
  return { bands: out, dataMask: Uint8Array.from(b04, (v) => (v === 0 ? 0 : 1)) };
}

/** Sentinel Hub's documented index(): (a - b) / (a + b), 0 when a + b is 0. */
export const nd = (a: number, b: number): number => (a + b !== 0 ? (a - b) / (a + b) : 0);

/** Float32 rounding of a double, for comparisons with Float32Array outputs. */
export const f32 = (v: number): number => Math.fround(v);

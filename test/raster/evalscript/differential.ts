/**
 * The differential harness of the host path tests (hostpath.test.ts, hostpath-ramps.test.ts): a 64x64 window of
 * the 29RKH L2A scene with a no-data strip and a few NaN / Infinity / -0 values in B12, and `differential`, which
 * runs a script through the host path and through the sandbox (forced with `sandbox: true`), raw and converted
 * to its stored sample types, and expects the same outcome bit for bit (helpers.ts expectSameOutcome).
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import {
  compileEvalscript,
  loadEvalscript,
  type EvalInput,
  type EvalResult,
  type EvalscriptRuntime,
  type SceneData,
} from "../../../src/raster/evalscript";
import { HostPathRuntime } from "../../../src/raster/evalscript/hostpath/runtime";
import { clmFromScl, sceneAngles } from "../../../src/pipeline/bands";
import { sampleItems } from "../../helpers/seed";
import { expectSameOutcome, rkhWindow, RKH_INFO } from "./helpers";

/** Width and height of the window, and its pixels. */
export const W = 64;
const N = W * W;
const BANDS = ["B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B09", "B11", "B12", "SCL"];

/** The window (bands, CLM and the scene's angles), read once per test file (call it in beforeAll). */
export async function rkhScene(): Promise<SceneData> {
  const bands = await rkhWindow(BANDS, 440, 40, W, W);
  const dataMask = new Uint8Array(N).fill(1);
  for (let i = 0; i < N; i++) if (i % W < 5) dataMask[i] = 0; // a no-data strip, band values 0 as the pipeline gives
  for (const v of Object.values(bands)) for (let i = 0; i < N; i++) if (!dataMask[i]) v[i] = 0;
  const specials = [NaN, Infinity, -Infinity, -0, 1e-45, 3.4e38];
  specials.forEach((x, k) => (bands.B12![W * 10 + 20 + k] = x));
  bands.CLM = clmFromScl(bands.SCL!, dataMask);
  const item = (await sampleItems()).find((i) => i.id === RKH_INFO.id)!;
  for (const [k, v] of Object.entries(sceneAngles(item))) bands[k] = new Float32Array(N).fill(v);
  return { info: RKH_INFO, bands, dataMask };
}

/** The result of an evaluation, or the error it threw. */
export async function outcome(p: Promise<EvalResult>): Promise<{ result?: EvalResult; error?: unknown }> {
  try {
    return { result: await p };
  } catch (error) {
    return { error };
  }
}

/**
 * Runs `text` over `input` on both evaluators (setup, then evaluate raw and converted) and expects the same
 * outcomes; returns true when the host path took the script, else why not (HostPathRuntime.hostPath).
 */
export async function differential(text: string, input: EvalInput): Promise<true | string> {
  const compiled = compileEvalscript(text);
  const host = await loadEvalscript(env, compiled);
  const sandbox = await loadEvalscript(env, compiled, {}, "", { sandbox: true });
  expect(host).toBeInstanceOf(HostPathRuntime);
  const setup = await outcome(host.setup().then(() => ({ outputs: {} })));
  expectSameOutcome(setup, await outcome(sandbox.setup().then(() => ({ outputs: {} }))), "setup");
  if (setup.error) return "setup fails";
  for (const convert of [false, true]) {
    const run = (rt: EvalscriptRuntime) => outcome(rt.evaluate({ ...input, convert }));
    expectSameOutcome(await run(sandbox), await run(host), `${convert ? "stored" : "raw"}:\n${text}\n`);
  }
  return (host as HostPathRuntime).hostPath();
}

/**
 * Checks of an evaluation's input shared by both evaluators (the sandbox's, runtime.ts, and the host path's,
 * ../hostpath/runtime.ts).
 */
import { invalidArgument } from "../../errors";
import { mosaickingByDatasource } from "./setup";
import type { EvalInput, EvalSetup, SceneData } from "../types";

/**
 * Validates EvalInput; SIMPLE without scenes gets an empty pseudo-scene (no data anywhere), except with data
 * fusion, where a datasource without scenes gets no sample (`samples.<id>` is empty).
 */
export function checkInput(input: EvalInput, setup: EvalSetup): SceneData[] {
  const { width, height } = input;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw invalidArgument(`Output width and height must be positive integers, got ${width}x${height}.`);
  }
  const n = width * height;
  for (const s of input.scenes) {
    if (s.dataMask.length !== n)
      throw new Error(`evalscript: dataMask of scene ${s.info.id} has ${s.dataMask.length} values, expected ${n}`);
    for (const [b, a] of Object.entries(s.bands)) {
      if (a.length !== n)
        throw new Error(`evalscript: band ${b} of scene ${s.info.id} has ${a.length} values, expected ${n}`);
    }
  }
  const by = mosaickingByDatasource(setup);
  const simple = input.scenes.filter(
    (s) => (s.datasource === undefined ? setup.mosaicking : by[s.datasource]) === "SIMPLE",
  );
  if (new Set(simple.map((s) => s.datasource)).size < simple.length) {
    throw new Error("evalscript: SIMPLE mosaicking takes one mosaicked scene (per datasource)");
  }
  if (input.scenes.length > 0 || setup.mosaicking !== "SIMPLE" || isFusion(setup)) return input.scenes;
  const date = input.timeRange?.to ?? new Date().toISOString();
  return [{ info: { id: "empty", date }, bands: {}, dataMask: new Uint8Array(n) }];
}

/** Data fusion: some setup() input names a datasource. */
export const isFusion = (setup: EvalSetup): boolean => setup.inputs.some((i) => i.datasource !== undefined);

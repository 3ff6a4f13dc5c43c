/**
 * The processing pipeline shared by the Processing and Statistical APIs:
 * evalscript setup -> scene search -> preProcessScenes -> read + warp + units -> mosaicking -> evaluatePixel.
 *
 * Mosaicking (Sentinel Hub semantics): SIMPLE builds one mosaic, the first scene in mosaicking order with data
 * wins per pixel; ORBIT gives the script one sample per acquisition day (scenes of the same UTC day mosaicked);
 * TILE one sample per scene. Samples are ordered as the scenes (mostRecent first by default).
 */
import type { Env } from "../env";
import { badRequest } from "../http/errors";
import { compileEvalscript, loadEvalscript, type EvalResult, type EvalSetup, type EvalscriptRuntime } from "../raster/evalscript";
import { checkBands, collectionForType, type DataCollection } from "./collections";
import { processingUnits } from "./bands";
import { stripPlan, type Plan } from "./plan";
import { readScene, type BandRequest, type ReadOptions } from "./read";
import { findScenes, sceneQueryFor, type Scene } from "./scenes";
import type { DataSourceRequest, ProcessInput } from "./schema";
import { mosaicScenes, orbitGroups, tileGroups, type Sample, type SceneGroup } from "./mosaic";

/** Scenes considered at most per request (SIMPLE stops early once every pixel has data). */
export const MAX_SCENES = 100;

/**
 * Requests above STRIP_PIXELS output pixels are read, mosaicked and evaluated in strips of about STRIP_TARGET
 * pixels (one script session), so a 2500 x 2500 request never holds all its input bands at once.
 */
export const STRIP_PIXELS = 1 << 20;
export const STRIP_TARGET = 1 << 19;

export interface PreparedScript {
  runtime: EvalscriptRuntime;
  setup: EvalSetup;
}

export interface Evaluation {
  result: EvalResult;
  /** Processing units spent. */
  processingUnits: number;
  /** Stage durations in ms (scene search, read + warp + mosaic, evalscript), for Server-Timing. */
  timings: Record<string, number>;
  /** Strips the grid was read and evaluated in (1: in one piece), reported in Server-Timing as `strips;desc="n"`. */
  strips: number;
}

/** Compiles, loads and runs setup() of an evalscript (400 on script errors). */
export async function prepareEvalscript(env: Env, evalscript: string): Promise<PreparedScript> {
  const runtime = await loadEvalscript(env, compileEvalscript(evalscript));
  return { runtime, setup: await runtime.setup() };
}

/** The bands the script asks for, each with its units (first declaration wins). */
function requestedBands(setup: EvalSetup, c: DataCollection): BandRequest[] {
  const seen = new Map<string, string>();
  for (const input of setup.inputs) {
    input.bands.forEach((b, i) => {
      if (seen.has(b)) return;
      const def = c.bands.get(b);
      const u = input.units[i];
      seen.set(b, u && u !== "DEFAULT" ? u : (def?.units[0] ?? "DN"));
    });
  }
  const names = [...seen.keys()];
  checkBands(c, names, names.map((n) => seen.get(n)));
  return names.map((name) => ({ name, units: seen.get(name)! }));
}

function readOptions(d: DataSourceRequest): ReadOptions {
  return {
    upsampling: d.processing?.upsampling ?? "NEAREST",
    downsampling: d.processing?.downsampling ?? "NEAREST",
    harmonize: d.processing?.harmonizeValues ?? true,
  };
}

/** Time range of a data source: its timeRange, else all time up to now. */
function timeRange(d: DataSourceRequest): { from: number; to: number } {
  const t = d.dataFilter?.timeRange;
  return { from: t?.from ? Date.parse(t.from) : 0, to: t?.to ? Date.parse(t.to) : Date.now() };
}

/**
 * Scene groups in the order the script sees them. SIMPLE: one group of all scenes (pseudo-scene = the first).
 * ORBIT / TILE: groups passed through preProcessScenes / filterScenes, which may drop or reorder them.
 */
async function sceneGroups(script: PreparedScript, mosaicking: string, scenes: Scene[], range: { from: string; to: string }): Promise<SceneGroup[]> {
  if (mosaicking === "SIMPLE") {
    return [{ info: { id: "mosaic", date: scenes[0] ? new Date(scenes[0].time).toISOString() : range.to }, scenes }];
  }
  const groups = mosaicking === "ORBIT" ? orbitGroups(scenes) : tileGroups(scenes);
  if (groups.length === 0) return groups;
  const byId = new Map(groups.map((g) => [g.info.id, g]));
  return (await script.runtime.preProcessScenes(groups.map((g) => g.info), range)).flatMap((info) => {
    const g = byId.get(info.id);
    return g ? [{ info, scenes: g.scenes }] : [];
  });
}

/**
 * Runs the pipeline for a planned request with a prepared script. `opts.convert`: outputs come back converted to
 * their stored sampleType (EvalOutputValues.stored), for encoding; statistics keep the raw values. Throws 400 for unknown collections and bands
 * and for data fusion (several data sources), which EO Edge does not support yet.
 */
export async function evaluatePlan(env: Env, script: PreparedScript, input: ProcessInput, plan: Plan, opts: { convert?: boolean } = {}): Promise<Evaluation> {
  if (input.data.length > 1) throw badRequest("Several input.data entries (data fusion) are not supported yet; send one data source.");
  const source = input.data[0]!;
  const c = collectionForType(source.type);
  const bands = requestedBands(script.setup, c);
  const { from, to } = timeRange(source);
  const t0 = Date.now();
  const scenes = await findScenes(env, sceneQueryFor(source, plan.lonLatBbox, from, to, MAX_SCENES));
  const mosaicking = script.setup.mosaicking;
  const range = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  const groups = await sceneGroups(script, mosaicking, scenes, range);
  const t1 = Date.now();
  const fileBands = bands.filter((b) => b.name !== "dataMask").map((b) => b.name);
  const mosaicOf = (p: Plan): Promise<Sample[]> =>
    mosaicScenes(mosaicking, groups, (s: Scene) => readScene(env, c, s.item, bands, p.grid, readOptions(source)), p, fileBands);
  const { width, height } = plan.grid;
  let run: { result: EvalResult; readMs: number; strips: number };
  if (width * height <= STRIP_PIXELS) {
    const samples = await mosaicOf(plan);
    const readMs = Date.now() - t1;
    run = { result: await script.runtime.evaluate({ width, height, scenes: samples, timeRange: range, convert: opts.convert }), readMs, strips: 1 };
  } else {
    run = await evaluateStrips(script, plan, groups, mosaicOf, range, opts.convert);
  }
  const evalMs = Date.now() - t1 - run.readMs;
  const float32 = script.setup.outputs.some((o) => o.sampleType === "FLOAT32");
  return {
    result: run.result,
    processingUnits: processingUnits(width, height, fileBands.length, mosaicking === "SIMPLE" ? 1 : groups.length, float32),
    timings: { scenes: t1 - t0, read: run.readMs, eval: evalMs },
    strips: run.strips,
  };
}

/** Strip by strip: each strip's scenes are read and mosaicked when the script session asks for its rows. */
async function evaluateStrips(
  script: PreparedScript,
  plan: Plan,
  groups: SceneGroup[],
  mosaicOf: (p: Plan) => Promise<Sample[]>,
  timeRange: { from: string; to: string },
  convert?: boolean,
): Promise<{ result: EvalResult; readMs: number; strips: number }> {
  const { width, height } = plan.grid;
  let readMs = 0;
  let strips = 0;
  const scenes = script.setup.mosaicking === "SIMPLE" ? [{ info: groups[0]!.info }] : groups.map((g) => ({ info: g.info }));
  const rows = Math.max(1, Math.ceil(STRIP_TARGET / width));
  const result = await script.runtime.evaluateRows({ width, height, rows, scenes, timeRange, convert }, async (row, count) => {
    const t = Date.now();
    const samples = await mosaicOf(stripPlan(plan, row, count));
    readMs += Date.now() - t;
    strips++;
    return samples;
  });
  return { result, readMs, strips };
}

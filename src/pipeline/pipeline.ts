/**
 * The processing pipeline shared by the Processing and Statistical APIs:
 * evalscript setup -> scene search -> preProcessScenes -> read + warp + units -> mosaicking -> evaluatePixel.
 *
 * Mosaicking (Sentinel Hub semantics): SIMPLE builds one mosaic, the first scene in mosaicking order with data
 * wins per pixel; ORBIT gives the script one sample per acquisition day (scenes of the same UTC day mosaicked);
 * TILE one sample per scene. Samples are ordered as the scenes (mostRecent first by default).
 *
 * Data fusion (several `input.data` entries, or inputs naming a `datasource`; see sources.ts): every source is
 * searched, grouped and mosaicked on its own (own collection, timeRange, mosaickingOrder, maxCloudCoverage,
 * S1 filters, processing options, mosaicking), the script gets `samples.<id>` / `scenes.<id>`. A SIMPLE
 * source that finds no scene gives no sample (`samples.<id>` empty); elsewhere its sample has dataMask 0.
 * All sources' samples of the grid (or strip) together count against MAX_SAMPLE_VALUES (mosaic.ts).
 *
 * Processing units of data fusion: computed per source as for a single-source request (that source's input
 * bands and samples) and summed, the FLOAT32 factor applied to each, the 0.005 minimum to the sum (Sentinel
 * Hub, "Processing Unit definition": a fusion request is charged for each collection it processes).
 */
import type { Env } from "../env";
import {
  compileEvalscript,
  loadEvalscript,
  type EvalResult,
  type OutputSink,
  type EvalSetup,
  type EvalscriptRuntime,
  type RowsInput,
  type SceneData,
  type TimeRange,
} from "../raster/evalscript";
import { processingUnits } from "./bands";
import { stripPlan, type Plan, type PlannedSource } from "./plan";
import { readScene, type ReadOptions } from "./read";
import { findScenes, sceneQueryFor, type Scene } from "./scenes";
import type { DataSourceRequest } from "./input";
import { checkSampleValues, mosaicScenes, orbitGroups, tileGroups, type SceneGroup } from "./mosaic";
import { checkPlanBudget, evaluationSubrequests, READS_PER_BAND_STRIP } from "./budget";
import { SANDBOX_BLOCK_BYTES } from "../raster/memory";

/** Scenes considered at most per request (SIMPLE stops early once every pixel has data). */
export const MAX_SCENES = 100;

/**
 * Requests above STRIP_PIXELS output pixels are read, mosaicked and evaluated in strips of about STRIP_TARGET
 * pixels (one script session), so a 2500 x 2500 request never holds all its input bands at once.
 */
export const STRIP_PIXELS = 1 << 20;
export const STRIP_TARGET = 1 << 19;

/**
 * Requests up to this many output pixels keep their strips' NEAREST index maps in the per-isolate cache (4 bytes per
 * pixel plus a block map's runs: about 8 MiB at most, within INDEX_CACHE_BYTES of src/raster/memory.ts); larger ones compute each strip's map once and
 * keep none (a 2500 x 2500 request's maps held ~25 MB of the isolate's 128 MB for good, see src/raster/warp/near.ts).
 */
export const CACHED_MAP_PIXELS = 1 << 21;

/** Minimum cost of a Processing API request in processing units (Sentinel Hub). */
export const MIN_PROCESSING_UNITS = 0.005;

export interface PreparedScript {
  runtime: EvalscriptRuntime;
  setup: EvalSetup;
  /** The calling account: its collections (registry scope) and its isolate. */
  account: string;
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

/** Compiles, loads and runs setup() of an evalscript (EngineError script-syntax / script-error / invalid-argument on script errors). */
export async function prepareEvalscript(env: Env, evalscript: string, account: string): Promise<PreparedScript> {
  const runtime = await loadEvalscript(env, compileEvalscript(evalscript), {}, account);
  return { runtime, setup: await runtime.setup(), account };
}

/** A source's read options; `cacheIndex`: keep NEAREST index maps for later requests (see CACHED_MAP_PIXELS). */
function readOptions(d: DataSourceRequest, cacheIndex: boolean): ReadOptions {
  return {
    upsampling: d.processing?.upsampling ?? "NEAREST",
    downsampling: d.processing?.downsampling ?? "NEAREST",
    harmonize: d.processing?.harmonizeValues ?? true,
    cacheIndex,
  };
}

/** A source with its time range and the scenes found for it. */
interface Found {
  source: PlannedSource;
  range: TimeRange;
  scenes: Scene[];
}

/** A source with its scene groups in the order the script sees them. */
interface Grouped {
  source: PlannedSource;
  range: TimeRange;
  groups: SceneGroup[];
}

/**
 * The scenes of one source of a plan, in its mosaicking order, at most MAX_SCENES: given by the caller (a Statistical
 * API series reads them for many intervals at once, src/stats/series.ts) or searched in the source's window.
 */
export type SceneSource = (source: PlannedSource, index: number) => Promise<Scene[]>;

/** Scene search of one source over the plan's area within the source's window, in its mosaicking order. */
async function findSource(
  env: Env,
  source: PlannedSource,
  index: number,
  plan: Plan,
  given?: SceneSource,
): Promise<Found> {
  const { from, to } = source.window;
  const scenes = given
    ? await given(source, index)
    : await findScenes(env, source, sceneQueryFor(source, plan.lonLatBbox, from, to, MAX_SCENES));
  return { source, scenes, range: { from: new Date(from).toISOString(), to: new Date(to).toISOString() } };
}

/**
 * Rows per strip of a grid `width` px wide whose pixels carry `values` sample values: about STRIP_TARGET pixels,
 * fewer when a block of that many rows would pass SANDBOX_BLOCK_BYTES (4 bytes a value; a many-date request's
 * block must fit one RPC to the sandbox).
 */
export function stripRows(width: number, values: number): number {
  return Math.max(
    1,
    Math.min(Math.ceil(STRIP_TARGET / width), Math.floor(SANDBOX_BLOCK_BYTES / (width * Math.max(1, values) * 4))),
  );
}

/** Sample values per pixel of the grouped sources (each sample's bands and its dataMask). */
const valuesPerPixel = (grouped: Grouped[]) =>
  grouped.reduce((a, s) => a + s.groups.length * (s.source.fileBands.length + 1), 0);

/**
 * Refuses (RequestBudgetError, 400) an evaluation whose reads and sandbox calls would not fit the invocation's
 * subrequests, naming the most scenes of these bands that fit (src/pipeline/budget.ts).
 */
function checkEvaluation(grouped: Grouped[], strips: number): void {
  const sources = grouped.map((s) => ({
    scenes: s.groups.reduce((a, g) => a + g.scenes.length, 0),
    bands: s.source.fileBands.length,
  }));
  const bands = Math.max(1, ...sources.map((s) => s.bands));
  checkPlanBudget(
    { subrequests: evaluationSubrequests(sources, strips), d1Queries: 0 },
    `The request (${sources.reduce((a, s) => a + s.scenes, 0)} scenes, ${strips} strip(s))`,
    (allow) =>
      `At most ${Math.max(0, Math.floor((allow.subrequests - 2 * strips) / (bands * READS_PER_BAND_STRIP * strips)))} scenes of ${bands} band(s) fit at this size: use a shorter timeRange, maxCloudCoverage, fewer bands or fewer pixels`,
  );
}

/** SIMPLE: one group of all scenes (pseudo-scene = the first); none for a fusion source without scenes. */
function simpleGroups(f: Found): SceneGroup[] {
  if (f.scenes.length === 0 && f.source.datasource !== undefined) return [];
  return [
    {
      info: { id: "mosaic", date: f.scenes[0] ? new Date(f.scenes[0].time).toISOString() : f.range.to },
      scenes: f.scenes,
    },
  ];
}

/**
 * Scene groups per source in the order the script sees them. ORBIT / TILE sources: groups passed through
 * preProcessScenes / filterScenes (fusion: preProcessScenes with `collections.<id>` of those sources), which
 * may drop, reorder or repeat them.
 */
async function sceneGroups(script: PreparedScript, found: Found[]): Promise<Grouped[]> {
  const simple = (f: Found) => f.source.mosaicking === "SIMPLE";
  const out: Grouped[] = found.map((f) => ({
    source: f.source,
    range: f.range,
    groups: simple(f) ? simpleGroups(f) : [],
  }));
  const multi = found.filter((f) => !simple(f));
  const all = multi.map((f) => ({
    f,
    groups: f.source.mosaicking === "ORBIT" ? orbitGroups(f.scenes) : tileGroups(f.scenes),
  }));
  if (all.every((a) => a.groups.length === 0)) return out;
  const owner = new Map(
    all.flatMap(({ f, groups }) => groups.map((g) => [g.info, { k: found.indexOf(f), g }] as const)),
  );
  const infos = [...owner.keys()];
  const fusionScenes =
    multi[0]!.source.datasource === undefined
      ? undefined
      : {
          datasources: infos.map((i) => found[owner.get(i)!.k]!.source.datasource!),
          timeRanges: Object.fromEntries(multi.map((f) => [f.source.datasource!, f.range])),
        };
  for (const info of await script.runtime.preProcessScenes(infos, multi[0]!.range, fusionScenes)) {
    const { k, g } = owner.get(info)!;
    out[k]!.groups.push(g);
  }
  return out;
}

/** The scenes the script sees, source by source (metadata only). */
const sceneRefs = (grouped: Grouped[]) =>
  grouped.flatMap((s) =>
    s.groups.map((g) =>
      s.source.datasource === undefined ? { info: g.info } : { info: g.info, datasource: s.source.datasource },
    ),
  );

/** The samples of every source on plan `p` (rows of a strip or the whole grid), in `sceneRefs` order. */
async function samplesOf(env: Env, grouped: Grouped[], p: Plan, cacheIndex: boolean): Promise<SceneData[]> {
  checkSampleValues(
    p.grid.width * p.grid.height,
    grouped.map((s) => ({ samples: s.groups.length, bands: s.source.fileBands.length })),
  );
  const out: SceneData[] = [];
  for (const { source, groups } of grouped) {
    if (groups.length === 0) continue;
    const read = (s: Scene) =>
      readScene(env, source.collection, s.item, source.bands, p.grid, readOptions(source.request, cacheIndex));
    const samples = await mosaicScenes(source.mosaicking, groups, read, p, source.fileBands);
    out.push(...samples.map((x) => (source.datasource === undefined ? x : { ...x, datasource: source.datasource })));
  }
  return out;
}

/** Processing units: per source (its input bands and samples), summed; see the module docs. */
function fusionUnits(setup: EvalSetup, grouped: Grouped[], width: number, height: number): number {
  const float32 = setup.outputs.some((o) => o.sampleType === "FLOAT32");
  const sum = grouped.reduce(
    (a, s) =>
      a +
      processingUnits(
        width,
        height,
        s.source.fileBands.length,
        s.source.mosaicking === "SIMPLE" ? 1 : s.groups.length,
        float32,
        0,
      ),
    0,
  );
  return Math.max(MIN_PROCESSING_UNITS, Math.round(sum * 1e6) / 1e6);
}

/**
 * Runs the pipeline for a plan (planRequest / planGrid + withSources; every source searched in its window) with a
 * prepared script. `opts.convert`: outputs come back converted to their stored sampleType
 * (EvalOutputValues.stored), for encoding; statistics keep the raw values. `opts.outputs`: the ids the caller reads
 * (EvalInput.outputs; default all). `opts.sink`: the runtime may hand the outputs to it (EvalscriptRuntime.evaluate).
 * @throws EngineError invalid-argument for bands a scene lacks and too many sample values (mosaic.ts), the
 * script's EngineError kinds while it runs; plain Errors for internal faults (a missing or corrupt file).
 */
export async function evaluatePlan(
  env: Env,
  script: PreparedScript,
  plan: Plan,
  opts: { convert?: boolean; scenes?: SceneSource; outputs?: string[]; sink?: OutputSink } = {},
): Promise<Evaluation> {
  const sources = plan.sources;
  const t0 = Date.now();
  const grouped = await sceneGroups(
    script,
    await Promise.all(sources.map((s, i) => findSource(env, s, i, plan, opts.scenes))),
  );
  const t1 = Date.now();
  const { width, height } = plan.grid;
  const rows = stripRows(width, valuesPerPixel(grouped));
  checkEvaluation(grouped, width * height <= STRIP_PIXELS ? 1 : Math.ceil(height / rows));
  const cacheIndex = width * height <= CACHED_MAP_PIXELS;
  const samplesFor = (p: Plan) => samplesOf(env, grouped, p, cacheIndex);
  const range = grouped[0]!.range;
  let run: { result: EvalResult; readMs: number; strips: number };
  if (width * height <= STRIP_PIXELS) {
    const samples = await samplesFor(plan);
    const readMs = Date.now() - t1;
    run = {
      result: await script.runtime.evaluate(
        { width, height, scenes: samples, timeRange: range, convert: opts.convert, outputs: opts.outputs },
        opts.sink,
      ),
      readMs,
      strips: 1,
    };
  } else {
    run = await evaluateStrips(script, plan, rows, sceneRefs(grouped), samplesFor, range, opts);
  }
  const evalMs = Date.now() - t1 - run.readMs;
  return {
    result: run.result,
    processingUnits: fusionUnits(script.setup, grouped, width, height),
    timings: { scenes: t1 - t0, read: run.readMs, eval: evalMs },
    strips: run.strips,
  };
}

/** Strip by strip: each strip's scenes are read and mosaicked when the script session asks for its rows. */
async function evaluateStrips(
  script: PreparedScript,
  plan: Plan,
  rows: number,
  scenes: RowsInput["scenes"],
  samplesFor: (p: Plan) => Promise<SceneData[]>,
  timeRange: TimeRange,
  { convert, outputs, sink }: { convert?: boolean; outputs?: string[]; sink?: OutputSink },
): Promise<{ result: EvalResult; readMs: number; strips: number }> {
  const { width, height } = plan.grid;
  let readMs = 0;
  let strips = 0;
  const result = await script.runtime.evaluateRows(
    { width, height, rows, scenes, timeRange, convert, outputs },
    async (row, count) => {
      const t = Date.now();
      const samples = await samplesFor(stripPlan(plan, row, count));
      readMs += Date.now() - t;
      strips++;
      return samples;
    },
    sink,
  );
  return { result, readMs, strips };
}

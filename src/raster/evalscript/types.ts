/**
 * Types of the evalscript V3 runtime (see ./index.ts for how each maps to Sentinel Hub behaviour).
 * No HTTP here; errors are thrown as EngineError (src/raster/errors.ts) by the functions that take these shapes.
 */
import type { CompiledEvalscript } from "./compile/compile";

/** `setup().output[].sampleType` (Sentinel Hub `SampleType`); AUTO maps [0, 1] to UINT8 [0, 255]. */
export type SampleType = "AUTO" | "INT8" | "UINT8" | "INT16" | "UINT16" | "FLOAT32";

/** Typed array of each stored sample type (src/raster/evalscript/sampletype.ts converts to them). */
export type SampleArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Float32Array;

/** `setup().mosaicking` (Sentinel Hub `Mosaicking`). */
export type Mosaicking = "SIMPLE" | "ORBIT" | "TILE";

/** One normalized `setup().input[]` entry. */
export interface EvalInputSpec {
  /** Data source id for data fusion (`input[].datasource`); absent for single-collection requests. */
  datasource?: string;
  /** Requested band names in script order; may include the pseudo-band `dataMask`. */
  bands: string[];
  /** Units per band (same length as `bands`); "DEFAULT" where the script gave none (the collection's default). */
  units: string[];
  /** `input[].metadata` as given (e.g. ["bounds"]). */
  metadata?: string[];
  /** Data fusion: `input[].mosaicking` of this datasource (default: setup().mosaicking). */
  mosaicking?: Mosaicking;
}

/** One normalized `setup().output[]` entry. */
export interface EvalOutputSpec {
  /** Output id (`default` when the script gave none); response identifiers refer to it. */
  id: string;
  /** Number of bands per pixel. */
  bands: number;
  sampleType: SampleType;
  /** GDAL nodata tag for GeoTIFF (metadata only; values are not changed). */
  nodataValue?: number;
}

/** `setup()` normalized and validated. */
export interface EvalSetup {
  inputs: EvalInputSpec[];
  outputs: EvalOutputSpec[];
  mosaicking: Mosaicking;
  /** All requested band names of all inputs, first appearance order, including `dataMask` when requested. */
  bands: string[];
}

/** One tile (granule) of a scene, as Sentinel Hub describes it in `scenes.tiles` / `orbits[].tiles`. */
export interface SceneTile {
  /** ISO 8601 acquisition time. */
  date: string;
  /** Sentinel Hub's numeric tile id; EO Edge passes what the catalogue has (or an index). */
  shId?: number;
  /** Original product / item id. */
  tileOriginalId?: string;
  /** Cloud cover in percent. */
  cloudCoverage?: number;
  /** Where the tile's data lives (e.g. `s3://bucket/prefix` or an R2 key prefix). */
  dataPath?: string;
}

/**
 * One scene as the evalscript sees it: a tile (TILE mosaicking) or an orbit, i.e. the tiles of one UTC day's
 * acquisition (ORBIT mosaicking). SIMPLE mosaicking uses one pseudo-scene describing the mosaic.
 */
export interface SceneInfo {
  /** Stable key of the scene (item id for a tile, e.g. `<date>/<orbit>` for an orbit); never shown to scripts. */
  id: string;
  /** ISO 8601 acquisition time (legacy `scene.date`, `tiles[].date`). */
  date: string;
  /** ORBIT: start of the orbit's time span; default: 00:00:00Z of `date`'s UTC day (as Sentinel Hub). */
  dateFrom?: string;
  /** ORBIT: end of the orbit's time span; default: 23:59:59Z of `date`'s UTC day. */
  dateTo?: string;
  cloudCoverage?: number;
  dataPath?: string;
  /** Absolute orbit number when known (legacy `scene.orbitId`). */
  orbitId?: number;
  shId?: number;
  tileOriginalId?: string;
  /** ORBIT: the tiles of the orbit; default: one tile built from this scene's own fields. */
  tiles?: SceneTile[];
}

/** The time range of the request (`input.data[].dataFilter.timeRange`), ISO 8601. */
export interface TimeRange {
  from: string;
  to: string;
}

/** Pixels of one scene on the output grid. */
export interface SceneData {
  info: SceneInfo;
  /** Data fusion: the `datasource` id of the input this scene belongs to. */
  datasource?: string;
  /**
   * Band values in the units the script asked for, row-major, width*height each. A requested band that is
   * missing here reads as 0 (Sentinel Hub semantics for no data). `dataMask` is taken from `dataMask`.
   */
  bands: Record<string, Float32Array>;
  /** 1 where the scene has data, 0 elsewhere; width*height. Given to scripts as the `dataMask` band. */
  dataMask: Uint8Array;
}

/** Input of one evaluation (one request, or one tile of a batch). */
export interface EvalInput {
  width: number;
  height: number;
  /**
   * SIMPLE: one mosaicked pseudo-scene (per datasource for data fusion). ORBIT / TILE: one entry per scene in
   * the order the script sees them (most recent first as Sentinel Hub orders them, or as preProcessScenes
   * returned them, duplicates included).
   */
  scenes: SceneData[];
  /** `customData` argument of evaluatePixel (shared by all pixels). Default `{}`. */
  customData?: Record<string, unknown>;
  /** `inputMetadata` argument; default `{serviceVersion, normalizationFactor: 0.0001}`. */
  inputMetadata?: Record<string, unknown>;
  /** Request time range, for updateOutput's `collection.from/to`. */
  timeRange?: TimeRange;
  /** Convert outputs to their stored sampleType in the sandbox (see EvalOutputValues.stored). Default false. */
  convert?: boolean;
  /**
   * Ids of the outputs the caller reads (a Process request's response identifiers); default all. An evaluator may
   * leave the others out of EvalResult.outputs (the host path does not compute them); errors stay those of all.
   */
  outputs?: string[];
}

/** Raw evaluatePixel values of one output. */
export interface EvalOutputValues {
  bands: number;
  sampleType: SampleType;
  nodataValue?: number;
  /**
   * Float32 values as evaluatePixel returned them (before sampleType conversion), band-interleaved by pixel:
   * `values[(row * width + col) * bands + b]`, row 0 is north. Convert with `toSampleType`.
   */
  values: Float32Array;
  /**
   * With `EvalInput.convert`: the values already converted to the stored sampleType inside the sandbox
   * (as `toSampleType` does), and `values` is empty. Saves moving Float32 outputs across the isolate boundary.
   */
  stored?: SampleArray;
}

/** Result of one evaluation. */
export interface EvalResult {
  /** Keyed by output id. */
  outputs: Record<string, EvalOutputValues>;
  /** `outputMetadata.userData` set by evaluatePixel or updateOutputMetadata (JSON-compatible), for userdata.json. */
  userData?: unknown;
  /** The outputs went to the evaluation's OutputSink (`outputs` is then empty). */
  sunk?: boolean;
}

/** Limits of the runtime; defaults in DEFAULT_LIMITS (host/runtime.ts). */
export interface RuntimeLimits {
  /** Ticks (loop iterations + function calls) one script call may use; stops endless loops. */
  perCall: number;
  /** Ticks per request: totalBase + totalPerSample * width * height * max(1, scenes). */
  totalBase: number;
  totalPerSample: number;
  /**
   * Worker Loader `limits.cpuMs` per sandbox call (production; local workerd does not enforce it). With the
   * 128 MB memory of a production isolate it ends what ticks cannot see (see ./index.ts, "Not stoppable").
   */
  cpuMs: number;
  /** Bytes of input (or output) per evaluation RPC; larger requests go in blocks of rows. */
  blockBytes: number;
  /** Bytes a sandbox isolate is sent and returns before it is recycled (host/sandboxgen.ts SANDBOX_RECYCLE_BYTES). */
  recycleBytes: number;
  /** Bytes all live sandbox isolates may hold before idle ones are aborted (host/sandboxgen.ts SANDBOX_POOL_BYTES). */
  poolBytes: number;
  /** Output bands per evaluation, all outputs together (checked in the sandbox after updateOutput). */
  outputBands: number;
  /** Raw output bytes per evaluation: width * height * sum of bands * bytes per sample (limits.ts). */
  outputBytes: number;
}

/** A loaded evalscript; see ./index.ts for the Sentinel Hub behaviour of each call. */
export interface EvalscriptRuntime {
  readonly compiled: CompiledEvalscript;
  /** setup(), normalized and validated. @throws EngineError invalid-argument */
  setup(): Promise<EvalSetup>;
  /**
   * preProcessScenes(collections) then legacy filterScenes(scenes, inputMetadata), before pixels are read.
   * Data fusion (`fusion` given): preProcessScenes gets `collections.<id>` per datasource id (each with its own
   * time range and mosaicking, `fusion.datasources[i]` the id of `scenes[i]`); filterScenes is not called.
   * @returns the scenes to read, in the script's order (duplicates kept); identity when the script defines neither.
   */
  preProcessScenes(scenes: SceneInfo[], timeRange?: TimeRange, fusion?: FusionScenes): Promise<SceneInfo[]>;
  /**
   * Runs evaluatePixel over all pixels (after updateOutput) and updateOutputMetadata. With `sink`, a runtime may
   * hand the outputs to it instead of returning them (OutputSink; then the result's `sunk` is true and its outputs
   * are empty). @throws EngineError (script-error, budget-exceeded, limit-exceeded, ...)
   */
  evaluate(input: EvalInput, sink?: OutputSink): Promise<EvalResult>;
  /**
   * The same as `evaluate`, one script session, but the pixels come block by block from `load(rowStart, rows)`
   * (scenes in `input.scenes` order, arrays of `rows * width` values), so the caller never holds the whole input.
   */
  evaluateRows(
    input: RowsInput,
    load: (rowStart: number, rows: number) => Promise<SceneData[]>,
    sink?: OutputSink,
  ): Promise<EvalResult>;
}

/**
 * A consumer of an evaluation's Float32 output values piece by piece, so that no output array of the whole grid is
 * made (the Statistical API's reducers, src/stats/reduce.ts): a runtime that can (the host path) calls `strip`
 * once per block of pixels, in pixel order, and `strip` has the pixels evaluated into its own arrays.
 */
export interface OutputSink {
  /** Ids of the outputs it takes, in the setup's order: it is used only when they are all the evaluation computes. */
  ids: string[];
  /**
   * Pixels offset..offset+n-1 of the grid (row-major) can be evaluated now: `evaluate(targets, from, to)` writes the
   * Float32 values of pixels offset+from..offset+to-1 (0 <= from < to <= n), band-interleaved, into `targets` (one
   * array per id, pixel offset+from first), as the outputs' `values` would hold them. Synchronous.
   */
  strip(offset: number, n: number, evaluate: (targets: Float32Array[], from: number, to: number) => void): void;
}

/** Data fusion scene lists for preProcessScenes: the datasource id of each scene and every id's time range. */
export interface FusionScenes {
  datasources: string[];
  timeRanges: Record<string, TimeRange>;
}

/** Input of a row-streamed evaluation: the scenes' metadata up front, their pixels from the loader. */
export interface RowsInput extends Omit<EvalInput, "scenes"> {
  scenes: { info: SceneInfo; datasource?: string }[];
  /** Rows per block. */
  rows: number;
}

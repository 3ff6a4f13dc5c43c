/**
 * The RPC contract between the host (../host/sandbox.ts, ../host/runtime.ts) and the sandbox isolate's entrypoint
 * (entry.js): what each call takes and returns. Types only; the sandbox's JavaScript reads them through JSDoc
 * (`@typedef {import("./rpc").SessionParams} SessionParams`), so both sides are checked against one definition.
 */
import type { SampleArray } from "../sampletype";
import type { Budget, SandboxFailure } from "../errors";
import type { EvalOutputSpec, Mosaicking, SceneInfo, TimeRange } from "../types";

/** A reply of the sandbox: data, or the failure to map to a 400. */
export type Reply<T> = ({ ok: true } & T) | { ok: false; error: SandboxFailure };

/** Scene description sent to the sandbox (no pixels). */
export interface SceneRef {
  info: SceneInfo;
  datasource?: string;
}

/** Parameters of an evaluation session. */
export interface SessionParams {
  width: number;
  height: number;
  mosaicking: Mosaicking;
  /** Data fusion: the mosaicking of each datasource id (../host/setup.ts mosaickingByDatasource). */
  mosaickingBy?: Record<string, Mosaicking>;
  /** Sample property names per datasource id ("" = inputs without datasource). */
  bandsBy: Record<string, string[]>;
  outputs: EvalOutputSpec[];
  scenes: SceneRef[];
  customData: Record<string, unknown>;
  inputMetadata: Record<string, unknown>;
  timeRange?: TimeRange;
  /** Return outputs converted to their stored sampleType (values.js `toStored`). */
  convert?: boolean;
  budget: Budget;
  /** Output limits the sandbox checks after updateOutput (../limits.ts HOST_LIMITS). */
  limits: { outputBands: number; outputBytes: number };
}

/** Pixels of `rows` rows starting at `rowStart`, per scene (same order as SessionParams.scenes). */
export interface Block {
  rowStart: number;
  rows: number;
  /** Band values (Float32, as the pipeline made them). */
  scenes: { bands: Record<string, Float32Array>; dataMask?: Uint8Array }[];
}

/** Output values of one block, per output id, band-interleaved. */
export type BlockValues = Record<string, Float32Array | SampleArray>;

/** RPC stub of an open session (entry.js `Session`). */
export interface SessionStub {
  run(block: Block): Promise<Reply<{ values: BlockValues }>>;
  finish(): Promise<Reply<{ userData?: unknown }>>;
}

/** RPC surface of the sandbox entrypoint. */
export interface SandboxApi {
  setup(budget: Budget): Promise<Reply<{ value: unknown }>>;
  preProcessScenes(p: {
    infos: SceneInfo[];
    mosaicking: Mosaicking;
    timeRange?: TimeRange;
    /** Data fusion: the datasource id of each of `infos`, and every id's time range (scenes.js preProcessFusion). */
    datasources?: string[];
    timeRanges?: Record<string, TimeRange>;
    mosaickingBy?: Record<string, Mosaicking>;
    inputMetadata: Record<string, unknown>;
    budget: Budget;
  }): Promise<Reply<{ indices: number[] }>>;
  evaluate(
    p: SessionParams,
    block: Block,
  ): Promise<Reply<{ bands: Record<string, number>; values: BlockValues; userData?: unknown }>>;
  open(p: SessionParams): Promise<Reply<{ bands: Record<string, number>; session: SessionStub }>>;
}

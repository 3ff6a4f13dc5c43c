/**
 * The host side of evalscript execution: `loadEvalscript` gives an EvalscriptRuntime whose calls go to the
 * script's sandbox isolate (one RPC per call; pixels travel as whole band arrays, one block of rows per RPC
 * for requests larger than `blockBytes`). What a call costs besides the script (wrangler dev, loaded
 * 2-core machine): the first sandbox call of a request ~2 ms, workerd's (a no-op call to a trivial Worker Loader
 * worker costs it too; started during the read, it only moved there); each further call 0.1-0.3 ms; the pixels'
 * copies in and out about 2.5 GB/s (9 MB of bands in 3-4 ms, median of warm loops). NDVI PNG 1024², one call:
 * 3-20 ms to reach the sandbox, 12-15 ms in it (8-9 the pixels, 4 the AUTO conversion), 5-7 ms back.
 */
import { approxBytes, Lru } from "../../lru";
import type { CompiledEvalscript } from "../compile/compile";
import { executionError, sandboxCrash, type Budget } from "../errors";
import { HOST_LIMITS } from "../limits";
import { SANDBOX_BLOCK_BYTES } from "../../memory";
import {
  dispose,
  SANDBOX_POOL_BYTES,
  SANDBOX_RECYCLE_BYTES,
  sandboxFor,
  scriptHash,
  type Block,
  type Reply,
  type Sandbox,
  type SandboxApi,
  type SessionParams,
} from "./sandbox";
import { Assembly, blockOf, bytesOf, rowsPerBlock } from "./blocks";
import { bandCountOf, mosaickingByDatasource, normalizeSetup } from "./setup";
import { checkInput, isFusion } from "./input";
import { HostPathRuntime } from "../hostpath/runtime";
import type {
  EvalInput,
  EvalOutputSpec,
  EvalResult,
  EvalscriptRuntime,
  EvalSetup,
  FusionScenes,
  RowsInput,
  RuntimeLimits,
  SceneData,
  SceneInfo,
  TimeRange,
} from "../types";
import { SCRIPT_CACHE_BYTES } from "../../memory";

// The runtime's interfaces live in ../types.ts (hostpath/runtime.ts implements them too); kept importable from here.
export type { EvalscriptRuntime, FusionScenes, RowsInput, RuntimeLimits };

/**
 * Defaults. perCall 2e7: no realistic evalscript call comes near it (ORBIT over 1000 scenes with an O(n^2)
 * loop per pixel is 1e6), while `while(true){}` hits it in well under a second. The total allows 2000 ticks
 * per pixel and scene plus 1e9 (e.g. ORBIT, 100 scenes x 2500 x 2500 px: 1.25e12).
 */
export const DEFAULT_LIMITS: RuntimeLimits = {
  perCall: 20_000_000,
  totalBase: 1_000_000_000,
  totalPerSample: 2000,
  cpuMs: 30_000,
  blockBytes: SANDBOX_BLOCK_BYTES,
  recycleBytes: SANDBOX_RECYCLE_BYTES,
  poolBytes: SANDBOX_POOL_BYTES,
  outputBands: HOST_LIMITS.outputBands,
  outputBytes: HOST_LIMITS.outputBytes,
};

/** Default `inputMetadata` (Sentinel Hub: serviceVersion, normalizationFactor for DN -> reflectance). */
const INPUT_METADATA = { serviceVersion: "1.0.0", normalizationFactor: 0.0001 };

/** Normalized setup() per script hash (setup takes no arguments, so its result is per script). */
const setupCache = new Lru<EvalSetup>(256, SCRIPT_CACHE_BYTES / 8, approxBytes, true);

/** How a runtime evaluates (default: the host path where the script and the evaluation allow it). */
export interface RuntimeOptions {
  /** Never use the host path (../hostpath): every evaluation runs in the sandbox (the differential test, the bench's A/B). */
  sandbox?: boolean;
}

/** Bytes a lease of the sandbox has sent and received, charged to its isolate when it ends (sandboxgen.ts). */
interface Meter {
  bytes: number;
}

class SandboxRuntime implements EvalscriptRuntime {
  private readonly sandbox: Sandbox;

  constructor(
    loader: WorkerLoader,
    readonly compiled: CompiledEvalscript,
    private readonly hash: string,
    private readonly limits: RuntimeLimits,
    tenant: string,
    private readonly options: RuntimeOptions = {},
  ) {
    this.sandbox = sandboxFor(loader, compiled, hash, limits.cpuMs, tenant, limits.recycleBytes, limits.poolBytes);
  }

  /** Runs `f` on a lease of the sandbox isolate; what `f` meters is charged to the isolate when it ends. */
  private async leased<T>(f: (api: SandboxApi, meter: Meter) => Promise<T>): Promise<T> {
    const lease = this.sandbox.acquire();
    const meter = { bytes: 0 };
    try {
      return await f(lease.api, meter);
    } finally {
      await lease.release(meter.bytes);
    }
  }

  /** One RPC: a failure reply becomes the script's 400; a crashed sandbox call becomes a 400 or rethrows. */
  private async call<T>(rpc: () => Promise<Reply<T>>, budget: Budget): Promise<T> {
    let reply: Reply<T>;
    try {
      reply = await rpc();
    } catch (err) {
      throw sandboxCrash(this.compiled, err, this.limits.cpuMs);
    }
    if (!reply.ok) throw executionError(this.compiled, reply.error, budget);
    return reply;
  }

  private budget(samples = 0): Budget {
    return { perCall: this.limits.perCall, total: this.limits.totalBase + this.limits.totalPerSample * samples };
  }

  async setup(): Promise<EvalSetup> {
    const cached = setupCache.get(this.hash);
    if (cached) return cached;
    const budget = this.budget();
    const setup = normalizeSetup((await this.leased((api) => this.call(() => api.setup(budget), budget))).value);
    setupCache.set(this.hash, setup);
    return setup;
  }

  async preProcessScenes(scenes: SceneInfo[], timeRange?: TimeRange, fusion?: FusionScenes): Promise<SceneInfo[]> {
    const budget = this.budget();
    const setup = await this.setup();
    const by = fusion ? { ...fusion, mosaickingBy: mosaickingByDatasource(setup) } : {};
    const p = { infos: scenes, mosaicking: setup.mosaicking, timeRange, ...by, inputMetadata: INPUT_METADATA, budget };
    const { indices } = await this.leased((api) => this.call(() => api.preProcessScenes(p), budget));
    return indices.map((i) => scenes[i]!);
  }

  async evaluate(input: EvalInput): Promise<EvalResult> {
    const setup = await this.setup();
    const scenes = checkInput(input, setup);
    const params = this.sessionParams(setup, input, scenes);
    const rows = rowsPerBlock(input, scenes, params, this.limits.blockBytes);
    if (rows < input.height) {
      return this.session(setup, params, rows, async (row, count) => blockOf(scenes, params, row, count));
    }
    return this.leased(async (api, meter) => {
      const block = blockOf(scenes, params, 0, input.height);
      const reply = await this.call(() => api.evaluate(params, block), params.budget);
      meter.bytes += bytesOf(block, reply.values);
      const assembly = new Assembly(resolveOutputs(setup.outputs, reply.bands), input);
      assembly.add(0, input.height, reply.values);
      return { outputs: assembly.result(params.convert), userData: reply.userData };
    });
  }

  /** Session parameters of an evaluation of `scenes`, with the budget of width x height x scenes samples. */
  private sessionParams(
    setup: EvalSetup,
    input: Omit<EvalInput, "scenes">,
    scenes: { info: SceneInfo; datasource?: string }[],
  ): SessionParams {
    return {
      budget: this.budget(input.width * input.height * Math.max(1, scenes.length)),
      width: input.width,
      height: input.height,
      mosaicking: setup.mosaicking,
      ...(isFusion(setup) ? { mosaickingBy: mosaickingByDatasource(setup) } : {}),
      bandsBy: bandsByDatasource(setup),
      outputs: setup.outputs,
      scenes: scenes.map((s) => ({ info: s.info, datasource: s.datasource })),
      customData: input.customData ?? {},
      inputMetadata: { ...INPUT_METADATA, ...input.inputMetadata },
      timeRange: input.timeRange,
      convert: input.convert ?? false,
      limits: { outputBands: this.limits.outputBands, outputBytes: this.limits.outputBytes },
    };
  }

  async evaluateRows(
    input: RowsInput,
    load: (rowStart: number, rows: number) => Promise<SceneData[]>,
  ): Promise<EvalResult> {
    const setup = await this.setup();
    const params = this.sessionParams(setup, input, input.scenes);
    return this.session(setup, params, input.rows, async (row, rows) => {
      const scenes = checkInput({ ...input, height: rows, scenes: await load(row, rows) }, setup);
      return { ...blockOf(scenes, { ...params, height: rows }, 0, rows), rowStart: row };
    });
  }

  /** One script session over blocks of `rows` rows, each made by `blockAt(rowStart, rows)` when its turn comes. */
  private session(
    setup: EvalSetup,
    params: SessionParams,
    rows: number,
    blockAt: (row: number, rows: number) => Promise<Block>,
  ): Promise<EvalResult> {
    return this.leased(async (api, meter) => {
      const opened = await this.call(() => api.open(params), params.budget);
      try {
        const assembly = new Assembly(resolveOutputs(setup.outputs, opened.bands), params);
        for (let row = 0; row < params.height; row += rows) {
          const count = Math.min(rows, params.height - row);
          const block = await blockAt(row, count);
          const { values } = await this.call(() => opened.session.run(block), params.budget);
          meter.bytes += bytesOf(block, values);
          assembly.add(row, count, values);
        }
        const { userData } = await this.call(() => opened.session.finish(), params.budget);
        return { outputs: assembly.result(params.convert), userData };
      } finally {
        dispose(opened.session);
      }
    });
  }
}

/** Sample property names per datasource ("" for inputs without one). */
function bandsByDatasource(setup: EvalSetup): Record<string, string[]> {
  const by: Record<string, string[]> = {};
  for (const i of setup.inputs) {
    const list = (by[i.datasource ?? ""] ??= []);
    for (const b of i.bands) if (!list.includes(b)) list.push(b);
  }
  return by;
}

/** Applies updateOutput's band counts to the setup outputs. */
function resolveOutputs(outputs: EvalOutputSpec[], bands: Record<string, number>): EvalOutputSpec[] {
  return outputs.map((o) => ({ ...o, bands: bandCountOf(bands[o.id], `updateOutput: output "${o.id}"`) }));
}

/**
 * Loads the sandbox of a compiled evalscript (isolate cached by script hash; nothing runs until a call).
 * @param env needs the Worker Loader binding `LOADER` (`[[worker_loaders]] binding = "LOADER"`).
 * @param options see {@link RuntimeOptions}.
 */
export async function loadEvalscript(
  env: { LOADER: WorkerLoader },
  compiled: CompiledEvalscript,
  limits: Partial<RuntimeLimits> = {},
  tenant = "",
  options: RuntimeOptions = {},
): Promise<EvalscriptRuntime> {
  const hash = await scriptHash(compiled);
  const all = { ...DEFAULT_LIMITS, ...limits };
  const sandbox = new SandboxRuntime(env.LOADER, compiled, hash, all, tenant, options);
  return options.sandbox ? sandbox : new HostPathRuntime(sandbox, hash, all);
}

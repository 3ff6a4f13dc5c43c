/**
 * The host path's runtime: an EvalscriptRuntime that evaluates a pure script's column program (./compile.ts,
 * ./interpret.ts) on the host, with no pixel sent to the sandbox, and hands everything else to the sandbox's
 * runtime unchanged: scripts outside the subset (decided once per script hash, the reason kept for the bench),
 * evaluations whose budget could run out (the sandbox reports it), outputs over the host's limits, and every
 * call other than evaluate / evaluateRows when setup() is not a literal.
 */
import { approxBytes, Lru } from "../../lru";
import { SCRIPT_CACHE_BYTES } from "../../memory";
import { compileProgram, literalSetup } from "./compile";
import { runProgram, type ProgramInput } from "./interpret";
import type { OutputTarget } from "./stored";
import { NotPure, type Program } from "./program";
import { checkInput } from "../host/input";
import { normalizeSetup } from "../host/setup";
import { storedSampleType, type SampleArray } from "../sampletype";
import type {
  EvalInput,
  EvalOutputSpec,
  EvalResult,
  EvalscriptRuntime,
  EvalSetup,
  FusionScenes,
  OutputSink,
  RowsInput,
  RuntimeLimits,
  SceneData,
  SceneInfo,
  TimeRange,
} from "../types";
import type { CompiledEvalscript } from "../compile/compile";

/** Bytes of a program (its operations and tables) or of a refusal's reason, for the cache's budget. */
const programBytes = (p: Program | string): number =>
  typeof p === "string"
    ? 2 * p.length
    : 64 * p.ops.length +
      16 * p.consts.length +
      p.ramps.reduce((n, t) => n + 32 * t.values.length, 0) +
      p.luts.reduce((n, t) => n + 8 * t.values.length + t.doms.reduce((a, d) => a + d.cls.length + 64, 0), 0) +
      256;

/** Per script hash: its literal setup() (null: the sandbox runs setup), its program or why it has none. */
const literals = new Lru<{ setup: EvalSetup | null }>(256, SCRIPT_CACHE_BYTES / 8, approxBytes);
const programs = new Lru<Program | string>(256, SCRIPT_CACHE_BYTES / 4, programBytes);

/** Characters of the JSON of setup()'s value (sandbox/limits SANDBOX_LIMITS.setupChars: larger ones the sandbox refuses). */
const SETUP_CHARS = 1024 * 1024;

/**
 * The column program of a script for its setup, or the reason it has none (cached per script hash and outputs).
 * @param hash scriptHash of the compiled script.
 * @param wanted the outputs to compute (compileProgram; default all).
 */
export function programOf(hash: string, source: string, setup: EvalSetup, wanted?: string[]): Program | string {
  const key = wanted ? `${hash}\n${wanted.join("\n")}` : hash;
  const seen = programs.get(key);
  if (seen !== undefined) return seen;
  let p: Program | string;
  try {
    p = compileProgram(source, setup, wanted);
  } catch (err) {
    if (!(err instanceof NotPure)) throw err;
    p = err.message;
  }
  programs.set(key, p);
  return p;
}

/** sandbox/scenes.js toPlain of a constant: object members that are undefined are dropped. */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]) => [k, plain(x)]),
    );
  return v;
}

/** Bytes per sample of each stored type (for the output limit, as sandbox/evaluation.js counts them). */
const SAMPLE_BYTES: Record<string, number> = { FLOAT32: 4, INT16: 2, UINT16: 2 };

/** The output arrays of width x height pixels: stored types with `convert`, else Float32 values. */
function targetsOf(outputs: EvalOutputSpec[], n: number, convert: boolean): OutputTarget[] {
  return outputs.map((o) => {
    const type = storedSampleType(o.sampleType);
    const T = { FLOAT32: Float32Array, UINT8: Uint8Array, INT8: Int8Array, UINT16: Uint16Array, INT16: Int16Array }[
      type
    ];
    return { sampleType: o.sampleType, convert, array: convert ? new T(n * o.bands) : new Float32Array(n * o.bands) };
  });
}

/** EvalResult.outputs as the sandbox path's Assembly gives them. */
function resultOf(outputs: EvalOutputSpec[], targets: OutputTarget[], convert: boolean): EvalResult["outputs"] {
  const out: EvalResult["outputs"] = {};
  outputs.forEach((o, k) => {
    const common = { bands: o.bands, sampleType: o.sampleType, nodataValue: o.nodataValue };
    const a = targets[k]!.array;
    out[o.id] = convert
      ? { ...common, values: new Float32Array(0), stored: a as SampleArray }
      : { ...common, values: a as Float32Array };
  });
  return out;
}

/** A scene's pixels as the program reads them. */
const inputOf = (s: SceneData): ProgramInput => ({ bands: s.bands, dataMask: s.dataMask });

/** Runtime of a script that may take the host path; see the module docs. */
export class HostPathRuntime implements EvalscriptRuntime {
  constructor(
    private readonly sandbox: EvalscriptRuntime,
    private readonly hash: string,
    private readonly limits: RuntimeLimits,
  ) {}

  get compiled(): CompiledEvalscript {
    return this.sandbox.compiled;
  }

  async setup(): Promise<EvalSetup> {
    let lit = literals.get(this.hash);
    if (!lit) {
      const v = plain(literalSetup(this.compiled.source));
      const small = v !== undefined && JSON.stringify(v).length <= SETUP_CHARS;
      lit = { setup: small ? normalizeSetup(v) : null };
      literals.set(this.hash, lit);
    }
    return lit.setup ?? this.sandbox.setup();
  }

  /** Whether the script has a column program (true), else why not (the sandbox evaluates it). */
  async hostPath(): Promise<true | string> {
    const p = programOf(this.hash, this.compiled.source, await this.setup());
    return typeof p === "string" ? p : true;
  }

  preProcessScenes(scenes: SceneInfo[], timeRange?: TimeRange, fusion?: FusionScenes): Promise<SceneInfo[]> {
    return this.sandbox.preProcessScenes(scenes, timeRange, fusion);
  }

  /**
   * The program when this evaluation may take the host path, else undefined; `outputs` the setup's outputs it
   * computes (input.outputs, the ones the caller reads; the limits are checked over all, as the sandbox does).
   */
  private async eligible(
    input: Omit<EvalInput, "scenes">,
    scenes: number,
  ): Promise<{ setup: EvalSetup; program: Program; outputs: EvalOutputSpec[] } | undefined> {
    const setup = await this.setup();
    const program = programOf(this.hash, this.compiled.source, setup, input.outputs);
    if (typeof program === "string" || scenes > 1) return undefined;
    const n = input.width * input.height;
    const l = this.limits;
    // the sandbox's budget could stop the script: let it (a pure script's ticks per pixel are at most program.ticks)
    if (program.ticks > l.perCall || program.ticks * n > l.totalBase + l.totalPerSample * n) return undefined;
    const bands = setup.outputs.reduce((a, o) => a + o.bands, 0);
    const bytes = n * setup.outputs.reduce((a, o) => a + o.bands * (SAMPLE_BYTES[o.sampleType] ?? 1), 0);
    if (bands > l.outputBands || bytes > l.outputBytes) return undefined;
    const outputs = setup.outputs.filter((o) => program.outputs.some((p) => p.id === o.id));
    return { setup, program, outputs };
  }

  async evaluate(input: EvalInput, sink?: OutputSink): Promise<EvalResult> {
    const host = await this.eligible(input, input.scenes.length);
    if (!host) return this.sandbox.evaluate(input);
    const scenes = checkInput(input, host.setup);
    const n = input.width * input.height,
      convert = input.convert ?? false;
    if (sinks(sink, host.outputs, convert)) {
      toSink(sink, host.program, host.outputs, inputOf(scenes[0]!), 0, n);
      return { outputs: {}, userData: undefined, sunk: true };
    }
    const targets = targetsOf(host.outputs, n, convert);
    runProgram(host.program, inputOf(scenes[0]!), 0, n, targets);
    return { outputs: resultOf(host.outputs, targets, convert), userData: undefined };
  }

  async evaluateRows(
    input: RowsInput,
    load: (rowStart: number, rows: number) => Promise<SceneData[]>,
    sink?: OutputSink,
  ): Promise<EvalResult> {
    const host = await this.eligible(input, input.scenes.length);
    if (!host) return this.sandbox.evaluateRows(input, load);
    const { width, height } = input,
      convert = input.convert ?? false;
    const sunk = sinks(sink, host.outputs, convert);
    const targets = sunk ? [] : targetsOf(host.outputs, width * height, convert);
    for (let row = 0; row < height; row += input.rows) {
      const rows = Math.min(input.rows, height - row);
      const scenes = checkInput({ ...input, height: rows, scenes: await load(row, rows) }, host.setup);
      if (sunk) toSink(sink, host.program, host.outputs, inputOf(scenes[0]!), row * width, rows * width);
      else runProgram(host.program, inputOf(scenes[0]!), 0, rows * width, targets, -row * width);
    }
    if (sunk) return { outputs: {}, userData: undefined, sunk: true };
    return { outputs: resultOf(host.outputs, targets, convert), userData: undefined };
  }
}

/** Whether `sink` takes the outputs: exactly the ones computed, as Float32 values (no conversion). */
const sinks = (sink: OutputSink | undefined, outputs: EvalOutputSpec[], convert: boolean): sink is OutputSink =>
  !!sink && !convert && sink.ids.length === outputs.length && outputs.every((o, k) => o.id === sink.ids[k]);

/**
 * Hands pixels 0..n-1 of `input` (pixels offset.. of the grid) to the sink: each range it asks for is evaluated into
 * its arrays by runProgram (the same writers as into the outputs' arrays, so the same values).
 */
function toSink(
  sink: OutputSink,
  program: Program,
  outputs: EvalOutputSpec[],
  input: ProgramInput,
  offset: number,
  n: number,
) {
  sink.strip(offset, n, (arrays, from, to) => {
    const targets = outputs.map((o, k) => ({ sampleType: o.sampleType, convert: false, array: arrays[k]! }));
    runProgram(program, input, from, to, targets, from);
  });
}

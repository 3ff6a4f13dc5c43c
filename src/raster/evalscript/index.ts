/**
 * Evalscript V3 runtime (Sentinel Hub: docs.sentinel-hub.com/api/latest/evalscript/v3/). Its folders, in the order
 * a request meets them:
 * - compile/: compile.ts checks the `//VERSION=3` header, parses with acorn (400 with the user's line:column),
 *   requires setup() and evaluatePixel(); instrument.ts puts a budget tick in every loop and function body;
 *   wrapper.ts wraps the script as a sloppy CommonJS module with the tick counter in a closure the script cannot
 *   name; globals.ts binds the globals it uses as locals (workerd's CommonJS global lookups are 5-10x slower);
 *   regex.ts refuses regexes that backtrack exponentially.
 * - host/: runtime.ts, setup() (normalized by setup.ts, cached per script hash), preProcessScenes / filterScenes,
 *   evaluate(): one RPC per block of rows (blocks.ts; rows per block under `blockBytes`); sandbox.ts and
 *   sandboxgen.ts, one Worker Loader isolate per script hash and account (no network, no bindings), recycled
 *   after `recycleBytes` moved through it, idle ones aborted past `poolBytes` (local workerd leaves an isolate's
 *   garbage until then, V8 under the edge's limit does not; each recycle costs the next request a cold isolate);
 *   writers.ts makes the sandbox's writers.js.
 * - sandbox/: the isolate's modules. entry.js the RPC surface (the script instantiated afresh per call: nothing
 *   persists between requests, for under 0.05 ms a call); harden.js (guards.js, regexp.js, freeze.js, concat.js) caps and
 *   charges native work the ticks cannot see and freezes the realm; evaluation.js, pixels.js, values.js and
 *   writers.js the pixel loop and output values; scenes.js the scene arguments; lib.js the utility library (its visualizers in visualizers.js).
 * - hostpath/: the host path. A pure script (setup() a literal, evaluatePixel band maths, conditionals, Math, local
 *   helpers, constant arrays, index(), colorBlend / valueInterpolate / ColorRampVisualizer / Identity /
 *   HighlightCompressVisualizer with constant stops, dataMask, several outputs; SIMPLE mosaicking, one scene) is
 *   compiled from its AST by compile.ts (statements.ts, operators.ts, library.ts, values.ts) into a column program (program.ts, ramp.ts, fuse.ts, finite.ts):
 *   data, an array of operations over Float64Array registers, run by interpret.ts one loop per operation over blocks
 *   of 1024 pixels, no pixel sent to the sandbox and no user code run on the host (no eval, no Function).
 *   runtime.ts decides per script hash (loadEvalscript returns its HostPathRuntime unless forced to the sandbox) and
 *   hands everything else to the sandbox unchanged; test/raster/evalscript/hostpath.test.ts compares both bit for bit.
 * - limits.ts, errors.ts: the limits (RuntimeLimits in types.ts, DEFAULT_LIMITS in host/runtime.ts) and the 400s (`script-error`,
 *   `budget-exceeded`, `limit-exceeded`: "Failed to evaluate script! ... at line L, column C").
 * Semantics as on Sentinel Hub: SIMPLE mosaicking gives evaluatePixel one (reused) sample object, ORBIT / TILE an
 * array per scene (most recent first), data fusion arrays per datasource id; dataMask-0 pixels are evaluated too;
 * values are converted per sampleType by sampletype.ts (AUTO = round(v * 255) clamped); updateOutput and
 * updateOutputMetadata (its `userData`) are called around the pixels.
 * Other measured mechanisms name their figures where they live: concat.js (species-free concat, 10x on
 * ColorRampVisualizer scripts), writers.ts (per-output write sites), evaluation.js (the budget's +0.25),
 * values.js (branch-free conversion), lib.js / concat.js (`isArray` read before the hardening: a static read through
 * the guarded Array Proxy costs ~20 ns, scripts' own `Array.isArray` too). Not stoppable in local workerd (production's cpuMs and 128 MB end them):
 * flattening a string rope grown by `s += s` and native calls of microseconds repeated in a loop (harden.js).
 */
export { compileEvalscript, type CompiledEvalscript } from "./compile/compile";
export {
  loadEvalscript,
  DEFAULT_LIMITS,
  type EvalscriptRuntime,
  type RuntimeOptions,
  type FusionScenes,
  type RowsInput,
  type RuntimeLimits,
} from "./host/runtime";
export { toSampleType, storedSampleType, type SampleArray } from "./sampletype";
export type {
  EvalInput,
  EvalInputSpec,
  EvalOutputSpec,
  EvalOutputValues,
  EvalResult,
  EvalSetup,
  Mosaicking,
  OutputSink,
  SampleType,
  SceneData,
  SceneInfo,
  SceneTile,
  TimeRange,
} from "./types";

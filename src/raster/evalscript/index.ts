/**
 * Evalscript V3 runtime of EO Edge: how each piece maps to Sentinel Hub (docs.sentinel-hub.com/api/latest/
 * evalscript/v3/ and .../evalscript/functions/).
 *
 * - Header: the first non-blank line must be `//VERSION=3`; text after the 3 is tolerated
 *   (`//VERSION=3.Landslide_detection...`, `//VERSION=3 (auto-converted from 1)`). Else 400.
 * - compileEvalscript: acorn parse as a classic script (syntax errors: 400 with the user's line:column; a V1
 *   body with a top-level `return` gets a hint), setup() and evaluatePixel() must be defined (400), then every
 *   loop and function body gets a budget tick (instrument.ts) and the script is wrapped as a CommonJS module
 *   (sloppy mode, so implicit globals work as on Sentinel Hub). Builtins and library names the script uses,
 *   and its implicit globals, are bound as locals of the wrapper (globals.ts: workerd's CommonJS global
 *   lookups are dynamic and 5-10x slower); implicit globals thus live per script instance, not on globalThis.
 * - Sandbox: a Worker Loader isolate per script hash, `globalOutbound: null` (fetch throws), `env: {}`, the
 *   utility library as globals (index, colorBlend, ColorRampVisualizer, ..., SampleType, Mosaicking), and
 *   `limits.cpuMs` for production. The isolate is shared by every request (and account) sending the same
 *   script, so nothing may persist in it: top-level code runs afresh for every call, as a new script instance
 *   (wrapper.ts), and before any script runs every object reachable from globalThis is frozen, globalThis
 *   included (sandbox/harden.ts; writes are ignored, as in sloppy mode; overriding toString / constructor /
 *   name / message on one's own objects still works). A fresh isolate per request would cost ~10-30 ms per
 *   setup() RPC against ~1 ms on the cached one (test/raster/evalscript/isolation.test.ts prints the figures).
 * - setup(): normalized (setup.ts): input band names or `{bands, units, datasource}`, outputs with id
 *   "default", sampleType AUTO, `mosaicking` SIMPLE; `bands` lists all requested names incl. `dataMask`.
 * - preProcessScenes(collections) with `collections.scenes.orbits[] = {dateFrom, dateTo, tiles[]}` (ORBIT) or
 *   `.tiles[] = {date, shId, tileOriginalId, cloudCoverage, dataPath}` (TILE), `collections.from/to` Dates;
 *   then legacy filterScenes(scenes, inputMetadata) with `scenes[i].date` a Date and `inputMetadata.from/to`.
 *   Runs before pixels are read; returns the scenes to read in the script's order, duplicates kept.
 * - evaluate(): updateOutput(outputs, collection) may change band counts (`outputs` keyed by id,
 *   `collection.scenes` the scene list); then evaluatePixel(samples, scenes, inputMetadata, customData,
 *   outputMetadata) for every pixel, row by row. SIMPLE: `samples` is one object {B04: .., dataMask: ..}
 *   (the same object reused for every pixel); ORBIT / TILE: an array with one object per scene, in
 *   EvalInput.scenes order (Sentinel Hub: most recent first); data fusion (inputs with `datasource`):
 *   `samples[datasource]` arrays. `scenes` is the legacy array (`scenes[i].date` Date) that also carries V3
 *   `scenes.orbits` / `scenes.tiles`. Return: an array (or a single number for a 1-band output) for one
 *   output, else an object keyed by output id; a wrong band count is a 400. Values stay raw Float32
 *   (band-interleaved by pixel); `toSampleType` converts per sampleType (sampletype.ts: AUTO = round(v*255)
 *   clamped, integers rounded and clamped, NaN -> 0, FLOAT32 as is). Pixels where dataMask is 0 are
 *   evaluated too (band values 0), as on Sentinel Hub.
 * - Column function (specialize.ts, samplereads.ts): when the AST proves that evaluatePixel only reads
 *   `sample.<band>` values of its first parameter (directly, through aliases or destructuring, or through
 *   top-level helpers it passes the sample to, `[sample]` included), uses no `this` / `arguments` and its other
 *   parameters at most as arguments those helpers ignore, and never lets the sample escape, the module also
 *   carries edited copies of evaluatePixel and of those helpers taking the band values as parameters (its
 *   return literals writing into arrays made once per instance); SIMPLE single-scene
 *   evaluations call it per pixel instead of filling a sample object. Ticks, per-call budget, output writing
 *   and error positions are the general path's (RuntimeOptions.general forces the general path; the tests
 *   compare both bit for bit, NaN sign bits aside).
 * - updateOutputMetadata(scenes, inputMetadata, outputMetadata) after the last pixel; `outputMetadata.userData`
 *   (set there or in evaluatePixel) is returned as `userData` (the userdata.json response).
 * - Limits (RuntimeLimits, limits.ts): `perCall` 2e7 ticks per script call, `total` 1e9 + 2000 per pixel and
 *   scene per request, `cpuMs` 30 s per sandbox call (production only), `blockBytes` 16 MiB per RPC (row
 *   blocks), `recycleBytes` 256 MiB moved per sandbox isolate before a fresh one replaces it (sandboxgen.ts:
 *   an isolate's lazily collected garbage otherwise grew workerd's RSS with every heavy request), `poolBytes`
 *   512 MiB moved by all live sandbox isolates together before idle ones are aborted, least recently used first
 *   (a script sent a few times never reaches its own budget), 1000 output bands and 256 MiB of raw output per request, 8 MiB of userdata JSON, 1 MiB of
 *   setup() JSON, 1 MiB of script text, error messages cut at 2000 characters. Ticks count loop iterations and
 *   function calls (instrument.ts, with a counter the script cannot reach: wrapper.ts) and the work the counter
 *   does not see: allocations (64 MiB per buffer, 8M elements per array, 16M characters per repeat/pad),
 *   Array methods walking their receiver, regex runs and locale formatting (sandbox/harden.ts). Regexes that
 *   can backtrack exponentially are refused (literals at compile time, others when run) and a regex with k
 *   quantifiers runs on at most min(10000, (1e8)^(1/(k+1))) characters.
 *   Not stoppable in local workerd, which enforces neither cpuMs nor the 128 MB isolate memory of
 *   production (both end these there): flattening a string rope grown by `s += s` (2^27 characters: 112 ms;
 *   the 2^29 maximum ~0.5 s and 1 GB), and native calls that take microseconds each repeated in a loop.
 * - Data fusion (inputs with `datasource`, each may set its own `mosaicking`): `samples.<id>` is an array per
 *   datasource (SIMPLE: one mosaicked sample, none when the datasource found no scene), `scenes.<id>` its
 *   scenes (also as `scenes.<id>.scenes`: orbits or tiles), and preProcessScenes gets
 *   `collections.<id>` = {scenes, from, to} with the datasource's own time range (legacy filterScenes is not
 *   called).
 * - Errors in script code: EngineError script-error (budget-exceeded, limit-exceeded; all rendered as 400, code
 *   EXECUTION_ERROR by src/http/errors.ts), "Failed to evaluate script! <Error>: <message> at line L,
 *   column C (<function>, output pixel column x, row y)" with L:C in the user's script. Endless loops stop
 *   after `perCall` ticks (~0.1 s) and endless recursion at V8's stack limit, limit breaches at once, all as
 *   400s naming the cause; other requests keep being served.
 */
export { compileEvalscript, type CompiledEvalscript } from "./compile";
export { loadEvalscript, DEFAULT_LIMITS, type EvalscriptRuntime, type RuntimeOptions, type FusionScenes, type RowsInput, type RuntimeLimits } from "./runtime";
export { toSampleType, storedSampleType, type SampleArray } from "./sampletype";
export type {
  EvalInput,
  EvalInputSpec,
  EvalOutputSpec,
  EvalOutputValues,
  EvalResult,
  EvalSetup,
  Mosaicking,
  SampleType,
  SceneData,
  SceneInfo,
  SceneTile,
  TimeRange,
} from "./types";

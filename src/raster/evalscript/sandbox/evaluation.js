// @ts-check
/**
 * Sandbox module with the state of one evaluation (entry.js runs it in one call or as a Session over blocks):
 * the script instance, the scene objects and reused samples, the outputs (updateOutput may change their bands),
 * the budget left, and the block runner (pixels.js loops, values.js arrays).
 */
import { scenesArgument, timeRangeOf } from "./scenes.js";
import { TotalBudgetError, failure } from "./script.js";
import { fill, fillNames, pixels } from "./pixels.js";
import { bandValues, outputValues, toStored } from "./values.js";
import { L } from "./limits.js";

/** @typedef {import("./rpc").SessionParams} SessionParams */
/** @typedef {import("./rpc").Block} Block */
/** @typedef {import("./rpc").BlockValues} BlockValues */
/** @typedef {import("./script.js").Script} Script */
/** @typedef {import("../types").EvalOutputSpec & { values: Float32Array }} Output an output and its values (band-interleaved) */
/** @typedef {Record<string, number>} Sample the sample object of one scene: band name -> value */

/** @type {Record<string, number>} */
const SAMPLE_BYTES = { FLOAT32: 4, INT16: 2, UINT16: 2 };

/**
 * Why outputs break the host's limits (p.limits, see ../limits.ts HOST_LIMITS), or "". Mirrors runtime.ts.
 * @param {Output[]} outputs
 * @param {SessionParams} p
 */
function outputProblem(outputs, p) {
  const bands = outputs.reduce((n, o) => n + o.bands, 0);
  if (bands > p.limits.outputBands)
    return "the outputs have " + bands + " bands in all; the limit is " + p.limits.outputBands + " bands per request";
  const bytes = p.width * p.height * outputs.reduce((n, o) => n + o.bands * (SAMPLE_BYTES[o.sampleType] ?? 1), 0);
  if (bytes > p.limits.outputBytes)
    return (
      "the outputs would be " +
      bytes +
      " bytes (" +
      p.width +
      "x" +
      p.height +
      " pixels); the limit is " +
      p.limits.outputBytes +
      " bytes per request"
    );
  return "";
}

/** State of one evaluation: the script instance, scene objects, reused samples, outputs, budget left. */
export class Evaluation {
  /**
   * @param {Script} script
   * @param {SessionParams} p
   */
  constructor(script, p) {
    if (!script.has("evaluatePixel"))
      throw new TypeError("evaluatePixel is not a function: define function evaluatePixel(sample)");
    this.script = script;
    this.p = p;
    /**
     * Ticks left of the session's total budget, plus 0.25 so that it is a double from the first evaluation on. Why:
     * workerd's V8 compresses pointers, so small integers (Smis) stop at 2^30 - 1; the total (1e9 + 2000 per pixel)
     * was one for blocks under ~270 x 270 px and not above, and the field's change of representation left the
     * isolate's optimised pixel loop and AUTO conversion ~3x slower for good (measured: NDVI PNG 512 x 512, eval
     * stage 11-17 ms after 35 requests of 64 x 64 px, 3-9 ms with the fraction; re-measured later, two fresh
     * servers interleaved, 35 x 64² then 60 x 512² each, three runs: p50 14, 15, 11 ms with it, 16, 20, 14 ms
     * without). Charges are whole ticks, so the budget runs out (below 0) at the same charge as without it.
     */
    this.left = p.budget.total + 0.25;
    const infos = p.scenes.map((s) => s.info);
    this.fusion = Object.keys(p.bandsBy).some((d) => d !== "");
    /** @type {(string | undefined)[]} datasource ids (data fusion) or [undefined] */
    this.groups = this.fusion ? Object.keys(p.bandsBy) : [undefined];
    /** @type {any} evaluatePixel's `scenes` (one per datasource id with data fusion) */
    this.scenesArg = this.fusion
      ? Object.fromEntries(
          this.groups.map((d) => [
            d,
            scenesArgument(
              p.scenes.filter((s) => s.datasource === d).map((s) => s.info),
              p.mosaickingBy?.[/** @type {string} */ (d)] ?? p.mosaicking,
              true,
            ),
          ]),
        )
      : scenesArgument(infos, p.mosaicking);
    this.inputMetadata = p.inputMetadata;
    this.customData = p.customData;
    /** @type {{ userData?: unknown }} */
    this.outputMetadata = {};
    this.names = p.scenes.map((s) => p.bandsBy[s.datasource ?? ""] ?? []);
    this.objs = this.names.map((ns) => Object.fromEntries(ns.map((n) => [n, 0])));
    /** @type {Sample[][]} */
    this.sampleLists = this.groups.map(() => []);
    /** Copies of the outputs (updateOutput may change bands); `values` is set by evaluate() before any use. */
    this.outputs = /** @type {Output[]} */ (p.outputs.map((o) => ({ ...o })));
    /** Per scene, the value arrays of its bands (names order) in the current block. @type {ArrayLike<number>[][]} */
    this.arrays = [];
    /** evaluatePixel's `samples`. @type {any} */
    this.samples = undefined;
    /** Pixels done in the current block. */
    this.at = 0;
    /** @type {{ col: number, row: number } | undefined} */
    this.pixel = undefined;
  }
  /** Throws the error of a spent total budget (the pixel loops call it). @returns {never} */
  over() {
    throw new TotalBudgetError("total");
  }
  /** Applies updateOutput(outputs, collection); returns {id: bands}. */
  updateOutput() {
    if (this.script.has("updateOutput")) {
      const byId = Object.fromEntries(this.outputs.map((o) => [o.id, o]));
      const scenes = this.fusion ? this.scenesArg[/** @type {string} */ (this.groups[0])] : this.scenesArg;
      this.script.run("updateOutput", byId, {
        scenes,
        ...timeRangeOf(
          this.p.scenes.map((s) => s.info),
          this.p.timeRange,
        ),
      });
      for (const o of this.outputs) {
        if (!Number.isInteger(o.bands) || o.bands < 1)
          throw new TypeError(
            'updateOutput set output "' + o.id + '".bands to ' + o.bands + "; it must be a positive integer",
          );
      }
    }
    const problem = outputProblem(this.outputs, this.p);
    if (problem) this.script.refuse(problem);
    return Object.fromEntries(this.outputs.map((o) => [o.id, o.bands]));
  }
  /** evaluatePixel's samples: the sample (SIMPLE), the list of samples, or one list per datasource id (fusion). */
  samplesArgument() {
    const p = this.p,
      lists = this.sampleLists;
    for (let g = 0; g < lists.length; g++) lists[g].length = 0;
    for (let k = 0; k < p.scenes.length; k++)
      lists[this.fusion ? this.groups.indexOf(p.scenes[k].datasource) : 0].push(this.objs[k]);
    if (this.fusion) return Object.fromEntries(this.groups.map((d, g) => [d, lists[g]]));
    return p.mosaicking === "SIMPLE" ? this.objs[0] : lists[0];
  }
  /**
   * @param {Block} block
   * @returns {import("./rpc").Reply<{ values: BlockValues }>}
   */
  run(block) {
    try {
      return { ok: true, values: this.evaluate(block) };
    } catch (err) {
      return failure(this.script, err, { pixel: this.pixel });
    }
  }
  /**
   * Runs evaluatePixel over the pixels of `block`; returns the values per output id (stored type with p.convert).
   * @param {Block} block
   */
  evaluate(block) {
    const p = this.p,
      n = p.width * block.rows;
    this.arrays = block.scenes.map((s, k) =>
      this.names[k].map((nm) => bandValues(nm === "dataMask" ? s.dataMask : s.bands[nm], n)),
    );
    const convert = p.convert;
    this.outputs.forEach((o, k) => {
      o.values = outputValues(k, n * o.bands, !!convert && o.sampleType !== "FLOAT32");
    });
    this.samples = this.samplesArgument();
    fillNames(this.names[0] ?? []);
    this.script.stage = "evaluatePixel";
    this.pixel = undefined;
    try {
      pixels(this, n);
    } catch (err) {
      this.pixel = { col: this.at % p.width, row: block.rowStart + Math.floor(this.at / p.width) };
      throw err;
    }
    return Object.fromEntries(this.outputs.map((o) => [o.id, convert ? toStored(o.values, o.sampleType) : o.values]));
  }
  /** ORBIT / TILE / data fusion: fills every scene's sample and resets the samples argument. @param {number} i */
  fillAll(i) {
    const objs = this.objs,
      arrays = this.arrays,
      ns = objs.length;
    if (!this.fusion) {
      const samples = this.samples;
      for (let k = 0; k < ns; k++) {
        fill(objs[k], arrays[k], i);
        samples[k] = objs[k];
      }
      samples.length = ns;
      return;
    }
    for (let k = 0; k < ns; k++) {
      fillNames(this.names[k]);
      fill(objs[k], arrays[k], i);
    }
    this.samplesArgument();
  }
  /** @returns {import("./rpc").Reply<{ userData?: unknown }>} */
  finish() {
    try {
      if (this.script.has("updateOutputMetadata"))
        this.script.run("updateOutputMetadata", this.scenesArg, this.inputMetadata, this.outputMetadata);
      this.script.stage = "updateOutputMetadata";
      return {
        ok: true,
        userData: this.script.plain(this.outputMetadata.userData, "outputMetadata.userData", L.userDataChars),
      };
    } catch (err) {
      return failure(this.script, err);
    }
  }
}

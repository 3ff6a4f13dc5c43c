// @ts-check
/**
 * Main module of the sandbox isolate (sandbox.ts loads it as text: a plain ES module, never bundled): a WorkerEntrypoint whose methods the host calls over
 * RPC. Each method instantiates the script afresh (top-level code runs per call, so no state leaks between
 * requests), runs one script function and returns `{ok: true, ...}` or `{ok: false, error}` (errors are data,
 * mapped to the user's line:column by the host). `evaluate` runs a whole request in one call; `open` returns
 * a Session (an RpcTarget over an Evaluation) so huge requests can send row blocks while script state
 * (globals, customData, outputMetadata, budget) persists between blocks.
 *
 * Per pixel, SIMPLE mosaicking fills ONE reused sample object (property stores unrolled per band so V8 keeps
 * them monomorphic), ORBIT / TILE fill one reused object per scene and reset the samples array (scripts may
 * sort or splice it). Every call gets `budget.perCall` ticks (see instrument.ts), a session `budget.total`.
 */
import { WorkerEntrypoint, RpcTarget } from "cloudflare:workers";
import "./lib.js";
import { native, enter } from "./harden.js";
import { scenesArgument, collectionsArgument, preProcessFusion, timeRangeOf, matchScenes } from "./scenes.js";
import { TotalBudgetError, failure, attempt } from "./script.js";
import { L } from "./limits.js";

/** @typedef {import("./rpc").SessionParams} SessionParams */
/** @typedef {import("./rpc").Block} Block */
/** @typedef {import("./rpc").BlockValues} BlockValues */
/** @typedef {import("./script.js").Script} Script */
/** @typedef {import("../types").EvalOutputSpec & { values: Float32Array }} Output an output and its values (band-interleaved) */
/** @typedef {Record<string, number>} Sample the sample object of one scene: band name -> value */

/** Band names of the scene being filled (fill). @type {string[]} */
let NAMES = [];
/**
 * `fill(sample, arrays, i)`: sample[NAMES[k]] = arrays[k][i], with one store site per band index (unrolled for
 * 24 bands, a loop above) so V8 keeps each store monomorphic.
 * @param {Record<string, number>} s the reused sample object
 * @param {ArrayLike<number>[]} a one array of values per band, in NAMES order
 * @param {number} i pixel index in the block
 */
function fill(s, a, i) {
  switch (a.length) {
    default: for (let k = a.length - 1; k >= 24; k--) s[NAMES[k]] = a[k][i];
    case 24: s[NAMES[23]] = a[23][i];
    case 23: s[NAMES[22]] = a[22][i];
    case 22: s[NAMES[21]] = a[21][i];
    case 21: s[NAMES[20]] = a[20][i];
    case 20: s[NAMES[19]] = a[19][i];
    case 19: s[NAMES[18]] = a[18][i];
    case 18: s[NAMES[17]] = a[17][i];
    case 17: s[NAMES[16]] = a[16][i];
    case 16: s[NAMES[15]] = a[15][i];
    case 15: s[NAMES[14]] = a[14][i];
    case 14: s[NAMES[13]] = a[13][i];
    case 13: s[NAMES[12]] = a[12][i];
    case 12: s[NAMES[11]] = a[11][i];
    case 11: s[NAMES[10]] = a[10][i];
    case 10: s[NAMES[9]] = a[9][i];
    case 9: s[NAMES[8]] = a[8][i];
    case 8: s[NAMES[7]] = a[7][i];
    case 7: s[NAMES[6]] = a[6][i];
    case 6: s[NAMES[5]] = a[5][i];
    case 5: s[NAMES[4]] = a[4][i];
    case 4: s[NAMES[3]] = a[3][i];
    case 3: s[NAMES[2]] = a[2][i];
    case 2: s[NAMES[1]] = a[1][i];
    case 1: s[NAMES[0]] = a[0][i];
    case 0:
  }
}

const ZERO = new native.Float32Array(0);

/**
 * Band values of a block: as sent, or (../pack.ts) the Float32 values of integers and their scale, bit for bit
 * those the host had: value = Math.fround(dn * scale) (the Float32Array store rounds).
 * @param {Float32Array | import("../pack").PackedBand | undefined} band
 * @returns {Float32Array | undefined}
 */
function unpack(band) {
  if (band === undefined || !("dn" in band)) return band;
  const dn = band.dn, scale = band.scale, out = new native.Float32Array(dn.length);
  for (let i = 0; i < dn.length; i++) out[i] = dn[i] * scale;
  return out;
}

/**
 * Stored sampleType conversion; must equal ../sampletype.ts toSampleType (test/raster/evalscript/convert.test.ts).
 * @type {Record<string, [number, number, typeof Int8Array | typeof Uint8Array | typeof Int16Array | typeof Uint16Array]>}
 */
const RANGES = { INT8: [-128, 127, native.Int8Array], UINT8: [0, 255, native.Uint8Array], INT16: [-32768, 32767, native.Int16Array], UINT16: [0, 65535, native.Uint16Array] };
/**
 * Output values converted to the stored sampleType: rounded (AUTO: scaled by 255 first), clamped, NaN as 0.
 * @param {Float32Array} values
 * @param {string} sampleType INT8, UINT8, INT16, UINT16, AUTO (as UINT8) or FLOAT32 (returned as is)
 */
function toStored(values, sampleType) {
  if (sampleType === "FLOAT32") return values;
  const [min, max, T] = RANGES[sampleType === "AUTO" ? "UINT8" : sampleType];
  const scale = sampleType === "AUTO" ? 255 : 1;
  const out = new T(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = Math.round(values[i] * scale);
    out[i] = v !== v ? 0 : v < min ? min : v > max ? max : v;
  }
  return out;
}

/**
 * The error for a value evaluatePixel returned that does not fit output `o`.
 * @param {Output} o
 * @param {unknown} r
 */
function mismatch(o, r) {
  const got = r === undefined ? "undefined" : r === null ? "null" : typeof r === "object" ? ("length" in r && typeof r.length === "number" ? r.length + " values" : "an object") : "a single " + typeof r;
  return new TypeError("evaluatePixel returned " + got + " for output \"" + o.id + "\", which has " + o.bands + " band(s) in setup()");
}

/**
 * Stores evaluatePixel's value `r` for output `o` at pixel `i` (an array of o.bands values, a single value for
 * one band, or with `single` an object holding the value under the output's id).
 * @param {Output} o
 * @param {any} r
 * @param {number} i
 * @param {boolean} single
 * @returns {void}
 */
function put(o, r, i, single) {
  const nb = o.bands, vals = o.values;
  if (typeof r === "object" && r !== null) {
    const len = r.length;
    if (len === nb) { const base = i * nb; for (let k = 0; k < nb; k++) vals[base + k] = r[k]; return; }
    if (single && len === undefined && o.id in r) return put(o, r[o.id], i, false);
    throw mismatch(o, r);
  }
  if (nb === 1 && r !== undefined && (typeof r === "number" || typeof r === "boolean" || typeof r === "string")) { vals[i] = /** @type {number} */ (r); return; }
  throw mismatch(o, r);
}

/**
 * Stores evaluatePixel's object of values (one per output id) at pixel `i`.
 * @param {Output[]} outs
 * @param {any} r
 * @param {number} i
 */
function putAll(outs, r, i) {
  if (typeof r !== "object" || r === null) throw new TypeError("evaluatePixel must return an object with one array per output id (" + outs.map((o) => o.id).join(", ") + ")");
  for (let k = 0; k < outs.length; k++) {
    const o = outs[k];
    if (!(o.id in r)) throw new TypeError("evaluatePixel returned no value for output \"" + o.id + "\"");
    put(o, r[o.id], i, false);
  }
}

/**
 * The pixel loop over n pixels of the current block (locals only: this is the hot path). `st.step(i)` is
 * evaluatePixel's value at pixel i: the column function, or a call with the filled sample objects.
 * @param {Evaluation} st
 * @param {number} n
 */
function pixels(st, n) {
  const inst = st.script.inst, perCall = st.script.perCall, step = st.step;
  const outs = st.outputs, single = outs.length === 1, o0 = outs[0], nb0 = single ? o0.bands : 0, vals0 = o0.values;
  let left = st.left, i = 0;
  enter(inst);
  try {
    for (; i < n; i++) {
      inst.set(perCall);
      const r = step(i);
      const k = inst.left();
      if (k < 0) inst.stop();
      left -= perCall - k;
      if (left < 0) throw new TotalBudgetError("total");
      if (typeof r === "number" && nb0 === 1) vals0[i] = r;
      else if (single) put(o0, r, i, true);
      else putAll(outs, r, i);
    }
  } finally {
    enter(null);
    st.left = left;
    st.at = i;
  }
}

/** Stands for a band the script reads but did not request: every value undefined, as on the sample object. */
const ABSENT = Object.freeze(new native.Array(0));

/**
 * evaluatePixel per pixel for an evaluation: the column function bound to the block's band arrays when the
 * script has one and the evaluation allows it (SIMPLE, one scene, no data fusion, not forced general), else a
 * call with the filled sample object(s) and the other four arguments.
 * @param {Evaluation} st
 * @returns {(i: number) => unknown}
 */
function stepper(st) {
  const column = st.script.fns.column, p = st.p;
  if (column && !p.general && p.mosaicking === "SIMPLE" && !st.fusion && p.scenes.length === 1) {
    const names = st.names[0], arrays = st.arrays[0];
    column.bind(column.names.map((nm) => { const k = names.indexOf(nm); return k < 0 ? ABSENT : arrays[k]; }));
    return column.step;
  }
  const ep = /** @type {Function} */ (st.script.fns.evaluatePixel);
  const samples = st.samples, scenesArg = st.scenesArg, im = st.inputMetadata, cd = st.customData, om = st.outputMetadata;
  if (p.mosaicking === "SIMPLE" && !st.fusion) {
    const obj0 = st.objs[0], arr0 = st.arrays[0];
    return (i) => { fill(obj0, arr0, i); return ep(samples, scenesArg, im, cd, om); };
  }
  return (i) => { st.fillAll(i); return ep(samples, scenesArg, im, cd, om); };
}

/** @type {Record<string, number>} */
const SAMPLE_BYTES = { FLOAT32: 4, INT16: 2, UINT16: 2 };

/**
 * Why outputs break the host's limits (p.limits, see ../limits.ts HOST_LIMITS), or "". Mirrors runtime.ts.
 * @param {Output[]} outputs
 * @param {SessionParams} p
 */
function outputProblem(outputs, p) {
  const bands = outputs.reduce((n, o) => n + o.bands, 0);
  if (bands > p.limits.outputBands) return "the outputs have " + bands + " bands in all; the limit is " + p.limits.outputBands + " bands per request";
  const bytes = p.width * p.height * outputs.reduce((n, o) => n + o.bands * (SAMPLE_BYTES[o.sampleType] ?? 1), 0);
  if (bytes > p.limits.outputBytes) return "the outputs would be " + bytes + " bytes (" + p.width + "x" + p.height + " pixels); the limit is " + p.limits.outputBytes + " bytes per request";
  return "";
}

/** State of one evaluation: the script instance, scene objects, reused samples, outputs, budget left. */
class Evaluation {
  /**
   * @param {Script} script
   * @param {SessionParams} p
   */
  constructor(script, p) {
    if (!script.has("evaluatePixel")) throw new TypeError("evaluatePixel is not a function: define function evaluatePixel(sample)");
    this.script = script;
    this.p = p;
    /** Ticks left of the session's total budget. */
    this.left = p.budget.total;
    const infos = p.scenes.map((s) => s.info);
    this.fusion = Object.keys(p.bandsBy).some((d) => d !== "");
    /** @type {(string | undefined)[]} datasource ids (data fusion) or [undefined] */
    this.groups = this.fusion ? Object.keys(p.bandsBy) : [undefined];
    /** @type {any} evaluatePixel's `scenes` (one per datasource id with data fusion) */
    this.scenesArg = this.fusion
      ? Object.fromEntries(this.groups.map((d) => [d, scenesArgument(p.scenes.filter((s) => s.datasource === d).map((s) => s.info), p.mosaickingBy?.[/** @type {string} */ (d)] ?? p.mosaicking, true)]))
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
    /** evaluatePixel's value at pixel i of the current block (stepper). @type {(i: number) => unknown} */
    this.step = (i) => i;
  }
  /** Applies updateOutput(outputs, collection); returns {id: bands}. */
  updateOutput() {
    if (this.script.has("updateOutput")) {
      const byId = Object.fromEntries(this.outputs.map((o) => [o.id, o]));
      const scenes = this.fusion ? this.scenesArg[/** @type {string} */ (this.groups[0])] : this.scenesArg;
      this.script.run("updateOutput", byId, { scenes, ...timeRangeOf(this.p.scenes.map((s) => s.info), this.p.timeRange) });
      for (const o of this.outputs) {
        if (!Number.isInteger(o.bands) || o.bands < 1) throw new TypeError("updateOutput set output \"" + o.id + "\".bands to " + o.bands + "; it must be a positive integer");
      }
    }
    const problem = outputProblem(this.outputs, this.p);
    if (problem) this.script.refuse(problem);
    return Object.fromEntries(this.outputs.map((o) => [o.id, o.bands]));
  }
  /** evaluatePixel's samples: the sample (SIMPLE), the list of samples, or one list per datasource id (fusion). */
  samplesArgument() {
    const p = this.p, lists = this.sampleLists;
    for (let g = 0; g < lists.length; g++) lists[g].length = 0;
    for (let k = 0; k < p.scenes.length; k++) lists[this.fusion ? this.groups.indexOf(p.scenes[k].datasource) : 0].push(this.objs[k]);
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
    const p = this.p, n = p.width * block.rows;
    this.arrays = block.scenes.map((s, k) => this.names[k].map((nm) => (nm === "dataMask" ? s.dataMask : unpack(s.bands[nm])) ?? ZERO));
    for (const list of this.arrays) for (let b = 0; b < list.length; b++) if (list[b].length < n) list[b] = new native.Float32Array(n);
    for (const o of this.outputs) o.values = new native.Float32Array(n * o.bands);
    this.samples = this.samplesArgument();
    NAMES = this.names[0] ?? [];
    this.step = stepper(this);
    this.script.stage = "evaluatePixel";
    this.pixel = undefined;
    try {
      pixels(this, n);
    } catch (err) {
      this.pixel = { col: this.at % p.width, row: block.rowStart + Math.floor(this.at / p.width) };
      throw err;
    }
    const convert = p.convert;
    return Object.fromEntries(this.outputs.map((o) => [o.id, convert ? toStored(o.values, o.sampleType) : o.values]));
  }
  /** ORBIT / TILE / data fusion: fills every scene's sample and resets the samples argument. */
  /** @param {number} i */
  fillAll(i) {
    const objs = this.objs, arrays = this.arrays, ns = objs.length;
    if (!this.fusion) {
      const samples = this.samples;
      for (let k = 0; k < ns; k++) { fill(objs[k], arrays[k], i); samples[k] = objs[k]; }
      samples.length = ns;
      return;
    }
    for (let k = 0; k < ns; k++) { NAMES = this.names[k]; fill(objs[k], arrays[k], i); }
    this.samplesArgument();
  }
  /** @returns {import("./rpc").Reply<{ userData?: unknown }>} */
  finish() {
    try {
      if (this.script.has("updateOutputMetadata")) this.script.run("updateOutputMetadata", this.scenesArg, this.inputMetadata, this.outputMetadata);
      this.script.stage = "updateOutputMetadata";
      return { ok: true, userData: this.script.plain(this.outputMetadata.userData, "outputMetadata.userData", L.userDataChars) };
    } catch (err) {
      return failure(this.script, err);
    }
  }
}

/** RPC face of an Evaluation for multi-block requests (its state stays a plain object: fast property access). */
class Session extends RpcTarget {
  /** @param {Evaluation} evaluation */
  constructor(evaluation) {
    super();
    this.evaluation = evaluation;
  }
  /** @param {Block} block */
  run(block) { return this.evaluation.run(block); }
  finish() { return this.evaluation.finish(); }
}

/** The RPC surface (rpc.ts SandboxApi; RPC makes each reply a Promise). */
export default class extends WorkerEntrypoint {
  /** @param {import("../errors").Budget} budget */
  setup(budget) {
    return attempt(budget.perCall, (script) => {
      if (!script.has("setup")) throw new TypeError("setup is not a function: define function setup()");
      return { ok: true, value: script.plain(script.run("setup"), "the value setup() returns", L.setupChars) };
    });
  }
  /** @param {Parameters<import("./rpc").SandboxApi["preProcessScenes"]>[0]} p */
  preProcessScenes(p) {
    return attempt(p.budget.perCall, (script) => {
      let indices = p.infos.map((_, i) => i);
      if (script.has("preProcessScenes") && p.timeRanges) {
        indices = preProcessFusion(p, (c) => script.run("preProcessScenes", c));
      } else if (script.has("preProcessScenes")) {
        const collections = collectionsArgument(p.infos, p.mosaicking, p.timeRange);
        const given = /** @type {unknown[]} */ (collections.scenes.orbits ?? collections.scenes.tiles);
        const ret = script.run("preProcessScenes", collections) ?? collections;
        const list = Array.isArray(ret) ? ret : ret && ret.scenes ? ret.scenes.orbits ?? ret.scenes.tiles : undefined;
        indices = matchScenes(given, list).map((i) => indices[i]);
      }
      if (script.has("filterScenes") && !p.timeRanges) {
        const infos = indices.map((i) => p.infos[i]);
        const given = scenesArgument(infos, p.mosaicking);
        const ret = script.run("filterScenes", given, { ...p.inputMetadata, ...timeRangeOf(p.infos, p.timeRange) });
        indices = matchScenes(given, ret).map((i) => indices[i]);
      }
      return { ok: true, indices };
    });
  }
  /** One-block evaluation in one call: updateOutput, all pixels, updateOutputMetadata. */
  /**
   * @param {SessionParams} p
   * @param {Block} block
   */
  evaluate(p, block) {
    return attempt(p.budget.perCall, (script) => {
      const evaluation = new Evaluation(script, p);
      const bands = evaluation.updateOutput();
      const r = evaluation.run(block);
      if (!r.ok) return r;
      const f = evaluation.finish();
      return f.ok ? { ok: true, bands, values: r.values, userData: f.userData } : f;
    });
  }
  /** Multi-block evaluation: returns the session (an RpcTarget) for run(block) calls and finish(). */
  /** @param {SessionParams} p */
  open(p) {
    return attempt(p.budget.perCall, (script) => {
      const evaluation = new Evaluation(script, p);
      return { ok: true, bands: evaluation.updateOutput(), session: new Session(evaluation) };
    });
  }
}

// @ts-check
/**
 * Sandbox module with the pixel loop of an evaluation (evaluation.js): filling the reused sample objects, the
 * loop itself and the writers of evaluatePixel's values into the outputs' Float32 values.
 *
 * Per pixel, SIMPLE mosaicking fills ONE reused sample object (property stores unrolled per band so V8 keeps
 * them monomorphic), ORBIT / TILE fill one reused object per scene and reset the samples array (scripts may
 * sort or splice it). Every call gets `budget.perCall` ticks (see ../instrument.ts), a session `budget.total`.
 * A script with a column function (../specialize.ts) runs its generated loop (../columnloop.ts `loop`), which
 * does per pixel exactly what {@link generalLoop} does, inside the script's scope.
 */
import { native, enter } from "./harden.js";
import { putAll } from "./writers.js";

/** @typedef {import("./evaluation.js").Evaluation} Evaluation */
/** @typedef {import("./evaluation.js").Output} Output */

/** Band names of the scene being filled (fill). @type {string[]} */
let NAMES = [];
/** Sets the band names fill() writes (the scene being filled). @param {string[]} names */
export function fillNames(names) { NAMES = names; }
/**
 * `fill(sample, arrays, i)`: sample[NAMES[k]] = arrays[k][i], with one store site per band index (unrolled for
 * 24 bands, a loop above) so V8 keeps each store monomorphic.
 * @param {Record<string, number>} s the reused sample object
 * @param {ArrayLike<number>[]} a one array of values per band, in NAMES order
 * @param {number} i pixel index in the block
 */
export function fill(s, a, i) {
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
export function put(o, r, i, single) {
  if (typeof r === "object" && r !== null) return putObject(o, r, r.length, i, single);
  if (o.bands === 1 && r !== undefined && (typeof r === "number" || typeof r === "boolean" || typeof r === "string")) { o.values[i] = /** @type {number} */ (r); return; }
  throw mismatch(o, r);
}

/**
 * {@link put} for an object `r` whose `length` was read once as `len` (writers.js reads it at its own site).
 * @param {Output} o
 * @param {any} r
 * @param {unknown} len
 * @param {number} i
 * @param {boolean} single
 * @returns {void}
 */
export function putObject(o, r, len, i, single) {
  const nb = o.bands, vals = o.values;
  if (len === nb) { const base = i * nb; for (let k = 0; k < nb; k++) vals[base + k] = r[k]; return; }
  if (single && len === undefined && o.id in r) return put(o, r[o.id], i, false);
  throw mismatch(o, r);
}

/**
 * The error for an evaluatePixel value that is not an object while there are several outputs.
 * @param {Output[]} outs
 */
export function notObject(outs) {
  return new TypeError("evaluatePixel must return an object with one array per output id (" + outs.map((o) => o.id).join(", ") + ")");
}

/**
 * The error for an output id evaluatePixel's object lacks.
 * @param {Output} o
 */
export function missing(o) { return new TypeError("evaluatePixel returned no value for output \"" + o.id + "\""); }

/**
 * The per-pixel loop of the general path (the column function's generated `loop` is the same code in the
 * script's scope): pixels st.at .. n-1, each with a fresh per-call budget, the total charged (st.left), the
 * value written by the fast writes (a number for one band, an array-like of B values; B = 0 with several
 * outputs) or by `write`. st.at and st.left are written back also when it throws.
 * @param {Evaluation} st
 * @param {number} n
 * @param {(i: number) => unknown} step evaluatePixel's value at pixel i
 * @param {Float32Array} V values of the first output
 * @param {number} B bands of the only output, 0 with several outputs
 * @param {(r: unknown, i: number) => void} write the generic writer
 */
function generalLoop(st, n, step, V, B, write) {
  const inst = st.script.inst, P = st.script.perCall;
  let L = st.left, i = st.at;
  try {
    for (; i < n; i++) {
      inst.set(P);
      const r = /** @type {any} */ (step(i));
      const q = inst.left();
      if (q < 0) inst.stop();
      L -= P - q;
      if (L < 0) st.over();
      if (typeof r === "number" && B === 1) V[i] = r;
      else if (B > 0 && typeof r === "object" && r !== null && r.length === B) { const o = i * B; for (let j = 0; j < B; j++) V[o + j] = r[j]; }
      else write(r, i);
    }
  } finally {
    st.left = L;
    st.at = i;
  }
}

/**
 * Runs evaluatePixel over the n pixels of the current block: the column function's loop when the evaluation
 * allows it (see {@link columnFor}), else the general loop with the filled sample objects.
 * @param {Evaluation} st
 * @param {number} n
 */
export function pixels(st, n) {
  const outs = st.outputs, single = outs.length === 1, o0 = outs[0], B = single ? o0.bands : 0;
  /** @type {(r: unknown, i: number) => void} */
  const write = single ? (r, i) => put(o0, r, i, true) : (r, i) => putAll(outs, r, i);
  st.at = 0;
  // before enter(): the band lookup's array methods are the sandbox's work, not charged to the script's budget
  const column = columnFor(st);
  enter(st.script.inst);
  try {
    if (column) column.loop(st, n, st.script.perCall, o0.values, B, write);
    else generalLoop(st, n, stepper(st), o0.values, B, write);
  } finally {
    enter(null);
  }
}

/** Stands for a band the script reads but did not request: every value undefined, as on the sample object. */
const ABSENT = Object.freeze(new native.Array(0));

/**
 * The script's column function bound to the block's band arrays when the script has one and the evaluation
 * allows it (SIMPLE, one scene, no data fusion, not forced general), else undefined.
 * @param {Evaluation} st
 */
function columnFor(st) {
  const column = st.script.fns.column, p = st.p;
  if (!column || p.general || p.mosaicking !== "SIMPLE" || st.fusion || p.scenes.length !== 1) return undefined;
  const names = st.names[0], arrays = st.arrays[0];
  column.bind(column.names.map((nm) => { const k = names.indexOf(nm); return k < 0 ? ABSENT : arrays[k]; }));
  return column;
}

/**
 * evaluatePixel per pixel on the general path: a call with the filled sample object(s) and the other four
 * arguments.
 * @param {Evaluation} st
 * @returns {(i: number) => unknown}
 */
function stepper(st) {
  const p = st.p;
  const ep = /** @type {Function} */ (st.script.fns.evaluatePixel);
  const samples = st.samples, scenesArg = st.scenesArg, im = st.inputMetadata, cd = st.customData, om = st.outputMetadata;
  if (p.mosaicking === "SIMPLE" && !st.fusion) {
    const obj0 = st.objs[0], arr0 = st.arrays[0];
    return (i) => { fill(obj0, arr0, i); return ep(samples, scenesArg, im, cd, om); };
  }
  return (i) => { st.fillAll(i); return ep(samples, scenesArg, im, cd, om); };
}

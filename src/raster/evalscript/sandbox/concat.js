// @ts-check
/**
 * Sandbox module with Array.prototype.concat, slice, map and filter without the species lookup (harden.js
 * installs them behind the guards of those methods). Why: harden.js points Array.prototype.constructor at the guarded Array Proxy and makes it an
 * accessor, which switches V8's species protector off; every native concat then creates its result through
 * the accessor and the Proxy's construct trap (measured ~1 us per call, which held ColorRampVisualizer scripts
 * ending in `.concat(sample.dataMask)` at ~1 Mpx/s).
 *
 * When the receiver is an Array whose `constructor` is the global (guarded) Array, ArraySpeciesCreate would
 * return `new Array(0)`, a plain array, and charge nothing (the guard charges elements(0)); this function then
 * runs the remaining steps of ECMAScript ArrayConcat (ECMA-262 sec. 23.1.3.2) itself: each of the receiver and
 * the arguments is spread when IsConcatSpreadable (its @@isConcatSpreadable, else IsArray), copying present
 * elements only (HasProperty then Get, holes stay holes), else appended as one element; the result's length
 * follows from the appends. Reads happen in the specification's order, so getters and Proxy traps see the same calls, except
 * the species constructor's @@species read (Array's own getter, no script code).
 */

const SPREAD = Symbol.isConcatSpreadable;

/** ECMAScript ToLength, loosely (no ToPrimitive hint): a non-negative integer up to 2^53 - 1. @param {unknown} v */
export const toLength = (v) => { const n = Math.floor(Number(v)); return n > 0 ? Math.min(n, 2 ** 53 - 1) : 0; };

/**
 * A relative index argument (ToIntegerOrInfinity; slice's start / end, fill's start / end) clamped to [0, len];
 * `dflt` for undefined.
 * @param {unknown} v
 * @param {number} len
 * @param {number} dflt
 */
export function relativeIndex(v, len, dflt) {
  const n = v === undefined ? dflt : Math.trunc(Number(v)) || 0;
  return n < 0 ? Math.max(len + n, 0) : Math.min(n, len);
}

/**
 * @param {unknown} e
 * @returns {boolean}
 */
function spreadable(e) {
  if ((typeof e !== "object" && typeof e !== "function") || e === null) return false;
  const s = /** @type {any} */ (e)[SPREAD];
  return s !== undefined ? !!s : Array.isArray(e);
}

/**
 * `self.concat(...args)` when its species constructor is `ArrayCtor` (the global Array) and every argument is
 * an Array or a primitive, else undefined (the caller runs the native concat: an object that is not an Array
 * may be spreadable with any length, which the guard does not count). The guard has capped the result's length
 * (SANDBOX_LIMITS.arrayLength).
 * @param {unknown} self the receiver
 * @param {unknown[]} args
 * @param {Function} ArrayCtor the global (guarded) Array constructor
 * @returns {unknown[] | undefined}
 */
export function concatPlain(self, args, ArrayCtor) {
  for (let a = 0; a < args.length; a++) {
    const e = args[a];
    if ((typeof e === "object" && e !== null && !Array.isArray(e)) || typeof e === "function") return undefined;
  }
  if (!Array.isArray(self) || self.constructor !== ArrayCtor) return undefined;
  // push, not out[n] = v: index stores past the end take V8's slow path once Array.prototype is frozen
  // (measured ~50 ns each in the sandbox); a hole is made by extending the length.
  /** @type {unknown[]} */
  const out = [];
  for (let a = -1; a < args.length; a++) {
    const e = a < 0 ? self : args[a];
    if (!spreadable(e)) { out.push(e); continue; }
    const o = /** @type {any} */ (e), len = toLength(o.length);
    for (let k = 0; k < len; k++) if (k in o) out.push(o[k]); else out.length++;
  }
  return out;
}

const { apply } = Reflect;

/**
 * The steps of slice / map / filter (ECMA-262 sec. 23.1.3.28, 23.1.3.21, 23.1.3.8) after the receiver's length
 * when its species constructor is the plain (guarded) Array, which harden.js's Proxy would construct with
 * `new Array(n)`: `create(n)` does that constructor's check (charge and cap) without the Proxy. Each runs only
 * on an Array receiver (Array.isArray) whose `constructor` (read after the length, as ArraySpeciesCreate does)
 * is `ArrayCtor`, and only when the arguments need no conversion that script code could observe (callable
 * callback; numeric or undefined slice bounds); otherwise it returns undefined before reading anything and the
 * caller runs the native method. Elements are read as the specification reads them (HasProperty, then Get),
 * holes stay holes (map, slice) and the callback gets (value, index, receiver) with thisArg.
 * @param {unknown} self
 * @param {Function} ArrayCtor the global (guarded) Array constructor
 * @returns {number} the receiver's length (ToLength), or -1 when its species is not ArrayCtor
 */
function plainLength(self, ArrayCtor) {
  const o = /** @type {any} */ (self), len = toLength(o.length);
  return o.constructor === ArrayCtor ? len : -1;
}

/**
 * The receiver's length for map / filter (callback args[0]), or -1 when the callback is not callable (the native
 * method throws), the receiver is not an Array or its species is not ArrayCtor.
 * @param {unknown} self
 * @param {unknown[]} args
 * @param {Function} ArrayCtor
 */
function callbackLength(self, args, ArrayCtor) {
  return typeof args[0] === "function" && Array.isArray(self) ? plainLength(self, ArrayCtor) : -1;
}

/**
 * `self.slice(start, end)` with the plain Array species, or undefined (see {@link plainLength}).
 * @param {unknown} self
 * @param {unknown[]} args
 * @param {Function} ArrayCtor
 * @param {(n: number) => void} create the guarded Array's check of `new Array(n)`
 * @returns {unknown[] | undefined}
 */
export function slicePlain(self, args, ArrayCtor, create) {
  const start = args[0], end = args[1];
  if (!Array.isArray(self) || (start !== undefined && typeof start !== "number") || (end !== undefined && typeof end !== "number")) return undefined;
  const len = plainLength(self, ArrayCtor);
  if (len < 0) return undefined;
  const o = /** @type {any} */ (self), k0 = relativeIndex(start, len, 0), k1 = relativeIndex(end, len, len);
  create(Math.max(k1 - k0, 0));
  /** @type {unknown[]} */
  const out = [];
  for (let k = k0; k < k1; k++) if (k in o) out.push(o[k]); else out.length++;
  return out;
}

/**
 * `self.map(f, thisArg)` with the plain Array species, or undefined (see {@link plainLength}).
 * @param {unknown} self
 * @param {unknown[]} args
 * @param {Function} ArrayCtor
 * @param {(n: number) => void} create the guarded Array's check of `new Array(n)`
 * @returns {unknown[] | undefined}
 */
export function mapPlain(self, args, ArrayCtor, create) {
  const len = callbackLength(self, args, ArrayCtor), f = /** @type {Function} */ (args[0]), thisArg = args[1];
  if (len < 0) return undefined;
  create(len);
  const o = /** @type {any} */ (self);
  /** @type {unknown[]} */
  const out = [];
  for (let k = 0; k < len; k++) if (k in o) out.push(apply(f, thisArg, [o[k], k, o])); else out.length++;
  return out;
}

/**
 * `self.filter(f, thisArg)` with the plain Array species, or undefined (see {@link plainLength}).
 * @param {unknown} self
 * @param {unknown[]} args
 * @param {Function} ArrayCtor
 * @param {(n: number) => void} create the guarded Array's check of `new Array(n)`
 * @returns {unknown[] | undefined}
 */
export function filterPlain(self, args, ArrayCtor, create) {
  const len = callbackLength(self, args, ArrayCtor), f = /** @type {Function} */ (args[0]), thisArg = args[1];
  if (len < 0) return undefined;
  create(0);
  const o = /** @type {any} */ (self);
  /** @type {unknown[]} */
  const out = [];
  for (let k = 0; k < len; k++) {
    if (!(k in o)) continue;
    const v = o[k];
    if (apply(f, thisArg, [v, k, o])) out.push(v);
  }
  return out;
}

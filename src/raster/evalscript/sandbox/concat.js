// @ts-check
/**
 * Sandbox module with Array.prototype.concat, slice, map and filter without the species lookup (harden.js
 * installs them behind the guards of those methods). Why: harden.js points Array.prototype.constructor at the guarded Array Proxy and makes it an
 * accessor, which switches V8's species protector off; every native concat then creates its result through
 * the accessor and the Proxy's construct trap (measured ~1 us per call, which held ColorRampVisualizer scripts
 * ending in `.concat(sample.dataMask)` at ~1 Mpx/s). Gain in workerd (A/B, two wrangler dev servers with and
 * without this module, interleaved, eval stage p50 of 1024 x 1024 GeoTIFF requests over 29RKH): the real scripts
 * ndvi 80 against 788 ms, evi 146 against 1246 ms, ndvi (eob) 394 against 1524 ms. Those scripts now take the
 * host path (../hostpath), but a script outside its subset still gets here: the ndvi script with a global counter
 * added (`seen++`), 108 against 814 CPU ms per Mpx (profile:sandbox --ref without this module, 512², loaded machine);
 * in workerd, 1024², 160 against 958 ms with concat off and 164 with only slice / map / filter off, while a user
 * ORBIT script with per-pixel `samples.filter(...).map(...)` took ~1.8x as long with slice / map / filter off
 * (issue 39 A/B: one wrangler dev per variant, requests interleaved, workerd CPU ms per request, loaded machine).
 * Why the cause stays: the guarded constructor must be what `[].constructor` hands out, or any array gives the
 * unguarded Array (`new ([].constructor)(1e7)`: 80 MB, 36 ms in node 22, uncharged); V8's species protector is
 * off as soon as Array.prototype.constructor is anything but the realm's Array.
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
/** The realm's Array (this module is evaluated before harden.js replaces the global by its guarded Proxy). */
const NativeArray = Array;
/**
 * Array.isArray, read once: after harden.js the global Array is a Proxy, and each `Array.isArray` read goes
 * through its [[Get]], which V8 never inlines (measured ~20 ns per read in profile:sandbox, half the cost of
 * ColorRampVisualizer scripts' per-pixel `rgb.concat(dataMask)`).
 */
export const { isArray } = NativeArray;

/** ECMAScript ToLength, loosely (no ToPrimitive hint): a non-negative integer up to 2^53 - 1. @param {unknown} v */
export const toLength = (v) => {
  const n = Math.floor(Number(v));
  return n > 0 ? Math.min(n, 2 ** 53 - 1) : 0;
};

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
  return s !== undefined ? !!s : isArray(e);
}

/**
 * Appends `e` to `out` as ArrayConcat does with each item: its present elements when it is spreadable (holes
 * stay holes: the length is extended), else `e` itself.
 * @param {unknown[]} out
 * @param {unknown} e
 */
function appendItem(out, e) {
  if (spreadable(e)) copyRange(out, e, 0, toLength(/** @type {any} */ (e).length));
  else out.push(e);
}

/**
 * Appends elements k0 .. k1 - 1 of `o` to `out`, present ones read (HasProperty, then Get), holes kept as holes.
 * @param {unknown[]} out
 * @param {any} o
 * @param {number} k0
 * @param {number} k1
 */
function copyRange(out, o, k0, k1) {
  for (let k = k0; k < k1; k++)
    if (k in o) out.push(o[k]);
    else out.length++;
}

/** Whether concat's native steps are needed for an argument: an object that is not an Array, or a function. @param {unknown} e */
const foreign = (e) => (typeof e === "object" && e !== null && !isArray(e)) || typeof e === "function";
/** Whether the receiver's species constructor is `ArrayCtor` (an Array whose `constructor` is it). @param {unknown} self @param {Function} ArrayCtor */
const plainReceiver = (self, ArrayCtor) => isArray(self) && /** @type {any} */ (self).constructor === ArrayCtor;

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
  for (let a = 0; a < args.length; a++) if (foreign(args[a])) return undefined;
  if (!plainReceiver(self, ArrayCtor)) return undefined;
  return concatItems(self, args);
}

/**
 * The receiver's items then each argument's, appended in order ({@link appendItem}). Pushed, not stored at
 * out[n]: index stores past the end take V8's slow path once Array.prototype is frozen (measured ~50 ns each in
 * the sandbox); a hole is made by extending the length.
 * @param {unknown} self
 * @param {unknown[]} args
 */
function concatItems(self, args) {
  /** @type {unknown[]} */
  const out = [];
  appendItem(out, self);
  for (let a = 0; a < args.length; a++) appendItem(out, args[a]);
  return out;
}

/**
 * {@link concatPlain} of one argument, `self.concat(e)` (ColorRampVisualizer scripts' `rgb.concat(dataMask)`), which
 * needs no arguments array.
 * @param {unknown} self
 * @param {unknown} e
 * @param {Function} ArrayCtor
 * @returns {unknown[] | undefined}
 */
export function concatOne(self, e, ArrayCtor) {
  if (foreign(e) || !plainReceiver(self, ArrayCtor)) return undefined;
  if (typeof e !== "object" || e === null) {
    // a primitive is appended as one element, after the receiver's elements: the result's length is known, so it
    // is made at that length (no growth by push; stores within the length keep V8's fast path)
    if (!spreadable(self)) return [self, e];
    const o = /** @type {any} */ (self),
      len = toLength(o.length),
      out = new NativeArray(len + 1);
    for (let k = 0; k < len; k++) if (k in o) out[k] = o[k];
    out[len] = e;
    return out;
  }
  return concatItems(self, [e]);
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
  const o = /** @type {any} */ (self),
    len = toLength(o.length);
  return o.constructor === ArrayCtor ? len : -1;
}

/**
 * The receiver's length for map / filter (callback f), or -1 when the callback is not callable (the native
 * method throws), the receiver is not an Array or its species is not ArrayCtor.
 * @param {unknown} self
 * @param {unknown} f
 * @param {Function} ArrayCtor
 */
function callbackLength(self, f, ArrayCtor) {
  return typeof f === "function" && isArray(self) ? plainLength(self, ArrayCtor) : -1;
}

/**
 * `self.slice(start, end)` with the plain Array species, or undefined (see {@link plainLength}).
 * @param {unknown} self
 * @param {unknown} start
 * @param {unknown} end
 * @param {Function} ArrayCtor
 * @param {(n: number) => void} create the guarded Array's check of `new Array(n)`
 * @returns {unknown[] | undefined}
 */
export function slicePlain(self, start, end, ArrayCtor, create) {
  if (
    !isArray(self) ||
    (start !== undefined && typeof start !== "number") ||
    (end !== undefined && typeof end !== "number")
  )
    return undefined;
  const len = plainLength(self, ArrayCtor);
  if (len < 0) return undefined;
  const o = /** @type {any} */ (self),
    k0 = relativeIndex(start, len, 0),
    k1 = relativeIndex(end, len, len);
  create(Math.max(k1 - k0, 0));
  /** @type {unknown[]} */
  const out = [];
  copyRange(out, o, k0, k1);
  return out;
}

/**
 * `self.map(f, thisArg)` with the plain Array species, or undefined (see {@link plainLength}).
 * @param {unknown} self
 * @param {unknown} f
 * @param {unknown} thisArg
 * @param {Function} ArrayCtor
 * @param {(n: number) => void} create the guarded Array's check of `new Array(n)`
 * @returns {unknown[] | undefined}
 */
export function mapPlain(self, f, thisArg, ArrayCtor, create) {
  const len = callbackLength(self, f, ArrayCtor);
  if (len < 0) return undefined;
  create(len);
  const o = /** @type {any} */ (self);
  /** @type {unknown[]} */
  const out = [];
  for (let k = 0; k < len; k++)
    if (k in o) out.push(apply(/** @type {Function} */ (f), thisArg, [o[k], k, o]));
    else out.length++;
  return out;
}

/**
 * `self.filter(f, thisArg)` with the plain Array species, or undefined (see {@link plainLength}).
 * @param {unknown} self
 * @param {unknown} f
 * @param {unknown} thisArg
 * @param {Function} ArrayCtor
 * @param {(n: number) => void} create the guarded Array's check of `new Array(n)`
 * @returns {unknown[] | undefined}
 */
export function filterPlain(self, f, thisArg, ArrayCtor, create) {
  const len = callbackLength(self, f, ArrayCtor);
  if (len < 0) return undefined;
  create(0);
  const o = /** @type {any} */ (self);
  /** @type {unknown[]} */
  const out = [];
  for (let k = 0; k < len; k++) {
    if (!(k in o)) continue;
    const v = o[k];
    if (apply(/** @type {Function} */ (f), thisArg, [v, k, o])) out.push(v);
  }
  return out;
}

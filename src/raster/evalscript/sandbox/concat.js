// @ts-check
/**
 * Sandbox module with Array.prototype.concat without the species lookup (harden.js installs it behind the
 * concat guard). Why: harden.js points Array.prototype.constructor at the guarded Array Proxy and makes it an
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
    const o = /** @type {any} */ (e), len = Math.min(Math.max(Math.floor(Number(o.length)) || 0, 0), 2 ** 53 - 1);
    for (let k = 0; k < len; k++) if (k in o) out.push(o[k]); else out.length++;
  }
  return out;
}

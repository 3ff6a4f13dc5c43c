// @ts-check
/**
 * Sandbox module that hardens the isolate before any script runs (imported by entry.js
 * after lib.js, before the script module; the budget accounting and the guard installers it uses are guards.js):
 * 1. Work the tick counter cannot see is capped and charged to the running script's budget (SANDBOX_LIMITS in
 *    ../limits.ts, passed as the module limits.js): ArrayBuffer / SharedArrayBuffer (incl. resizable maxByteLength and transfer), typed arrays,
 *    Array(n), Array.from, Array.prototype.fill, every Array method that walks its receiver (a script can set
 *    `a.length = 2**32 - 1`), String.prototype.repeat / padStart / padEnd; locale formatting (Intl constructors,
 *    toLocale*String, localeCompare) is charged a fixed LOCALE_TICKS per call. Constructors are Proxies;
 *    `prototype.constructor` points at the Proxy, so instances never hand back the original. Linear native work
 *    on data within the caps (typed array walks and copies, string searches, JSON, text codecs) is charged by
 *    size, so a loop repeating it ends. Removed: WebAssembly (WebAssembly.Memory allocates without a typed
 *    array), structuredClone, process and Buffer; console methods are no-ops (no unbounded server logs).
 * 2. Regular expressions (regexp.js): a catastrophic pattern is refused, the subject's length capped and each run
 *    charged by the backtracking steps it may take. Literals are refused at compile time.
 * 3. No state survives a request: the legacy RegExp statics (RegExp.$1, lastMatch, ...) are deleted (regexp.js), then every
 *    object reachable from globalThis (and the intrinsics reachable only from instances: iterator and generator
 *    prototypes) is frozen, globalThis included (freeze.js). Scripts are sloppy, so a write to a frozen property
 *    is ignored.
 * A breach calls the running instance's stop(message) (wrapper.ts): the call ends, even if the script catches
 * the error, and the host reports the message as a 400.
 *
 * Not stoppable in local workerd (no callback, no tick; production's cpuMs and 128 MB memory limit end them):
 * flattening a string rope built by `s += s` (2^27 characters measured 112 ms; the 2^29 maximum ~0.5 s and
 * 1 GB), and other native calls that take microseconds each, repeated in a loop (a tick is
 * ~3 ns of plain script work; the 2e7 ticks of a call are ~0.1 s of it).
 */
import { L } from "./limits.js";
import {
  concatOne,
  concatPlain,
  filterPlain,
  isArray,
  mapPlain,
  relativeIndex,
  slicePlain,
  toLength,
} from "./concat.js";
import { bytes, charge, elements, guardConstructor, guardMethod, lengthOf, limit, setMethod } from "./guards.js";
import { freezeRealm } from "./freeze.js";
import { guardRegExp } from "./regexp.js";

export { enter } from "./guards.js";

const { apply } = Reflect;
/** The global object, indexed by name (the hardening replaces and deletes its properties). @type {Record<string, any>} */
const G = globalThis;
const TYPED = [
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "Float16Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
].filter((n) => typeof G[n] === "function");

/** The original constructors, for the sandbox's own (uncharged) buffers. */
export const native = Object.freeze(Object.fromEntries(["Array", "ArrayBuffer", ...TYPED].map((n) => [n, G[n]])));

/** @type {(args: any[], name: string) => void} */
const bufferBytes = (args, name) => {
  const max =
    args[1] && typeof args[1] === "object" && args[1].maxByteLength !== undefined ? toLength(args[1].maxByteLength) : 0;
  bytes(Math.max(toLength(args[0]), max), "new " + name + "(" + String(args[0]).slice(0, 20) + ")");
};
guardConstructor("ArrayBuffer", bufferBytes);
if (typeof SharedArrayBuffer === "function") guardConstructor("SharedArrayBuffer", bufferBytes);
for (const m of ["transfer", "transferToFixedLength", "resize"]) {
  guardMethod(native.ArrayBuffer.prototype, m, (self, args, name) =>
    bytes(toLength(args[0]), "ArrayBuffer.prototype." + name + "(" + args[0] + ")"),
  );
}
for (const name of TYPED) {
  const per = G[name].BYTES_PER_ELEMENT;
  guardConstructor(name, (args) => {
    const a = args[0];
    const isBuffer =
      a instanceof native.ArrayBuffer || (typeof SharedArrayBuffer === "function" && a instanceof SharedArrayBuffer);
    if (!isBuffer)
      bytes(
        per * (a !== null && typeof a === "object" ? lengthOf(a) : toLength(a)),
        "new " + name + "(" + (typeof a === "object" ? "an array-like" : String(a).slice(0, 20)) + ")",
      );
  });
}
/** The guarded Array's check of `new Array(n)` (also run by the species-free slice / map / filter of concat.js). @param {number} n */
const newArray = (n) => elements(n, (k) => "Array(" + k + ")");
guardConstructor("Array", (args) => {
  if (args.length === 1 && typeof args[0] === "number") newArray(args[0]);
});
/** The guarded Array (the species constructor of plain arrays). */
const ArrayProxy = G.Array;
const arrayFrom = Array.from;
Object.defineProperty(Array, "from", {
  value: /** @this {unknown} @param {unknown} items @param {unknown[]} rest */ function from(items, ...rest) {
    elements(lengthOf(items), "Array.from(...)");
    return apply(arrayFrom, this, [items, ...rest]);
  },
  writable: true,
  configurable: true,
});

const AP = native.Array.prototype;
/**
 * Array methods that make their result with the species constructor, done without it for plain arrays
 * (concat.js): harden.js points Array.prototype.constructor at the guarded Array, which turns V8's species
 * protector off, after which each native call constructs its result through the Proxy (measured ~1.3 us per
 * slice / map / filter of a 4-element array in workerd).
 * @type {Record<string, typeof slicePlain>}
 */
const PLAIN = { slice: slicePlain, map: mapPlain, filter: filterPlain };
guardMethod(AP, "fill", (self, args) => {
  const n = lengthOf(self);
  elements(relativeIndex(args[2], n, n) - relativeIndex(args[1], n, 0), "Array.prototype.fill range");
});
/**
 * The guard of concat: counts the result (the receiver's length plus each argument's, an Array's length or 1)
 * and charges the arguments as counting through the guarded args.reduce did.
 * @param {number} n elements of the result
 * @param {number} count arguments
 */
function concatCount(n, count) {
  charge(count, L.elementsPerTick);
  elements(n, "Array.prototype.concat result");
}
/** An argument's elements in concat's count. @param {unknown} e */
const concatLength = (e) => (isArray(e) ? e.length : 1);
{
  const nativeConcat = AP.concat;
  /** concat with any number of arguments. @this {unknown} @param {unknown[]} args */
  const concatMany = function (...args) {
    let n = lengthOf(this);
    for (let i = 0; i < args.length; i++) n += concatLength(args[i]);
    concatCount(n, args.length);
    const r = concatPlain(this, args, ArrayProxy);
    return r !== undefined ? r : apply(nativeConcat, this, args);
  };
  // One argument (ColorRampVisualizer scripts' `rgb.concat(dataMask)`, per pixel) without an arguments array
  // (`arguments` only reaches apply, which V8 forwards without making it); the same reads, count, charge and
  // steps as with several (concat.js concatPlain / concatOne).
  setMethod(
    AP,
    "concat",
    {
      concat(/** @type {unknown} */ a0) {
        if (arguments.length !== 1) return apply(concatMany, this, arguments);
        concatCount(lengthOf(this) + concatLength(a0), 1);
        const r = concatOne(this, a0, ArrayProxy);
        return r !== undefined ? r : apply(nativeConcat, this, [a0]);
      },
    }.concat,
    nativeConcat.length,
  );
}
for (const m of [
  "includes",
  "indexOf",
  "lastIndexOf",
  "join",
  "toString",
  "toLocaleString",
  "reverse",
  "sort",
  "copyWithin",
  "slice",
  "splice",
  "map",
  "forEach",
  "filter",
  "some",
  "every",
  "reduce",
  "reduceRight",
  "find",
  "findIndex",
  "findLast",
  "findLastIndex",
  "toSorted",
  "toReversed",
  "toSpliced",
  "with",
  "flat",
  "flatMap",
]) {
  const what = "the receiver of Array.prototype." + m,
    plain = Object.hasOwn(PLAIN, m) ? PLAIN[m] : undefined;
  guardMethod(
    AP,
    m,
    (self) => elements(lengthOf(self), what),
    plain && ((self, a0, a1) => plain(self, a0, a1, ArrayProxy, newArray)),
  );
}
/**
 * flat makes arrays longer than its receiver: count the result first (shared sub-arrays once, up to the cap).
 * @param {unknown[]} a
 * @param {number} depth
 * @param {Map<unknown[], [number, number]>} memo
 * @returns {number}
 */
function flatCount(a, depth, memo) {
  const known = memo.get(a);
  if (known && known[0] === depth) return known[1];
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    n += isArray(v) && depth > 0 ? flatCount(v, depth - 1, memo) : 1;
    if (n > L.arrayLength) elements(n, "the result of Array.prototype.flat");
  }
  memo.set(a, [depth, n]);
  return n;
}
guardMethod(AP, "flat", (self, args) => {
  if (isArray(self))
    elements(
      flatCount(self, args[0] === undefined ? 1 : toLength(args[0]) || 0, new Map()),
      "the result of Array.prototype.flat",
    );
});

// Locale formatting takes microseconds per call (Intl.NumberFormat measured 6 us, toLocaleString 9 us: ~2000 ticks)
const LOCALE_TICKS = 2000;
const locale = () => charge(LOCALE_TICKS, 1);
for (const name of Object.getOwnPropertyNames(Intl))
  if (typeof G.Intl[name] === "function" && G.Intl[name].prototype) guardConstructor(name, locale, Intl);
for (const proto of [Number.prototype, Date.prototype, BigInt.prototype, AP])
  for (const m of ["toLocaleString", "toLocaleDateString", "toLocaleTimeString"]) guardMethod(proto, m, locale);
guardMethod(String.prototype, "localeCompare", locale);

// Linear native work on data already within the caps (a 64 MiB typed array, a 16M-character string) is charged
// by its size, so a loop repeating it ends: typed array walks by receiver (set by source) length, string
// methods by receiver length, JSON and text codecs by text length.
const TAP = Object.getPrototypeOf(native.Float32Array.prototype);
/** @param {unknown} o */
const byLength = (o) => charge(lengthOf(o), L.elementsPerTick);
for (const m of [
  "copyWithin",
  "fill",
  "sort",
  "reverse",
  "indexOf",
  "lastIndexOf",
  "includes",
  "join",
  "slice",
  "map",
  "filter",
  "forEach",
  "some",
  "every",
  "reduce",
  "reduceRight",
  "find",
  "findIndex",
  "findLast",
  "findLastIndex",
  "toSorted",
  "toReversed",
  "with",
  "toLocaleString",
  "toString",
]) {
  guardMethod(TAP, m, byLength);
}
guardMethod(TAP, "set", (self, args) => byLength(args[0]));
for (const m of [
  "indexOf",
  "lastIndexOf",
  "includes",
  "startsWith",
  "endsWith",
  "split",
  "replace",
  "replaceAll",
  "toUpperCase",
  "toLowerCase",
  "toLocaleUpperCase",
  "toLocaleLowerCase",
  "trim",
  "trimStart",
  "trimEnd",
  "normalize",
  "concat",
]) {
  guardMethod(String.prototype, m, (self) => charge(String(self).length, L.bytesPerTick));
}
/**
 * Replaces owner[name] by a function that calls it, then charges size(args, result) / bytesPerTick ticks.
 * @param {any} owner
 * @param {string} name
 * @param {(args: any[], r: any) => number} size
 */
const charged = (owner, name, size) => {
  const f = owner[name];
  if (typeof f !== "function") return;
  Object.defineProperty(owner, name, {
    value: {
      [name](/** @type {any[]} */ ...args) {
        const r = apply(f, this, args);
        charge(size(args, r), L.bytesPerTick);
        return r;
      },
    }[name],
    writable: true,
    configurable: true,
  });
};
charged(JSON, "stringify", (args, r) => (typeof r === "string" ? r.length : 0));
charged(JSON, "parse", (args) => String(args[0]).length);
charged(TextEncoder.prototype, "encode", (args, r) => r.length);
charged(TextDecoder.prototype, "decode", (args, r) => r.length);
for (const name of [
  "atob",
  "btoa",
  "encodeURIComponent",
  "decodeURIComponent",
  "encodeURI",
  "decodeURI",
  "escape",
  "unescape",
])
  charged(globalThis, name, (args, r) => String(r).length);

const SP = String.prototype;
guardMethod(SP, "repeat", (self, args) => {
  const n = String(self).length * toLength(args[0]);
  if (n > L.stringLength)
    limit(
      "String.prototype.repeat would make " +
        n +
        " characters; the evalscript sandbox allows " +
        L.stringLength +
        " per string",
    );
  charge(n, L.bytesPerTick);
});
for (const m of ["padStart", "padEnd"]) {
  guardMethod(SP, m, (self, args, name) => {
    const n = toLength(args[0]);
    if (n > L.stringLength)
      limit(
        "String.prototype." +
          name +
          "(" +
          n +
          ") would make " +
          n +
          " characters; the evalscript sandbox allows " +
          L.stringLength +
          " per string",
      );
    charge(n, L.bytesPerTick);
  });
}

guardRegExp();
// WebAssembly.Memory allocates without a typed array; process and Buffer (Node.js compatibility) are not part of
// the evalscript environment and hold stream state workerd itself writes to (it cannot be frozen).
// console output of scripts would reach the server's logs unbounded (a 16M-character message per tick): no-ops.
for (const k of Object.keys(console))
  if (typeof G.console[k] === "function")
    try {
      G.console[k] = function () {};
    } catch {}
// structuredClone copies up to a capped buffer's 64 MiB per call unseen.
for (const k of ["WebAssembly", "process", "Buffer", "structuredClone"]) delete G[k];

freezeRealm();

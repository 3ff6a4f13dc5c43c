// @ts-check
/**
 * Sandbox module with the budget accounting and the guard installers of harden.js: the running script instance
 * (enter), its stops (limit) and charges (charge; bytes and elements, which also cap), and the functions that
 * put a check in front of a constructor (a Proxy) or a method (a same-named function).
 */
import { L } from "./limits.js";
import { toLength } from "./concat.js";

const { apply, construct } = Reflect;

/** @type {import("./evalscript.js").Instance | null} */
let current = null;
/**
 * Points charges and limit stops at the running script instance (null between calls).
 * @param {import("./evalscript.js").Instance | null} inst
 */
export function enter(inst) {
  current = inst;
}

/**
 * Stops the running script (its failure reports 'message'), or throws a RangeError outside a call.
 * @param {string} message
 * @returns {never}
 */
export function limit(message) {
  if (current) current.stop(message);
  throw new RangeError(message);
}
/**
 * Charges floor(units / per) ticks to the running script.
 * @param {number} units
 * @param {number} per
 */
export function charge(units, per) {
  if (current && units >= per) current.charge(Math.floor(units / per));
}
/** @param {number} n */
const MiB = (n) => (n / 1048576).toFixed(0) + " MiB";
/**
 * Stops the script when n bytes exceed the allocation cap; charges them otherwise.
 * @param {number} n
 * @param {string} what the allocation, for the message
 */
export function bytes(n, what) {
  if (n > L.allocationBytes)
    limit(
      what +
        " would allocate " +
        n +
        " bytes; the evalscript sandbox allows " +
        L.allocationBytes +
        " bytes (" +
        MiB(L.allocationBytes) +
        ") per allocation",
    );
  charge(n, L.bytesPerTick);
}
/**
 * Stops the script when n elements exceed the array cap; charges them otherwise.
 * @param {number} n
 * @param {string | ((n: number) => string)} what the array, for the message (a function of n: made only then)
 */
export function elements(n, what) {
  if (n > L.arrayLength)
    limit(
      (typeof what === "function" ? what(n) : what) +
        " has " +
        n +
        " elements; the evalscript sandbox allows " +
        L.arrayLength +
        " elements per array",
    );
  charge(n, L.elementsPerTick);
}
/** @param {any} o */
export const lengthOf = (o) => (o !== null && o !== undefined ? toLength(o.length) : 0);

/**
 * Replaces owner[name] (a constructor) by a Proxy whose construct / apply traps call check(args, name) first.
 * @param {string} name
 * @param {(args: any[], name: string) => void} check
 * @param {any} [owner]
 */
export function guardConstructor(name, check, owner = globalThis) {
  const C = owner[name];
  /** @type {any} */
  const P = new Proxy(C, {
    construct(t, args, nt) {
      check(args, name);
      return construct(t, args, nt === P ? t : nt);
    },
    apply(t, self, args) {
      check(args, name);
      return apply(t, self, args);
    },
  });
  Object.defineProperty(C.prototype, "constructor", {
    value: P,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  Object.defineProperty(owner, name, { value: P, writable: true, configurable: true, enumerable: false });
}

/**
 * Replaces proto[name] by a function with the same name and length that calls check(this, args) first, then
 * `fast(this, a0, a1)` when given (its value unless undefined; only for methods that read at most two arguments
 * and whose check reads only the receiver), else the original.
 * @param {any} proto
 * @param {string} name
 * @param {(self: any, args: any[], name: string) => void} check
 * @param {(self: any, a0: unknown, a1: unknown) => unknown} [fast]
 */
export function guardMethod(proto, name, check, fast) {
  const f = proto[name];
  if (typeof f !== "function") return;
  const receiverOnly = /** @type {(self: any) => void} */ (check);
  const g = fast
    ? {
        [name](/** @type {unknown} */ a0, /** @type {unknown} */ a1) {
          receiverOnly(this);
          const r = fast(this, a0, a1);
          return r !== undefined ? r : apply(f, this, arguments);
        },
      }[name]
    : {
        [name](/** @type {any[]} */ ...args) {
          check(this, args, name);
          return apply(f, this, args);
        },
      }[name];
  setMethod(proto, name, g, f.length);
}

/** Defines proto[name] = g (writable, configurable, not enumerable) with the `length` of the method it replaces. @param {any} proto @param {string} name @param {Function} g @param {number} length */
export function setMethod(proto, name, g, length) {
  Object.defineProperty(g, "length", { value: length });
  Object.defineProperty(proto, name, { value: g, writable: true, configurable: true, enumerable: false });
}

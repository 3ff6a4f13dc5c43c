// @ts-check
/**
 * Sandbox module with the last step of harden.js: no state survives a request. Every object reachable from
 * globalThis (and the intrinsics reachable only from instances: iterator and generator prototypes) is frozen,
 * globalThis included, after the properties scripts commonly override on frozen prototypes are made overridable.
 * Scripts are sloppy, so a write to a frozen property is ignored.
 */

/**
 * The "override mistake": assigning to an own property of an object whose prototype has the property frozen
 * (P.prototype.toString = f, E.prototype.name = "E") is ignored. For the properties scripts override, the
 * frozen data property becomes an accessor whose setter defines the property on the object assigned to
 * (as SES's enablePropertyOverrides does); assigning on the intrinsic itself is still ignored.
 * @param {object} proto
 * @param {PropertyKey} key
 */
function overridable(proto, key) {
  const d = Object.getOwnPropertyDescriptor(proto, key);
  if (!d || !("value" in d) || !d.configurable) return;
  const value = d.value;
  Object.defineProperty(proto, key, {
    get() {
      return value;
    },
    set(v) {
      const target = this !== proto && ((typeof this === "object" && this !== null) || typeof this === "function");
      if (target) Reflect.defineProperty(this, key, { value: v, writable: true, enumerable: true, configurable: true });
    },
    enumerable: d.enumerable,
    configurable: false,
  });
}

/** Objects the freeze starts from: globalThis, the values of its getters, intrinsics only instances reach. */
function roots() {
  /** @type {unknown[]} */
  const out = [globalThis];
  for (let o = globalThis; o; o = Object.getPrototypeOf(o)) {
    for (const k of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, k);
      if (d && d.get)
        try {
          out.push(d.get.call(globalThis));
        } catch {}
    }
  }
  const gen = function* () {},
    agen = async function* () {};
  out.push(
    [][Symbol.iterator](),
    new Map().entries(),
    new Set().values(),
    ""[Symbol.iterator](),
    "".matchAll(/(?:)/g),
    gen,
    gen(),
    agen,
    agen(),
    async function () {},
  );
  return out;
}

/** Object.freeze over everything reachable by own properties (getters' and setters' functions included) and prototypes. */
/** @param {unknown[]} start */
function freezeAll(start) {
  const seen = new Set(),
    todo = [...start];
  while (todo.length) {
    const o = todo.pop();
    if ((typeof o !== "object" && typeof o !== "function") || o === null || seen.has(o)) continue;
    seen.add(o);
    todo.push(Object.getPrototypeOf(o));
    for (const k of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, k);
      if (d) todo.push(d.value, d.get, d.set);
    }
    try {
      freeze(o);
    } catch {}
  }
}

/** The prototypes of V8's "no elements" protector (the initial Array.prototype and Object.prototype). */
const ELEMENT_PROTOTYPES = [Array.prototype, Object.prototype];
/**
 * Object.freeze(o); Array.prototype and Object.prototype are frozen by the steps of ECMA-262 SetIntegrityLevel
 * (sec. 7.3.15, "frozen": preventExtensions, then every own property non-configurable, data properties
 * non-writable), which is the same result (Object.isFrozen is true, checked below) without V8's frozen
 * elements kind: Object.freeze of either invalidates V8's no-elements protector, after which every store to an
 * array index at or past the end (`a[a.length] = v`, `a[i] = v` on a new array) looks up the prototype chain
 * (measured in node 22: 8 stores 10 ns -> 170 ns each; push 2x). defineProperty leaves the prototype's
 * properties in dictionary mode (push, slice ... then look up slowly); making an object with it as prototype
 * (Object.create) turns them back into fast properties (V8 JSObject::OptimizeAsPrototype). In workerd (measured
 * with the real scripts, interleaved) array spread is as fast as before; node 22's V8 12.4 also turns its array
 * iterator protector off when Array.prototype[Symbol.iterator] is redefined (spread ~5x slower there).
 * @param {object} o
 */
function freeze(o) {
  if (o !== Array.prototype && o !== Object.prototype) {
    Object.freeze(o);
    return;
  }
  Object.preventExtensions(o);
  for (const k of Reflect.ownKeys(o)) {
    const d = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(o, k));
    Object.defineProperty(o, k, "value" in d ? { configurable: false, writable: false } : { configurable: false });
  }
  Object.create(o);
}

/**
 * Freezes the realm, harden.js's last step: the overridable properties first, then everything reachable from
 * globalThis. Throws when Array.prototype or Object.prototype is not frozen after it.
 */
export function freezeRealm() {
  for (const k of Reflect.ownKeys(Object.prototype)) overridable(Object.prototype, k);
  for (const E of [Error, TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError])
    for (const k of ["constructor", "name", "message", "toString"]) overridable(E.prototype, k);
  for (const k of ["constructor", "toString"]) {
    overridable(Function.prototype, k);
    overridable(Array.prototype, k);
  }
  freezeAll(roots());
  for (const o of ELEMENT_PROTOTYPES)
    if (!Object.isFrozen(o)) throw new Error("freeze.js: a prototype could not be frozen");
}

/**
 * Array.prototype.concat in the sandbox (sandbox/concat.js: the guard's copy without the species lookup) against
 * the native concat of the test's own isolate (V8's, species intact): the same results, holes, spreading, and the
 * same getter and Proxy trap calls in the same order; receivers whose species is not the plain Array (subclass,
 * overridden constructor, array-likes) and spreadable non-arrays go to the native concat. The same for slice, map
 * and filter (sandbox/concat.js slicePlain, mapPlain, filterPlain).
 */
import { describe, expect, it } from "vitest";
import { run } from "./helpers";

/** The cases, run here and (as its source text) in the sandbox. */
function cases(): Record<string, unknown> {
  const log: string[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const any = (a: unknown[]): any[] => a;
  const shape = (a: unknown[]) => ({
    length: a.length,
    keys: Object.keys(a),
    json: JSON.stringify(a),
    plain: Object.getPrototypeOf(a) === Array.prototype,
  });
  const unspread = [1, 2] as unknown[] & { [Symbol.isConcatSpreadable]?: boolean };
  unspread[Symbol.isConcatSpreadable] = false;
  const got = [1, 2];
  Object.defineProperty(got, 0, {
    get() {
      log.push("getter 0");
      return 10;
    },
    enumerable: true,
  });
  const traps = <T extends object>(t: T, name: string): T =>
    new Proxy(t, {
      get(o, k, r) {
        log.push(`${name} get ${String(k)}`);
        return Reflect.get(o, k, r);
      },
      has(o, k) {
        log.push(`${name} has ${String(k)}`);
        return Reflect.has(o, k);
      },
    });
  class Sub extends Array {}
  const own = [1] as unknown[] & { constructor?: unknown };
  own.constructor = undefined;
  // eslint-disable-next-line no-sparse-arrays
  const holes = any([, 1]).concat([2, , 3], [[4]]);
  return {
    simple: shape(any([1, 2]).concat([3, [4]], 5, "x")),
    holes: shape(holes),
    unspread: shape(any([0]).concat(unspread)),
    spreadObject: shape(any([0]).concat({ length: 2, 0: "a", 1: "b", [Symbol.isConcatSpreadable]: true })),
    getters: shape(any([0]).concat(got, traps([7, 8], "arg"))),
    proxyReceiver: shape(Array.prototype.concat.call(traps([5, 6], "receiver"), [9])),
    subclass: Sub.of(1, 2).concat([3]) instanceof Sub,
    arrayLike: shape(Array.prototype.concat.call({ length: 1, 0: "z" }, 1)),
    ownConstructor: shape(own.concat([2])),
    empty: shape([].concat()),
    // one primitive argument (concat.js concatOne's preallocated result)
    // eslint-disable-next-line no-sparse-arrays
    holesPrimitive: shape(any([, 1, , 2]).concat(5)),
    unspreadPrimitive: shape(unspread.concat(3)),
    gettersPrimitive: shape(any(got).concat("p")),
    // eslint-disable-next-line no-sparse-arrays
    proxyPrimitive: shape(Array.prototype.concat.call(traps([5, , 6], "one"), 7)),
    nullPrimitive: shape(any([1]).concat(null, undefined).concat(null)),
    log,
  };
}

/** An evalscript whose updateOutputMetadata returns `f()` as userData (f's source is sent as part of the script). */
const userDataScript = (f: () => unknown): string => `//VERSION=3
${f.toString()}
function setup() { return { input: ["dataMask"], output: { bands: 1 } }; }
function evaluatePixel(s) { return [0]; }
function updateOutputMetadata(scenes, im, om) { om.userData = ${f.name}(); }`;

describe("Array.prototype.concat in the sandbox", () => {
  it("equals the native concat: results, holes, spreading, getter and trap calls", async () => {
    const src = userDataScript(cases);
    const expected = JSON.parse(JSON.stringify(cases()));
    expect(expected.log.length).toBeGreaterThan(6);
    // the guard (harden.js) reads the length of the receiver and of each Array argument first, to cap the result
    expected.log.splice(expected.log.indexOf("receiver get constructor"), 0, "receiver get length");
    expected.log.splice(expected.log.indexOf("one get constructor"), 0, "one get length");
    expected.log.unshift("arg get length");
    expect((await run(src, { width: 1, height: 1, scenes: [] })).userData).toEqual(expected);
  });

  it("a ColorRampVisualizer value concatenated with dataMask, per pixel, through both paths", async () => {
    const src = `//VERSION=3
const viz = new ColorRampVisualizer([[-0.2, 0x0000ff], [0, 0xffffff], [0.5, 0x00ff00], [1, 0x004400]]);
function setup() { return { input: ["B04", "B08", "dataMask"], output: { bands: 4, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return viz.process((s.B08 - s.B04) / (s.B08 + s.B04)).concat(s.dataMask); }`;
    const n = 64;
    const B04 = Float32Array.from({ length: n }, (_, i) => 0.05 + (i % 8) * 0.02);
    const B08 = Float32Array.from({ length: n }, (_, i) => 0.02 + Math.floor(i / 8) * 0.05);
    const dataMask = Uint8Array.from({ length: n }, (_, i) => (i % 5 ? 1 : 0));
    const r = await run(src, {
      width: 8,
      height: 8,
      scenes: [{ info: { id: "x", date: "2020-01-01T00:00:00Z" }, bands: { B04, B08 }, dataMask }],
    });
    const v = r.outputs.default!.values;
    const ramp = (x: number): number[] => {
      const stops: [number, number[]][] = [
        [-0.2, [0, 0, 1]],
        [0, [1, 1, 1]],
        [0.5, [0, 1, 0]],
        [1, [0, 0x44 / 255, 0]],
      ];
      if (!(x > -0.2)) return stops[0]![1];
      for (let i = 1; i < stops.length; i++)
        if (x <= stops[i]![0]) {
          const [a, b] = [stops[i - 1]!, stops[i]!];
          const t = (x - a[0]) / (b[0] - a[0]);
          return a[1].map((c, k) => c + (b[1][k]! - c) * t);
        }
      return stops[stops.length - 1]![1];
    };
    for (let i = 0; i < n; i++) {
      const want = [...ramp((B08[i]! - B04[i]!) / (B08[i]! + B04[i]!)), dataMask[i]!].map(Math.fround);
      expect([...v.subarray(i * 4, i * 4 + 4)], `pixel ${i}`).toEqual(want);
    }
  });

  it("slice, map and filter equal the native ones: results, holes, callbacks, getter and trap calls, errors", async () => {
    const src = userDataScript(arrayCases);
    const expected = JSON.parse(JSON.stringify(arrayCases()));
    // the guard (harden.js) reads the receiver's length first, to cap it
    for (const m of ["slice", "map", "filter"])
      expected.log.splice(expected.log.indexOf(`${m} get length`), 0, `${m} get length`);
    expect(expected.log.length).toBeGreaterThan(20);
    expect((await run(src, { width: 1, height: 1, scenes: [] })).userData).toEqual(expected);
  });
});

/** Cases of slice, map and filter, run here and (as its source text) in the sandbox. */
function arrayCases(): Record<string, unknown> {
  const log: string[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const any = (a: unknown): any => a;
  const shape = (a: unknown[]) => ({
    length: a.length,
    keys: Object.keys(a),
    json: JSON.stringify(a),
    plain: Object.getPrototypeOf(a) === Array.prototype,
  });
  const traps = <T extends object>(t: T, name: string): T =>
    new Proxy(t, {
      get(o, k, r) {
        log.push(`${name} get ${String(k)}`);
        return Reflect.get(o, k, r);
      },
      has(o, k) {
        log.push(`${name} has ${String(k)}`);
        return Reflect.has(o, k);
      },
    });
  const got = [1, 2, 3];
  Object.defineProperty(got, 1, {
    get() {
      log.push("getter 1");
      return 20;
    },
    enumerable: true,
  });
  class Sub extends Array {}
  const own = any([1, 2]);
  own.constructor = undefined;
  // eslint-disable-next-line no-sparse-arrays
  const holes = any([1, , 3, , 5]);
  const error = (f: () => unknown) => {
    try {
      f();
      return "no error";
    } catch (e) {
      return String(e);
    }
  };
  const bound = {
    valueOf() {
      log.push("valueOf");
      return 1;
    },
  };
  const calls: unknown[] = [];
  const self = { k: 2 };
  return {
    slice: [[], [1], [-2], [1, -1], [NaN, Infinity], [-Infinity, 2], [3, 1], [0.7, 2.9], [-0], [undefined, 2]].map(
      (b) => shape(any([1, 2, 3, 4]).slice(...b)),
    ),
    sliceHoles: shape(holes.slice(1)),
    sliceObjectBound: shape(any([1, 2, 3]).slice(bound)),
    sliceGetter: shape(got.slice(0, 2)),
    map: shape(
      any([1, 2, 3]).map(function (this: { k: number }, v: number, i: number, a: unknown[]) {
        calls.push([v, i, a.length, this === self]);
        return v * this.k;
      }, self),
    ),
    mapHoles: shape(holes.map((v: number) => v + 1)),
    mapGetter: shape(got.map((v: number) => v)),
    filter: shape(
      any([1, 2, 3, 4]).filter(function (this: unknown, v: number, i: number) {
        calls.push([v, i, this === self]);
        return v % 2;
      }, self),
    ),
    filterHoles: shape(holes.filter(() => true)),
    filterGetter: shape(got.filter((v: number) => v > 1)),
    calls,
    proxies: [
      shape(any(Array.prototype.slice).call(traps([5, , 6], "slice"), 0, 3)),
      shape(any(Array.prototype.map).call(traps([5, 6], "map"), (v: number) => v)),
      shape(any(Array.prototype.filter).call(traps([5, 6], "filter"), () => true)),
    ],
    subclass: [
      Sub.of(1, 2).slice(0) instanceof Sub,
      Sub.of(1, 2).map((v) => v) instanceof Sub,
      Sub.of(1, 2).filter(() => true) instanceof Sub,
    ],
    ownConstructor: [shape(own.slice(0)), shape(own.map((v: number) => v)), shape(own.filter(() => true))],
    arrayLike: [
      shape(any(Array.prototype.slice).call({ length: 2, 0: "a", 1: "b" }, 1)),
      shape(any(Array.prototype.map).call({ length: 1, 0: "z" }, (v: string) => v + v)),
    ],
    errors: [
      error(() => any([1]).map(5)),
      error(() => any([1]).filter(undefined)),
      error(() => any([1]).slice(Symbol.iterator)),
    ],
    log,
  };
}

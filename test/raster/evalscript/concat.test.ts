/**
 * Array.prototype.concat in the sandbox (sandbox/concat.js: the guard's copy without the species lookup) against
 * the native concat of the test's own isolate (V8's, species intact): the same results, holes, spreading, and the
 * same getter and Proxy trap calls in the same order; receivers whose species is not the plain Array (subclass,
 * overridden constructor, array-likes) and spreadable non-arrays go to the native concat.
 */
import { describe, expect, it } from "vitest";
import { run } from "./helpers";

/** The cases, run here and (as its source text) in the sandbox. */
function cases(): Record<string, unknown> {
  const log: string[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const any = (a: unknown[]): any[] => a;
  const shape = (a: unknown[]) => ({ length: a.length, keys: Object.keys(a), json: JSON.stringify(a), plain: Object.getPrototypeOf(a) === Array.prototype });
  const unspread = [1, 2] as unknown[] & { [Symbol.isConcatSpreadable]?: boolean };
  unspread[Symbol.isConcatSpreadable] = false;
  const got = [1, 2];
  Object.defineProperty(got, 0, { get() { log.push("getter 0"); return 10; }, enumerable: true });
  const traps = <T extends object>(t: T, name: string): T =>
    new Proxy(t, {
      get(o, k, r) { log.push(`${name} get ${String(k)}`); return Reflect.get(o, k, r); },
      has(o, k) { log.push(`${name} has ${String(k)}`); return Reflect.has(o, k); },
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
    log,
  };
}

describe("Array.prototype.concat in the sandbox", () => {
  it("equals the native concat: results, holes, spreading, getter and trap calls", async () => {
    const src = `//VERSION=3
${cases.toString()}
function setup() { return { input: ["dataMask"], output: { bands: 1 } }; }
function evaluatePixel(s) { return [0]; }
function updateOutputMetadata(scenes, im, om) { om.userData = cases(); }`;
    const expected = JSON.parse(JSON.stringify(cases()));
    expect(expected.log.length).toBeGreaterThan(6);
    // the guard (harden.js) reads the length of the receiver and of each Array argument first, to cap the result
    expected.log.splice(expected.log.indexOf("receiver get constructor"), 0, "receiver get length");
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
    const r = await run(src, { width: 8, height: 8, scenes: [{ info: { id: "x", date: "2020-01-01T00:00:00Z" }, bands: { B04, B08 }, dataMask }] });
    const v = r.outputs.default!.values;
    const ramp = (x: number): number[] => {
      const stops: [number, number[]][] = [[-0.2, [0, 0, 1]], [0, [1, 1, 1]], [0.5, [0, 1, 0]], [1, [0, 0x44 / 255, 0]]];
      if (!(x > -0.2)) return stops[0]![1];
      for (let i = 1; i < stops.length; i++) if (x <= stops[i]![0]) { const [a, b] = [stops[i - 1]!, stops[i]!]; const t = (x - a[0]) / (b[0] - a[0]); return a[1].map((c, k) => c + (b[1][k]! - c) * t); }
      return stops[stops.length - 1]![1];
    };
    for (let i = 0; i < n; i++) {
      const want = [...ramp((B08[i]! - B04[i]!) / (B08[i]! + B04[i]!)), dataMask[i]!].map(Math.fround);
      expect([...v.subarray(i * 4, i * 4 + 4)], `pixel ${i}`).toEqual(want);
    }
  });
});

/**
 * No state of one request is visible to the next: the isolate is cached per script text and
 * account (isolateName) and shared by that account's requests, so globals, prototypes and intrinsics are frozen
 * and the script's own state lives in a fresh instance per call. Also measures what a fresh isolate would cost.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { compileEvalscript, type EvalInput } from "../../../src/raster/evalscript";
import { isolateName, sandboxFor, scriptHash } from "../../../src/raster/evalscript/host/sandbox";
import { f32, ones, rkhWindow, RKH_INFO, run } from "./helpers";

const W = 16;
let a: Record<string, Float32Array>;
let b: Record<string, Float32Array>;

beforeAll(async () => {
  a = await rkhWindow(["B04", "B08"], 100, 100, W, W);
  b = await rkhWindow(["B04", "B08"], 300, 200, W, W);
});

const input = (px: Record<string, Float32Array>): EvalInput => ({
  width: W,
  height: W,
  scenes: [{ info: RKH_INFO, bands: px, dataMask: ones(W * W) }],
});

const script = (body: string, extra = "") => `//VERSION=3
function setup() { return { input: ["B04", "B08"], output: { bands: 1, sampleType: "FLOAT32" } }; }
${extra}
function evaluatePixel(s) { ${body} }`;

describe("nothing a request leaves behind is seen by the next", () => {
  it("two accounts sending the same script get different isolates", async () => {
    const hash = await scriptHash(compileEvalscript(script("return [s.B04];")));
    const [one, two] = [crypto.randomUUID(), crypto.randomUUID()];
    expect(isolateName(hash, one)).not.toBe(isolateName(hash, two));
    expect(isolateName(hash, one)).toBe(isolateName(hash, one));
    // a tenant cannot forge another's name through separators
    expect(isolateName(hash, "a:b")).not.toBe(isolateName(hash.replace(/^/, "b:"), "a"));
  });

  it("a pixel stored on globalThis by request 1 is not handed to request 2 (another bbox)", async () => {
    const src = script(
      "if (globalThis.first === undefined) globalThis.first = s.B04; return [globalThis.first || s.B04];",
    );
    const r1 = await run(src, input(a));
    const r2 = await run(src, input(b));
    expect(r1.outputs.default!.values[5]).toBe(f32(a.B04![5]!));
    expect(r2.outputs.default!.values[0]).toBe(f32(b.B04![0]!));
    expect(r2.outputs.default!.values[5]).toBe(f32(b.B04![5]!));
  });

  /** Reads what an earlier request may have left, then tries every way to leave something. */
  const probe = script(
    "return [1];",
    `function P() {}
P.prototype.toString = function () { return "own toString"; };
function E(m) { this.message = m; }
E.prototype = Object.create(Error.prototype);
E.prototype.constructor = E;
E.prototype.name = "OwnError";
function updateOutputMetadata(scenes, im, om) {
  var seen = {
    global: typeof globalThis.leak, objectProto: typeof ({}).leak, arrayProto: typeof [].leak, math: typeof Math.leak,
    floor: Math.floor(1.5), index: index(3, 1), ramp: new ColorRampVisualizer([[0, 0x000000], [1, 0xffffff]]).process(0.5),
    dollar1: typeof RegExp.$1, json: typeof JSON.leak, fn: typeof Function.prototype.leak, errorTrace: typeof Error.prepareStackTrace,
    ownToString: String(new P()), ownError: String(new E("x")),
    arrayIndex: typeof [][0], objectIndex: typeof ({})[7], push: [].push.name, arraySlice: typeof [].slice(0)[0],
    frozen: Object.isFrozen(Array.prototype) && Object.isFrozen(Object.prototype),
  };
  var writes = [
    function () { globalThis.leak = 1; }, function () { Object.prototype.leak = 1; }, function () { Array.prototype.leak = 1; },
    function () { Math.leak = 1; }, function () { Math.floor = function () { return 99; }; }, function () { globalThis.index = function () { return 99; }; },
    function () { ColorRampVisualizer.prototype.process = function () { return [99]; }; }, function () { /(\\d+)/.exec("pixel 1234"); },
    function () { JSON.leak = 1; }, function () { Function.prototype.leak = 1; }, function () { Error.prepareStackTrace = function () { return 1; }; },
    function () { Object.defineProperty(Object.prototype, "leak", { value: 1 }); },
    function () { Array.prototype[0] = 1; }, function () { Object.prototype[7] = 1; },
    function () { Object.defineProperty(Array.prototype, "0", { value: 1 }); }, function () { Array.prototype.push = function leak() {}; },
    function () { Object.defineProperty(Array.prototype, "slice", { value: function () { return [1]; } }); },
  ];
  for (var i = 0; i < writes.length; i++) try { writes[i](); } catch (e) {}
  om.userData = seen;
}`,
  );
  const clean = {
    global: "undefined",
    objectProto: "undefined",
    arrayProto: "undefined",
    math: "undefined",
    floor: 1,
    index: 0.5,
    ramp: [0.5, 0.5, 0.5],
    dollar1: "undefined",
    json: "undefined",
    fn: "undefined",
    errorTrace: "undefined",
    ownToString: "own toString",
    ownError: "OwnError: x",
    arrayIndex: "undefined",
    objectIndex: "undefined",
    push: "push",
    arraySlice: "undefined",
    frozen: true,
  };

  it("globals, prototypes, intrinsics, library objects and RegExp statics: the second run sees a clean isolate", async () => {
    const first = await run(probe, input(a));
    const second = await run(probe, input(b));
    expect(first.userData).toEqual(clean);
    expect(second.userData).toEqual(clean);
  });
});

describe("cost of a fresh evaluation", () => {
  it("measures a new isolate vs the cached one (figures printed, no timing assertion)", async () => {
    const src = script("return [index(s.B08, s.B04)];");
    const compiled = compileEvalscript(src);
    const hash = await scriptHash(compiled);
    const budget = { perCall: 1e7, total: 1e9 };
    const times: Record<string, number[]> = { freshIsolate: [], cachedIsolate: [] };
    for (let k = 0; k < 5; k++) {
      for (const [what, key] of [
        ["freshIsolate", `${hash}-${k}-${Math.random()}`],
        ["cachedIsolate", hash],
      ] as const) {
        const t0 = performance.now();
        const lease = sandboxFor(env.LOADER, compiled, key, 30_000).acquire();
        const reply = await lease.api.setup(budget);
        times[what]!.push(performance.now() - t0);
        await lease.release(0);
        expect(reply.ok).toBe(true);
      }
    }
    const median = (v: number[]) => [...v].sort((x, y) => x - y)[v.length >> 1]!.toFixed(2);
    console.log(
      `setup() RPC, median of 5: fresh isolate ${median(times.freshIsolate!)} ms, cached isolate ${median(times.cachedIsolate!)} ms`,
    );
  });
});

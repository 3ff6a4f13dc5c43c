/**
 * Measures how pixel arrays cross the Worker Loader RPC boundary: ms per MB host -> isolate and
 * isolate -> host for (a) one Float32Array per band in an object (today), (b) one ArrayBuffer holding all bands,
 * (c) one ArrayBuffer out, (d) a ReadableStream of bytes. A/B interleaved, medians printed; the assertions check
 * only that every mode delivers the same bytes (timings are printed, never asserted). A benchmark, not a test: run
 * it with `npm run bench:transfer` (vitest in workerd, as the tests; TRANSFER_REPS rounds per mode, default 24).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { compileEvalscript, loadEvalscript, type EvalInput } from "../src/raster/evalscript";
import { RKH_INFO, ones, rkhWindow } from "../test/raster/evalscript/helpers";

const ECHO = `
import { WorkerEntrypoint } from "cloudflare:workers";
const sum = (a) => a[0] + a[a.length - 1];
export default class extends WorkerEntrypoint {
  takeObj(o) { let s = 0; for (const k in o) s += sum(o[k]); return s; }
  takeBuf(b) { return sum(new Float32Array(b)); }
  async takeStream(s) { const b = new Float32Array(await new Response(s).arrayBuffer()); return sum(b); }
  make(n, k) { const out = {}; for (let i = 0; i < k; i++) { out["b" + i] = new Float32Array(n).fill(i + 1); } return 0; }
  giveObj(n, k) { const out = {}; for (let i = 0; i < k; i++) out["b" + i] = new Float32Array(n).fill(i + 1); return out; }
  giveBuf(n, k) { const b = new Float32Array(n * k); for (let i = 0; i < k; i++) b.subarray(i * n, (i + 1) * n).fill(i + 1); return b.buffer; }
  giveStream(n, k) { const b = new Float32Array(n * k); for (let i = 0; i < k; i++) b.subarray(i * n, (i + 1) * n).fill(i + 1); return new Response(b).body; }
}`;

interface Echo {
  takeObj(o: Record<string, Float32Array>): Promise<number>;
  takeBuf(b: ArrayBuffer): Promise<number>;
  takeStream(s: ReadableStream<Uint8Array>): Promise<number>;
  make(n: number, k: number): Promise<number>;
  giveObj(n: number, k: number): Promise<Record<string, Float32Array>>;
  giveBuf(n: number, k: number): Promise<ArrayBuffer>;
  giveStream(n: number, k: number): Promise<ReadableStream<Uint8Array>>;
}

const stub = (): Echo =>
  env.LOADER.get("transfer-measure", () => ({
    compatibilityDate: "2026-11-01",
    mainModule: "echo.js",
    modules: { "echo.js": ECHO },
    env: {},
    globalOutbound: null,
  })).getEntrypoint() as unknown as Echo;

/**
 * Middle half mean: workerd's clock only moves at I/O and in whole milliseconds, so a median of a few-ms call is
 * quantised; the mean of the middle half of many rounds resolves fractions of a millisecond.
 */
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b).slice(xs.length >> 2, xs.length - (xs.length >> 2));
  return s.reduce((a, b) => a + b, 0) / s.length;
};

/** Milliseconds of each mode, interleaved over `reps` rounds; medians. */
async function timed(modes: Record<string, () => Promise<unknown>>, reps: number): Promise<Record<string, number>> {
  const t: Record<string, number[]> = Object.fromEntries(Object.keys(modes).map((k) => [k, []]));
  for (let r = 0; r < reps; r++) {
    for (const [k, f] of Object.entries(modes)) {
      const s = performance.now();
      await f();
      t[k]!.push(performance.now() - s);
    }
  }
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
}

const N = 1024 * 1024;
/** Rounds per mode: TRANSFER_REPS from the environment (vitest.config.ts passes it on), default 24. */
const REPS = Number((env as { TRANSFER_REPS?: string }).TRANSFER_REPS || 24);

describe("RPC transfer of pixel arrays to and from a Worker Loader isolate", () => {
  it("every mode delivers the same values", async () => {
    const e = stub();
    const bands = { b0: new Float32Array(N).fill(1), b1: new Float32Array(N).fill(2) };
    const one = new Float32Array(2 * N);
    one.set(bands.b0, 0);
    one.set(bands.b1, N);
    expect(await e.takeObj(bands)).toBe(6);
    expect(await e.takeBuf(one.slice().buffer)).toBe(3);
    expect(await e.takeStream(new Response(one).body!)).toBe(3);
    const obj = await e.giveObj(N, 2);
    const buf = new Float32Array(await e.giveBuf(N, 2));
    const str = new Float32Array(await new Response(await e.giveStream(N, 2)).arrayBuffer());
    expect([obj.b0![N - 1], obj.b1![0], buf[N - 1], buf[N], str[N - 1], str[N]]).toEqual([1, 2, 1, 2, 1, 2]);
    expect(buf.length).toBe(2 * N);
    expect(str.length).toBe(2 * N);
  });

  it("prints ms per MB of each mode (medians, interleaved)", async () => {
    const e = stub();
    const lines: string[] = [];
    for (const k of [1, 3, 7]) {
      const mb = (4 * N * k) / 2 ** 20;
      const bands = Object.fromEntries(Array.from({ length: k }, (_, i) => [`b${i}`, new Float32Array(N).fill(i)]));
      const one = new Float32Array(N * k);
      const m = await timed(
        {
          inObj: () => e.takeObj(bands),
          inBuf: () => e.takeBuf(one.buffer),
          inStream: () => e.takeStream(new Response(one).body!),
          make: () => e.make(N, k),
          outObj: () => e.giveObj(N, k),
          outBuf: () => e.giveBuf(N, k),
          outStream: async () => new Response(await e.giveStream(N, k)).arrayBuffer(),
        },
        REPS,
      );
      const per = (x: number) => (x / mb).toFixed(2);
      lines.push(
        `${k} band(s) ${mb} MB: in obj ${per(m.inObj!)} buf ${per(m.inBuf!)} stream ${per(m.inStream!)} | out (minus alloc ${m.make!.toFixed(1)} ms) obj ${per(m.outObj! - m.make!)} buf ${per(m.outBuf! - m.make!)} stream ${per(m.outStream! - m.make!)} ms/MB`,
      );
    }
    console.log(lines.join("\n"));
    expect(lines).toHaveLength(3);
  });
});

/** All arrays' bytes in one ArrayBuffer (the host-side copy mode (b) needs), 4-byte aligned. */
function packed(arrays: Record<string, Float32Array | Uint8Array>): ArrayBuffer {
  const list = Object.values(arrays);
  const out = new Uint8Array(list.reduce((n, a) => n + ((a.byteLength + 3) & ~3), 0));
  let at = 0;
  for (const a of list) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += (a.byteLength + 3) & ~3;
  }
  return out.buffer;
}

describe("evaluate 1024x1024 on real 29RKH pixels: where the eval stage goes", () => {
  const CONST = `//VERSION=3
function setup() { return { input: ["B04", "B08", "dataMask"], output: { bands: 1, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [0.5]; }`;
  const NDVI = `//VERSION=3
function setup() { return { input: ["B04", "B08", "dataMask"], output: { bands: 1, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [(s.B08 - s.B04) / (s.B08 + s.B04)]; }`;
  const TRUE = `//VERSION=3
function setup() { return { input: ["B02", "B03", "B04", "dataMask"], output: { bands: 4, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask]; }`;

  it("prints ms of runtime.evaluate per script against a bare echo of the same bytes", async () => {
    const W = 1024;
    const bands = await rkhWindow(["B02", "B03", "B04", "B08"], 0, 0, W, W);
    const scene = { info: RKH_INFO, bands, dataMask: ones(W * W) };
    const runtimes = await Promise.all([CONST, NDVI, TRUE].map((s) => loadEvalscript(env, compileEvalscript(s))));
    const input: EvalInput = { width: W, height: W, scenes: [scene] };
    const e = stub();
    const two = { B04: bands.B04!, B08: bands.B08!, dataMask: scene.dataMask };
    const three = { B02: bands.B02!, B03: bands.B03!, B04: bands.B04!, dataMask: scene.dataMask };
    const m = await timed(
      {
        constant: () => runtimes[0]!.evaluate(input),
        ndvi: () => runtimes[1]!.evaluate(input),
        trueColour: () => runtimes[2]!.evaluate(input),
        echoNdvi: async () => [await e.takeObj(two as never), await e.giveObj(W * W, 1)],
        echoTrue: async () => [await e.takeObj(three as never), await e.giveObj(W * W, 4)],
        echoNdviBuf: async () => [await e.takeBuf(packed(two)), await e.giveBuf(W * W, 1)],
        echoTrueBuf: async () => [await e.takeBuf(packed(three)), await e.giveBuf(W * W, 4)],
      },
      REPS,
    );
    console.log(
      Object.entries(m)
        .map(([k, v]) => `${k} ${v.toFixed(1)} ms`)
        .join(", "),
    );
    expect(Object.keys(m)).toHaveLength(7);
  });
});

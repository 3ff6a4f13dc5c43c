/**
 * ColorRampVisualizer components written straight into an output by the host path (src/raster/evalscript/hostpath
 * output.ts rampWriter): for integer sample types a lookup in the ramp's steps (rampsteps.ts), else the
 * interpolation. Both must give the sandbox's stored values bit for bit: the steps against the definition at
 * every threshold and its neighbouring doubles, then whole scripts against the sandbox (./differential.ts) over
 * the 29RKH window (NaN, +-Infinity, -0 in B12) and over a dense sweep of values.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { SceneData } from "../../../src/raster/evalscript";
import { rampComponent, rampIndex, rampTable } from "../../../src/raster/evalscript/hostpath/ramp";
import { rampSteps } from "../../../src/raster/evalscript/hostpath/rampsteps";
import { differential, rkhScene, W } from "./differential";
import { RKH_INFO, script as scriptText } from "./helpers";

/** The stops of the first ColorRampVisualizer array of a script (`[value, 0xRRGGBB]` pairs). */
const stopsOf = (text: string): [number, number][] =>
  [...text.matchAll(/\[\s*(-?[\d.]+)\s*,\s*0x([0-9a-fA-F]{6})\s*\]/g)].map((m) => [Number(m[1]), parseInt(m[2]!, 16)]);

/** EO Browser's NDVI ramp (read in beforeAll), two stops, repeated stops, one colour, tiny and huge ranges. */
const RAMPS: [number, number][][] = [
  [],
  [
    [0, 0xffffff],
    [1, 0x008000],
  ],
  [
    [0.1, 0x102030],
    [0.1, 0xffffff],
    [0.2, 0x000000],
    [0.2, 0x808080],
    [0.5, 0xff00ff],
  ],
  [
    [0, 0x336699],
    [1, 0x336699],
  ],
  [
    [0, 0x000000],
    [1e-9, 0xffffff],
    [2e-9, 0x00ff00],
  ],
  [
    [-1e300, 0xff0000],
    [0, 0x00ff00],
    [1e300, 0x0000ff],
  ],
];
const unit = (c: number) => [(c >> 16) & 255, (c >> 8) & 255, c & 255].map((x) => x / 255);

/** The stores of the integer writers (sandbox/values.js toStored): AUTO, and INT16's rounding and clamping. */
const STORES: [string, (x: number) => number][] = [
  ["AUTO", (x) => Uint8ClampedArray.of(Math.fround(x) * 255)[0]!],
  ["INT16", (x) => Math.min(Math.max(Math.floor(Math.fround(x) + 0.5), -32768), 32767)],
];

/** The doubles next to x (a few ulps either side). */
function around(x: number): number[] {
  const f = new Float64Array(1),
    i = new BigInt64Array(f.buffer);
  f[0] = x;
  const k = i[0]!;
  return [-2n, -1n, 0n, 1n, 2n].map((d) => ((i[0] = k + (x < 0 ? -d : d)), f[0]!));
}

beforeAll(async () => {
  RAMPS[0] = stopsOf(await scriptText("sentinel-2__ndvi__script.js"));
  expect(RAMPS[0].length).toBe(21);
});

describe("ramp steps (rampsteps.ts) against the definition", () => {
  it.each(STORES)("every threshold and its neighbours, %s", (_name, store) => {
    for (const stops of RAMPS) {
      const t = rampTable(
        stops.map(([v]) => v),
        stops.map(([, c]) => unit(c)),
      );
      const steps = rampSteps(t, [0, 1, 2], store)!;
      expect(steps, JSON.stringify(stops)).toBeDefined();
      const lo = stops[0]![0],
        hi = stops.at(-1)![0];
      const xs = [NaN, Infinity, -Infinity, 0, -0, ...stops.flatMap(([v]) => around(v))];
      for (const e of steps.search.values) if (Number.isFinite(e)) xs.push(...around(e));
      for (let i = 0; i <= 20000; i++) xs.push(lo + ((hi - lo) * i) / 20000, lo / 2 + (hi / 20000) * i - hi / 4);
      for (const x of xs) {
        const s = rampIndex(t, x),
          k = rampIndex(steps.search, x);
        const want = [0, 1, 2].map((j) => store(rampComponent(t, x, s, j)));
        expect(
          steps.stored.map((c) => c[k]),
          `${x} in ${JSON.stringify(stops)}`,
        ).toEqual(want);
      }
    }
  });
});

describe("ramp components as outputs: host path against the sandbox, bit for bit", () => {
  let scene: SceneData;
  beforeAll(async () => {
    scene = await rkhScene();
  }, 120_000);

  const script = (type: string, bands: number, body: string) => `//VERSION=3
${RAMPS.map((r, k) => `const r${k} = new ColorRampVisualizer(${JSON.stringify(r)});`).join("\n")}
const rescaled = new ColorRampVisualizer([[-1, 0xff0000], [0, 0xffff00], [1, 0x00ff00]], 0.05, 0.3);
function setup(){return {input:["B04","B08","B12","dataMask"],output:{bands:${bands},sampleType:"${type}"}}}
function evaluatePixel(s){
  const v = index(s.B08, s.B04), p = r1.process(s.B12), q = r2.process(v * 2);
  ${body}
}`;
  // whole ramps, the dataMask after one, components alone and out of order, each ramp of RAMPS, a rescaled ramp
  const BODY = `return [...r0.process(v), s.dataMask, p[1], p[0], ...rescaled.process(s.B12), q[2], q[0], q[1],
    ...r3.process(v), ...r4.process(s.B12 * 1e-8), ...r5.process(s.B12 * 1e301), ...r0.process(s.B12 - 0.2)];`;

  it.each(["AUTO", "UINT8", "INT8", "UINT16", "INT16", "FLOAT32"])("over the 29RKH window, %s", async (type) => {
    expect(await differential(script(type, 24, BODY), { width: W, height: W, scenes: [scene] })).toBe(true);
  });

  it.each(["AUTO", "UINT16"])("over a dense sweep of values, %s", async (type) => {
    const n = 256 * 64;
    const B12 = Float32Array.from({ length: n }, (_, i) => -0.7 + (1.9 * i) / n);
    const bands = { B04: new Float32Array(n).fill(0.1), B08: new Float32Array(n).fill(0.3), B12 };
    const text = script(type, 6, "return [...r0.process(s.B12), ...r2.process(s.B12)];");
    const input = { width: 256, height: 64, scenes: [{ info: RKH_INFO, bands, dataMask: new Uint8Array(n).fill(1) }] };
    expect(await differential(text, input)).toBe(true);
  });
});

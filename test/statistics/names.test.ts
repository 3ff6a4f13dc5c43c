/**
 * Output names that are also Object.prototype members (`__proto__`, `constructor`, `toString`) are ordinary names
 * in a Statistical API response and its `calculations`: each gets its own statistics, equal to the same output under
 * a plain name.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { CRS } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { statistics } from "./helpers";

let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2_L2A_31UDS_20180419T110127_wc00002806639B424A");
  bearer = await token();
});

/** A script with one single-band B04 output named `id` and dataMask. */
const script = (id: string) => `//VERSION=3
function setup() {
  return { input: ["B04", "dataMask"], output: [{ id: ${JSON.stringify(id)}, bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] };
}
function evaluatePixel(s) { return { ${JSON.stringify(id)}: [s.B04], dataMask: [s.dataMask] }; }`;

async function outputsOf(id: string, calculations?: unknown): Promise<Record<string, unknown>> {
  const body = {
    input: {
      bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
      data: [{ type: "sentinel-2-l2a" }],
    },
    aggregation: {
      timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" },
      aggregationInterval: { of: "P1D" },
      width: 64,
      height: 64,
      evalscript: script(id),
    },
    ...(calculations ? { calculations } : {}),
  };
  const r = await statistics(body, bearer);
  const text = await r.text();
  expect(r.status, text.slice(0, 300)).toBe(200);
  const data = (JSON.parse(text) as { data: { outputs: Record<string, unknown> }[] }).data;
  expect(data).toHaveLength(1);
  return data[0]!.outputs;
}

type Band = { stats: { mean: number; percentiles?: Record<string, number> } };
const band0 = (outputs: Record<string, unknown>, id: string): Band =>
  (outputs[id] as { bands: Record<string, Band> }).bands.B0!;

describe("Object.prototype names as output names", () => {
  it("__proto__, constructor and toString outputs have the statistics of a plain name", async () => {
    const plain = band0(await outputsOf("red"), "red");
    expect(plain.stats.mean).toBeGreaterThan(0);
    for (const name of ["__proto__", "constructor", "toString"]) {
      const outputs = await outputsOf(name);
      expect(Object.keys(outputs), name).toEqual([name]);
      expect(band0(outputs, name), name).toEqual(plain);
    }
  });

  // (a `__proto__` member of `calculations` is dropped by zod's record parsing, so such an output takes `default`)
  it("a calculation keyed by such a name applies to that output", async () => {
    for (const name of ["constructor", "toString"]) {
      // JSON text, so that `__proto__` is an own member of the request as a client sends it
      const calculations = JSON.parse(
        `{${JSON.stringify(name)}: {"statistics": {"B0": {"percentiles": {"k": [50]}}}}}`,
      );
      const outputs = await outputsOf(name, calculations);
      expect(Object.keys(band0(outputs, name).stats.percentiles ?? {}), name).toEqual(["50.0"]);
    }
  });
});

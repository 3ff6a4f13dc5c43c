/**
 * Data fusion in the Statistical API on the real West Flanders April 2018 scenes (04-14 cc 100, 04-16 cc 71.39,
 * 04-19 cc 0): each source's statistics equal the statistics of a single-source request with that source's
 * dataFilter; intervals count when any source has an acquisition; bad fusion input is a 400.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { CRS } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { references, statistics, type RefGrid } from "./helpers";
import type { StatisticalResponse } from "../../src/stats/aggregate";

let bearer: string;
let grid: RefGrid;

beforeAll(async () => {
  await seedSamples((i) => i.id.includes("31UDS_201804"));
  bearer = await token();
  grid = (await references()).wf_grid;
});

type Data = { type: string; id?: string; dataFilter?: Record<string, unknown> };

const body = (data: Data[], evalscript: string, of: string, to = "2018-04-20T00:00:00Z") => ({
  input: { bounds: { bbox: grid.bbox, properties: { crs: CRS(grid.epsg) } }, data },
  aggregation: {
    timeRange: { from: "2018-04-14T00:00:00Z", to },
    aggregationInterval: { of },
    width: grid.width,
    height: grid.height,
    evalscript,
  },
  calculations: { default: { statistics: { default: { percentiles: { k: [10, 50, 90] } } } } },
});

/** B04 with the scene's dataMask, one source. */
const SINGLE = `//VERSION=3
function setup() { return { input: ["B04", "dataMask"], output: [{ id: "b04", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { b04: [s.B04], dataMask: [s.dataMask] }; }`;

/** B04 of sources x and y as outputs x and y; dataMask of x. A source without a sample gives -1. */
const FUSED = (x: string, y: string) => `//VERSION=3
function setup() {
  return {
    input: [{ datasource: "${x}", bands: ["B04", "dataMask"] }, { datasource: "${y}", bands: ["B04"] }],
    output: [{ id: "${x}", bands: 1, sampleType: "FLOAT32" }, { id: "${y}", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }],
  };
}
function evaluatePixel(samples) {
  const a = samples.${x}[0], b = samples.${y}[0];
  return { ${x}: [a ? a.B04 : -1], ${y}: [b ? b.B04 : -1], dataMask: [a ? a.dataMask : 0] };
}`;

async function ok(r: Response): Promise<StatisticalResponse> {
  const text = await r.text();
  expect(r.status, text.slice(0, 500)).toBe(200);
  return JSON.parse(text) as StatisticalResponse;
}

const stats = (res: StatisticalResponse, i: number, output: string) => res.data[i]!.outputs![output]!.bands.B0!.stats;

describe("Statistical API data fusion", () => {
  it("mostRecent and leastRecent sources over one interval give the statistics of each single-source request", async () => {
    const l2a = (id: string | undefined, order: string): Data => ({
      type: "sentinel-2-l2a",
      ...(id ? { id } : {}),
      dataFilter: { mosaickingOrder: order },
    });
    const fused = await ok(
      await statistics(
        body([l2a("recent", "mostRecent"), l2a("old", "leastRecent")], FUSED("recent", "old"), "P6D"),
        bearer,
      ),
    );
    const recent = await ok(await statistics(body([l2a(undefined, "mostRecent")], SINGLE, "P6D"), bearer));
    const old = await ok(await statistics(body([l2a(undefined, "leastRecent")], SINGLE, "P6D"), bearer));
    expect(fused.data).toHaveLength(1);
    expect(stats(recent, 0, "b04")).not.toEqual(stats(old, 0, "b04")); // 04-19 vs 04-14: a swap shows
    expect(stats(fused, 0, "recent")).toEqual(stats(recent, 0, "b04"));
    expect(stats(fused, 0, "old")).toEqual(stats(old, 0, "b04"));
  });

  it("intervals with an acquisition of any source are kept; a source without one there has no sample", async () => {
    const any: Data = { type: "S2L2A", id: "any" };
    const clear: Data = { type: "S2L2A", id: "clear", dataFilter: { maxCloudCoverage: 10 } };
    const fused = await ok(await statistics(body([clear, any], FUSED("any", "clear"), "P1D"), bearer));
    const single = await ok(await statistics(body([{ type: "S2L2A" }], SINGLE, "P1D"), bearer));
    const days = ["2018-04-14", "2018-04-16", "2018-04-19"];
    expect(fused.data.map((d) => d.interval.from.slice(0, 10))).toEqual(days);
    expect(single.data.map((d) => d.interval.from.slice(0, 10))).toEqual(days);
    days.forEach((_, i) => expect(stats(fused, i, "any")).toEqual(stats(single, i, "b04")));
    expect(stats(fused, 2, "clear")).toEqual(stats(single, 2, "b04")); // 04-19 is the only scene with cc <= 10
    for (const i of [0, 1]) expect([stats(fused, i, "clear").min, stats(fused, i, "clear").max]).toEqual([-1, -1]);
  });

  it("a datasource that matches no input.data id is a 400 naming the ids, before any interval runs", async () => {
    const r = await statistics(
      body(
        [
          { type: "S2L2A", id: "a" },
          { type: "S2L2A", id: "b" },
        ],
        FUSED("a", "c"),
        "P1D",
      ),
      bearer,
    );
    const json = (await r.json()) as { error: { message: string } };
    expect(r.status).toBe(400);
    expect(json.error.message).toMatch(
      /datasource "c", which matches no input.data id; the input.data ids are "a", "b"/,
    );
  });
});

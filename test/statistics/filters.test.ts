/**
 * Statistical API data filters and edge cases on the real West Flanders series and the Sentinel-1 scene:
 * mosaickingOrder and maxCloudCoverage inside one interval holding four acquisitions (compared with numpy's
 * single-date references of test/reference/ref_statistics.py), Sentinel-1 dataFilter members (the statistics scene
 * query once ignored them), `from == to`, and a geometry that covers no pixel centre.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { CRS } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { window } from "../helpers/raster";
import { expectBand, references, statistics, type RefBand, type References } from "./helpers";
import { ndviScl, statsBody } from "./requests";
import type { StatisticalResponse } from "../../src/stats/aggregate";

let bearer: string;
let refs: References;
let NDVI_SCL: string;

beforeAll(async () => {
  await seedSamples((i) => i.id.startsWith("S2_L2A_31UDS_201804") || i.collection === "sentinel-1-grd");
  bearer = await token();
  refs = await references();
  NDVI_SCL = await ndviScl();
});

async function ok(r: Response): Promise<StatisticalResponse> {
  const text = await r.text();
  expect(r.status, text.slice(0, 500)).toBe(200);
  return JSON.parse(text) as StatisticalResponse;
}

/**
 * One P8D interval 2018-04-14 .. 04-22 holding 04-14 (cc 100), 04-16 (71.39), 04-19 (0), 04-21 (100), every one
 * covering the whole patch; NDVI without cloud masking so each date has its own statistics.
 */
async function week(dataFilter: Record<string, unknown>): Promise<StatisticalResponse> {
  const c = refs.wf_p1d_april;
  const unmasked = NDVI_SCL.replace("const CLOUD = [3, 8, 9, 10];", "const CLOUD = [];");
  expect(unmasked).not.toBe(NDVI_SCL);
  const body = statsBody(
    { ...c, timeRange: { from: "2018-04-14T00:00:00Z", to: "2018-04-22T00:00:00Z" }, of: "P8D" },
    refs.wf_grid,
    unmasked,
  );
  body.input.data = [{ type: "sentinel-2-l2a", dataFilter } as never];
  return ok(await statistics(body, bearer));
}

/** Expects the single interval's NDVI stats to be numpy's for the acquisition of `date` alone (wf_unmasked). */
function expectDate(res: StatisticalResponse, date: string): void {
  expect(res.data).toHaveLength(1);
  expect(res.data[0]!.interval).toEqual({ from: "2018-04-14T00:00:00Z", to: "2018-04-22T00:00:00Z" });
  const ref = (refs as unknown as { wf_unmasked: Record<string, { B0: RefBand }> }).wf_unmasked[date]!;
  expectBand(res.data[0]!.outputs?.ndvi?.bands.B0, ref.B0, date);
}

describe("mosaickingOrder and maxCloudCoverage within an interval", () => {
  it("mostRecent (default) mosaics 04-21 first: it covers the patch, so its statistics", async () => {
    expectDate(await week({}), "2018-04-21");
  });

  it("leastRecent: 04-14", async () => {
    expectDate(await week({ mosaickingOrder: "leastRecent" }), "2018-04-14");
  });

  it("leastCC: 04-19 (cloud cover 0)", async () => {
    expectDate(await week({ mosaickingOrder: "leastCC" }), "2018-04-19");
  });

  it("maxCloudCoverage 50 (and 0) keeps only 04-19, whatever the order", async () => {
    expectDate(await week({ maxCloudCoverage: 50 }), "2018-04-19");
    expectDate(await week({ maxCloudCoverage: 0, mosaickingOrder: "leastRecent" }), "2018-04-19");
  });

  it("maxCloudCoverage 80 with leastRecent: 04-16 (71.39) first", async () => {
    expectDate(await week({ maxCloudCoverage: 80, mosaickingOrder: "leastRecent" }), "2018-04-16");
  });
});

describe("edge cases", () => {
  it("from == to: no interval, an empty OK response (any lastIntervalBehavior)", async () => {
    for (const behavior of ["SKIP", "SHORTEN", "EXTEND"]) {
      const t = "2018-04-19T11:01:27Z";
      const body = statsBody(
        { ...refs.wf_p1d_april, timeRange: { from: t, to: t } },
        refs.wf_grid,
        NDVI_SCL,
        "ndvi",
        behavior,
      );
      const res = await ok(await statistics(body, bearer));
      expect([res.status, res.data]).toEqual(["OK", []]);
    }
  });

  it("a geometry that covers no pixel centre: geometryPixelCount 0, every pixel no data", async () => {
    // a U shape 4 m wide in UTM 31N: at resx 10 its one pixel's centre (the bounds' centre) lies in the notch
    const u = [
      [501500, 5629300],
      [501504, 5629300],
      [501504, 5629304],
      [501503.5, 5629304],
      [501503.5, 5629300.5],
      [501500.5, 5629300.5],
      [501500.5, 5629304],
      [501500, 5629304],
      [501500, 5629300],
    ];
    const body = statsBody(
      { ...refs.wf_p1d_april, timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
      refs.wf_grid,
      NDVI_SCL,
    );
    body.input.bounds = { geometry: { type: "Polygon", coordinates: [u] }, properties: { crs: CRS(32631) } } as never;
    body.aggregation = { ...body.aggregation, width: undefined, height: undefined, resx: 10, resy: 10 } as never;
    const res = await ok(await statistics(body, bearer));
    expect(res.geometryPixelCount).toBe(0);
    expect(res.data).toHaveLength(1);
    const stats = res.data[0]!.outputs!.ndvi!.bands.B0!.stats;
    expect([stats.sampleCount, stats.noDataCount, stats.mean]).toEqual([1, 1, "NaN"]);
  });
});

describe("Sentinel-1 statistics with a dataFilter", () => {
  // 64 x 64 px of the 200 m UTM 43N grid, 300 px right and 400 down of its origin (inside the swath)
  const X0 = 566396.008448501 + 300 * 200;
  const Y1 = 1237182.1888995206 - 400 * 200;
  const VV = `//VERSION=3
function setup() { return { input: ["VV", "dataMask"], output: [{ id: "vv", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { vv: [s.VV], dataMask: [s.dataMask] }; }`;
  const s1 = (dataFilter: Record<string, unknown>) => ({
    input: {
      bounds: { bbox: [X0, Y1 - 64 * 200, X0 + 64 * 200, Y1], properties: { crs: CRS(32643) } },
      data: [{ type: "S1GRD", dataFilter }],
    },
    aggregation: {
      timeRange: { from: "2018-07-16T00:00:00Z", to: "2018-07-17T00:00:00Z" },
      aggregationInterval: { of: "P1D" },
      width: 64,
      height: 64,
      evalscript: VV,
    },
  });

  it("orbitDirection DESCENDING, polarization DV, IW: the scene's VV statistics (against the file)", async () => {
    const res = await ok(
      await statistics(
        s1({ orbitDirection: "DESCENDING", polarization: "DV", acquisitionMode: "IW", resolution: "HIGH" }),
        bearer,
      ),
    );
    expect(res.data).toHaveLength(1);
    const file = await window(
      "sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B/iw-vv.utm43n-200m.tif",
      0,
      300,
      400,
      64,
      64,
    );
    const v = Array.from(file).filter((x) => x !== 0);
    const mean = v.reduce((a, x) => a + x, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, x) => a + (x - mean) ** 2, 0) / (v.length - 1));
    const stats = res.data[0]!.outputs!.vv!.bands.B0!.stats;
    expect([stats.sampleCount, stats.noDataCount, stats.min, stats.max]).toEqual([
      4096,
      4096 - v.length,
      Math.min(...v),
      Math.max(...v),
    ]);
    expect(Math.abs((stats.mean as number) - mean)).toBeLessThan(1e-9 * mean);
    expect(Math.abs((stats.stDev as number) - sd)).toBeLessThan(1e-9 * sd);
  });

  for (const [member, value] of [
    ["orbitDirection", "ASCENDING"],
    ["polarization", "SH"],
    ["acquisitionMode", "EW"],
    ["resolution", "MEDIUM"],
  ] as const) {
    it(`${member} ${value} excludes the (descending IW DV HIGH) scene: no interval`, async () => {
      const res = await ok(await statistics(s1({ [member]: value }), bearer));
      expect([res.status, res.data]).toEqual(["OK", []]);
    });
  }
});

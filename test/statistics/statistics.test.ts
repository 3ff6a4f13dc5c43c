/**
 * Statistical API end to end on the real West Flanders series (19 dates), the Belgium series and the 29RKH
 * tile: every interval's stats, percentiles and histograms equal numpy on the same pixels
 * (test/reference/ref_statistics.py -> test/fixtures/statistics/references.json).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, token } from "../helpers/auth";
import { CRS } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { expectBand, references, statistics, type RefEntry, type References } from "./helpers";
import { ndviScl, RGB, statsBody } from "./requests";
import type { StatisticalResponse } from "../../src/stats/aggregate";

let bearer: string;
let refs: References;
let NDVI_SCL: string;

beforeAll(async () => {
  await seedSamples(
    (i) => i.id.startsWith("S2_L2A_31UDS_") || i.id.startsWith("openEO_") || i.id === "S2A_29RKH_20200219_0_L2A",
  );
  bearer = await token();
  refs = await references();
  NDVI_SCL = await ndviScl();
});

let lastHeaders: Headers;

async function ok(r: Response): Promise<StatisticalResponse> {
  lastHeaders = r.headers;
  const text = await r.text();
  expect(r.status, text.slice(0, 500)).toBe(200);
  expect(r.headers.get("content-type")).toContain("application/json");
  expect(Number(r.headers.get("x-processingunits-spent"))).toBeGreaterThanOrEqual(0.01);
  return JSON.parse(text) as StatisticalResponse;
}

/** Entries equal the reference entries: same intervals, in order, and per band the same numbers. */
function expectEntries(got: StatisticalResponse, want: RefEntry[], output = "ndvi"): void {
  expect(got.data.map((d) => d.interval)).toEqual(want.map((w) => w.interval));
  got.data.forEach((d, i) => {
    expect(d.error, JSON.stringify(d.error)).toBeUndefined();
    for (const [band, ref] of Object.entries(want[i]!.bands))
      expectBand(d.outputs?.[output]?.bands[band], ref, `${d.interval.from} ${output}.${band}`);
  });
}

describe("Statistical API on real scenes vs numpy", () => {
  it("P1D over April 2018 (West Flanders): one interval per acquisition with its own cloud-masked NDVI", async () => {
    const c = refs.wf_p1d_april;
    const res = await ok(await statistics(statsBody(c, refs.wf_grid, NDVI_SCL), bearer));
    expect(res.status).toBe("OK");
    expect(res.geometryPixelCount).toBe(64 * 64);
    // 6 intervals x (64*64 / 512^2) px x (3 input bands / 3) x 2 (FLOAT32 output), as processing charges per request
    expect(Number(lastHeaders.get("x-processingunits-spent"))).toBeCloseTo(6 * (4096 / 262144) * 2, 9);
    expect(res.data.map((d) => d.interval.from.slice(0, 10))).toEqual([
      "2018-04-11",
      "2018-04-14",
      "2018-04-16",
      "2018-04-19",
      "2018-04-21",
      "2018-04-26",
    ]);
    expectEntries(res, c.entries);
  });

  it("P1M over the whole series: monthly mostRecent mosaics, months without acquisitions omitted", async () => {
    const c = refs.wf_p1m_series;
    const res = await ok(await statistics(statsBody(c, refs.wf_grid, NDVI_SCL), bearer, "/statistics/v1"));
    expect(res.data).toHaveLength(14);
    expectEntries(res, c.entries);
  });

  for (const behavior of ["SKIP", "SHORTEN", "EXTEND"] as const) {
    it(`P10D with lastIntervalBehavior ${behavior}`, async () => {
      const c = refs.wf_p10d;
      const res = await ok(await statistics(statsBody(c, refs.wf_grid, NDVI_SCL, "ndvi", behavior), bearer));
      expectEntries(res, c[behavior]);
    });
  }

  it("a polygon clips: pixels outside it do not count (geometry in UTM, resx/resy 10 m)", async () => {
    const c = refs.wf_polygon;
    const body = statsBody(c, c.grid!, NDVI_SCL);
    body.input.bounds = {
      geometry: { type: "Polygon", coordinates: [c.polygon!] },
      properties: { crs: CRS(c.grid!.epsg) },
    } as never;
    body.aggregation = { ...body.aggregation, width: undefined, height: undefined, resx: 10, resy: 10 } as never;
    const res = await ok(await statistics(body, bearer));
    expect(res.geometryPixelCount).toBe(c.geometryPixelCount);
    expectEntries(res, c.entries);
  });

  it("Belgium: three-band output, default band names B0, B1, B2, explicit per-output calculations", async () => {
    const c = refs.belgium_p1d;
    const res = await ok(await statistics(statsBody(c, c.grid!, RGB, "default"), bearer));
    expect(Object.keys(res.data[0]!.outputs!.default!.bands)).toEqual(["B0", "B1", "B2"]);
    expectEntries(res, c.entries, "default");
  });

  it("29RKH: NDVI over the whole tile at 100 m (1098 x 1098 px)", async () => {
    const c = refs.rkh_tile;
    const res = await ok(await statistics(statsBody(c, c.grid!, NDVI_SCL), bearer));
    expectEntries(res, c.entries);
  });

  it("a failing interval carries error.type and the others still come back (PARTIAL)", async () => {
    const c = refs.wf_p1d_april;
    const script = NDVI_SCL.replace(
      "function evaluatePixel(s) {",
      'function evaluatePixel(s) {\n  if (s.SCL === 9) throw new Error("opaque cloud");',
    );
    const res = await ok(await statistics(statsBody(c, refs.wf_grid, script), bearer));
    expect(res.status).toBe("PARTIAL");
    const failed = res.data.filter((d) => d.error).map((d) => [d.interval.from.slice(0, 10), d.error!.type]);
    expect(failed).toEqual([
      ["2018-04-11", "EXECUTION_ERROR"],
      ["2018-04-14", "EXECUTION_ERROR"],
      ["2018-04-16", "EXECUTION_ERROR"],
    ]);
    expect(res.data.find((d) => d.error)!.error!.message).toMatch(/opaque cloud/);
    const good = res.data.filter((d) => !d.error);
    expectEntries(
      { ...res, data: good },
      c.entries.filter((e) => ["2018-04-19", "2018-04-21", "2018-04-26"].includes(e.dates![0]!)),
    );
  });

  it("every interval failing: status FAILED; a runaway script is a TIMEOUT", async () => {
    const c = refs.wf_p1d_april;
    const failing = NDVI_SCL.replace(
      "function evaluatePixel(s) {",
      'function evaluatePixel(s) {\n  if (s.B04 >= 0) throw new Error("no");',
    );
    const all = await ok(await statistics(statsBody(c, refs.wf_grid, failing), bearer));
    expect(all.status).toBe("FAILED");
    expect(all.data.map((d) => d.error?.type)).toEqual(Array(6).fill("EXECUTION_ERROR"));
    const looping = NDVI_SCL.replace(
      "function evaluatePixel(s) {",
      "function evaluatePixel(s) {\n  while (s.SCL === 9) {}",
    );
    const some = await ok(
      await statistics(
        statsBody(
          { ...c, timeRange: { from: "2018-04-11T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
          refs.wf_grid,
          looping,
        ),
        bearer,
      ),
    );
    expect(some.status).toBe("PARTIAL");
    expect(some.data.map((d) => [d.interval.from.slice(0, 10), d.error?.type])).toEqual([
      ["2018-04-11", "TIMEOUT"],
      ["2018-04-14", "TIMEOUT"],
      ["2018-04-16", "TIMEOUT"],
      ["2018-04-19", undefined],
    ]);
  });

  it("a histogram binWidth giving too many bins (each interval its own data range) fails each interval as BAD_REQUEST (status FAILED)", async () => {
    const c = refs.wf_p1d_april;
    const body = statsBody(
      { ...c, timeRange: { from: "2018-04-16T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
      refs.wf_grid,
      NDVI_SCL,
    );
    body.calculations = { ndvi: { histograms: { default: { binWidth: 1e-9 } } } } as never;
    const res = await ok(await statistics(body, bearer));
    expect(res.data.map((d) => [d.interval.from.slice(0, 10), d.error?.type])).toEqual([
      ["2018-04-16", "BAD_REQUEST"],
      ["2018-04-19", "BAD_REQUEST"],
    ]);
    expect(res.status).toBe("FAILED");
    expect(res.data[0]!.error!.message).toMatch(/bins; at most 10000 are allowed/);
  });

  it("multipart/form-data with 'request' and 'evalscript' parts", async () => {
    const c = refs.wf_p1d_april;
    const body = statsBody(
      { ...c, timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
      refs.wf_grid,
      "",
    );
    const form = new FormData();
    form.set("request", JSON.stringify(body));
    form.set("evalscript", NDVI_SCL);
    const res = await ok(await authed("/api/v1/statistics", { method: "POST", body: form }, bearer));
    expectEntries(
      res,
      c.entries.filter((e) => e.dates![0] === "2018-04-19"),
    );
  });
});

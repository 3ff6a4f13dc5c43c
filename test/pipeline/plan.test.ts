/**
 * The plan every caller hands to the pipeline (src/pipeline/plan.ts): size limits per kind of request (2500 px
 * synchronous, 10000 px async, a batch tile as given), the time window of each source in ms, and an explicit-grid
 * plan (a batch tile) and an async-size plan evaluated on the real 29RKH scene, compared with the file's pixels
 * read by geotiff.js (independent of the raster engine).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { thrown } from "../helpers/engine";
import { CRS, bandsScript } from "../helpers/process";
import { window } from "../helpers/raster";
import { seedSamples } from "../helpers/seed";
import { evaluatePlan, prepareEvalscript } from "../../src/pipeline/pipeline";
import {
  MAX_ASYNC_SIZE,
  MAX_BATCH_TILE_SIZE,
  MAX_SYNC_SIZE,
  planGrid,
  planRequest,
  withSources,
  withWindow,
} from "../../src/pipeline/plan";
import { crsFromEpsg } from "../../src/raster/crs";
import type { Grid } from "../../src/raster/types";

/** The 29RKH sample tile (EPSG:32629), its B04 file is 1098 x 1098 px at 100 m. */
const RKH_BBOX: Grid["bbox"] = [199980, 2690220, 309780, 2800020];
const RKH_B04 = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif";
const RKH_DAY = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
const bounds = (bbox: number[]) => ({ bbox, properties: { crs: CRS(32629) } });
const data = [{ type: "sentinel-2-l2a", dataFilter: { timeRange: RKH_DAY } }];

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
});

describe("plan limits", () => {
  it("synchronous by default: over 2500 px per side is an invalid-argument naming the limit", () => {
    const e = thrown(() => planRequest({ bounds: bounds(RKH_BBOX) }, { width: MAX_SYNC_SIZE + 1, height: 10 }));
    expect([e.kind, e.status, e.error.limit]).toEqual([
      "invalid-argument",
      400,
      { name: "output size (px per side)", max: 2500 },
    ]);
    expect(e.message).toContain("at most 2500 x 2500 px");
    expect(planRequest({ bounds: bounds(RKH_BBOX) }, { width: 2500, height: 2500 }).limits).toEqual({ maxSize: 2500 });
  });

  it("async: up to 10000 px per side", () => {
    const plan = planRequest(
      { bounds: bounds(RKH_BBOX) },
      { width: 2501, height: 10_000 },
      { maxSize: MAX_ASYNC_SIZE },
    );
    expect([plan.grid.width, plan.grid.height, plan.limits.maxSize]).toEqual([2501, 10_000, 10_000]);
    const e = thrown(() =>
      planRequest({ bounds: bounds(RKH_BBOX) }, { width: 10_001, height: 10 }, { maxSize: MAX_ASYNC_SIZE }),
    );
    expect(e.error.limit).toEqual({ name: "output size (px per side)", max: 10_000 });
  });

  it("an explicit grid (batch tile) is taken as given, clipped by a geometry in its CRS, bounded by MAX_BATCH_TILE_SIZE", () => {
    const grid: Grid = { crs: crsFromEpsg(32629), bbox: RKH_BBOX, width: 5000, height: 4000 };
    const left = [
      [
        [199980, 2690220],
        [254880, 2690220],
        [254880, 2800020],
        [199980, 2800020],
        [199980, 2690220],
      ],
    ];
    const plan = planGrid(grid, { geometry: { type: "Polygon", coordinates: left } });
    expect(plan.grid).toEqual(grid);
    expect(plan.limits).toEqual({ maxSize: MAX_BATCH_TILE_SIZE });
    // the polygon is the tile's left half exactly (254880 = the bbox's middle x): 2500 of 5000 columns in every row
    expect(plan.geometryMask!.reduce((a, v) => a + v, 0)).toBe(2500 * 4000);
    expect(plan.geometryMask![2499]).toBe(1);
    expect(plan.geometryMask![2500]).toBe(0);
    const [w, s, e, n] = plan.lonLatBbox;
    expect(w).toBeLessThan(-10); // 29RKH lies around 10 W, 25 N
    expect(e).toBeGreaterThan(w);
    expect(s).toBeGreaterThan(24);
    expect(n).toBeLessThan(26);
    expect(thrown(() => planGrid({ ...grid, width: MAX_BATCH_TILE_SIZE + 1 })).error.limit).toEqual({
      name: "output size (px per side)",
      max: 10_000,
    });
    expect(thrown(() => planGrid({ ...grid, width: 10 }, { maxSize: 8 })).error.limit?.max).toBe(8);
  });
});

describe("sources and windows", () => {
  it("each source carries its own window in ms; withWindow replaces every one", async () => {
    const script = await prepareEvalscript(
      env,
      `//VERSION=3
function setup() { return { input: [{datasource: "a", bands: ["B04"]}, {datasource: "b", bands: ["VV"]}], output: { bands: 2 } }; }
function evaluatePixel(s) { return [0, 0]; }`,
      "plan-test",
    );
    const fusion = [
      { id: "a", type: "sentinel-2-l2a", dataFilter: { timeRange: RKH_DAY } },
      {
        id: "b",
        type: "S1GRD",
        dataFilter: { timeRange: { from: "2019-01-01T00:00:00.500Z", to: "2019-02-01T00:00:00Z" } },
      },
    ];
    const plan = await withSources(
      { env, account: null },
      planRequest({ bounds: bounds(RKH_BBOX) }, undefined),
      fusion,
      script.setup,
    );
    expect(plan.sources.map((s) => [s.datasource, s.collection.id, s.window])).toEqual([
      ["a", "sentinel-2-l2a", { from: 1582070400000, to: 1582156800000 }],
      ["b", "sentinel-1-grd", { from: 1546300800500, to: 1548979200000 }],
    ]);
    const narrowed = withWindow(plan, { from: 1, to: 2 });
    expect(narrowed.sources.map((s) => s.window)).toEqual([
      { from: 1, to: 2 },
      { from: 1, to: 2 },
    ]);
    expect(plan.sources[0]!.window.from).toBe(1582070400000); // the plan itself is unchanged
  });
});

describe("evaluatePlan on explicit and async-size plans (29RKH B04 vs the file)", () => {
  it("a batch-tile plan (the whole tile at its native 100 m grid) equals the file's pixels", async () => {
    const script = await prepareEvalscript(env, bandsScript(["B04"]), "plan-test");
    const area = planGrid({ crs: crsFromEpsg(32629), bbox: RKH_BBOX, width: 1098, height: 1098 });
    const ev = await evaluatePlan(env, script, await withSources({ env, account: null }, area, data, script.setup));
    const got = ev.result.outputs.default!.values;
    const file = await window(RKH_B04, 0, 0, 0, 1098, 1098);
    let bad = 0;
    for (let i = 0; i < file.length; i++) if (Math.abs(got[i]! - file[i]! / 10000) > 1e-6) bad++;
    expect(got.length).toBe(1098 * 1098);
    expect(bad).toBe(0);
  });

  it("an async plan over 2500 px wide (4392 x 40 px at 25 m, NEAREST) equals the file's pixels upsampled 4x", async () => {
    const script = await prepareEvalscript(env, bandsScript(["B04"]), "plan-test");
    const strip = [RKH_BBOX[0], RKH_BBOX[3] - 1000, RKH_BBOX[2], RKH_BBOX[3]];
    expect(() => planRequest({ bounds: bounds(strip) }, { resx: 25, resy: 25 })).toThrow(/at most 2500 x 2500 px/);
    const area = planRequest({ bounds: bounds(strip) }, { resx: 25, resy: 25 }, { maxSize: MAX_ASYNC_SIZE });
    expect([area.grid.width, area.grid.height]).toEqual([4392, 40]);
    const got = (await evaluatePlan(env, script, await withSources({ env, account: null }, area, data, script.setup)))
      .result.outputs.default!.values;
    const file = await window(RKH_B04, 0, 0, 0, 1098, 10);
    let bad = 0;
    for (let row = 0; row < 40; row++)
      for (let col = 0; col < 4392; col++)
        if (Math.abs(got[row * 4392 + col]! - file[(row >> 2) * 1098 + (col >> 2)]! / 10000) > 1e-6) bad++;
    expect(bad).toBe(0);
  });
});

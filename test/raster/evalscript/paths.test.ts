/**
 * The 30 real scripts of data/evalscripts on the pixels their mosaicking asks for, through helpers.ts `load`: the
 * host path where the script has one (hostpath.test.ts lists which) and the sandbox, equal bit for bit, raw
 * (FLOAT32 values) and converted to the stored sample types; ORBIT scripts run their time series in the sandbox.
 * Pixels: SIMPLE scripts get a 96x96 window of the real 29RKH L2A scene (reflectance, SCL, CLM from SCL, the
 * item's scene angles) with a no-data strip (dataMask 0, band values 0, as the pipeline gives them); ORBIT
 * scripts the real West Flanders 64x64 time series (DN; bands that series lacks are stood in by B08).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { compileEvalscript, type EvalInput, type SceneData } from "../../../src/raster/evalscript";
import { clmFromScl, sceneAngles } from "../../../src/pipeline/bands";
import { sampleItems } from "../../helpers/seed";
import { load, rkhWindow, RKH_INFO, script, wfInfos, wfScene } from "./helpers";

/** data/evalscripts (ndyi__script is a version 1 body under a //VERSION=3 header: it does not compile). */
const SCRIPTS = [
  "agriculture_growth_stage__script",
  "barren_soil__script",
  "burned_area__script",
  "cab__script",
  "cloud_statistics__script",
  "cloudless_mosaic__L2A-first_quartile_4bands",
  "evi__eob",
  "evi__raw",
  "evi__script",
  "false-color-urban-rgb__script",
  "fire_boundary__fire_boundary_script",
  "fire_boundary__script",
  "forest_cut_temporal_detection__script",
  "l2a_optimized__script",
  "landslide_detection_rapid_mapping__script",
  "max_ndvi__script",
  "monthly_composite__script",
  "ndmi__eob",
  "ndsi__script",
  "ndvi__eob",
  "ndvi__raw",
  "ndvi__script",
  "ndvi_difference__script",
  "ndwi__eob",
  "ndwi__raw",
  "ndwi__script",
  "ndyi__script",
  "scene-classification__script",
  "simple_water_bodies_mapping-swbm__script",
  "true_color__script",
];

const W = 96;
const N = W * W;
const RKH_BANDS = [
  "AOT",
  "B01",
  "B02",
  "B03",
  "B04",
  "B05",
  "B06",
  "B07",
  "B08",
  "B8A",
  "B09",
  "B11",
  "B12",
  "SCL",
  "WVP",
];
let simple: SceneData;
const orbit: SceneData[] = [];

beforeAll(async () => {
  const bands = await rkhWindow(RKH_BANDS, 440, 40, W, W);
  const dataMask = new Uint8Array(N).fill(1);
  for (let i = 0; i < N; i++) if (i % W < 7) dataMask[i] = 0; // a no-data strip on the west edge
  for (const v of Object.values(bands)) for (let i = 0; i < N; i++) if (!dataMask[i]) v[i] = 0;
  bands.CLM = clmFromScl(bands.SCL!, dataMask);
  const item = (await sampleItems()).find((i) => i.id === RKH_INFO.id)!;
  for (const [k, v] of Object.entries(sceneAngles(item))) bands[k] = new Float32Array(N).fill(v);
  simple = { info: RKH_INFO, bands, dataMask };
  for (const info of wfInfos()) {
    const s = await wfScene(info.id.slice(3), ["B02", "B03", "B04", "B08", "SCL"]);
    for (const b of ["B05", "B11", "B12", "B8A"]) s.bands[b] = s.bands.B08!;
    orbit.push({ info, ...s });
  }
}, 120_000);

describe("the 30 real scripts: host path and sandbox agree bit for bit", () => {
  it.each(SCRIPTS)("%s", async (name) => {
    const text = await script(`sentinel-2__${name}.js`);
    if (name === "ndyi__script") {
      expect(() => compileEvalscript(text)).toThrow(/version 1 script/);
      return;
    }
    const rt = await load(text); // evaluations run both paths and compare (helpers.ts)
    const setup = await rt.setup();
    const input: EvalInput =
      setup.mosaicking === "SIMPLE"
        ? { width: W, height: W, scenes: [simple] }
        : {
            width: 64,
            height: 64,
            scenes: orbit,
            timeRange: { from: "2017-01-01T00:00:00Z", to: "2018-12-31T23:59:59Z" },
          };
    const raw = await rt.evaluate(input);
    const stored = await rt.evaluate({ ...input, convert: true });
    expect(Object.keys(stored.outputs)).toEqual(setup.outputs.map((o) => o.id));
    for (const o of Object.values(raw.outputs)) expect(o.values.length).toBe(input.width * input.height * o.bands);
  });
});

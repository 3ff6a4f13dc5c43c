/**
 * The 30 real scripts of data/evalscripts through both evaluation paths: the column function (specialize.ts)
 * where the script has one, and the general per-pixel path with sample objects (forced). Their outputs must be
 * equal bit for bit (helpers.ts `load`), raw (FLOAT32 values) and converted to the stored sample types.
 * Pixels: SIMPLE scripts get a 96x96 window of the real 29RKH L2A scene (reflectance, SCL, CLM from SCL, the
 * item's scene angles) with a no-data strip (dataMask 0, band values 0, as the pipeline gives them); ORBIT
 * scripts the real West Flanders 64x64 time series (DN; bands that series lacks are stood in by B08).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { compileEvalscript, type EvalInput, type SceneData } from "../../../src/raster/evalscript";
import { clmFromScl, sceneAngles } from "../../../src/pipeline/bands";
import { sampleItems } from "../../helpers/seed";
import { load, rkhWindow, RKH_INFO, script, wfInfos, wfScene } from "./helpers";

/**
 * data/evalscripts: `true` where the script has a column function, else the reason specialize.ts gives. ORBIT
 * scripts index their sample list (`samples[0]`, `samples[i]`), which no static proof can turn into bands.
 */
const SCRIPTS: Record<string, true | RegExp> = {
  agriculture_growth_stage__script: /computed key/, // ORBIT
  barren_soil__script: true,
  burned_area__script: /computed key/, // ORBIT
  cab__script: true, // V2 auto-converted: evaluatePixelOrig([sample], [scene], ...), a helper copy
  cloud_statistics__script: /computed key/, // ORBIT
  "cloudless_mosaic__L2A-first_quartile_4bands": /computed key/, // ORBIT
  evi__eob: true, // isCloud(samples): a helper copy
  evi__raw: true,
  evi__script: true,
  "false-color-urban-rgb__script": true,
  fire_boundary__fire_boundary_script: true,
  fire_boundary__script: true,
  forest_cut_temporal_detection__script: /computed key/, // ORBIT
  l2a_optimized__script: true,
  landslide_detection_rapid_mapping__script: true,
  max_ndvi__script: /computed key/, // ORBIT
  monthly_composite__script: /computed key/, // ORBIT
  ndmi__eob: true, // isCloud(samples)
  ndsi__script: true,
  ndvi__eob: true, // isCloud(samples)
  ndvi__raw: true,
  ndvi__script: true,
  ndvi_difference__script: /computed key/, // ORBIT
  ndwi__eob: true,
  ndwi__raw: true,
  ndwi__script: true,
  ndyi__script: /version 1 script/, // a version 1 body under a //VERSION=3 header: does not compile
  "scene-classification__script": true,
  "simple_water_bodies_mapping-swbm__script": /"p" through a computed key/, // p[nrDS], the band named by a global
  true_color__script: true,
};

const W = 96;
const N = W * W;
const RKH_BANDS = ["AOT", "B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08", "B8A", "B09", "B11", "B12", "SCL", "WVP"];
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

describe("the 30 real scripts: column function and general path agree bit for bit", () => {
  it.each(Object.keys(SCRIPTS))("%s", async (name) => {
    const text = await script(`sentinel-2__${name}.js`);
    const expected = SCRIPTS[name]!;
    if (name === "ndyi__script") {
      expect(() => compileEvalscript(text)).toThrow(expected as RegExp);
      return;
    }
    const column = compileEvalscript(text).column;
    if (expected === true) expect(column).toHaveProperty("bands");
    else expect("refused" in column && column.refused).toMatch(expected);
    const rt = await load(text); // evaluations run both paths and compare (helpers.ts)
    const setup = await rt.setup();
    const input: EvalInput =
      setup.mosaicking === "SIMPLE"
        ? { width: W, height: W, scenes: [simple] }
        : { width: 64, height: 64, scenes: orbit, timeRange: { from: "2017-01-01T00:00:00Z", to: "2018-12-31T23:59:59Z" } };
    const raw = await rt.evaluate(input);
    const stored = await rt.evaluate({ ...input, convert: true });
    expect(Object.keys(stored.outputs)).toEqual(setup.outputs.map((o) => o.id));
    for (const o of Object.values(raw.outputs)) expect(o.values.length).toBe(input.width * input.height * o.bands);
  });
});

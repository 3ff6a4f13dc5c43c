/**
 * Sentinel-1 GRD through the upstream archive (src/archive/sentinel1.ts), against the archive twin: the real GRD
 * measurement files (georeferenced by 210 ground control points only) warped by the GCP polynomial
 * (src/raster/gcp.ts) give GDAL's pixels (test/reference/ref_s1_gcp.py: gdal.Warp, default GCP transformer, near,
 * exact transformer) at full resolution and from an overview; Sentinel Hub's S1 processing options are checked by
 * their exact names, what cannot be served is a 400 naming what is supported; outside the swath is dataMask 0; the
 * catalog search of sentinel-1-grd is answered by the twin's STAC API.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { sampleFile } from "../helpers/seed";
import { CRS, readTiff } from "../helpers/process";
import { postJson, twinScope, type TwinScope } from "./scope";
import { forgetOpens } from "../../src/archive/bytes";
import { forgetUpstreamSearches } from "../../src/archive/upstream";
import { forgetSasTokens } from "../../src/archive/access";
import { clearCogCaches } from "../../src/raster/cog";

interface S1Ref {
  band: string;
  epsg: number;
  bbox: number[];
  width: number;
  height: number;
  level: number;
  valid: number;
}

const TIME = { from: "2018-07-16T00:00:00Z", to: "2018-07-17T00:00:00Z" };
let bearer: string;
let twin: TwinScope;
let refs: Record<string, S1Ref>;

const script = (band: string) => `//VERSION=3
function setup(){return {input:[{bands:["${band}","dataMask"]}], output:{bands:2, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [s.${band}, s.dataMask]}`;

const s1Request = (
  bbox: number[],
  epsg: number,
  width: number,
  height: number,
  band = "VV",
  processing?: Record<string, unknown>,
) => ({
  input: {
    bounds: { bbox, properties: { crs: CRS(epsg) } },
    data: [{ type: "sentinel-1-grd", dataFilter: { timeRange: TIME }, ...(processing ? { processing } : {}) }],
  },
  output: { width, height, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: script(band),
});

/** POST /api/v1/process through the Worker reading this file's twin scope (`over`: further bindings). */
const process = (body: unknown, over: Record<string, unknown> = {}) =>
  twin.call("/api/v1/process", postJson(body), bearer, over);

/** Band 1 and band 2 (dataMask) of a 2-band FLOAT32 GeoTIFF response. */
async function bands(r: Response): Promise<{ value: Float32Array; mask: Float32Array }> {
  expect(r.status).toBe(200);
  const tif = await readTiff(await r.arrayBuffer());
  const n = tif.width * tif.height;
  const [value, mask] = [new Float32Array(n), new Float32Array(n)];
  for (let i = 0; i < n; i++) [value[i], mask[i]] = [tif.data[2 * i]!, tif.data[2 * i + 1]!];
  return { value, mask };
}

const fixture = async (name: string) => new Float32Array(await sampleFile(`fixtures/archive-reads/${name}.bin`));

/** The 400 envelope's message of `r`. */
async function message400(r: Response): Promise<string> {
  expect(r.status).toBe(400);
  const e = ((await r.json()) as { error: { status: number; message: string } }).error;
  expect(e.status).toBe(400);
  return e.message;
}

beforeAll(async () => {
  bearer = await token();
  twin = await twinScope();
  refs = JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/archive-reads/s1_grids.json")));
});

beforeEach(async () => {
  await twin.hook("reset", {});
  forgetOpens();
  forgetUpstreamSearches();
  forgetSasTokens();
  clearCogCaches();
});

describe("sentinel-1-grd pixels (GCP warp) equal GDAL's", () => {
  for (const [name, over] of [
    ["vv200", {}],
    ["vh200", {}],
    ["vv2000", {}],
    ["vv200", "planetary-computer"],
  ] as const)
    it(`${name}${over === "planetary-computer" ? " from the Planetary Computer" : ""}`, async () => {
      const ref = refs[name]!;
      const [gdal, lo, hi] = await Promise.all([
        fixture(`s1_${name}`),
        fixture(`s1_${name}_lo`),
        fixture(`s1_${name}_hi`),
      ]);
      const vars = over === "planetary-computer" ? twin.vars("planetary-computer") : {};
      const { value, mask } = await bands(
        await process(s1Request(ref.bbox, ref.epsg, ref.width, ref.height, ref.band), vars),
      );
      let [equal, outside, maskDiff, valid] = [0, 0, 0, 0];
      for (let i = 0; i < value.length; i++) {
        if (value[i] === gdal[i]) equal++;
        else if (!(value[i]! >= lo[i]! && value[i]! <= hi[i]!)) outside++;
        if (mask[i] !== (gdal[i] !== 0 ? 1 : 0)) maskDiff++;
        valid += mask[i]!;
      }
      expect(equal / value.length).toBeGreaterThanOrEqual(0.99);
      expect(outside).toBe(0); // the rest: a neighbouring source pixel's value
      expect(maskDiff / value.length).toBeLessThan(0.01);
      expect(valid).toBeGreaterThan(0.9 * ref.valid);
      const objects = Object.keys((await twin.hook("stats")).objects as Record<string, number>);
      expect(objects.some((k) => k.endsWith(`/measurement/iw-${ref.band.toLowerCase()}.tiff`))).toBe(true);
    });

  it("sentinelhub-py's S1 IW dataFilter finds the scene (s1:polarization from sar:polarizations); DH finds none", async () => {
    const ref = refs.vv200!;
    const withFilter = (polarization: string) => {
      const body = s1Request(ref.bbox, ref.epsg, 16, 16);
      const filter = { acquisitionMode: "IW", polarization, resolution: "HIGH", orbitDirection: "DESCENDING" };
      body.input.data[0]!.dataFilter = { ...body.input.data[0]!.dataFilter, ...filter } as never;
      return body;
    };
    const dv = await bands(await process(withFilter("DV")));
    expect(dv.mask.every((m) => m === 1)).toBe(true);
    const dh = await bands(await process(withFilter("DH")));
    expect(dh.mask.every((m) => m === 0)).toBe(true);
  });

  it("outside the swath (inside the item's bbox): 200, dataMask 0 everywhere", async () => {
    const { value, mask } = await bands(await process(s1Request([78.0, 11.0, 78.15, 11.15], 4326, 32, 32)));
    expect(mask.every((m) => m === 0)).toBe(true);
    expect(value.every((v) => v === 0)).toBe(true);
  });

  it("processing options that change nothing here are accepted (orthorectify false, speckleFilter NONE)", async () => {
    const ref = refs.vv200!;
    const gdal = await fixture("s1_vv200");
    const { value } = await bands(
      await process(
        s1Request(ref.bbox, ref.epsg, ref.width, ref.height, "VV", {
          orthorectify: false,
          demInstance: "COPERNICUS_30",
          speckleFilter: { type: "NONE" },
          upsampling: "NEAREST",
        }),
      ),
    );
    expect(value.filter((v, i) => v === gdal[i]).length / value.length).toBeGreaterThanOrEqual(0.99);
  });
});

describe("sentinel-1-grd processing options", () => {
  const ref = () => refs.vv200!;
  const req = (processing: Record<string, unknown>) => s1Request(ref().bbox, ref().epsg, 16, 16, "VV", processing);

  it("unknown names: a 400 listing Sentinel Hub's values", async () => {
    expect(await message400(await process(req({ backCoeff: "gamma0" })))).toMatch(
      /backCoeff 'gamma0' is unknown; use one of BETA0, SIGMA0_ELLIPSOID, GAMMA0_ELLIPSOID, GAMMA0_TERRAIN/,
    );
    expect(await message400(await process(req({ orthorectify: "yes" })))).toMatch(/orthorectify must be true or false/);
    expect(await message400(await process(req({ demInstance: "SRTM" })))).toMatch(
      /demInstance 'SRTM' is unknown; use one of MAPZEN, COPERNICUS, COPERNICUS_30, COPERNICUS_90/,
    );
    expect(await message400(await process(req({ speckleFilter: { type: "MEDIAN" } })))).toMatch(
      /speckleFilter.type must be one of NONE, LEE/,
    );
  });

  it("orthorectify true and a LEE filter: a 400 naming what is supported", async () => {
    expect(await message400(await process(req({ orthorectify: true })))).toMatch(
      /orthorectify true is not supported .* earth-search archive .*; supported: backCoeff omitted \(the GRD amplitudes/,
    );
    expect(
      await message400(await process(req({ speckleFilter: { type: "LEE", windowSizeX: 3, windowSizeY: 3 } }))),
    ).toMatch(/speckleFilter LEE is not supported .*; supported: type NONE/);
  });

  it("a backCoeff needing calibration the archive lacks: a 400 naming what each archive supports", async () => {
    for (const backCoeff of ["BETA0", "SIGMA0_ELLIPSOID", "GAMMA0_ELLIPSOID", "GAMMA0_TERRAIN"])
      expect(await message400(await process(req({ backCoeff })))).toMatch(
        new RegExp(
          `backCoeff '${backCoeff}' is not available .* earth-search archive .*; supported: backCoeff omitted`,
        ),
      );
    const pc = twin.vars("planetary-computer");
    expect(await message400(await process(req({ backCoeff: "GAMMA0_ELLIPSOID" }), pc))).toMatch(
      /supported: .* or backCoeff GAMMA0_TERRAIN \(the Planetary Computer's sentinel-1-rtc/,
    );
  });

  it("HH of a dual-V product: a 400 naming the scene (the band exists for DH products)", async () => {
    const r = await process(s1Request(ref().bbox, ref().epsg, 16, 16, "HH"));
    expect(await message400(r)).toMatch(
      /Band HH is not available in scene S1A_IW_GRDH_1SDV_20180716T004042_20180716T004107_022812_02792A/,
    );
    const unknown = await process(s1Request(ref().bbox, ref().epsg, 16, 16, "VVVH"));
    expect(await message400(unknown)).toMatch(/Available: VV, VH, HH, HV, dataMask/);
  });

  it("a known backCoeff where no scene exists: 200 without data (as the local store answers)", async () => {
    const r = await process({
      ...req({ backCoeff: "SIGMA0_ELLIPSOID" }),
      input: {
        ...req({}).input,
        data: [
          {
            type: "sentinel-1-grd",
            dataFilter: { timeRange: { from: "2019-01-01T00:00:00Z", to: "2019-01-02T00:00:00Z" } },
            processing: { backCoeff: "SIGMA0_ELLIPSOID" },
          },
        ],
      },
    });
    const { mask } = await bands(r);
    expect(mask.every((m) => m === 0)).toBe(true);
  });
});

describe("sentinel-1-grd statistics through the archive", () => {
  it("VV statistics of the 2 km grid (swath edges inside) agree with GDAL's warp", async () => {
    const ref = refs.vv2000!;
    const gdal = await fixture("s1_vv2000");
    const body = {
      input: {
        bounds: { bbox: ref.bbox, properties: { crs: CRS(ref.epsg) } },
        data: [{ type: "S1GRD", dataFilter: {} }],
      },
      aggregation: {
        timeRange: TIME,
        aggregationInterval: { of: "P1D" },
        width: ref.width,
        height: ref.height,
        evalscript: `//VERSION=3
function setup() { return { input: ["VV", "dataMask"], output: [{ id: "vv", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { vv: [s.VV], dataMask: [s.dataMask] }; }`,
      },
    };
    const r = await twin.call("/api/v1/statistics", postJson(body), bearer);
    expect(r.status).toBe(200);
    const res = (await r.json()) as {
      data: { outputs: { vv: { bands: { B0: { stats: Record<string, number> } } } } }[];
    };
    expect(res.data).toHaveLength(1);
    const stats = res.data[0]!.outputs.vv.bands.B0.stats;
    const v = Array.from(gdal).filter((x) => x !== 0);
    const mean = v.reduce((a, x) => a + x, 0) / v.length;
    expect(stats.sampleCount).toBe(ref.width * ref.height);
    expect(stats.noDataCount).toBe(ref.width * ref.height - ref.valid);
    expect(Math.abs(stats.mean! - mean)).toBeLessThan(0.005 * mean);
  });
});

describe("sentinel-1-grd in the catalog", () => {
  it("a search is answered from the twin's STAC API", async () => {
    const r = await twin.call(
      "/api/v1/catalog/1.0.0/search",
      postJson({ collections: ["sentinel-1-grd"], bbox: [77, 10, 77.5, 10.5], datetime: `${TIME.from}/${TIME.to}` }),
      bearer,
    );
    expect(r.status).toBe(200);
    const fc = (await r.json()) as {
      features: {
        id: string;
        collection: string;
        assets: Record<string, unknown>;
        properties: Record<string, unknown>;
      }[];
    };
    expect(fc.features.map((f) => f.id)).toEqual(["S1A_IW_GRDH_1SDV_20180716T004042_20180716T004107_022812_02792A"]);
    expect(fc.features[0]!.collection).toBe("sentinel-1-grd");
    expect(Object.keys(fc.features[0]!.assets)).toEqual(expect.arrayContaining(["VV", "VH"]));
    expect(fc.features[0]!.properties["s1:polarization"]).toBe("DV");
    expect(fc.features[0]!.properties["sar:polarizations"]).toEqual(["VV", "VH"]);
  });
});

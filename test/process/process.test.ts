/**
 * Processing API on real Sentinel-2 pixels, compared with GDAL references (test/reference/references.py).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { compare, reference } from "../helpers/refs";
import { CRS, bandsScript, process, readTiff } from "../helpers/process";
import { decodePng } from "../helpers/png";

const RKH_TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
let bearer: string;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
});

const request = (
  epsg: number,
  bbox: number[],
  width: number,
  height: number,
  evalscript: string,
  type = "image/tiff",
) => ({
  input: {
    bounds: { bbox, properties: { crs: CRS(epsg) } },
    data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: RKH_TIME } }],
  },
  output: { width, height, responses: [{ identifier: "default", format: { type } }] },
  evalscript,
});

describe("Processing API on 29RKH vs GDAL", () => {
  it("NDVI FLOAT32 GeoTIFF in EPSG:4326 equals gdal.Warp + numpy", async () => {
    const ref = await reference("rkh4326_ndvi");
    const g = ref.meta.grid;
    const script = `//VERSION=3
function setup(){return {input:["B04","B08"], output:{bands:1, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [(s.B08-s.B04)/(s.B08+s.B04)]}`;
    const r = await process(request(4326, g.bbox, g.width, g.height, script), bearer);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/tiff");
    expect(Number(r.headers.get("x-processingunits-spent"))).toBeCloseTo(
      Math.max(0.005, ((128 * 128) / 262144) * (2 / 3) * 2),
      6,
    );
    const tif = await readTiff(await r.arrayBuffer());
    expect([tif.width, tif.height, tif.bands]).toEqual([128, 128, 1]);
    tif.bbox.forEach((v, i) => expect(v).toBeCloseTo(g.bbox[i]!, 9));
    expect(tif.geoKeys.GeographicTypeGeoKey).toBe(4326);
    const c = compare(tif.data, ref.data, 1e-6);
    expect(c.mismatch).toBeLessThan(0.005); // approximate transformer may flip a nearest pixel at cell edges
  });

  it("true colour PNG (the Sentinel Hub script) equals GDAL reflectance x 2.5 scaled to 0..255", async () => {
    const ref = await reference("rkh4326_rgb");
    const g = ref.meta.grid;
    const script = (await (
      await import("../helpers/seed")
    ).sampleFile("evalscripts/sentinel-2__true_color__script.js")) as ArrayBuffer;
    const r = await process(
      request(4326, g.bbox, g.width, g.height, new TextDecoder().decode(script), "image/png"),
      bearer,
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    const png = await decodePng(await r.arrayBuffer());
    expect([png.width, png.height]).toEqual([128, 128]);
    const expected = new Float32Array(128 * 128 * 4);
    const got = new Float32Array(128 * 128 * 4);
    for (let i = 0; i < 128 * 128; i++) {
      for (let b = 0; b < 3; b++)
        expected[i * 4 + b] = Math.min(255, Math.max(0, Math.round(ref.data[i * 3 + b]! * 2.5 * 255)));
      expected[i * 4 + 3] = 255;
      for (let b = 0; b < 4; b++) got[i * 4 + b] = png.data[i * 4 + b]!;
    }
    const c = compare(got, expected, 1);
    expect(c.mismatch).toBeLessThan(0.005);
  });

  it("a UTM 29N request at native 100 m returns the file's pixels exactly", async () => {
    const ref = await reference("rkhutm_rgb");
    const g = ref.meta.grid;
    const r = await process(request(32629, g.bbox, g.width, g.height, bandsScript(["B04", "B03", "B02"])), bearer);
    expect(r.status).toBe(200);
    const tif = await readTiff(await r.arrayBuffer());
    expect(tif.geoKeys.ProjectedCSTypeGeoKey).toBe(32629);
    const c = compare(tif.data, ref.data, 1e-6);
    expect(c.mismatch).toBe(0);
  });

  it("resx/resy in CRS units give the same grid and pixels as width/height", async () => {
    const ref = await reference("rkhutm_rgb");
    const g = ref.meta.grid;
    const body = request(32629, g.bbox, 0, 0, bandsScript(["B04", "B03", "B02"]));
    body.output = { resx: 100, resy: 100, responses: body.output.responses } as never;
    const r = await process(body, bearer);
    expect(r.status).toBe(200);
    const tif = await readTiff(await r.arrayBuffer());
    expect([tif.width, tif.height]).toEqual([128, 128]);
    tif.bbox.forEach((v, i) => expect(v).toBeCloseTo(g.bbox[i]!, 6));
    expect(compare(tif.data, ref.data, 1e-6).mismatch).toBe(0);
  });

  it("Web Mercator (EPSG:3857) NDVI matches GDAL", async () => {
    const ref = await reference("rkh3857_ndvi");
    const g = ref.meta.grid;
    const script = `//VERSION=3
function setup(){return {input:["B04","B08"], output:{bands:1, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [index(s.B08, s.B04)]}`;
    const r = await process(request(3857, g.bbox, g.width, g.height, script), bearer);
    expect(r.status).toBe(200);
    const tif = await readTiff(await r.arrayBuffer());
    expect(tif.geoKeys.ProjectedCSTypeGeoKey).toBe(3857);
    expect(compare(tif.data, ref.data, 1e-6).mismatch).toBeLessThan(0.005);
  });

  it("clips to a polygon: dataMask as gdal.RasterizeLayer, GDAL's values inside, 0 outside", async () => {
    const ref = await reference("clip_mask");
    const b04 = await reference("clip_b04");
    const g = ref.meta.grid;
    const ring = (ref.meta as unknown as { polygon: number[][] }).polygon;
    const body = request(4326, g.bbox, g.width, g.height, bandsScript(["B04", "dataMask"]));
    body.input.bounds = { geometry: { type: "Polygon", coordinates: [ring] }, properties: { crs: CRS(4326) } } as never;
    body.output = { width: g.width, height: g.height, responses: body.output.responses } as never;
    const r = await process(body, bearer);
    expect(r.status).toBe(200);
    const tif = await readTiff(await r.arrayBuffer());
    tif.bbox.forEach((v, i) => expect(v).toBeCloseTo(g.bbox[i]!, 9)); // the geometry's bounds define the image
    const mask = Array.from({ length: g.width * g.height }, (_, i) => tif.data[i * 2 + 1]!);
    expect(compare(mask, ref.data, 0).mismatch).toBeLessThan(0.002); // pixel centres exactly on an edge may fall either way
    let [inside, wrongInside, nonzeroOutside] = [0, 0, 0];
    for (let i = 0; i < mask.length; i++) {
      const v = tif.data[i * 2]!;
      if (mask[i] === 1) {
        inside++;
        if (Math.abs(v - b04.data[i]!) > 1e-6) wrongInside++;
      } else if (v !== 0) nonzeroOutside++;
    }
    expect(inside).toBeGreaterThan(0.3 * mask.length);
    expect(nonzeroOutside).toBe(0);
    expect(wrongInside / inside).toBeLessThan(0.005); // approximate transformer may flip a nearest pixel at cell edges
  });
});

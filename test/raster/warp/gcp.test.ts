/**
 * Ground control points (src/raster/gcp.ts, read by src/raster/cog/header.ts): the real Sentinel-1 GRD measurement
 * file of the archive twin (210 GCPs, WGS84) gives the GCP transformer GDAL uses by default (order 2), whose forward
 * and reverse polynomials agree with `gdaltransform` (GDAL 3.6.2) on the same file, and a warp with the exact
 * transformer gives gdal.Warp's pixels (test/reference/ref_s1_gcp.py) one for one, at full resolution and from an
 * overview; degenerate GCP sets are refused.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openCog } from "../../../src/raster/cog";
import { gcpTransformer } from "../../../src/raster/gcp";
import { crsFromEpsg } from "../../../src/raster/crs";
import { readWarped } from "../../../src/raster/warp";
import { r2Source } from "../../../src/storage/r2source";
import { sampleFile } from "../../helpers/seed";

const GRD =
  "archive/sentinel-s1-l1c/GRD/2018/7/16/IW/DV/S1A_IW_GRDH_1SDV_20180716T004042_20180716T004107_022812_02792A_FD5B/measurement/iw-vv.tiff";

describe("GCP-georeferenced GeoTIFF", () => {
  it("reads 210 GCPs and fits GDAL's order-2 polynomial both ways", async () => {
    await env.DATA.put(GRD, await sampleFile(GRD));
    const cog = await openCog((await r2Source(env.DATA, GRD))!);
    expect(cog.crs.epsg).toBe(4326);
    expect(cog.header.gcps).toHaveLength(210);
    expect(cog.header.gcps![0]).toEqual({
      pixel: 0,
      line: 0,
      x: expect.closeTo(78.2039030529351, 12),
      y: expect.closeTo(10.7375483336348, 12),
    });
    const t = cog.gcps!;
    expect(t.order).toBe(2);
    // printf "77.5 10.5\n76.2 10.0\n78.0 10.0\n" | gdaltransform -i -output_xy iw-vv.tiff
    const [x, y] = [Float64Array.of(77.5, 76.2, 78.0), Float64Array.of(10.5, 10.0, 10.0)];
    t.toPixel(x, y);
    const pixels = [349.271878419501, 992.239676758906, 24.9463697024265];
    const lines = [201.343579283943, 605.102327672985, 413.859122836464];
    pixels.forEach((p, i) => expect(x[i]).toBeCloseTo(p, 6));
    lines.forEach((l, i) => expect(y[i]).toBeCloseTo(l, 6));
    // printf "0 0\n640 418.5\n1280 837\n" | gdaltransform -output_xy iw-vv.tiff
    const [px, py] = [Float64Array.of(0, 640, 1280), Float64Array.of(0, 418.5, 837)];
    t.toGeo(px, py);
    [78.2046372212027, 76.8977728671383, 75.6052387169854].forEach((v, i) => expect(px[i]).toBeCloseTo(v, 9));
    [10.7375067728329, 10.2120282311807, 9.68243979061333].forEach((v, i) => expect(py[i]).toBeCloseTo(v, 9));
    // the footprint: the forward polynomial along the image edges
    expect(cog.bbox[0]).toBeCloseTo(75.605, 2);
    expect(cog.bbox[3]).toBeCloseTo(11.19, 2);
  });

  it("the exact warp (errorThreshold 0) equals gdal.Warp's pixel for pixel", async () => {
    await env.DATA.put(GRD, await sampleFile(GRD));
    const cog = await openCog((await r2Source(env.DATA, GRD))!);
    const refs = JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/archive-reads/s1_grids.json")));
    for (const name of ["vv200", "vv2000"]) {
      const ref = refs[name] as { bbox: [number, number, number, number]; width: number; height: number };
      const gdal = new Float32Array(await sampleFile(`fixtures/archive-reads/s1_${name}.bin`));
      const grid = { crs: crsFromEpsg(32643), bbox: ref.bbox, width: ref.width, height: ref.height };
      const [w] = await readWarped(cog, [0], grid, { resampling: "NEAREST", nodata: 0, errorThreshold: 0 });
      expect(w!.data).toEqual(gdal);
      expect(Array.from(w!.valid)).toEqual(Array.from(gdal, (v) => (v !== 0 ? 1 : 0)));
    }
  });

  it("order 1 under 6 GCPs; too few or collinear GCPs are an invalid file", () => {
    const square = [
      { pixel: 0, line: 0, x: 10, y: 50 },
      { pixel: 100, line: 0, x: 11, y: 50 },
      { pixel: 0, line: 100, x: 10, y: 49 },
      { pixel: 100, line: 100, x: 11, y: 49 },
    ];
    const t = gcpTransformer(square);
    expect(t.order).toBe(1);
    const [x, y] = [Float64Array.of(10.5), Float64Array.of(49.5)];
    t.toPixel(x, y);
    expect([x[0], y[0]]).toEqual([expect.closeTo(50, 9), expect.closeTo(50, 9)]);
    expect(() => gcpTransformer(square.slice(0, 2))).toThrow(/cannot define a polynomial of order 1/);
    const line = [0, 1, 2, 3].map((k) => ({ pixel: k, line: k, x: k, y: k }));
    expect(() => gcpTransformer(line)).toThrow(/degenerate/);
  });
});

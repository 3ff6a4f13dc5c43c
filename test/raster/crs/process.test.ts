/**
 * Processing requests in the CRSs real users send (WGS 84, UTM, LAEA Europe, Lambert-93, NSIDC polar
 * stereographic north) on real Sentinel-2 pixels, against GDAL (test/reference/ref_crs.py): the pixels equal
 * gdal.Warp's, the grid equals GDAL's geotransform and the GeoTIFF GeoKeys equal those GDAL writes for the code.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../../helpers/auth";
import { seedSamples } from "../../helpers/seed";
import { compare, reference } from "../../helpers/refs";
import { bandsScript, process, readTiff } from "../../helpers/process";

const TIME = {
  rkh: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" },
  wf: { from: "2018-04-14T00:00:00Z", to: "2018-04-15T00:00:00Z" },
};
let bearer: string;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A" || i.id.includes("31UDS_20180414"));
  bearer = await token();
});

interface CrsRef {
  grid: { epsg: number; bbox: [number, number, number, number]; width: number; height: number };
  geokeys: Record<string, number>;
  geotransform: number[];
}

describe.each([
  ["crs_4326", "rkh", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"],
  ["crs_32629", "rkh", "http://www.opengis.net/def/crs/EPSG/0/32629"],
  ["crs_3035", "rkh", "http://www.opengis.net/def/crs/EPSG/0/3035"],
  ["crs_2154", "wf", "http://www.opengis.net/def/crs/EPSG/0/2154"],
  ["crs_3413", "wf", "http://www.opengis.net/def/crs/EPSG/0/3413"],
] as const)("%s", (name, scene, crs) => {
  it(`B04 in ${crs} equals gdal.Warp; the GeoTIFF carries GDAL's GeoKeys and geotransform`, async () => {
    const ref = await reference(name);
    const meta = ref.meta as unknown as CrsRef;
    const g = meta.grid;
    const body = {
      input: {
        bounds: { bbox: g.bbox, properties: { crs } },
        data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: TIME[scene] } }],
      },
      output: {
        width: g.width,
        height: g.height,
        responses: [{ identifier: "default", format: { type: "image/tiff" } }],
      },
      evalscript: bandsScript(["B04"]),
    };
    const r = await process(body, bearer);
    if (r.status !== 200) throw new Error(`${r.status}: ${await r.text()}`);
    const tif = await readTiff(await r.arrayBuffer());
    expect([tif.width, tif.height, tif.bands]).toEqual([g.width, g.height, 1]);
    // GDAL's geotransform [x0, resX, 0, y0, 0, -resY] of the reference grid
    const [x0, rx, , y0, , ry] = meta.geotransform as [number, number, number, number, number, number];
    const [minX, minY, maxX, maxY] = tif.bbox;
    const tol = g.epsg === 4326 ? 1e-9 : 1e-6;
    expect(Math.abs(minX! - x0)).toBeLessThan(tol);
    expect(Math.abs(maxY! - y0)).toBeLessThan(tol);
    expect(Math.abs((maxX! - minX!) / g.width - rx)).toBeLessThan(tol);
    expect(Math.abs((minY! - maxY!) / g.height - ry)).toBeLessThan(tol);
    // the keys EO Edge writes equal those GDAL writes for the same EPSG code
    for (const key of ["GTModelTypeGeoKey", "GTRasterTypeGeoKey", "GeographicTypeGeoKey", "ProjectedCSTypeGeoKey"]) {
      expect(tif.geoKeys[key], key).toBe(meta.geokeys[key]);
    }
    expect(meta.geokeys[g.epsg === 4326 ? "GeographicTypeGeoKey" : "ProjectedCSTypeGeoKey"]).toBe(g.epsg);
    const c = compare(tif.data, ref.data, 1e-6);
    expect(ref.data.some((v) => v > 0)).toBe(true);
    // nearest neighbour: a pixel centre within float rounding of a source cell edge may pick either cell
    expect(c.mismatch).toBeLessThan(name === "crs_32629" ? 1e-9 : 0.005);
  });
});

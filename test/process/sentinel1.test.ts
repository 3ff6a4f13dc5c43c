/** Sentinel-1 GRD through the Processing API: VV/VH as stored at the native grid, S1 dataFilter members. */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { window } from "../helpers/raster";
import { CRS, bandsScript, process, readTiff } from "../helpers/process";

const DIR = "sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B";
// A 64 x 64 window of the 200 m UTM 43N grid (origin 566396.008448501, 1237182.1888995206), 300 px right, 400 down.
const X0 = 566396.008448501 + 300 * 200;
const Y1 = 1237182.1888995206 - 400 * 200;
const BBOX = [X0, Y1 - 64 * 200, X0 + 64 * 200, Y1];
let bearer: string;

beforeAll(async () => {
  await seedSamples((i) => i.collection === "sentinel-1-grd");
  bearer = await token();
});

const body = (dataFilter: Record<string, unknown>, bands = ["VV", "VH", "dataMask"]) => ({
  input: {
    bounds: { bbox: BBOX, properties: { crs: CRS(32643) } },
    data: [
      {
        type: "S1GRD",
        dataFilter: { timeRange: { from: "2018-07-16T00:00:00Z", to: "2018-07-17T00:00:00Z" }, ...dataFilter },
        processing: { backCoeff: "GAMMA0_ELLIPSOID" },
      },
    ],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: bandsScript(bands),
});

describe("sentinel-1-grd", () => {
  it("VV and VH at the native 200 m grid equal the file's values", async () => {
    const r = await process(
      body({ acquisitionMode: "IW", polarization: "DV", resolution: "HIGH", orbitDirection: "DESCENDING" }),
      bearer,
    );
    expect(r.status).toBe(200);
    const tif = await readTiff(await r.arrayBuffer());
    const [vv, vh] = [
      await window(`${DIR}/iw-vv.utm43n-200m.tif`, 0, 300, 400, 64, 64),
      await window(`${DIR}/iw-vh.utm43n-200m.tif`, 0, 300, 400, 64, 64),
    ];
    let bad = 0;
    let withData = 0;
    for (let i = 0; i < 64 * 64; i++) {
      const valid = vv[i] !== 0;
      if (valid) withData++;
      if (tif.data[i * 3 + 2] !== (valid ? 1 : 0)) bad++;
      if (valid && (tif.data[i * 3] !== vv[i] || tif.data[i * 3 + 1] !== vh[i])) bad++;
    }
    expect(bad).toBe(0);
    expect(withData).toBeGreaterThan(2000); // the window lies inside the swath
  });

  for (const [member, value] of [
    ["orbitDirection", "ASCENDING"],
    ["acquisitionMode", "EW"],
    ["polarization", "SH"],
    ["resolution", "MEDIUM"],
  ] as const) {
    it(`dataFilter.${member} = ${value} excludes the (descending IW DV HIGH) scene: no data`, async () => {
      const r = await process(body({ [member]: value }, ["dataMask"]), bearer);
      expect(r.status).toBe(200);
      const tif = await readTiff(await r.arrayBuffer());
      expect(tif.data.length).toBe(64 * 64);
      expect(Array.from(tif.data).every((v) => v === 0)).toBe(true); // the same window has > 2000 data pixels with the scene
    });
  }
});

/**
 * Band semantics through the Processing API on real files, each against an oracle outside the service:
 * the file's DN read by geotiff.js, the item metadata, gdal.Warp references (test/reference/references.py) and the
 * NOAA solar position equations.
 * - reflectance = (DN + offset) / 10000 with offset -1000 from processing baseline 04.00 (ESA S2 PB 04.00), clamped
 *   at 0 unless harmonizeValues is false; DN units: max(0, DN + offset), or the stored DN when not harmonized;
 * - CLM from SCL (8, 9, 10 -> 1; 0 -> 255; else 0), angles from item metadata or the solar position;
 * - L1C with real swath-edge no data; BILINEAR / BICUBIC up- and downsampling as GDAL.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { window } from "../helpers/raster";
import { compare, reference } from "../helpers/refs";
import { CRS, process, readTiff } from "../helpers/process";

const RKH = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A";
const L1C = "sentinel-2-l1c/S2_19UDP_20170729_L1C";
const DAY = (d: string) => ({ from: `${d}T00:00:00Z`, to: `${d}T23:59:59Z` });
const N = 64 * 64;
let bearer: string;
let rkhItem: StacItem;
let l1cItem: StacItem;

beforeAll(async () => {
  const seeded = await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A" || i.collection === "sentinel-2-l1c");
  rkhItem = seeded.find((i) => i.collection === "sentinel-2-l2a")!;
  l1cItem = seeded.find((i) => i.collection === "sentinel-2-l1c")!;
  // The same real pixels as a processing baseline 04.00 product (two days later), for the offset rule.
  const pb4 = structuredClone(rkhItem);
  pb4.id = "S2A_29RKH_20200221_PB0400_test";
  pb4.properties = { ...pb4.properties, datetime: "2020-02-21T11:34:25Z", "s2:processing_baseline": "04.00" };
  await upsertItem(env, pb4);
  bearer = await token();
});

interface Req {
  type?: string;
  epsg: number;
  bbox: number[];
  size?: number;
  day: string;
  bands: string[];
  units?: string;
  processing?: Record<string, unknown>;
}

/** Runs a FLOAT32 request returning `bands` and returns the band-interleaved values. */
async function get(q: Req): Promise<ArrayLike<number>> {
  const units = q.units ? `, units: "${q.units}"` : "";
  const evalscript = `//VERSION=3
function setup() { return { input: [{ bands: ${JSON.stringify(q.bands)}${units} }], output: { bands: ${q.bands.length}, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [${q.bands.map((b) => `s.${b}`).join(", ")}]; }`;
  const r = await process(
    {
      input: {
        bounds: { bbox: q.bbox, properties: { crs: CRS(q.epsg) } },
        data: [{ type: q.type ?? "sentinel-2-l2a", dataFilter: { timeRange: DAY(q.day) }, processing: q.processing }],
      },
      output: {
        width: q.size ?? 64,
        height: q.size ?? 64,
        responses: [{ identifier: "default", format: { type: "image/tiff" } }],
      },
      evalscript,
    },
    bearer,
  );
  if (r.status !== 200) throw new Error(`${r.status}: ${await r.text()}`);
  return (await readTiff(await r.arrayBuffer())).data;
}

/** Pixels where `got` differs from `want(i)` (float32 rounding of the double expected value). */
function mismatches(got: ArrayLike<number>, want: (i: number) => number, n = N): number {
  let bad = 0;
  for (let i = 0; i < n; i++) if (got[i] !== Math.fround(want(i))) bad++;
  return bad;
}

describe("Sentinel-2 units and the 04.00 offset", () => {
  // 64 x 64 px of B02 at native 100 m where 45 % of the DN are below 1000 (column 480, row 96 of the file)
  const bbox = [247980, 2784020, 254380, 2790420];
  let dn: Float32Array;
  beforeAll(async () => {
    dn = await window(`${RKH}/B02.tif`, 0, 480, 96, 64, 64);
    expect(dn.filter((v) => v > 0 && v < 1000).length).toBeGreaterThan(1000);
  });
  const q = (day: string, extra: Partial<Req> = {}): Req => ({ epsg: 32629, bbox, day, bands: ["B02"], ...extra });

  it("baseline 02.14: REFLECTANCE = DN / 10000", async () => {
    expect(mismatches(await get(q("2020-02-19")), (i) => dn[i]! / 10000)).toBe(0);
  });

  it("baseline 04.00: REFLECTANCE = max(0, DN - 1000) / 10000 (harmonizeValues default true)", async () => {
    expect(mismatches(await get(q("2020-02-21")), (i) => Math.max(0, dn[i]! - 1000) / 10000)).toBe(0);
  });

  it("baseline 04.00, harmonizeValues false: (DN - 1000) / 10000, negative values kept", async () => {
    const got = await get(q("2020-02-21", { processing: { harmonizeValues: false } }));
    expect(mismatches(got, (i) => (dn[i]! - 1000) / 10000)).toBe(0);
    expect(Array.from(got).filter((v) => v < 0).length).toBeGreaterThan(1000);
  });

  it("baseline 04.00, units DN: max(0, DN - 1000); not harmonized: the stored DN", async () => {
    expect(mismatches(await get(q("2020-02-21", { units: "DN" })), (i) => Math.max(0, dn[i]! - 1000))).toBe(0);
    expect(
      mismatches(await get(q("2020-02-21", { units: "DN", processing: { harmonizeValues: false } })), (i) => dn[i]!),
    ).toBe(0);
  });
});

describe("CLM and angle bands", () => {
  // 64 x 64 px of the 200 m SCL grid at column 480, row 48 (bare soil, clouds, cirrus)
  const bbox = [295980, 2777620, 308780, 2790420];

  it("CLM through the API follows the SCL rule on the file's SCL (8, 9, 10 -> 1, else 0)", async () => {
    const scl = await window(`${RKH}/SCL.tif`, 0, 480, 48, 64, 64);
    const got = await get({ epsg: 32629, bbox, day: "2020-02-19", bands: ["SCL", "CLM", "dataMask"] });
    let [bad, clouds] = [0, 0];
    for (let i = 0; i < N; i++) {
      const clm = scl[i] === 0 ? 255 : scl[i]! >= 8 && scl[i]! <= 10 ? 1 : 0;
      clouds += clm === 1 ? 1 : 0;
      if (got[i * 3] !== scl[i] || got[i * 3 + 1] !== clm || got[i * 3 + 2] !== 1) bad++;
    }
    expect(bad).toBe(0);
    expect(clouds).toBeGreaterThan(100);
    expect(clouds).toBeLessThan(N);
  });

  it("29RKH angles are the item's view:sun_elevation / view:sun_azimuth; nadir view", async () => {
    const p = rkhItem.properties as Record<string, number>;
    const got = await get({
      epsg: 32629,
      bbox,
      day: "2020-02-19",
      bands: ["sunZenithAngles", "sunAzimuthAngles", "viewZenithMean", "viewAzimuthMean"],
    });
    const want = [90 - p["view:sun_elevation"]!, p["view:sun_azimuth"]!, 0, 0];
    expect(mismatches(got, (i) => want[i % 4]!, 4 * N)).toBe(0);
  });

  it("L1C (no sun angles in the item): the solar position at the tile centre, as NOAA's equations", async () => {
    const got = await get({
      type: "sentinel-2-l1c",
      epsg: 32619,
      bbox: [470000, 5340000, 476400, 5346400],
      day: "2017-07-29",
      bands: ["sunZenithAngles", "sunAzimuthAngles"],
    });
    const [w, s, e, n] = l1cItem.bbox as number[];
    const sun = noaaSun(new Date(l1cItem.properties.datetime as string), (s! + n!) / 2, (w! + e!) / 2);
    expect(Math.abs(got[0]! - sun.zenith)).toBeLessThan(0.3);
    expect(Math.abs(got[1]! - sun.azimuth)).toBeLessThan(0.3);
    expect(sun.zenith).toBeGreaterThan(20); // a mid-morning summer scene at 48 N: not a trivial answer
    expect(sun.azimuth).toBeGreaterThan(100); // before local noon: south-east
    expect(sun.azimuth).toBeLessThan(180);
  });
});

describe("L1C on real partial coverage", () => {
  it("the whole 19UDP tile at 900 m: reflectance DN / 10000 and dataMask 0 outside the swath (38 %)", async () => {
    const dn = await window(`${L1C}/B04.tif`, 0, 0, 0, 122, 122);
    const got = await get({
      type: "S2L1C",
      epsg: 32619,
      bbox: [399960, 5290200, 509760, 5400000],
      size: 122,
      day: "2017-07-29",
      bands: ["B04", "dataMask"],
    });
    let [bad, nodata] = [0, 0];
    for (let i = 0; i < 122 * 122; i++) {
      if (dn[i] === 0) nodata++;
      if (got[i * 2] !== Math.fround(dn[i]! / 10000) || got[i * 2 + 1] !== (dn[i] === 0 ? 0 : 1)) bad++;
    }
    expect(bad).toBe(0);
    expect(nodata / (122 * 122)).toBeCloseTo(0.3755, 3);
  });
});

describe("up- and downsampling as gdal.Warp", () => {
  for (const [name, wanted, other] of [
    ["rkhup", "cubic", "bilinear"],
    ["rkhdown", "bilinear", "cubic"],
  ] as const) {
    it(`${name}: the ${name === "rkhup" ? "upsampling" : "downsampling"} kernel (${wanted}) applies, not the other one`, async () => {
      const ref = await reference(`${name}_${wanted}`);
      const otherRef = await reference(`${name}_${other}`);
      const kernels = { cubic: "BICUBIC", bilinear: "BILINEAR" };
      const processing =
        name === "rkhup"
          ? { upsampling: kernels[wanted], downsampling: kernels[other] }
          : { downsampling: kernels[wanted], upsampling: kernels[other] };
      const got = await get({ epsg: 32629, bbox: ref.meta.grid.bbox, day: "2020-02-19", bands: ["B04"], processing });
      const c = compare(got, ref.data, 1e-6);
      expect(c.maxDiff).toBeLessThan(1e-6);
      expect(compare(got, otherRef.data, 1e-6).mismatch).toBeGreaterThan(0.3);
    });
  }
});

/**
 * Solar zenith and azimuth (degrees, azimuth clockwise from north) from NOAA's "General Solar Position Calculations"
 * (NOAA Global Monitoring Division; fractional-year series for the equation of time and declination, ~0.1 deg).
 */
function noaaSun(t: Date, lat: number, lon: number): { zenith: number; azimuth: number } {
  const rad = Math.PI / 180;
  const doy =
    (Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate()) - Date.UTC(t.getUTCFullYear(), 0, 1)) / 86400000 + 1;
  const hours = t.getUTCHours() + t.getUTCMinutes() / 60 + t.getUTCSeconds() / 3600;
  const g = ((2 * Math.PI) / 365) * (doy - 1 + (hours - 12) / 24);
  const eqtime =
    229.18 *
    (0.000075 +
      0.001868 * Math.cos(g) -
      0.032077 * Math.sin(g) -
      0.014615 * Math.cos(2 * g) -
      0.040849 * Math.sin(2 * g));
  const decl =
    0.006918 -
    0.399912 * Math.cos(g) +
    0.070257 * Math.sin(g) -
    0.006758 * Math.cos(2 * g) +
    0.000907 * Math.sin(2 * g) -
    0.002697 * Math.cos(3 * g) +
    0.00148 * Math.sin(3 * g);
  const ha = (hours * 60 + eqtime + 4 * lon) / 4 - 180;
  const phi = lat * rad;
  const cosZen = Math.sin(phi) * Math.sin(decl) + Math.cos(phi) * Math.cos(decl) * Math.cos(ha * rad);
  const zen = Math.acos(cosZen);
  const az = Math.acos((Math.sin(decl) - Math.sin(phi) * cosZen) / (Math.cos(phi) * Math.sin(zen))) / rad; // from north, morning
  return { zenith: zen / rad, azimuth: ha > 0 ? 360 - az : az };
}

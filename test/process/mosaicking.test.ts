/**
 * Mosaicking order and ORBIT mosaicking on the real West Flanders April 2018 acquisitions:
 * 04-14 (cloudy, cc 100), 04-16 (partly cloudy, 71.39), 04-19 (clear, 0), 04-21 (thin cirrus, cc 100).
 * Every one covers the whole patch, so these tests pick whole scenes; per-pixel gap-fill on partial coverage is
 * in gapfill.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { compare, reference } from "../helpers/refs";
import { CRS, bandsScript, process, readTiff } from "../helpers/process";

const BBOX = [501360, 5629040, 502000, 5629680];
const APRIL = { from: "2018-04-14T00:00:00Z", to: "2018-04-21T23:59:59Z" };
let bearer: string;

beforeAll(async () => {
  await seedSamples((i) => i.id.includes("31UDS_2018"));
  bearer = await token();
});

const body = (dataFilter: Record<string, unknown>, evalscript = bandsScript(["B04"])) => ({
  input: { bounds: { bbox: BBOX, properties: { crs: CRS(32631) } }, data: [{ type: "S2L2A", dataFilter }] },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript,
});

async function b04(dataFilter: Record<string, unknown>): Promise<ArrayLike<number>> {
  const r = await process(body(dataFilter), bearer);
  expect(r.status).toBe(200);
  return (await readTiff(await r.arrayBuffer())).data;
}

describe("mosaickingOrder", () => {
  it("mostRecent picks 2018-04-21 (cirrus)", async () => {
    const ref = await reference("wf_2018-04-21_b04");
    expect(compare(await b04({ timeRange: APRIL, mosaickingOrder: "mostRecent" }), ref.data, 1e-6).mismatch).toBe(0);
  });

  it("mostRecent is the default", async () => {
    const ref = await reference("wf_2018-04-21_b04");
    expect(compare(await b04({ timeRange: APRIL }), ref.data, 1e-6).mismatch).toBe(0);
  });

  it("leastRecent picks 2018-04-14 (cloudy)", async () => {
    const ref = await reference("wf_2018-04-14_b04");
    expect(compare(await b04({ timeRange: APRIL, mosaickingOrder: "leastRecent" }), ref.data, 1e-6).mismatch).toBe(0);
  });

  it("leastCC picks 2018-04-19 (clear)", async () => {
    const ref = await reference("wf_2018-04-19_b04");
    expect(compare(await b04({ timeRange: APRIL, mosaickingOrder: "leastCC" }), ref.data, 1e-6).mismatch).toBe(0);
  });

  it("maxCloudCoverage (also as a numeric string) drops the cloudy scenes", async () => {
    const ref = await reference("wf_2018-04-19_b04");
    expect(compare(await b04({ timeRange: APRIL, maxCloudCoverage: 50 }), ref.data, 1e-6).mismatch).toBe(0);
    expect(compare(await b04({ timeRange: APRIL, maxCloudCoverage: "50" }), ref.data, 1e-6).mismatch).toBe(0);
  });

  it("no scene in range gives an all-nodata image (dataMask 0), not an error", async () => {
    const script = bandsScript(["B04", "dataMask"]);
    const r = await process(
      body({ timeRange: { from: "2019-01-01T00:00:00Z", to: "2019-01-31T00:00:00Z" } }, script),
      bearer,
    );
    expect(r.status).toBe(200);
    const t = await readTiff(await r.arrayBuffer());
    expect(Array.from(t.data).every((v) => v === 0)).toBe(true);
  });
});

describe("ORBIT mosaicking", () => {
  it("gives one sample per acquisition, most recent first, with preProcessScenes filtering", async () => {
    const script = `//VERSION=3
function setup(){return {input:[{bands:["B04","dataMask"]}], output:{bands:2, sampleType:"FLOAT32"}, mosaicking:"ORBIT"}}
function preProcessScenes(collections){
  collections.scenes.orbits = collections.scenes.orbits.filter(o => !o.dateFrom.startsWith("2018-04-16"));
  return collections;
}
function evaluatePixel(samples, scenes){ return [samples.length, samples[samples.length-1].B04]; }`;
    const r = await process(body({ timeRange: APRIL }, script), bearer);
    expect(r.status).toBe(200);
    const t = await readTiff(await r.arrayBuffer());
    const ref = await reference("wf_2018-04-14_b04");
    for (let i = 0; i < 64 * 64; i++) expect(t.data[i * 2]).toBe(3);
    const last = Array.from({ length: 64 * 64 }, (_, i) => t.data[i * 2 + 1]!);
    expect(compare(last, ref.data, 1e-6).mismatch).toBe(0);
  });
});

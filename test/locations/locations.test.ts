/**
 * Locations (spec 4.14): the listing in Sentinel Hub's `Location` shape, one location by id, 404 for unknown ids,
 * and the routing of collections: two locations served by one Worker (aws-eu-central-1 at http://localhost, creo at
 * http://127.0.0.1:8788, as `npm start` runs them), Sentinel-1 GRD hosted in creo and Sentinel-2 in the primary.
 * A request for a collection hosted in the other location is 404 COMMON_NOT_FOUND naming the right location and
 * URL; at the right location the same request returns the file's pixels (read by geotiff.js, not the engine).
 * An async request accepted at the second location is processed by the queue consumer as that location (the
 * location id kept in its record) and ends DONE with the file's pixels, its processing units charged once.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { authed, token } from "../helpers/auth";
import { fetchAt } from "../helpers/locations";
import { CRS, bandsScript, readTiff } from "../helpers/process";
import { window } from "../helpers/raster";
import { seedSamples } from "../helpers/seed";
import { newAccount, tokenOf } from "../helpers/accounts";
import { parseLocations } from "../../src/locations/config";
import { asyncStub } from "../../src/async/queue";
import { unitsUsage } from "../../src/accounts/units";

const EU = "http://localhost";
const CREO = "http://127.0.0.1:8788";
const TWO = {
  LOCATION_ID: "aws-eu-central-1",
  LOCATIONS: JSON.stringify([{ id: "aws-eu-central-1", url: EU }, { id: "creo", url: `${CREO}/` }]),
};
const S1_DIR = "sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B";
// 32 x 32 px of the S1 file's 200 m UTM 43N grid, 300 px right and 400 px down of its origin (see test/process/sentinel1.test.ts)
const X0 = 566396.008448501 + 300 * 200;
const Y1 = 1237182.1888995206 - 400 * 200;
let bearer: string;

beforeAll(async () => {
  // before any registry lookup in this file's isolate (built-ins are cached per isolate)
  await env.DB.prepare("UPDATE data_collections SET location = 'creo' WHERE id = 'sentinel-1-grd'").run();
  await seedSamples((i) => i.collection === "sentinel-1-grd" || i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
});

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
  body: JSON.stringify(body),
});
const get = () => ({ headers: { authorization: `Bearer ${bearer}` } });
const error = async (r: Response) => ((await r.json()) as { error: { status: number; code: string; message: string; errors: { collection: string; location: { id: string; url: string } } } }).error;

const s1Process = {
  input: {
    bounds: { bbox: [X0, Y1 - 32 * 200, X0 + 32 * 200, Y1], properties: { crs: CRS(32643) } },
    data: [{ type: "sentinel-1-grd", dataFilter: { timeRange: { from: "2018-07-16T00:00:00Z", to: "2018-07-17T00:00:00Z" } } }],
  },
  output: { width: 32, height: 32, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: bandsScript(["VV"]),
};
/** `tiff` holds the S1 file's VV values of s1Process's 32 x 32 window (geotiff.js reading both). */
async function expectFileVV(tiff: ArrayBuffer): Promise<void> {
  const tif = await readTiff(tiff);
  const vv = await window(`${S1_DIR}/iw-vv.utm43n-200m.tif`, 0, 300, 400, 32, 32);
  let withData = 0;
  let bad = 0;
  for (let i = 0; i < 32 * 32; i++) {
    if (vv[i] !== 0) withData++;
    if (vv[i] !== 0 && tif.data[i] !== vv[i]) bad++;
  }
  expect(withData).toBeGreaterThan(500);
  expect(bad).toBe(0);
}
const s2Process = {
  input: { bounds: { bbox: [-12.0, 24.3, -11.9, 24.4] }, data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } } }] },
  output: { width: 8, height: 8, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: bandsScript(["B04"]),
};

describe("GET /api/v1/metadata/location", () => {
  it("lists this deployment alone by default, in the OpenAPI Location shape", async () => {
    const r = await authed("/api/v1/metadata/location");
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual([
      {
        "@id": "http://localhost/api/v1/metadata/location/local",
        id: "local",
        url: "http://localhost",
        wmsUrl: "http://localhost/ogc/wms",
        processUrl: "http://localhost/api/v1/process",
        catalogUrl: "http://localhost/api/v1/catalog/1.0.0",
      },
    ]);
  });

  it("lists every configured location, the primary first, the same from either location", async () => {
    for (const base of [EU, CREO]) {
      const r = await fetchAt(TWO, `${base}/api/v1/metadata/location`, get());
      expect(r.status).toBe(200);
      const list = (await r.json()) as { id: string; url: string; processUrl: string; "@id": string }[];
      expect(list.map((l) => [l.id, l.url, l.processUrl])).toEqual([
        ["aws-eu-central-1", EU, `${EU}/api/v1/process`],
        ["creo", CREO, `${CREO}/api/v1/process`],
      ]);
      expect(list[1]!["@id"]).toBe(`${EU}/api/v1/metadata/location/creo`); // links from PUBLIC_BASE_URL
    }
  });

  it("one location by id; unknown ids are 404 COMMON_NOT_FOUND", async () => {
    const r = await fetchAt(TWO, `${EU}/api/v1/metadata/location/creo`, get());
    expect(r.status).toBe(200);
    expect(((await r.json()) as { wmsUrl: string }).wmsUrl).toBe(`${CREO}/ogc/wms`);
    for (const bad of ["aws-us-west-2", "AWS-EU-CENTRAL-1", "x%20y"]) {
      const miss = await fetchAt(TWO, `${EU}/api/v1/metadata/location/${bad}`, get());
      expect(miss.status).toBe(404);
      const e = await error(miss);
      expect(e.code).toBe("COMMON_NOT_FOUND");
      expect(e.message).toContain("known locations: aws-eu-central-1, creo");
    }
    expect((await authed("/api/v1/metadata/location/creo")).status).toBe(404); // not configured by default
  });

  it("rejects a malformed LOCATIONS as a deployment error", () => {
    expect(() => parseLocations('[{"id":"mars-1","url":"http://x"}]')).toThrow(/unknown location id "mars-1"/);
    expect(() => parseLocations('[{"id":"creo","url":"http://x/path"}]')).toThrow(/base URL without a path/);
    expect(() => parseLocations('[{"id":"creo","url":"http://a"},{"id":"creo","url":"http://b"}]')).toThrow(/unique/);
    expect(() => parseLocations("{")).toThrow(/not JSON/);
  });
});

describe("a collection hosted in another location", () => {
  it("Process: 404 COMMON_NOT_FOUND naming the hosting location and its URL", async () => {
    const r = await fetchAt(TWO, `${EU}/api/v1/process`, json(s1Process));
    expect(r.status).toBe(404);
    const e = await error(r);
    expect(e.code).toBe("COMMON_NOT_FOUND");
    expect(e.message).toBe(
      `Collection sentinel-1-grd not found in location 'aws-eu-central-1'; it is hosted in location 'creo': send the request to ${CREO} (GET ${EU}/api/v1/metadata/location/creo lists its endpoints).`,
    );
    expect(e.errors.collection).toBe("sentinel-1-grd");
    expect(e.errors.location).toMatchObject({ id: "creo", url: CREO });
    const back = await fetchAt(TWO, `${CREO}/api/v1/process`, json(s2Process));
    expect(back.status).toBe(404);
    expect((await error(back)).errors.location.id).toBe("aws-eu-central-1");
  });

  it("Process at the right location: the file's VV values", async () => {
    const r = await fetchAt(TWO, `${CREO}/api/v1/process`, json(s1Process));
    expect(r.status).toBe(200);
    await expectFileVV(await r.arrayBuffer());
    expect((await fetchAt(TWO, `${EU}/api/v1/process`, json(s2Process))).status).toBe(200); // S2 stays in the primary
  });

  it("Statistics: the same 404 at the wrong location", async () => {
    const body = {
      input: s1Process.input,
      aggregation: {
        timeRange: { from: "2018-07-16T00:00:00Z", to: "2018-07-17T00:00:00Z" },
        aggregationInterval: { of: "P1D" },
        width: 16,
        height: 16,
        evalscript: `//VERSION=3
function setup() { return { input: ["VV", "dataMask"], output: [{ id: "vv", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { vv: [s.VV], dataMask: [s.dataMask] }; }`,
      },
    };
    const r = await fetchAt(TWO, `${EU}/api/v1/statistics`, json(body));
    expect(r.status).toBe(404);
    expect((await error(r)).errors.location.id).toBe("creo");
    expect((await fetchAt(TWO, `${CREO}/api/v1/statistics`, json(body))).status).toBe(200);
  });

  it("Catalog: each location lists only its collections; the other's is 404 naming its location", async () => {
    const ids = async (base: string) =>
      ((await (await fetchAt(TWO, `${base}/api/v1/catalog/1.0.0/collections`, get())).json()) as { collections: { id: string }[] }).collections.map((c) => c.id);
    expect(await ids(EU)).toEqual(["sentinel-2-l1c", "sentinel-2-l2a"]);
    expect(await ids(CREO)).toEqual(["sentinel-1-grd"]);
    const search = { collections: ["sentinel-1-grd"], datetime: "2018-07-16T00:00:00Z/2018-07-17T00:00:00Z", limit: 5 };
    const wrong = await fetchAt(TWO, `${EU}/api/v1/catalog/1.0.0/search`, json(search));
    expect(wrong.status).toBe(404);
    expect((await error(wrong)).message).toContain(`hosted in location 'creo': send the request to ${CREO}`);
    const right = await fetchAt(TWO, `${CREO}/api/v1/catalog/1.0.0/search`, json(search));
    expect(right.status).toBe(200);
    const features = ((await right.json()) as { features: { id: string }[] }).features;
    expect(features.map((f) => f.id)).toContain("S1A_IW_GRDH_1SDV_20180716T004042_20180716T004107_022812_02792A_FD5B");
    expect((await fetchAt(TWO, `${CREO}/api/v1/catalog/1.0.0/collections/sentinel-2-l2a`, get())).status).toBe(404);
  });
});

describe("async requests keep the location that accepted them", () => {
  it("an async S1 GRD request sent to creo is processed as creo: DONE with the file's pixels, its PU charged once", async () => {
    const a = await newAccount();
    const own = { ...json({ ...s1Process, output: { ...s1Process.output, delivery: { s3: { url: "s3://async-loc/out" } } } }) };
    own.headers = { ...own.headers, authorization: `Bearer ${await tokenOf(a.client)}` };
    const r = await fetchAt(TWO, `${CREO}/api/v1/async/process`, own);
    expect(r.status, await r.clone().text()).toBe(200);
    const { id } = (await r.json()) as { id: string };
    // the queue consumer runs with the deployment's own env (LOCATION_ID "local", no LOCATIONS): only the location
    // stored in the record makes creo's collection hosted there
    const state = await vi.waitFor(async () => {
      const s = (await asyncStub(env, id).snapshot()).state;
      expect(["DONE", "FAILED"]).toContain(s);
      return s;
    }, { timeout: 60_000, interval: 250 });
    const error = await env.BUCKETS.get(`async-loc/out/${id}/error.json`);
    expect(state, error ? await error.text() : "").toBe("DONE");
    await expectFileVV(await (await env.BUCKETS.get(`async-loc/out/${id}/default.tif`))!.arrayBuffer());
    const spent = (await asyncStub(env, id).snapshot()).counters.processingUnits!;
    expect(spent).toBeGreaterThan(0);
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(spent, 9);
  });
});

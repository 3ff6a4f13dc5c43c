/**
 * Locations (spec 4.14): the listing in Sentinel Hub's `Location` shape, one location by id, 404 for unknown ids,
 * and the hosting of collections as Sentinel Hub hosts them: two locations served by one Worker (aws-eu-central-1
 * at http://localhost, creo at http://127.0.0.1:8788, as `npm start` runs them); Sentinel-2 and Sentinel-1 GRD in the
 * primary (sentinelhub-py's ServiceUrl.MAIN), a BYOC collection where its bucket's region says (BUCKET_REGIONS:
 * bucket `loc-creo` is in CREODIAS region WAW3-1, vitest.config.ts; src/locations/regions.ts), others in the primary.
 * A request for a collection hosted in the other location is 404 COMMON_NOT_FOUND naming the right location and
 * URL; at the right location the same request returns the file's pixels (read by geotiff.js, not the engine).
 * An async request accepted at the second location is processed by the queue consumer as that location (the
 * location id kept in its record) and ends DONE with the file's pixels, its processing units charged once.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { authed, token } from "../helpers/auth";
import { api, putInBucket, settled } from "../helpers/byoc";
import { fetchAt } from "../helpers/locations";
import { CRS, bandsScript, readTiff } from "../helpers/process";
import { window } from "../helpers/raster";
import { seedSamples } from "../helpers/seed";
import { newAccount, tokenOf } from "../helpers/accounts";
import { parseLocations } from "../../src/locations/config";
import { bucketLocations } from "../../src/locations/regions";
import { asyncStub } from "../helpers/asynctasks";
import { unitsUsage } from "../../src/accounts/units";
import { inspect, stateOf } from "../helpers/taskengine";

const EU = "http://localhost";
const CREO = "http://127.0.0.1:8788";
const TWO = {
  LOCATION_ID: "aws-eu-central-1",
  LOCATIONS: JSON.stringify([
    { id: "aws-eu-central-1", url: EU },
    { id: "creo", url: `${CREO}/` },
  ]),
};
/** The bucket BUCKET_REGIONS puts in CREODIAS region WAW3-1 (vitest.config.ts), and one it does not list. */
const CREO_BUCKET = "loc-creo";
const EU_BUCKET = "loc-eu";
const WF = "sentinel-2-l2a/westflanders/2017-08-24";
const S1_DIR = "sentinel-1-grd/S1A_IW_GRDH_1SDV_20180716T004042_FD5B";
// 32 x 32 px of the S1 file's 200 m UTM 43N grid, 300 px right and 400 px down of its origin (see test/process/sentinel1.test.ts)
const X0 = 566396.008448501 + 300 * 200;
const Y1 = 1237182.1888995206 - 400 * 200;
let bearer: string;
/** BYOC collections of the token's account: in the CREODIAS bucket, and in an unlisted bucket. */
let creoByoc: string, euByoc: string;

/** A BYOC collection of `bucket` with one ingested tile of the West Flanders 2017-08-24 B04 and B08 files. */
async function byocIn(bucket: string): Promise<string> {
  for (const b of ["B04", "B08"]) await putInBucket(bucket, `wf/${b}.tif`, `${WF}/${b}.tif`);
  const c = (await api(bearer, "POST", "/api/v1/byoc/collections", { name: `in ${bucket}`, s3Bucket: bucket })).json
    .data.id as string;
  const t = await api(bearer, "POST", `/api/v1/byoc/collections/${c}/tiles`, {
    path: "wf",
    sensingTime: "2017-08-24T10:52:40Z",
  });
  expect((await settled(bearer, c, t.json.data.id)).status).toBe("INGESTED");
  return c;
}

beforeAll(async () => {
  await seedSamples((i) => i.collection === "sentinel-1-grd" || i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
  creoByoc = await byocIn(CREO_BUCKET);
  euByoc = await byocIn(EU_BUCKET);
});

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
  body: JSON.stringify(body),
});
const get = () => ({ headers: { authorization: `Bearer ${bearer}` } });
const error = async (r: Response) =>
  (
    (await r.json()) as {
      error: {
        status: number;
        code: string;
        message: string;
        errors: { collection: string; location: { id: string; url: string } };
      };
    }
  ).error;

const s1Process = {
  input: {
    bounds: { bbox: [X0, Y1 - 32 * 200, X0 + 32 * 200, Y1], properties: { crs: CRS(32643) } },
    data: [
      {
        type: "sentinel-1-grd",
        dataFilter: { timeRange: { from: "2018-07-16T00:00:00Z", to: "2018-07-17T00:00:00Z" } },
      },
    ],
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
  input: {
    bounds: { bbox: [-12.0, 24.3, -11.9, 24.4] },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } },
      },
    ],
  },
  output: { width: 8, height: 8, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: bandsScript(["B04"]),
};
/** The 64 x 64 px West Flanders tile of a BYOC collection `id`, its B04 in DN. */
const byocProcess = (id: string) => ({
  input: {
    bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
    data: [
      { type: `byoc-${id}`, dataFilter: { timeRange: { from: "2017-08-24T00:00:00Z", to: "2017-08-25T00:00:00Z" } } },
    ],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: `//VERSION=3
function setup() { return { input: [{ bands: ["B04"], units: "DN" }], output: { bands: 1, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [s.B04]; }`,
});
/** `tiff` holds the B04 file's values (geotiff.js reading both). */
async function expectFileB04(tiff: ArrayBuffer): Promise<void> {
  const tif = await readTiff(tiff);
  const b04 = await window(`${WF}/B04.tif`, 0, 0, 0, 64, 64);
  expect(new Set(b04).size).toBeGreaterThan(100);
  expect(Array.from(tif.data)).toEqual(Array.from(b04));
}

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

describe("where collections are hosted", () => {
  it("BUCKET_REGIONS: each listed bucket's region names its location; anything else is a deployment error", () => {
    expect([
      ...bucketLocations({
        ...TWO,
        PUBLIC_BASE_URL: EU,
        BUCKET_REGIONS: '{"a":"eu-central-1","b":"WAW3-1","c":"us-west-2"}',
      }),
    ]).toEqual([
      ["a", "aws-eu-central-1"],
      ["b", "creo"],
      ["c", "aws-us-west-2"],
    ]);
    expect(() => bucketLocations({ ...TWO, PUBLIC_BASE_URL: EU, BUCKET_REGIONS: '{"a":"mars-1"}' })).toThrow(
      /region "mars-1"; known regions: eu-central-1/,
    );
    expect(() => bucketLocations({ ...TWO, PUBLIC_BASE_URL: EU, BUCKET_REGIONS: "[1]" })).toThrow(/JSON object/);
  });

  it("Process: a collection of the other location is 404 COMMON_NOT_FOUND naming the hosting location and its URL", async () => {
    const r = await fetchAt(TWO, `${EU}/api/v1/process`, json(byocProcess(creoByoc)));
    expect(r.status).toBe(404);
    const e = await error(r);
    expect(e.code).toBe("COMMON_NOT_FOUND");
    expect(e.message).toBe(
      `Collection byoc-${creoByoc} not found in location 'aws-eu-central-1'; it is hosted in location 'creo': send the request to ${CREO} (GET ${EU}/api/v1/metadata/location/creo lists its endpoints).`,
    );
    expect(e.errors.collection).toBe(`byoc-${creoByoc}`);
    expect(e.errors.location).toMatchObject({ id: "creo", url: CREO });
    for (const body of [s2Process, s1Process, byocProcess(euByoc)]) {
      const back = await fetchAt(TWO, `${CREO}/api/v1/process`, json(body));
      expect(back.status).toBe(404);
      expect((await error(back)).errors.location.id).toBe("aws-eu-central-1");
    }
  });

  it("the 404 comes before any band check: a script naming bands the collection lacks still gets it", async () => {
    const wrongBands = [
      { ...s1Process, evalscript: bandsScript(["B04"]) },
      { ...byocProcess(creoByoc), evalscript: bandsScript(["NO_SUCH_BAND"]) },
    ];
    for (const [body, at] of [
      [wrongBands[0]!, CREO],
      [wrongBands[1]!, EU],
    ] as const) {
      const r = await fetchAt(TWO, `${at}/api/v1/process`, json(body));
      expect(r.status).toBe(404);
      expect((await error(r)).code).toBe("COMMON_NOT_FOUND");
    }
  });

  it("Process at the right location: the files' values (Sentinel-1 GRD and Sentinel-2 in the primary, the BYOC collection in creo)", async () => {
    const byoc = await fetchAt(TWO, `${CREO}/api/v1/process`, json(byocProcess(creoByoc)));
    expect(byoc.status).toBe(200);
    await expectFileB04(await byoc.arrayBuffer());
    const s1 = await fetchAt(TWO, `${EU}/api/v1/process`, json(s1Process));
    expect(s1.status).toBe(200);
    await expectFileVV(await s1.arrayBuffer());
    expect((await fetchAt(TWO, `${EU}/api/v1/process`, json(s2Process))).status).toBe(200);
    await expectFileB04(await (await fetchAt(TWO, `${EU}/api/v1/process`, json(byocProcess(euByoc)))).arrayBuffer());
  });

  it("Statistics: the same 404 at the wrong location", async () => {
    const body = {
      input: byocProcess(creoByoc).input,
      aggregation: {
        timeRange: { from: "2017-08-24T00:00:00Z", to: "2017-08-25T00:00:00Z" },
        aggregationInterval: { of: "P1D" },
        width: 16,
        height: 16,
        evalscript: `//VERSION=3
function setup() { return { input: ["B04", "dataMask"], output: [{ id: "b04", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { b04: [s.B04], dataMask: [s.dataMask] }; }`,
      },
    };
    const r = await fetchAt(TWO, `${EU}/api/v1/statistics`, json(body));
    expect(r.status).toBe(404);
    expect((await error(r)).errors.location.id).toBe("creo");
    expect((await fetchAt(TWO, `${CREO}/api/v1/statistics`, json(body))).status).toBe(200);
  });

  it("Catalog and metadata: each location lists only its collections; the other's is 404 naming its location", async () => {
    const ids = async (base: string) =>
      (
        (await (await fetchAt(TWO, `${base}/api/v1/catalog/1.0.0/collections`, get())).json()) as {
          collections: { id: string }[];
        }
      ).collections
        .map((c) => c.id)
        .sort();
    expect(await ids(EU)).toEqual(
      [`byoc-${euByoc}`, "sentinel-1-grd", "sentinel-2-l1c", "sentinel-2-l2a", "dem", "landsat-ot-l2"].sort(),
    );
    expect(await ids(CREO)).toEqual([`byoc-${creoByoc}`]);
    const search = {
      collections: [`byoc-${creoByoc}`],
      datetime: "2017-08-24T00:00:00Z/2017-08-25T00:00:00Z",
      limit: 5,
    };
    const wrong = await fetchAt(TWO, `${EU}/api/v1/catalog/1.0.0/search`, json(search));
    expect(wrong.status).toBe(404);
    expect((await error(wrong)).message).toContain(`hosted in location 'creo': send the request to ${CREO}`);
    const right = await fetchAt(TWO, `${CREO}/api/v1/catalog/1.0.0/search`, json(search));
    expect(right.status).toBe(200);
    expect(((await right.json()) as { features: unknown[] }).features).toHaveLength(1);
    expect((await fetchAt(TWO, `${CREO}/api/v1/catalog/1.0.0/collections/sentinel-1-grd`, get())).status).toBe(404);
    const meta = await fetchAt(TWO, `${EU}/api/v1/metadata/collection/byoc-${creoByoc}`, get());
    expect(((await meta.json()) as { location: { id: string; url: string } }).location).toMatchObject({
      id: "creo",
      url: CREO,
    });
  });

  it("the hosting follows the bucket: an empty collection moved to the CREODIAS bucket is hosted in creo", async () => {
    const c = (await api(bearer, "POST", "/api/v1/byoc/collections", { name: "moving", s3Bucket: EU_BUCKET })).json.data
      .id as string;
    const hostOf = async () =>
      (
        (await (await fetchAt(TWO, `${EU}/api/v1/metadata/collection/byoc-${c}`, get())).json()) as {
          location: { id: string };
        }
      ).location.id;
    expect(await hostOf()).toBe("aws-eu-central-1");
    expect(
      (await api(bearer, "PUT", `/api/v1/byoc/collections/${c}`, { name: "moving", s3Bucket: CREO_BUCKET })).status,
    ).toBe(204);
    expect(await hostOf()).toBe("creo");
  });
});

describe("async requests keep the location that accepted them", () => {
  it("an async request for the creo BYOC collection sent to creo is processed as creo: DONE with the file's pixels, its PU charged once", async () => {
    const a = await newAccount();
    const abearer = await tokenOf(a.client);
    // the account's own collection in a bucket of its own in the CREODIAS region
    const c = (
      await api(abearer, "POST", "/api/v1/byoc/collections", { name: "async", s3Bucket: `${CREO_BUCKET}-async` })
    ).json.data.id as string;
    for (const b of ["B04", "B08"]) await putInBucket(`${CREO_BUCKET}-async`, `wf/${b}.tif`, `${WF}/${b}.tif`);
    const t = await api(abearer, "POST", `/api/v1/byoc/collections/${c}/tiles`, {
      path: "wf",
      sensingTime: "2017-08-24T10:52:40Z",
    });
    expect((await settled(abearer, c, t.json.data.id)).status).toBe("INGESTED");
    const own = {
      ...json({
        ...byocProcess(c),
        output: { ...byocProcess(c).output, delivery: { s3: { url: "s3://async-loc/out" } } },
      }),
    };
    own.headers = { ...own.headers, authorization: `Bearer ${abearer}` };
    const r = await fetchAt(TWO, `${CREO}/api/v1/async/process`, own);
    expect(r.status, await r.clone().text()).toBe(200);
    const { id } = (await r.json()) as { id: string };
    // the queue consumer runs with the deployment's own env (LOCATION_ID "local", no LOCATIONS): only the location
    // stored in the record makes creo's collection hosted there
    const state = await vi.waitFor(
      async () => {
        const s = await stateOf(asyncStub(id));
        expect(["DONE", "FAILED"]).toContain(s);
        return s;
      },
      { timeout: 60_000, interval: 250 },
    );
    const error = await env.BUCKETS.get(`async-loc/out/${id}/error.json`);
    expect(state, error ? await error.text() : "").toBe("DONE");
    await expectFileB04(await (await env.BUCKETS.get(`async-loc/out/${id}/default.tif`))!.arrayBuffer());
    const spent = (await inspect(asyncStub(id))).pu;
    expect(spent).toBeGreaterThan(0);
    expect((await unitsUsage(env, a.account)).used).toBeCloseTo(spent, 9);
  });
});

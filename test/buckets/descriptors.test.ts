/**
 * Every object-storage descriptor a task API takes (async delivery and evalscriptReference, batch raster and Zarr
 * delivery and GeoPackage input, statistical batch features, output and evalscriptReference) and every output
 * identifier that becomes a file name is checked when the request is submitted, with one rule
 * (src/buckets/descriptor.ts): a URL async refuses is a 400 envelope on batch and statistical batch too, not a
 * task that fails once started.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, envelope, token } from "../helpers/auth";
import { BATCH, batchRequest } from "../helpers/batch";
import { CRS } from "../helpers/process";
import { putObject } from "../statbatch/helpers";

const BUCKET = "descriptor-checks";
const TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
const SCRIPT = `//VERSION=3
function setup() { return { input: ["B04"], output: { id: "default", bands: 1, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [s.B04 * 10000]; }`;
const STAT_SCRIPT = `//VERSION=3
function setup() { return { input: ["B04", "dataMask"], output: [{ id: "b", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }
function evaluatePixel(s) { return { b: [s.B04], dataMask: [s.dataMask] }; }`;

/** URLs async refused before this check existed everywhere; a tenancy probe used the first six. */
const BAD_URLS: [string, string][] = [
  ["a '..' prefix after a short bucket", "s3://b/../x"],
  ["'..' as the bucket", "s3://.."],
  ["an upper-case bucket", "s3://B-UPPER/x"],
  ["no bucket", "s3:///x"],
  ["a newline", `s3://${BUCKET}/a\nb`],
  ["a '..' segment", `s3://${BUCKET}/out/../../x`],
  ["a tab", `s3://${BUCKET}/a\tb`],
  ["another scheme", `https://${BUCKET}/x`],
];

const asyncBody = (delivery: string, over: Record<string, unknown> = {}) => ({
  input: {
    bounds: { bbox: [199980, 2790000, 201000, 2800020], properties: { crs: CRS(32629) } },
    data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: TIME } }],
  },
  output: {
    width: 10,
    height: 10,
    responses: [{ identifier: "default", format: { type: "image/tiff" } }],
    delivery: { s3: { url: delivery } },
  },
  evalscript: SCRIPT,
  ...over,
});

const statBody = (parts: { features?: string; output?: string; script?: string } = {}) => ({
  input: {
    features: { s3: { url: parts.features ?? `s3://${BUCKET}/fields.gpkg` } },
    data: [{ type: "sentinel-2-l2a" }],
  },
  aggregation: {
    timeRange: { from: "2018-04-01T00:00:00Z", to: "2018-04-30T00:00:00Z" },
    aggregationInterval: { of: "P1D" },
    resx: 10,
    resy: 10,
    ...(parts.script ? { evalscriptReference: { s3: { url: parts.script } } } : { evalscript: STAT_SCRIPT }),
  },
  output: { s3: { url: parts.output ?? `s3://${BUCKET}/stats` } },
});

/** A Zarr batch request (WGS84 1 degree grid, one single-band array) delivered to `url`. */
function zarrBatch(url: string) {
  const output = {
    type: "zarr",
    delivery: { s3: { url } },
    group: { zarr_format: 2 },
    arrayParameters: { dtype: "<u2", order: "C", chunks: [1, 25, 25], fill_value: 0 },
  };
  const b = batchRequest(BUCKET, output, { id: 3, resolution: 0.008 });
  b.processRequest.output.responses = [{ identifier: "default", format: { type: "zarr/array" } }];
  b.processRequest.evalscript = SCRIPT;
  return b;
}

/** Where each API takes a descriptor: its path, a body with `url` in that place, and the member the 400 names. */
const PLACES: { name: string; path: string; body: (url: string) => unknown; member: string }[] = [
  {
    name: "async delivery",
    path: "/api/v1/async/process",
    body: (u) => asyncBody(u),
    member: "output.delivery.s3.url",
  },
  {
    name: "async evalscriptReference",
    path: "/api/v1/async/process",
    body: (u) => asyncBody(`s3://${BUCKET}/async`, { evalscript: undefined, evalscriptReference: { s3: { url: u } } }),
    member: "evalscriptReference.s3.url",
  },
  {
    name: "batch raster delivery",
    path: BATCH,
    body: (u) => batchRequest(BUCKET, { delivery: { s3: { url: u } } }),
    member: "output.delivery.s3.url",
  },
  { name: "batch Zarr delivery", path: BATCH, body: zarrBatch, member: "output.delivery.s3.url" },
  {
    name: "batch GeoPackage input",
    path: BATCH,
    body: (u) => ({ ...batchRequest(BUCKET), input: { type: "geopackage", features: { s3: { url: u } } } }),
    member: "input.features.s3.url",
  },
  {
    name: "statistical batch features",
    path: "/api/v1/statistics/batch",
    body: (u) => statBody({ features: u }),
    member: "input.features.s3.url",
  },
  {
    name: "statistical batch output",
    path: "/api/v1/statistics/batch",
    body: (u) => statBody({ output: u }),
    member: "output.s3.url",
  },
  {
    name: "statistical batch evalscriptReference",
    path: "/api/v1/statistics/batch",
    body: (u) => statBody({ script: u }),
    member: "aggregation.evalscriptReference.s3.url",
  },
];

/** Good URLs for each place (the object they name exists where one is read at submission). */
const GOOD: Record<string, string> = {
  "async delivery": `s3://${BUCKET}/async/<REQUEST_ID>-<OUTPUT>`,
  "async evalscriptReference": `s3://${BUCKET}/scripts/dn.js`,
  "batch raster delivery": `s3://${BUCKET}/batch/<requestId>/<tileName>/<outputId>.tiff`,
  "batch Zarr delivery": `s3://${BUCKET}/zarr/<requestId>`,
  "batch GeoPackage input": `s3://${BUCKET}/fields.gpkg`,
  "statistical batch features": `s3://${BUCKET}/fields.gpkg`,
  "statistical batch output": `s3://${BUCKET}/stats/<ID>.json`,
  "statistical batch evalscriptReference": `s3://${BUCKET}/scripts/stat.js`,
};

const post = (path: string, body: unknown) =>
  authed(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, bearer);

async function expect400(r: Response, member: RegExp | string): Promise<void> {
  const text = await r.text();
  expect(r.status, text).toBe(400);
  const e = JSON.parse(text).error as { status: number; code: string; message: string; errors: Record<string, string> };
  expect([e.status, e.code]).toEqual([400, "COMMON_BAD_PAYLOAD"]);
  expect(e.message).toMatch(member);
}

let bearer: string;
beforeAll(async () => {
  bearer = await token();
  await putObject(BUCKET, "fields.gpkg", "SQLite format 3\0 read at analysis only");
  await putObject(BUCKET, "scripts/dn.js", SCRIPT);
  await putObject(BUCKET, "scripts/stat.js", STAT_SCRIPT);
});

describe.each(PLACES)("$name", ({ name, path, body, member }) => {
  it("a good URL is accepted", async () => {
    const r = await post(path, body(GOOD[name]!));
    expect([200, 201], await r.clone().text()).toContain(r.status);
  });
  it.each(BAD_URLS)("%s is a 400 naming the member", async (_what, url) => {
    await expect400(await post(path, body(url)), member);
  });
});

describe("output identifiers are file names", () => {
  const script = (id: string) => SCRIPT.replace('id: "default"', `id: ${JSON.stringify(id)}`);
  for (const id of ["../x", "a/b", "..", "a\\b"]) {
    it(`batch: identifier ${JSON.stringify(id)} is a 400`, async () => {
      const b = batchRequest(BUCKET);
      b.processRequest.output.responses = [{ identifier: id, format: { type: "image/tiff" } }];
      b.processRequest.evalscript = script(id);
      await expect400(await post(BATCH, b), /processRequest\.output\.responses\.0\.identifier/);
    });
    it(`async: identifier ${JSON.stringify(id)} is a 400`, async () => {
      const b = asyncBody(`s3://${BUCKET}/async`, { evalscript: script(id) });
      (b.output as Record<string, unknown>).responses = [{ identifier: id, format: { type: "image/tiff" } }];
      await expect400(await post("/api/v1/async/process", b), /output\.responses\.0\.identifier/);
    });
  }
});

/**
 * Async Processing API end to end in workerd (real queue, AsyncTask Durable Object, local R2 buckets, 29RKH
 * pixels): submission answers, the status while RUNNING and 404 once finished, account isolation, the delivered
 * files (Sentinel Hub's layout and templates), failures leaving error.json, and 400 envelopes for bad inputs.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { authed, envelope, token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { CRS, process, readTiff } from "../helpers/process";
import { window } from "../helpers/raster";
import type { AsyncRecord } from "../../src/async/schema";
import { asyncStub, finishRequest, runningRequest } from "../helpers/asynctasks";
import { stripRows } from "../../src/async/render";
import { createS3Key, type AccountS3Key } from "../../src/buckets/keys";
import { newAccount, tokenOf } from "../helpers/accounts";
import { stateOf } from "../helpers/taskengine";

const RKH_BBOX = [199980, 2690220, 309780, 2800020];
const TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
const DN_SCRIPT = `//VERSION=3
function setup() { return { input: ["B04"], output: { bands: 1, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [s.B04 * 10000]; }
function updateOutputMetadata(scenes, inputMetadata, outputMetadata) { outputMetadata.userData = { scenes: scenes.length }; }`;

const body = (over: Record<string, unknown> = {}, output: Record<string, unknown> = {}) => ({
  input: {
    bounds: { bbox: RKH_BBOX, properties: { crs: CRS(32629) } },
    data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: TIME } }],
  },
  output: {
    width: 1098,
    height: 1098,
    responses: [{ identifier: "default", format: { type: "image/tiff" } }],
    delivery: { s3: { url: "s3://async-out/runs" } },
    ...output,
  },
  evalscript: DN_SCRIPT,
  ...over,
});

const post = (b: unknown, bearer: string, path = "/api/v1/async/process") =>
  authed(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(b) }, bearer);
const status = (id: string, bearer: string, root = "/api/v1/async/process") => authed(`${root}/${id}`, {}, bearer);
const object = async (key: string) => env.BUCKETS.get(key);

/** Waits until the status query answers 404 (finished). */
async function finished(id: string, bearer: string): Promise<void> {
  await vi.waitFor(async () => expect((await status(id, bearer)).status).toBe(404), {
    timeout: 120_000,
    interval: 300,
  });
}

let bearer: string;
/** An S3 key of the bearer's account (descriptors with keys must carry the caller's own). */
let keys: AccountS3Key;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  const me = await newAccount();
  bearer = await tokenOf(me.client);
  keys = (await createS3Key(env, me.account))!;
});

describe("async process: delivery", () => {
  it("answers 200 {id, status: RUNNING}, then 404 once DONE; files at <prefix>/<id>/<identifier>.<ext>", async () => {
    const b = body(
      {},
      {
        responses: [
          { identifier: "default", format: { type: "image/tiff" } },
          { identifier: "default", format: { type: "image/png" } },
          { identifier: "userdata", format: { type: "application/json" } },
        ],
      },
    );
    const r = await post(b, bearer);
    expect(r.status).toBe(200);
    const { id, status: s } = (await r.json()) as { id: string; status: string };
    expect(s).toBe("RUNNING");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await finished(id, bearer);
    expect(await stateOf(asyncStub(id))).toBe("DONE");
    const tif = await readTiff(await (await object(`async-out/runs/${id}/default.tif`))!.arrayBuffer());
    expect([tif.width, tif.height, tif.bbox]).toEqual([1098, 1098, RKH_BBOX]);
    // the tile at its native 100 m, in 3 strips (stripRows): every DN as stored in B04.tif (read with geotiff.js)
    expect(stripRows(1098)).toBe(477);
    const file = await window("sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif", 0, 0, 0, 1098, 1098);
    let bad = 0;
    for (let i = 0; i < file.length; i++) if (tif.data[i] !== file[i]) bad++;
    expect(bad).toBe(0);
    const png = await object(`async-out/runs/${id}/default.png`);
    expect(png?.httpMetadata?.contentType).toBe("image/png");
    expect(await (await object(`async-out/runs/${id}/userdata.json`))!.json()).toEqual({ scenes: 1 });
    const copy = (await (await object(`async-out/runs/${id}/request.json`))!.json()) as Record<string, unknown>;
    expect(copy).toMatchObject({ id, status: "DONE" });
    expect(copy.processingUnits).toBeGreaterThan(0);
    expect(await object(`async-out/runs/${id}/error.json`)).toBeNull();
  });

  it("a templated URL (<REQUEST_ID>, <OUTPUT>) and the /async/v1/process alias; the script from evalscriptReference", async () => {
    await env.BUCKETS.put("async-in/scripts/dn.js", DN_SCRIPT);
    const b = body(
      { evalscript: undefined, evalscriptReference: { s3: { url: "s3://async-in/scripts/dn.js" } } },
      {
        delivery: {
          s3: {
            url: "s3://async-out/flat/<REQUEST_ID>_<OUTPUT>",
            accessKey: keys.accessKeyId,
            secretAccessKey: keys.secretAccessKey,
          },
        },
      },
    );
    const r = await post(b, bearer, "/async/v1/process");
    expect(r.status).toBe(200);
    const { id } = (await r.json()) as { id: string };
    await vi.waitFor(async () => expect((await status(id, bearer, "/async/v1/process")).status).toBe(404), {
      timeout: 120_000,
      interval: 300,
    });
    expect(await object(`async-out/flat/${id}_default.tif`)).not.toBeNull();
    const copy = await (await object(`async-out/flat/${id}_request.json`))!.text();
    expect(copy).toContain("dn.js");
    expect(copy).not.toContain(keys.secretAccessKey);
    expect(copy).not.toContain(keys.accessKeyId);
  });

  it("a script failing while it runs: FAILED, status 404, error.json holds the envelope (EXECUTION_ERROR)", async () => {
    const failing = DN_SCRIPT.replace(
      "return [s.B04 * 10000];",
      'if (s.B04 > 0) throw new Error("no reflectance wanted"); return [0];',
    );
    const r = await post(body({ evalscript: failing }), bearer);
    expect(r.status).toBe(200);
    const { id } = (await r.json()) as { id: string };
    await finished(id, bearer);
    expect(await stateOf(asyncStub(id))).toBe("FAILED");
    const error = (await (await object(`async-out/runs/${id}/error.json`))!.json()) as {
      error: { status: number; code: string; message: string };
    };
    expect(error.error).toMatchObject({ status: 400, code: "EXECUTION_ERROR" });
    expect(error.error.message).toContain("no reflectance wanted");
    expect(await object(`async-out/runs/${id}/default.tif`)).toBeNull();
    expect(await (await object(`async-out/runs/${id}/request.json`))!.json()).toMatchObject({
      id,
      status: "FAILED",
      error: { code: "EXECUTION_ERROR" },
    });
  });
});

describe("async process: geometry", () => {
  it("a polygon clips the async output as the synchronous API does (mask rasterized per strip)", async () => {
    const geometry = {
      type: "Polygon",
      coordinates: [
        [
          [205000, 2695000],
          [305000, 2705000],
          [250000, 2795000],
          [205000, 2695000],
        ],
      ],
    };
    const script = `//VERSION=3
function setup() { return { input: ["B04", "dataMask"], output: { bands: 2, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [s.B04 * 10000, s.dataMask]; }`;
    const input = {
      bounds: { geometry, properties: { crs: CRS(32629) } },
      data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: TIME } }],
    };
    const responses = [{ identifier: "default", format: { type: "image/tiff" } }];
    const r = await post(
      {
        input,
        output: { width: 1200, height: 1100, responses, delivery: { s3: { url: "s3://async-out/geometry" } } },
        evalscript: script,
      },
      bearer,
    );
    expect(r.status).toBe(200);
    const { id } = (await r.json()) as { id: string };
    const sync = await process({ input, output: { width: 1200, height: 1100, responses }, evalscript: script }, bearer);
    expect(sync.status).toBe(200);
    await finished(id, bearer);
    const a = await readTiff(await (await object(`async-out/geometry/${id}/default.tif`))!.arrayBuffer());
    const b = await readTiff(await sync.arrayBuffer());
    expect([a.width, a.height, a.bbox]).toEqual([b.width, b.height, b.bbox]);
    let bad = 0,
      inside = 0;
    for (let i = 0; i < b.data.length; i++) if (a.data[i] !== b.data[i]) bad++;
    for (let i = 1; i < b.data.length; i += 2) inside += b.data[i]!;
    expect(bad).toBe(0);
    expect(inside).toBeGreaterThan(100_000); // both in and out of the polygon are compared
    expect(inside).toBeLessThan(1200 * 1100 - 100_000);
  });
});

describe("async process: status", () => {
  const record = (account: string): AsyncRecord => ({
    id: crypto.randomUUID(),
    account,
    created: new Date().toISOString(),
    request: body() as unknown as AsyncRecord["request"],
  });
  const accountOf = (jwt: string): string =>
    JSON.parse(atob(jwt.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))).account;

  it("RUNNING while the object is RUNNING, 404 once it is DONE; another account and unknown ids get 404", async () => {
    const rec = record(accountOf(bearer)); // created in its Durable Object without a queue message: stays RUNNING
    const stub = await runningRequest(rec);
    const r = await status(rec.id, bearer);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ id: rec.id, status: "RUNNING" });
    expect((await status(rec.id, bearer, "/async/v1/process")).status).toBe(200);
    const other = await status(rec.id, await token());
    expect(other.status).toBe(404);
    expect((await envelope(other)).code).toBe("COMMON_NOT_FOUND");
    expect((await status(crypto.randomUUID(), bearer)).status).toBe(404);
    expect((await status("not-a-uuid", bearer)).status).toBe(404);
    await finishRequest(rec.id, 1);
    expect(await stateOf(stub)).toBe("DONE");
    expect((await status(rec.id, bearer)).status).toBe(404);
  });
});

describe("async process: bad inputs are 400 envelopes", () => {
  const cases: [string, unknown, RegExp][] = [
    ["missing delivery", { ...body(), output: { width: 10, height: 10 } }, /delivery/],
    ["bad s3 url", body({}, { delivery: { s3: { url: "https://bucket/prefix" } } }), /s3:\/\//],
    ["bad bucket name", body({}, { delivery: { s3: { url: "s3://No_Such!/x" } } }), /bucket name/],
    ["width > 10000", body({}, { width: 10001, height: 10 }), /10000/],
    ["resx giving > 10000 px", body({}, { width: undefined, height: undefined, resx: 10, resy: 10 }), /10000 x 10000/],
    [
      "unknown evalscriptReference",
      body({ evalscript: undefined, evalscriptReference: { s3: { url: "s3://async-in/none.js" } } }),
      /does not exist/,
    ],
    [
      "both evalscript and reference",
      body({ evalscriptReference: { s3: { url: "s3://async-in/scripts/dn.js" } } }),
      /exactly one/,
    ],
    ["neither", body({ evalscript: undefined }), /exactly one/],
    [
      "unknown identifier",
      body({}, { responses: [{ identifier: "nope", format: { type: "image/tiff" } }] }),
      /matches no evalscript output/,
    ],
    [
      "PNG above 2500 x 2500",
      body({}, { width: 3000, height: 3000, responses: [{ identifier: "default", format: { type: "image/png" } }] }),
      /6250000/,
    ],
    [
      "two responses, one file",
      body(
        {},
        {
          responses: [
            { identifier: "default", format: { type: "image/tiff" } },
            { identifier: "default", format: { type: "image/tiff" } },
          ],
        },
      ),
      /both write/,
    ],
    [
      "unknown collection type",
      body({ input: { bounds: { bbox: RKH_BBOX, properties: { crs: CRS(32629) } }, data: [{ type: "landsat-99" }] } }),
      /Unknown data collection type 'landsat-99'/,
    ],
    ["script syntax error", body({ evalscript: "//VERSION=3\nfunction setup( {" }), /./],
  ];
  for (const [name, b, message] of cases) {
    it(name, async () => {
      const r = await post(b, bearer);
      expect(r.status).toBe(400);
      const e = await envelope(r);
      expect(e.status).toBe(400);
      expect(e.message).toMatch(message);
    });
  }

  it("an unknown BYOC collection is a 404 naming it", async () => {
    const id = crypto.randomUUID();
    const r = await post(
      body({ input: { bounds: { bbox: RKH_BBOX, properties: { crs: CRS(32629) } }, data: [{ type: `byoc-${id}` }] } }),
      bearer,
    );
    expect(r.status).toBe(404);
    expect(await envelope(r)).toMatchObject({
      code: "COMMON_NOT_FOUND",
      message: `BYOC collection ${id} not found.`,
      errors: { collection: `byoc-${id}` },
    });
  });
});

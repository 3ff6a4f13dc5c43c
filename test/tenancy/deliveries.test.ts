/**
 * Tenancy, deliveries and inputs (buckets have owners): account B, with its own token, names account
 * A's bucket as an async / batch / statistical batch delivery, an evalscriptReference or a GeoPackage input. Every
 * attempt is a 403 envelope at submission that names nothing of A's objects (the same answer whether the object
 * exists or not), and A's objects keep their bytes. Work already queued under B's account (a record naming A's
 * bucket) is refused by the queue consumer too, with the account of the record.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import type { Env } from "../../src/env";
import type { AsyncRecord } from "../../src/async/schema";
import { asyncStub, renderMessage, runningRequest } from "../helpers/asynctasks";
import { TASK_QUEUE_NAME } from "../../src/tasks/queue";
import { authed, envelope } from "../helpers/auth";
import { BATCH, batchCall, batchRequest } from "../helpers/batch";
import { batchTaskIn, deliver, msg, tileMessage } from "../helpers/batchtasks";
import { putInBucket } from "../helpers/byoc";
import { CRS } from "../helpers/process";
import { sampleFile, seedSamples } from "../helpers/seed";
import { jsonInit } from "../helpers/wms";
import { DEMO_ACCOUNT, objectState, refused, tenant, type Tenant } from "./helpers";
import { inspect, stateOf } from "../helpers/taskengine";

const E = env as unknown as Env;
const ASYNC = "/api/v1/async/process";
const STATBATCH = "/api/v1/statistics/batch";
/** The BYOC sample bucket `npm start` seeds for the demo account, and one of its files. */
const SAMPLE = "eo-edge-byoc-sample";
const SAMPLE_B04 = "westflanders/2018-11-17/B04.tif";
/** Text of an object of A that is no evalscript: no error message may quote it. */
const SECRET = "A-PRIVATE: the first line of a file that is not an evalscript";

const DN_SCRIPT = `//VERSION=3
function setup() { return { input: ["B04"], output: { bands: 1, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [s.B04 * 10000]; }`;

/** A small async request over 29RKH delivered to `url`, with response `identifier`. */
const asyncBody = (url: string, identifier = "default", over: Record<string, unknown> = {}) => ({
  input: {
    bounds: { bbox: [199980, 2690220, 309780, 2800020], properties: { crs: CRS(32629) } },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } },
      },
    ],
  },
  output: {
    width: 64,
    height: 64,
    responses: [{ identifier, format: { type: "image/tiff" } }],
    delivery: { s3: { url } },
  },
  evalscript: DN_SCRIPT,
  ...over,
});

const postAsync = (body: unknown, bearer: string) => authed(ASYNC, jsonInit("POST", body), bearer);

let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  [a, b] = await Promise.all([tenant(DEMO_ACCOUNT), tenant()]);
  await putInBucket(SAMPLE, SAMPLE_B04, `sentinel-2-l2a/${SAMPLE_B04}`);
});

describe("async deliveries", () => {
  it("B cannot deliver an output named B04 into A's BYOC sample folder: 403, A's B04.tif keeps its bytes", async () => {
    const before = await objectState(SAMPLE, SAMPLE_B04);
    expect(before).not.toBeNull();
    const b04 = DN_SCRIPT.replace("output: { bands: 1", 'output: { id: "B04", bands: 1').replace(
      "return [s.B04 * 10000];",
      "return { B04: [s.B04 * 10000] };",
    );
    await refused(
      await postAsync(
        asyncBody(`s3://${SAMPLE}/westflanders/2018-11-17/<OUTPUT>`, "B04", { evalscript: b04 }),
        b.bearer,
      ),
    );
    expect(await objectState(SAMPLE, SAMPLE_B04)).toEqual(before);
    expect((await E.BUCKETS.list({ prefix: `${SAMPLE}/westflanders/2018-11-17/` })).objects.map((o) => o.key)).toEqual([
      `${SAMPLE}/${SAMPLE_B04}`,
    ]);
  });

  it("B cannot overwrite A's async outputs (default.tif, request.json) by naming A's prefix: 403, both unchanged", async () => {
    const r = await postAsync(asyncBody("s3://tenant-a-async/runs"), a.bearer);
    expect(r.status).toBe(200);
    const { id } = (await r.json()) as { id: string };
    await vi.waitFor(async () => expect((await authed(`${ASYNC}/${id}`, {}, a.bearer)).status).toBe(404), {
      timeout: 60_000,
      interval: 250,
    });
    const files = ["default.tif", "request.json"].map((f) => `runs/${id}/${f}`);
    const before = await Promise.all(files.map((k) => objectState("tenant-a-async", k)));
    expect(before.every((s) => s !== null)).toBe(true);
    await refused(await postAsync(asyncBody(`s3://tenant-a-async/runs/${id}/<OUTPUT>`), b.bearer));
    await refused(await postAsync(asyncBody("s3://tenant-a-async/runs"), b.bearer));
    expect(await Promise.all(files.map((k) => objectState("tenant-a-async", k)))).toEqual(before);
  });

  it("a queued request of B naming A's bucket FAILS at the consumer (the record's account), writing nothing there", async () => {
    await putInBucket("tenant-a-queued", "keep.tif", `sentinel-2-l2a/${SAMPLE_B04}`);
    await postAsync(asyncBody("s3://tenant-a-queued/mine"), a.bearer); // A uses (owns) the bucket
    const before = await E.BUCKETS.list({ prefix: "tenant-a-queued/" });
    const record = {
      id: crypto.randomUUID(),
      account: b.account,
      created: new Date().toISOString(),
      request: asyncBody("s3://tenant-a-queued/x"),
    } as unknown as AsyncRecord;
    await runningRequest(record);
    const batch = createMessageBatch(TASK_QUEUE_NAME, [msg("q1", renderMessage(record.id))]);
    await worker.queue(batch, E);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toEqual(["q1"]);
    expect(await stateOf(asyncStub(record.id))).toBe("FAILED");
    const after = await E.BUCKETS.list({ prefix: "tenant-a-queued/" });
    expect(after.objects.filter((o) => o.key.startsWith(`tenant-a-queued/x/`))).toEqual([]);
    expect(after.objects.map((o) => [o.key, o.etag])).toEqual(before.objects.map((o) => [o.key, o.etag]));
  });
});

describe("evalscriptReference", () => {
  beforeAll(async () => {
    await E.BUCKETS.put("tenant-a-scripts/notes.txt", `${SECRET}\nmore private lines`);
    await E.BUCKETS.put("tenant-a-scripts/ndvi.js", DN_SCRIPT);
    const own = await postAsync(
      asyncBody("s3://tenant-a-scripts/out", "default", {
        evalscript: undefined,
        evalscriptReference: { s3: { url: "s3://tenant-a-scripts/ndvi.js" } },
      }),
      a.bearer,
    );
    expect(own.status).toBe(200); // A reads its own script: the bucket is A's
  });

  it("B gets the same 403 for A's existing and missing objects, and no byte of them", async () => {
    const ref = (key: string) =>
      asyncBody("s3://tenant-b-out/x", "default", {
        evalscript: undefined,
        evalscriptReference: { s3: { url: `s3://tenant-a-scripts/${key}` } },
      });
    const messages = [];
    for (const key of ["notes.txt", "ndvi.js", "no-such-object.js"])
      messages.push(await refused(await postAsync(ref(key), b.bearer), [SECRET.slice(0, 20), "VERSION=3", key]));
    expect(new Set(messages).size).toBe(1);
  });

  it("an object that is no evalscript is refused without quoting it, also to its owner (400)", async () => {
    const r = await postAsync(
      asyncBody("s3://tenant-a-scripts/out", "default", {
        evalscript: undefined,
        evalscriptReference: { s3: { url: "s3://tenant-a-scripts/notes.txt" } },
      }),
      a.bearer,
    );
    const text = await r.clone().text();
    expect(r.status, text).toBe(400);
    expect((await envelope(r)).message).toMatch(/first line must be \/\/VERSION=3/);
    expect(text).not.toContain(SECRET.slice(0, 12));
  });
});

describe("batch", () => {
  const A_OUT = "tenant-a-batch";
  let aTask: string;
  beforeAll(async () => {
    const r = await batchCall("", a.bearer, "POST", batchRequest(A_OUT));
    expect(r.status).toBe(201);
    aTask = ((await r.json()) as { id: string }).id;
    await E.BUCKETS.put(`${A_OUT}/out/${aTask}/29RKH_0_3/default.tiff`, "A's tile");
  });

  it("B cannot create a task delivering over A's tiles (overwrite) nor reading A's GeoPackage: 403, nothing stored", async () => {
    const before = await objectState(A_OUT, `out/${aTask}/29RKH_0_3/default.tiff`);
    const overwrite = batchRequest(A_OUT, {
      delivery: { s3: { url: `s3://${A_OUT}/out/${aTask}/<tileName>/<outputId>.<format>` } },
      overwrite: true,
    });
    await refused(await batchCall("", b.bearer, "POST", overwrite));
    const gpkg = {
      ...batchRequest("tenant-b-batch"),
      input: { type: "geopackage", features: { s3: { url: `s3://${A_OUT}/fields.gpkg` } } },
    };
    await refused(await batchCall("", b.bearer, "POST", gpkg));
    expect(((await (await batchCall("", b.bearer)).json()) as { data: unknown[] }).data).toEqual([]);
    expect(await objectState(A_OUT, `out/${aTask}/29RKH_0_3/default.tiff`)).toEqual(before);
  });

  it("a tile of a task of B whose delivery is A's bucket FAILS with 403 at the consumer; A's tile keeps its bytes", async () => {
    const before = await objectState(A_OUT, `out/${aTask}/29RKH_0_3/default.tiff`);
    const output = {
      delivery: { s3: { url: `s3://${A_OUT}/out/${aTask}/<tileName>/<outputId>.<format>` } },
      overwrite: true,
    };
    const { id, stub, tiles } = await batchTaskIn(b.account, "PROCESSING", A_OUT, undefined, output);
    const out = await deliver(TASK_QUEUE_NAME, [msg("t1", tileMessage(id, tiles[0]!))]);
    expect(out.acked).toEqual(["t1"]);
    const tile = (await inspect(stub)).units[0]!;
    expect(tile).toMatchObject({ status: "FAILED" });
    expect(tile.error).toMatch(/Access to bucket 'tenant-a-batch' is denied/);
    expect(tile.error).not.toContain("A's tile");
    expect(await objectState(A_OUT, `out/${aTask}/29RKH_0_3/default.tiff`)).toEqual(before);
    expect((await E.BUCKETS.list({ prefix: `${A_OUT}/out/${aTask}/` })).objects).toHaveLength(1);
  });

  it("the task's own account still writes its bucket: A's task is not refused", async () => {
    expect((await batchCall(`/${aTask}`, a.bearer)).status).toBe(200);
    const again = await batchCall("", a.bearer, "POST", batchRequest(A_OUT, { overwrite: true }));
    expect(again.status).toBe(201);
  });
});

describe("statistical batch", () => {
  const A_SB = "tenant-a-sb";
  let aTask: string;
  const aggregation = (over: Record<string, unknown> = {}) => ({
    timeRange: { from: "2018-04-01T00:00:00Z", to: "2018-04-30T00:00:00Z" },
    aggregationInterval: { of: "P1D" },
    resx: 10,
    resy: 10,
    evalscript:
      "//VERSION=3\nfunction setup(){return {input:['B04','dataMask'],output:[{id:'b4',bands:1,sampleType:'FLOAT32'},{id:'dataMask',bands:1}]}}\nfunction evaluatePixel(s){return {b4:[s.B04],dataMask:[s.dataMask]}}",
    ...over,
  });
  const body = (gpkg: string, output: string, agg = aggregation()) => ({
    input: { features: { s3: { url: gpkg } }, data: [{ type: "sentinel-2-l2a" }] },
    aggregation: agg,
    output: { s3: { url: output } },
  });

  beforeAll(async () => {
    await E.BUCKETS.put(`${A_SB}/fields.gpkg`, await sampleFile("fixtures/vector/westflanders_fields.gpkg"));
    await E.BUCKETS.put(`tenant-b-sb/fields.gpkg`, await sampleFile("fixtures/vector/westflanders_fields.gpkg"));
    const r = await authed(STATBATCH, jsonInit("POST", body(`s3://${A_SB}/fields.gpkg`, `s3://${A_SB}/out`)), a.bearer);
    expect(r.status).toBe(201);
    aTask = ((await r.json()) as { id: string }).id;
    await E.BUCKETS.put(`${A_SB}/out/${aTask}/1.json`, '{"id":1,"response":"A private result"}');
    await E.BUCKETS.put(`${A_SB}/scripts/b4.js`, aggregation().evalscript as string);
  });

  it("B can neither write over A's results, run over A's GeoPackage nor read A's evalscriptReference: 403 each", async () => {
    const before = await objectState(A_SB, `out/${aTask}/1.json`);
    const own = `s3://tenant-b-sb/fields.gpkg`;
    const attempts = [
      body(own, `s3://${A_SB}/out/${aTask}/<ID>.json`),
      body(`s3://${A_SB}/fields.gpkg`, "s3://tenant-b-sb/out"),
      body(`s3://${A_SB}/no-such.gpkg`, "s3://tenant-b-sb/out"),
      body(
        own,
        "s3://tenant-b-sb/out",
        aggregation({ evalscript: undefined, evalscriptReference: { s3: { url: `s3://${A_SB}/scripts/b4.js` } } }),
      ),
    ];
    const messages = [];
    for (const attempt of attempts)
      messages.push(
        await refused(await authed(STATBATCH, jsonInit("POST", attempt), b.bearer), [
          "A private result",
          "fields.gpkg",
          "b4.js",
        ]),
      );
    expect(new Set(messages).size).toBe(1);
    expect(((await (await authed(STATBATCH, {}, b.bearer)).json()) as { data: unknown[] }).data).toEqual([]);
    expect(await objectState(A_SB, `out/${aTask}/1.json`)).toEqual(before);
  });

  it("B with its own bucket is not affected by A's: 201", async () => {
    const r = await authed(
      STATBATCH,
      jsonInit("POST", body("s3://tenant-b-sb/fields.gpkg", "s3://tenant-b-sb/out")),
      b.bearer,
    );
    expect(r.status, await r.clone().text()).toBe(201);
  });
});

describe("batch and async keep the account of the submission", () => {
  it("B's 403 names only A's bucket, never an object key of it", async () => {
    const message = await refused(await batchCall("", b.bearer, "POST", batchRequest("tenant-a-batch")));
    expect(message).toMatch(/tenant-a-batch/);
    expect(message).not.toMatch(/29RKH|default\.tiff|out\//);
    expect((await authed(BATCH, {}, b.bearer)).status).toBe(200);
  });
});

/**
 * Zarr collections end to end (workerd, real D1 and R2): the 19-date West Flanders series written as one Zarr group
 * by test/reference/make-zarr.py is created from a local user bucket, ingested, listed and processed. Process and
 * Statistics on `zarr-<id>` equal the same requests on the built-in collection over the same 19 scenes' COGs
 * (the oracle: pixels the COG reader reads from the original files), data fusion of both subtracts to zero, the
 * catalog lists the time steps, and bad inputs give FAILED with ingestionErrors or a 4xx. Account-scoped.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { unitsStub } from "../../src/tasks/runner";
import { LEASE_POLICY } from "../../src/tasks/lease";
import { leaseZarrIngestion, unregisterZarr } from "../../src/zarr/ingest";
import { createClient } from "../../src/auth/clients";
import { authed, call, envelope, form, TOKEN_PATH } from "../helpers/auth";
import { CRS, process, readTiff } from "../helpers/process";
import { seedSamples } from "../helpers/seed";
import { statistics } from "../statistics/helpers";
import { putZarrFixture, settledZarr } from "../helpers/zarr";
import { getZarr, insertZarr } from "../../src/zarr/records";

const ROOT = "/api/v1/zarr/collections";
const WF = "s3://zarr-user/stores/westflanders.zarr/";
const BBOX = [501360, 5629040, 502000, 5629680];
const OWNER = crypto.randomUUID();
const OTHER = crypto.randomUUID();
let owner: string, other: string, id: string;

async function tokenFor(accountId: string): Promise<string> {
  const c = await createClient(env, { accountId, name: "zarr test" });
  const r = await call(TOKEN_PATH, form({ grant_type: "client_credentials", ...c }));
  return ((await r.json()) as { access_token: string }).access_token;
}

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
type Zarr = {
  id: string;
  status: string;
  ingestionErrors: string | null;
  width: number;
  height: number;
  name: string;
  envelope: { coordinates: number[][][] };
  additionalData: { bands: Record<string, unknown>; maxMetersPerPixel: number };
};

/** Creates a collection: the answer (status, CREATED, the spec's first state) and the collection once ingested. */
async function createZarr(
  body: Record<string, unknown>,
  bearer = owner,
): Promise<{ status: number; created: Zarr; data: Zarr }> {
  const r = await authed(ROOT, json("POST", { name: "West Flanders", crs: CRS(32631), ...body }), bearer);
  const created = ((await r.json()) as { data: Zarr }).data;
  return { status: r.status, created, data: r.status === 201 ? await settledZarr(bearer, created.id) : created };
}

const SCRIPT = `//VERSION=3
function setup(){return {input:[{bands:["B04","B08","dataMask"],units:"DN"}], output:{bands:3, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [s.B04, s.B08, s.dataMask]}`;

function processBody(type: string, from: string, to: string, evalscript = SCRIPT) {
  return {
    input: {
      bounds: { bbox: BBOX, properties: { crs: CRS(32631) } },
      data: [{ type, dataFilter: { timeRange: { from, to } }, processing: { harmonizeValues: false } }],
    },
    output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
    evalscript,
  };
}

async function pixels(type: string, from: string, to: string, evalscript?: string): Promise<number[]> {
  const r = await process(processBody(type, from, to, evalscript), owner);
  if (r.status !== 200) expect.fail(await r.text());
  return Array.from((await readTiff(await r.arrayBuffer())).data);
}

beforeAll(async () => {
  await seedSamples((i) => i.assets.B04?.href.includes("westflanders") ?? false);
  await putZarrFixture("westflanders.zarr", WF);
  [owner, other] = await Promise.all([tokenFor(OWNER), tokenFor(OTHER)]);
  const created = await createZarr({ s3Bucket: "zarr-user", path: "stores/westflanders.zarr/" });
  expect([created.status, created.created.status, created.created.ingestionErrors]).toEqual([201, "CREATED", null]);
  id = created.data.id;
});

describe("a Zarr collection from the West Flanders group", () => {
  it("is INGESTED with its grid, bands and arrays", async () => {
    const r = await authed(`/zarr/v1/collections/${id}`, {}, owner);
    const { data } = (await r.json()) as { data: Zarr & Record<string, unknown> };
    expect([data.status, data.ingestionErrors, data.width, data.height, data.s3Bucket, data.path]).toEqual([
      "INGESTED",
      null,
      64,
      64,
      "zarr-user",
      "stores/westflanders.zarr/",
    ]);
    expect(data.envelope.coordinates[0]![0]).toEqual([501360, 5629040]);
    expect(data.envelope.coordinates[0]![2]).toEqual([502000, 5629680]);
    expect(Object.keys(data.additionalData.bands)).toEqual(["B02", "B03", "B04", "B08"]);
    expect(data.additionalData.bands.B04).toEqual({ bitDepth: 32, sampleFormat: "UINT", noData: 0, aliases: [] });
    expect(data.additionalData.maxMetersPerPixel).toBe(30);
    const arrays = (await (await authed(`${ROOT}/${id}/arrays?count=2`, {}, owner)).json()) as {
      data: { name: string }[];
      links: { next?: string };
    };
    expect(arrays.data.map((a) => a.name)).toEqual(["B02", "B03"]);
    expect(arrays.links.next).toBeDefined();
    const one = (await (await authed(`${ROOT}/${id}/arrays/B04`, {}, owner)).json()) as {
      data: { path: string; zarray: { shape: number[]; dtype: string }; zattrs: unknown };
    };
    expect([one.data.path, one.data.zarray.shape, one.data.zarray.dtype]).toEqual([
      "stores/westflanders.zarr/B04/",
      [19, 64, 64],
      "<u4",
    ]);
    expect(one.data.zattrs).toEqual({ _ARRAY_DIMENSIONS: ["time", "y", "x"] });
    expect((await authed(`${ROOT}/${id}/arrays/B05`, {}, owner)).status).toBe(404);
  });

  it("Process: each date equals the built-in collection over the same COGs (SIMPLE, one scene)", async () => {
    for (const [from, to] of [
      ["2017-08-24T00:00:00Z", "2017-08-25T00:00:00Z"],
      ["2018-04-16T00:00:00Z", "2018-04-17T00:00:00Z"],
    ]) {
      const z = await pixels(`zarr-${id}`, from!, to!);
      expect(z.filter((v, i) => i % 3 === 2 && v === 1).length).toBeGreaterThan(4000);
      expect(z).toEqual(await pixels("sentinel-2-l2a", from!, to!));
    }
  });

  it("Process: mosaicking over six dates (ORBIT, all samples) equals the built-in collection", async () => {
    const script = `//VERSION=3
function setup(){return {input:[{bands:["B04","dataMask"],units:"DN"}], output:{bands:2, sampleType:"FLOAT32"}, mosaicking:"ORBIT"}}
function evaluatePixel(s){let n=0,sum=0;for(const x of s){if(x.dataMask){n++;sum+=x.B04}}return [n, n?sum/n:0]}`;
    const z = await pixels(`zarr-${id}`, "2018-04-10T00:00:00Z", "2018-04-27T00:00:00Z", script);
    expect(z[0]).toBe(6);
    expect(z).toEqual(await pixels("sentinel-2-l2a", "2018-04-10T00:00:00Z", "2018-04-27T00:00:00Z", script));
  });

  it("data fusion with the built-in collection: zarr B04 minus file B04 is 0 everywhere", async () => {
    const body = processBody(
      "x",
      "2018-04-19T00:00:00Z",
      "2018-04-20T00:00:00Z",
      `//VERSION=3
function setup(){return {input:[{datasource:"z",bands:["B04"],units:"DN"},{datasource:"s2",bands:["B04"],units:"DN"}], output:{bands:2, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [s.z[0].B04 - s.s2[0].B04, s.z[0].B04]}`,
    );
    const d0 = body.input.data[0]!;
    body.input.data = [
      { ...d0, id: "z", type: `zarr-${id}` } as typeof d0,
      { ...d0, id: "s2", type: "sentinel-2-l2a" } as typeof d0,
    ];
    const r = await process(body, owner);
    if (r.status !== 200) expect.fail(await r.text());
    const v = Array.from((await readTiff(await r.arrayBuffer())).data);
    expect(v.filter((_, i) => i % 2 === 0).every((x) => x === 0)).toBe(true);
    expect(v.filter((x, i) => i % 2 === 1 && x > 0).length).toBe(64 * 64);
  });

  it("Statistics: daily B04 statistics equal the built-in collection's", async () => {
    const stats = async (type: string) => {
      const body = {
        input: {
          bounds: { bbox: BBOX, properties: { crs: CRS(32631) } },
          data: [{ type, processing: { harmonizeValues: false } }],
        },
        aggregation: {
          timeRange: { from: "2018-04-01T00:00:00Z", to: "2018-05-01T00:00:00Z" },
          aggregationInterval: { of: "P1D" },
          width: 64,
          height: 64,
          evalscript: `//VERSION=3
function setup(){return {input:[{bands:["B04","dataMask"],units:"DN"}], output:[{id:"default",bands:1,sampleType:"FLOAT32"},{id:"dataMask",bands:1}]}}
function evaluatePixel(s){return {default:[s.B04], dataMask:[s.dataMask]}}`,
        },
        calculations: { default: { statistics: { default: { percentiles: { k: [50] } } } } },
      };
      const r = await statistics(body, owner);
      expect(r.status, await r.clone().text()).toBe(200);
      return ((await r.json()) as { data: unknown[] }).data;
    };
    const z = await stats(`zarr-${id}`);
    expect(z).toHaveLength(6);
    expect(z).toEqual(await stats("sentinel-2-l2a"));
  });

  it("catalog: the 19 time steps are items of zarr-<id> for the owner only", async () => {
    const cat = `/api/v1/catalog/1.0.0/collections/zarr-${id}`;
    const items = (await (await authed(`${cat}/items?limit=100`, {}, owner)).json()) as {
      features: { id: string; properties: { datetime: string } }[];
    };
    expect(items.features).toHaveLength(19);
    expect(items.features.map((f) => f.properties.datetime)).toContain("2018-04-19T11:01:27Z");
    expect((await authed(cat, {}, other)).status).toBe(404);
  });

  it("collection metadata: custom dataset with the bands' sample types (owner only)", async () => {
    const path = `/api/v1/metadata/collection/zarr-${id}`;
    const m = (await (await authed(path, {}, owner)).json()) as { id: string; datasetType: string; bands: unknown[] };
    expect([m.id, m.datasetType]).toEqual([`zarr-${id}`, "custom"]);
    expect(m.bands).toEqual(["B02", "B03", "B04", "B08"].map((name) => ({ name, sampleType: "UINT32" })));
    expect((await authed(path, {}, other)).status).toBe(404);
  });

  it("is its account's: another account gets 404 and cannot process it", async () => {
    expect((await authed(`${ROOT}/${id}`, {}, other)).status).toBe(404);
    expect((await authed(`${ROOT}/${id}/arrays`, {}, other)).status).toBe(404);
    const list = (await (await authed(ROOT, {}, other)).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
    const r = await process(processBody(`zarr-${id}`, "2018-04-19T00:00:00Z", "2018-04-20T00:00:00Z"), other);
    expect(r.status).toBe(404);
    expect(await envelope(r)).toMatchObject({
      message: `Zarr collection ${id} not found.`,
      code: "COMMON_NOT_FOUND",
      errors: { collection: `zarr-${id}` },
    });
  });
});

describe("lon / lat coordinate arrays", () => {
  it("a group naming its coordinates lon and lat ingests and processes like the x / y one", async () => {
    const renamed = (f: string) => f.replace(/^x\//, "lon/").replace(/^y\//, "lat/");
    await putZarrFixture("westflanders.zarr", "s3://zarr-user/stores/lonlat.zarr", (f, b) => {
      if (!f.endsWith(".zattrs") || /^(x|y|lon|lat)\//.test(f) === false) return [renamed(f), b];
      const text = new TextDecoder().decode(b).replace('"x"', '"lon"').replace('"y"', '"lat"');
      return [renamed(f), text];
    });
    const { data } = await createZarr({ s3Bucket: "zarr-user", path: "stores/lonlat.zarr/", name: "lon/lat" });
    expect([data.status, data.ingestionErrors]).toEqual(["INGESTED", null]);
    const day = ["2018-04-19T00:00:00Z", "2018-04-20T00:00:00Z"] as const;
    expect(await pixels(`zarr-${data.id}`, ...day)).toEqual(await pixels(`zarr-${id}`, ...day));
  });
});

describe("bad inputs", () => {
  const failed = async (path: string, bucket = "zarr-user") => {
    const { status, created, data } = await createZarr({ s3Bucket: bucket, path });
    expect([status, created.status]).toEqual([201, "CREATED"]);
    expect(data.status).toBe("FAILED");
    return data.ingestionErrors!;
  };

  it("not a Zarr group / an unknown bucket: FAILED naming the place", async () => {
    await env.BUCKETS.put("zarr-user/stores/plain/B04.tif", "not zarr");
    expect(await failed("stores/plain/")).toBe("s3://zarr-user/stores/plain/ holds no Zarr group (no .zgroup)");
    expect(await failed("x/", "no-such-bucket")).toContain("s3://no-such-bucket/x/ holds no Zarr group");
  });

  it("missing coordinate arrays", async () => {
    await putZarrFixture("westflanders.zarr", "s3://zarr-user/stores/nox.zarr", (f, b) =>
      f.startsWith("x/") ? null : b,
    );
    expect(await failed("stores/nox.zarr/")).toBe(
      "missing coordinate arrays: the group needs x and y (or lon and lat); found B02, B03, B04, B08, time, y",
    );
  });

  it("a time array without valid units", async () => {
    await putZarrFixture("westflanders.zarr", "s3://zarr-user/stores/notime.zarr", (f, b) =>
      f === "time/.zattrs" ? JSON.stringify({ _ARRAY_DIMENSIONS: ["time"], units: "fortnights since 2000-01-01" }) : b,
    );
    expect(await failed("stores/notime.zarr/")).toBe(
      'the time array\'s units attribute "fortnights since 2000-01-01" is not "<days|hours|minutes|seconds|millis|micros|nanos> since <ISO 8601 instant>"',
    );
  });

  it("mismatched shapes and unsupported types", async () => {
    await putZarrFixture("westflanders.zarr", "s3://zarr-user/stores/bad.zarr", (f, b) => {
      if (f !== "B08/.zarray" && f !== "B03/.zarray") return b;
      const z = JSON.parse(new TextDecoder().decode(b)) as { shape: number[]; dtype: string };
      if (f === "B08/.zarray") z.shape = [19, 64, 63];
      else z.dtype = "<u2";
      return JSON.stringify(z);
    });
    const errors = await failed("stores/bad.zarr/");
    expect(errors).toBe(
      'array B03 has dtype "<u2"; supported: u4, i4, f4, f8; array B08 is 63x64 (x by y) but the coordinate arrays are 64x64',
    );
  });

  it("4xx for a bad path, CRS or bucket name, nothing created", async () => {
    const before = ((await (await authed(ROOT, {}, owner)).json()) as { data: unknown[] }).data.length;
    for (const body of [
      { s3Bucket: "zarr-user", path: "/stores/westflanders.zarr/" },
      { s3Bucket: "zarr-user", path: "stores/westflanders.zarr" },
      { s3Bucket: "zarr-user", path: "stores/westflanders.zarr/", crs: "EPSG:999999" },
      { s3Bucket: "Bad_Bucket", path: "stores/westflanders.zarr/" },
    ]) {
      const r = await authed(ROOT, json("POST", { name: "bad", crs: CRS(32631), ...body }), owner);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect((await envelope(r)).message.length).toBeGreaterThan(10);
    }
    expect(((await (await authed(ROOT, {}, owner)).json()) as { data: unknown[] }).data.length).toBe(before);
  });
});

describe("update, reingest, delete", () => {
  it("renames, reingests, deletes (then 404 and no longer processable)", async () => {
    const { data } = await createZarr({ s3Bucket: "zarr-user", path: "stores/westflanders.zarr/", name: "copy" });
    expect((await authed(`${ROOT}/${data.id}`, json("PUT", { name: "renamed" }), owner)).status).toBe(204);
    const found = (await (await authed(`${ROOT}?search=RENAMED`, {}, owner)).json()) as { data: Zarr[] };
    expect(found.data.map((d) => d.id)).toEqual([data.id]);
    const re = await authed(`${ROOT}/${data.id}/reingest`, { method: "PUT" }, owner);
    expect(re.status).toBe(200);
    expect(((await re.json()) as { data: Zarr }).data).toMatchObject({ status: "INGESTED", name: "renamed" });
    expect((await pixels(`zarr-${data.id}`, "2018-04-19T00:00:00Z", "2018-04-20T00:00:00Z")).length).toBe(64 * 64 * 3);
    expect((await authed(`${ROOT}/${data.id}`, { method: "DELETE" }, owner)).status).toBe(204);
    expect((await authed(`${ROOT}/${data.id}`, {}, owner)).status).toBe(404);
    expect(
      (await process(processBody(`zarr-${data.id}`, "2018-04-19T00:00:00Z", "2018-04-20T00:00:00Z"), owner)).status,
    ).toBe(404);
  });
});

describe("an ingestion killed mid-way (nothing in flight is lost)", () => {
  /** A copy of the group's collection left as a killed request leaves it: INGESTING, unregistered, its unit claimed. */
  async function killedIngestion(name: string) {
    const { data } = await createZarr({ s3Bucket: "zarr-user", path: "stores/westflanders.zarr/", name });
    await unregisterZarr(env, data.id);
    await env.DB.prepare("UPDATE zarr_collections SET status = 'INGESTING' WHERE id = ?").bind(data.id).run();
    const units = unitsStub(env, `zarr:${data.id}`);
    await units.putUnits([{ id: "ingest", message: { kind: "zarr-ingest", collection: data.id, account: OWNER } }]);
    expect((await units.claimUnit("ingest", "request:killed")).run).toBe(true);
    return { id: data.id, units };
  }
  const expire = (units: ReturnType<typeof unitsStub>) =>
    runInDurableObject(units, (_o, state) => void state.storage.sql.exec("UPDATE task_units SET lease_until = 0"));
  const get = async (zid: string) =>
    ((await (await authed(`${ROOT}/${zid}`, {}, owner)).json()) as { data: Zarr }).data;

  it("reingest is refused while its lease runs; once it expired the alarm re-sends it and the queue ingests it", async () => {
    const { id: zid, units } = await killedIngestion("killed");
    const busy = await authed(`${ROOT}/${zid}/reingest`, { method: "PUT" }, owner);
    expect([busy.status, (await envelope(busy)).message]).toEqual([
      400,
      `Zarr collection '${zid}' is being ingested; reingest it once it is INGESTED or FAILED.`,
    ]);
    expect((await get(zid)).status).toBe("INGESTING");
    await expire(units);
    expect(await runDurableObjectAlarm(units)).toBe(true);
    await vi.waitFor(async () => expect((await get(zid)).status).toBe("INGESTED"), { timeout: 15_000, interval: 100 });
    expect(await units.unit("ingest")).toMatchObject({ status: "DONE", attempts: 2 });
    expect((await pixels(`zarr-${zid}`, "2018-04-19T00:00:00Z", "2018-04-20T00:00:00Z")).length).toBe(64 * 64 * 3);
  });

  it("a request killed after answering CREATED (the ingestion leased, never run): listed CREATED; the alarm sends it, INGESTED", async () => {
    const zid = crypto.randomUUID();
    await insertZarr(env, {
      id: zid,
      account: OWNER,
      name: "never run",
      s3Bucket: "zarr-user",
      path: "stores/westflanders.zarr/",
      crs: CRS(32631),
      created: new Date().toISOString(),
    });
    expect(await leaseZarrIngestion(env, (await getZarr(env, OWNER, zid))!)).toBe(true);
    expect((await get(zid)).status).toBe("CREATED");
    const units = unitsStub(env, `zarr:${zid}`);
    await expire(units);
    expect(await runDurableObjectAlarm(units)).toBe(true);
    expect((await settledZarr(owner, zid)).status).toBe("INGESTED");
    expect(await units.unit("ingest")).toMatchObject({ status: "DONE", attempts: 1 });
  });

  it("every attempt lost: FAILED with the cause, nothing registered; reingest then ingests it", async () => {
    const { id: zid, units } = await killedIngestion("dead");
    await expire(units);
    for (let i = 2; i <= LEASE_POLICY.maxAttempts; i++) {
      expect((await units.claimUnit("ingest", `request:killed-${i}`)).run).toBe(true);
      await expire(units);
    }
    expect(await runDurableObjectAlarm(units)).toBe(true);
    await vi.waitFor(async () => expect((await get(zid)).status).toBe("FAILED"), { timeout: 15_000, interval: 100 });
    expect((await get(zid)).ingestionErrors).toMatch(/^No attempt finished: 3 attempt\(s\) were each lost/);
    expect(
      (await process(processBody(`zarr-${zid}`, "2018-04-19T00:00:00Z", "2018-04-20T00:00:00Z"), owner)).status,
    ).toBe(404);
    const re = await authed(`${ROOT}/${zid}/reingest`, { method: "PUT" }, owner);
    expect(re.status).toBe(200);
    expect(((await re.json()) as { data: Zarr }).data.status).toBe("INGESTED");
  });
});

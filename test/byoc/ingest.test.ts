/**
 * BYOC ingestion failures and rules (workerd, real D1/R2/queue): each bad input ends FAILED with a cause or is a
 * 4xx with a message; the tile list, catalog and collection are never half-written; redelivered messages change
 * nothing; collection update rules (bucket, bands, sample format, noData, additionalData) and search.
 * Bad files: test/reference/make_byoc_fixtures.py (GDAL) -> test/fixtures/byoc.
 */
import { env } from "cloudflare:workers";
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { localBucket } from "../../src/buckets/local";
import { inspectTile } from "../../src/byoc/inspect";
import { getCollection } from "../../src/storage/byoc/store";
import { insertTile, moveTile, tileById } from "../../src/storage/byoc/tiles";
import { DEAD_LETTER_QUEUE_NAME, TASK_QUEUE_NAME } from "../../src/tasks/queue";
import { LEASE_POLICY } from "../../src/tasks/lease";
import { unitsStub } from "../../src/tasks/runner";
import type { TileStatus } from "../../src/storage/byoc/model";
import type { Env } from "../../src/env";
import { api, putInBucket, settled, tokenOf } from "../helpers/byoc";

const BUCKET = "byoc-bad";
const WF = "sentinel-2-l2a/westflanders/2017-08-24";
const C = "/api/v1/byoc/collections";
const OWNER = crypto.randomUUID();
let owner: string;

const BANDS16 = { B04: { bitDepth: 16, sampleFormat: "UINT" }, B08: { bitDepth: 16, sampleFormat: "UINT" } };

beforeAll(async () => {
  owner = await tokenOf(OWNER);
  for (const b of ["B04", "B08"]) await putInBucket(BUCKET, `good/${b}.tif`, `${WF}/${b}.tif`);
  await putInBucket(BUCKET, "stripped/B04.tif", "fixtures/byoc/stripped_B04.tif");
  await putInBucket(BUCKET, "stripped/B08.tif", `${WF}/B08.tif`);
  await putInBucket(BUCKET, "crs/B04.tif", `${WF}/B04.tif`);
  await putInBucket(BUCKET, "crs/B08.tif", "fixtures/byoc/wgs84_B08.tif");
  await putInBucket(BUCKET, "missing/B04.tif", `${WF}/B04.tif`);
  await putInBucket(BUCKET, "uint8/B04.tif", "fixtures/byoc/uint8_B04.tif");
  await putInBucket(BUCKET, "uint8/B08.tif", `${WF}/B08.tif`);
});

async function newCollection(body: Record<string, unknown> = {}): Promise<string> {
  const r = await api(owner, "POST", C, {
    name: "bad inputs",
    s3Bucket: BUCKET,
    additionalData: { bands: BANDS16 },
    ...body,
  });
  expect(r.status).toBe(201);
  return r.json.data.id;
}

/** Creates a tile at `path` and waits for its end state. */
async function ingest(c: string, path: string): Promise<any> {
  const r = await api(owner, "POST", `${C}/${c}/tiles`, { path, sensingTime: "2017-08-24T10:52:40Z" });
  expect(r.status).toBe(201);
  expect(r.json.data.status).toBe("WAITING"); // the spec's first state; queued right after the answer
  return settled(owner, c, r.json.data.id);
}

async function itemCount(c: string): Promise<number> {
  return (await env.DB.prepare("SELECT count(*) AS n FROM items WHERE collection = ?")
    .bind(`byoc-${c}`)
    .first<number>("n"))!;
}

describe("bad inputs: FAILED with a cause, nothing half-registered", () => {
  const cases: [string, string, RegExp][] = [
    ["a stripped (non-COG) GeoTIFF", "stripped", /stored in strips, not tiles/],
    ["mismatched CRS between bands", "crs", /share a CRS: .*EPSG:32631.*EPSG:4326/],
    ["a missing band file", "missing", /Band file missing\/B08.tif is missing/],
    [
      "bit depth other than the collection's bands (bands changed after the first tile)",
      "uint8",
      /B04: file uint8\/B04.tif holds 8-bit UINT samples, the collection's band is 16-bit UINT/,
    ],
  ];
  for (const [what, path, cause] of cases)
    it(what, async () => {
      const c = await newCollection();
      const t = await ingest(c, path);
      expect(t.status).toBe("FAILED");
      expect(t.additionalData.failedIngestionCause).toMatch(cause);
      expect(t.tileGeometry).toBeUndefined();
      expect(await itemCount(c)).toBe(0);
    });

  it("a bucket that does not exist (a local bucket without any object)", async () => {
    const c = await newCollection({ s3Bucket: "no-such-bucket", additionalData: {} });
    const t = await ingest(c, "anything/(BAND)");
    expect(t.additionalData.failedIngestionCause).toBe("Bucket 'no-such-bucket' does not exist or is empty.");
    const col = (await api(owner, "GET", `${C}/${c}`)).json.data;
    expect([col.isConfigured, col.additionalData.bands]).toEqual([false, {}]);
  });

  it("a path with a leading '/' is a 400 naming the rule; a duplicate path a 409", async () => {
    const c = await newCollection();
    const r = await api(owner, "POST", `${C}/${c}/tiles`, { path: "/good" });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toMatch(/path: a path within the bucket that neither starts nor ends with '\/'/);
    expect((await ingest(c, "good")).status).toBe("INGESTED");
    const dup = await api(owner, "POST", `${C}/${c}/tiles`, { path: "good" });
    expect([dup.status, dup.json.error.message]).toEqual([409, "The collection already has a tile with path 'good'."]);
  });
});

describe("collection rules", () => {
  it("two first tiles of a collection without bands: one configures it, the other is checked against those bands", async () => {
    const c = await newCollection({ additionalData: {} });
    const [two, one] = await Promise.all(
      ["good", "missing"].map((path) => api(owner, "POST", `${C}/${c}/tiles`, { path })),
    );
    const [t2, t1] = [await settled(owner, c, two!.json.data.id), await settled(owner, c, one!.json.data.id)];
    const bands = Object.keys((await api(owner, "GET", `${C}/${c}`)).json.data.additionalData.bands);
    const rows = await env.DB.prepare("SELECT name FROM collection_bands WHERE collection = ? ORDER BY position")
      .bind(c)
      .all<{ name: string }>();
    expect(rows.results.map((r) => r.name)).toEqual(bands);
    if (bands.length === 2)
      expect([t2.status, t1.status, t1.additionalData.failedIngestionCause]).toEqual([
        "INGESTED",
        "FAILED",
        "Band file missing/B08.tif is missing in bucket 'byoc-bad'; the files expected for path 'missing': missing/B04.tif, missing/B08.tif.",
      ]);
    else expect([bands, t2.status, t1.status]).toEqual([["B04"], "INGESTED", "INGESTED"]);
  });

  it("bands cannot be added or changed after the first tile; renames and removals can; the bucket only while empty", async () => {
    const c = await newCollection();
    expect((await ingest(c, "good")).status).toBe("INGESTED");
    const add = await api(owner, "PUT", `${C}/${c}`, {
      name: "x",
      s3Bucket: BUCKET,
      additionalData: { bands: { ...BANDS16, B02: { bitDepth: 16, sampleFormat: "UINT" } } },
    });
    expect([add.status, add.json.error.message]).toEqual([
      400,
      expect.stringContaining("Band B02: the collection has 1 tile(s), so bands cannot be added"),
    ]);
    const depth = await api(owner, "PUT", `${C}/${c}`, {
      name: "x",
      s3Bucket: BUCKET,
      additionalData: { bands: { ...BANDS16, B08: { bitDepth: 8, sampleFormat: "UINT" } } },
    });
    expect(depth.status).toBe(400);
    const fmt = await api(owner, "PUT", `${C}/${c}`, {
      name: "x",
      s3Bucket: BUCKET,
      additionalData: { bands: { B04: { bitDepth: 16, sampleFormat: "INT" } } },
    });
    expect(fmt.json.error.message).toMatch(/sample format is UINT and cannot change/);
    const bucket = await api(owner, "PUT", `${C}/${c}`, { name: "x", s3Bucket: "other-bucket" });
    expect([bucket.status, bucket.json.error.message]).toEqual([
      400,
      "s3Bucket can change only while the collection is empty; it has 1 tile(s).",
    ]);
    const rename = await api(owner, "PUT", `${C}/${c}`, {
      name: "renamed",
      s3Bucket: BUCKET,
      noData: 0,
      additionalData: { bands: { RED: { source: "B04", bitDepth: 16, sampleFormat: "UINT" } } },
    });
    expect(rename.status).toBe(204);
    const got = (await api(owner, "GET", `${C}/${c}`)).json.data;
    expect([got.name, got.noData, Object.keys(got.additionalData.bands)]).toEqual(["renamed", 0, ["RED"]]);
    // the item follows the rename: RED is processable, read from B04.tif
    const item = (await api(owner, "GET", `/api/v1/catalog/1.0.0/collections/byoc-${c}/items`)).json.features[0];
    expect(item.assets["B04.tif"]["eo:bands"]).toEqual([{ name: "RED" }]);
    // noData omitted deletes it; additionalData omitted keeps the bands
    expect((await api(owner, "PUT", `${C}/${c}`, { name: "renamed", s3Bucket: BUCKET })).status).toBe(204);
    const kept = (await api(owner, "GET", `${C}/${c}`)).json.data;
    expect([kept.noData, Object.keys(kept.additionalData.bands)]).toEqual([undefined, ["RED"]]);
    // null is omitted (clients serialising unset fields)
    expect(
      (
        await api(owner, "PUT", `${C}/${c}`, {
          name: "renamed",
          s3Bucket: BUCKET,
          noData: null,
          additionalData: null,
          created: null,
        })
      ).status,
    ).toBe(204);
    expect(Object.keys((await api(owner, "GET", `${C}/${c}`)).json.data.additionalData.bands)).toEqual(["RED"]);
    // all bands removed (additionalData without bands, or with empty bands): only once the collection is empty
    for (const additionalData of [{}, { bands: {} }]) {
      const all = await api(owner, "PUT", `${C}/${c}`, { name: "renamed", s3Bucket: BUCKET, additionalData });
      expect([all.status, all.json.error.message]).toEqual([
        400,
        expect.stringMatching(/would remove all 1 band\(s\); the collection has 1 tile\(s\): delete them first/),
      ]);
    }
    const [tile] = (await api(owner, "GET", `${C}/${c}/tiles`)).json.data;
    expect((await api(owner, "DELETE", `${C}/${c}/tiles/${tile.id}`)).status).toBe(204);
    expect(
      (await api(owner, "PUT", `${C}/${c}`, { name: "renamed", s3Bucket: BUCKET, additionalData: { bands: {} } }))
        .status,
    ).toBe(204);
    const emptied = (await api(owner, "GET", `${C}/${c}`)).json.data;
    expect([emptied.isConfigured, emptied.additionalData.bands]).toEqual([false, {}]);
  });

  it("bands carry the read-only aliases[] (OpenAPI BYOCFormat); aliases sent back are ignored", async () => {
    const c = await newCollection();
    const got = (await api(owner, "GET", `${C}/${c}`)).json.data;
    expect(got.additionalData.bands.B04).toEqual({
      source: "B04",
      bandIndex: 1,
      bitDepth: 16,
      sampleFormat: "UINT",
      aliases: [],
    });
    // sentinelhub-py's update sends the collection it read, read-only members included
    expect(
      (
        await api(owner, "PUT", `${C}/${c}`, {
          ...got,
          additionalData: {
            bands: { ...got.additionalData.bands, B04: { ...got.additionalData.bands.B04, aliases: ["RED"] } },
          },
        })
      ).status,
    ).toBe(204);
    expect((await api(owner, "GET", `${C}/${c}`)).json.data.additionalData.bands.B04.aliases).toEqual([]);
  });

  it("query: count, viewtoken and search with | and &", async () => {
    const token = await tokenOf(crypto.randomUUID());
    for (const name of ["alpha beta", "beta gamma", "delta"])
      await api(token, "POST", C, { name, s3Bucket: "byoc-query" }); // its own bucket: BUCKET is OWNER's
    const names = async (q: string) =>
      (await api(token, "GET", `${C}?${q}`)).json.data.map((c: { name: string }) => c.name);
    expect(await names("search=beta")).toEqual(["alpha beta", "beta gamma"]);
    expect(await names(`search=${encodeURIComponent("alpha|delta")}`)).toEqual(["alpha beta", "delta"]);
    expect(await names(`search=${encodeURIComponent("beta&gamma")}`)).toEqual(["beta gamma"]);
    const first = (await api(token, "GET", `${C}?count=2`)).json;
    expect(first.data.length).toBe(2);
    const second = (await api(token, "GET", `${C}?count=2&viewtoken=${first.links.nextToken}`)).json;
    expect(second.data.map((c: { name: string }) => c.name)).toEqual(["delta"]);
    expect((await api(token, "GET", `${C}?count=101`)).status).toBe(400);
  });
});

describe("redelivery and reingest", () => {
  it("a redelivered message for an INGESTED tile changes nothing; reingest runs it again", async () => {
    const c = await newCollection();
    const t = await ingest(c, "good");
    const before = await tileById(env, t.id);
    // the file is gone: a re-run of the ingestion would FAIL the tile, a redelivery must not re-run it
    const store = localBucket(env.BUCKETS, BUCKET);
    await store.delete("good/B08.tif");
    const batch = createMessageBatch(TASK_QUEUE_NAME, [
      { id: "redelivered", timestamp: new Date(), attempts: 2, body: { kind: "byoc-ingest", tile: t.id } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env as unknown as Env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["redelivered"]);
    expect(await tileById(env, t.id)).toEqual(before);
    expect(await itemCount(c)).toBe(1);
    await putInBucket(BUCKET, "good/B08.tif", `${WF}/B08.tif`);
    expect((await api(owner, "POST", `${C}/${c}/tiles/${t.id}/reingest`)).status).toBe(204);
    expect((await settled(owner, c, t.id)).status).toBe("INGESTED");
    expect(await itemCount(c)).toBe(1);
    expect((await api(owner, "DELETE", `${C}/${c}/tiles/${t.id}`)).status).toBe(204);
    expect(await itemCount(c)).toBe(0);
  });

  it("a message that failed every attempt (dead letter) ends the tile FAILED with a cause", async () => {
    const c = await newCollection();
    const id = crypto.randomUUID();
    await insertTile(env, {
      id,
      collection: c,
      account: OWNER,
      path: "good",
      status: "WAITING",
      sensingTime: null,
      coverGeometry: null,
      tileGeometry: null,
      tileEpsg: null,
      nativeBbox: null,
      metersPerPixel: null,
      failedCause: null,
      warnings: null,
      created: new Date().toISOString(),
    });
    expect(await moveTile(env, id, ["WAITING"], "QUEUED")).toBe(true);
    const batch = createMessageBatch(DEAD_LETTER_QUEUE_NAME, [
      { id: "dead", timestamp: new Date(), attempts: 1, body: { kind: "byoc-ingest", tile: id } },
    ]);
    await worker.queue(batch, env as unknown as Env);
    const t = await tileById(env, id);
    expect([t?.status, t?.failedCause]).toEqual([
      "FAILED",
      "Ingestion failed repeatedly (storage errors). Reingest the tile to try again.",
    ]);
    expect(await itemCount(c)).toBe(0);
  });

  it("ingestion time per tile (headers only), reported", async () => {
    const id = await newCollection();
    const c = (await getCollection(env, OWNER, id))!;
    const tile = {
      id: "t",
      collection: id,
      account: OWNER,
      path: "good",
      status: "INGESTING" as const,
      sensingTime: null,
      coverGeometry: null,
      tileGeometry: null,
      tileEpsg: null,
      nativeBbox: null,
      metersPerPixel: null,
      failedCause: null,
      warnings: null,
      created: "",
    };
    const t0 = performance.now();
    const n = 10;
    let bytes = 0;
    for (let i = 0; i < n; i++) bytes += (await inspectTile(env, c, tile)).headerBytes;
    console.log(
      `BYOC inspect: ${((performance.now() - t0) / n).toFixed(1)} ms per 2-band tile, ${bytes / n} header bytes read per tile`,
    );
  });
});

/** A WAITING tile of collection `c` at `path`, inserted directly (no message). */
async function waitingTile(c: string, path = "good"): Promise<string> {
  const id = crypto.randomUUID();
  await insertTile(env, {
    id,
    collection: c,
    account: OWNER,
    path,
    status: "WAITING",
    sensingTime: null,
    coverGeometry: null,
    tileGeometry: null,
    tileEpsg: null,
    nativeBbox: null,
    metersPerPixel: null,
    failedCause: null,
    warnings: null,
    created: new Date().toISOString(),
  });
  return id;
}

/** The collection's ingestion units (one per tile) and a tile's unit put as enqueueIngestion puts it, never sent. */
async function leasedTile(c: string, to: TileStatus): Promise<{ id: string; units: ReturnType<typeof unitsStub> }> {
  const id = await waitingTile(c);
  const units = unitsStub(env, `byoc:${c}`);
  await units.putUnits([{ id, message: { kind: "byoc-ingest", tile: id, collection: c } }]);
  expect(await moveTile(env, id, ["WAITING"], to)).toBe(true);
  return { id, units };
}

/** The lease of tile `id`'s ingestion ran out (the Worker holding it died). */
const expire = (units: ReturnType<typeof unitsStub>, id: string) =>
  runInDurableObject(
    units,
    (_o, state) => void state.storage.sql.exec("UPDATE task_units SET lease_until = 0 WHERE id = ?", id),
  );

const reingest = (c: string, id: string) => api(owner, "POST", `${C}/${c}/tiles/${id}/reingest`);

/** The units' alarm sends tile `id`'s unit and the queue ingests the tile, once (one attempt, one item). */
async function alarmIngestsOnce(units: ReturnType<typeof unitsStub>, c: string, id: string): Promise<void> {
  expect(await runDurableObjectAlarm(units)).toBe(true);
  expect((await settled(owner, c, id)).status).toBe("INGESTED");
  expect(await units.unit(id)).toMatchObject({ status: "DONE", attempts: 1 });
  expect(await itemCount(c)).toBe(1);
}

describe("nothing in flight is lost: leased ingestion", () => {
  it("a tile QUEUED when the server died (message never sent): busy for reingest; the alarm re-sends it, INGESTED once", async () => {
    const c = await newCollection();
    const { id, units } = await leasedTile(c, "QUEUED");
    const refused = await reingest(c, id);
    expect([refused.status, refused.json.error.message]).toEqual([
      400,
      `Tile ${id} is QUEUED and its ingestion is under way; reingest it once it is INGESTED or FAILED.`,
    ]);
    await alarmIngestsOnce(units, c, id);
  });

  it("a tile INGESTING when its Worker was killed: reingest refused while the lease runs, accepted once it expired", async () => {
    const c = await newCollection();
    const { id, units } = await leasedTile(c, "INGESTING");
    expect((await units.claimUnit(id, "killed#1")).run).toBe(true);
    expect((await reingest(c, id)).status).toBe(400);
    await expire(units, id);
    expect((await reingest(c, id)).status).toBe(204);
    expect((await settled(owner, c, id)).status).toBe("INGESTED");
    expect(await units.unit(id)).toMatchObject({ status: "DONE", attempts: 1 }); // started over by the reingest
    expect(await itemCount(c)).toBe(1);
  });

  it("every attempt lost: the alarm ends the tile FAILED with the cause; reingest then ingests it", async () => {
    const c = await newCollection();
    const { id, units } = await leasedTile(c, "INGESTING");
    for (let i = 1; i <= LEASE_POLICY.maxAttempts; i++) {
      expect((await units.claimUnit(id, `killed#${i}`)).run).toBe(true);
      await expire(units, id);
    }
    expect(await runDurableObjectAlarm(units)).toBe(true);
    const failed = await settled(owner, c, id);
    expect([failed.status, failed.additionalData.failedIngestionCause]).toEqual([
      "FAILED",
      "No attempt finished: 3 attempt(s) were each lost (the service stopped, or the work stalled for more than 60 s) or failed. Reingest the tile to try again.",
    ]);
    expect(await units.unit(id)).toMatchObject({ status: "FAILED" });
    expect((await reingest(c, id)).status).toBe(204);
    expect((await settled(owner, c, id)).status).toBe("INGESTED");
  });

  it("a new tile whose Worker died after answering WAITING (never queued): listed WAITING; the alarm sends it, INGESTED once", async () => {
    const c = await newCollection();
    const { id, units } = await leasedTile(c, "WAITING");
    const waiting = await api(owner, "GET", `${C}/${c}/tiles?status=WAITING`);
    expect(waiting.json.data.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([[id, "WAITING"]]);
    await expire(units, id);
    await alarmIngestsOnce(units, c, id);
  });

  it("a tile QUEUED without a unit (queued before leases existed, its message lost) can be reingested", async () => {
    const c = await newCollection();
    const id = await waitingTile(c);
    expect(await moveTile(env, id, ["WAITING"], "QUEUED")).toBe(true);
    expect((await reingest(c, id)).status).toBe(204);
    expect((await settled(owner, c, id)).status).toBe("INGESTED");
  });
});

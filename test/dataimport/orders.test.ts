/**
 * Orders end to end on the SAMPLE provider (interface spec 4.10, 4.12, 4.13 and the Order state table): quote
 * (sqkm = max(area on the WGS84 ellipsoid, the provider's 1 km2 minimum), the area checked against the closed form
 * of an ellipsoidal quadrangle), confirm (collection made, id returned), deliveries to DONE, ingestion, Process on
 * the new BYOC collection equal to the built-in collection pixel for pixel, files with Range and HEAD, tiles, zip
 * archive; every rejection (double and raced confirms, delete while RUNNING, quota exceeded with availableQuota and
 * requiredQuota), the quota charged exactly once, deleted orders hidden unless deleted=true.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, tokenOf } from "../helpers/byoc";
import { sampleFile } from "../helpers/seed";
import { wfB04 } from "../tenancy/helpers";
import {
  DI,
  di,
  endedDeliveries,
  ok,
  refusedWith,
  sampleInput,
  seedWestFlanders,
  until,
  westFlandersItems,
  type DeliveryJson,
  type RecordJson,
} from "./helpers";
import { authed, callWithEnv } from "../helpers/auth";

/** The area of the quadrangle lon0..lon1, lat0..lat1 on the WGS84 ellipsoid, km2 (closed form, e.g. Snyder 1987 eq. 3-12 integrated). */
function quadrangleKm2(lon0: number, lat0: number, lon1: number, lat1: number): number {
  const a = 6378137,
    f = 1 / 298.257223563,
    b = a * (1 - f),
    e = Math.sqrt(f * (2 - f));
  const q = (phi: number) => {
    const s = Math.sin((phi * Math.PI) / 180);
    return s / (1 - e * e * s * s) + Math.log((1 + e * s) / (1 - e * s)) / (2 * e);
  };
  return (((b * b * ((lon1 - lon0) * Math.PI)) / 180 / 2) * (q(lat1) - q(lat0))) / 1e6;
}

let bearer: string;
let august: string; // the 2017-08-24 scene: the one test/tenancy's wfRequest reads
beforeAll(async () => {
  await seedWestFlanders();
  bearer = await tokenOf(crypto.randomUUID());
  august = (await westFlandersItems()).find((i) => i.properties.datetime.startsWith("2017-08-24"))!.id;
});

const orderOf = (itemIds: string[], bounds?: unknown) => {
  const input = sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z", { itemIds });
  return { name: "West Flanders order", input: bounds ? { ...input, bounds } : input };
};

describe("quote", () => {
  it("charges the provider minimum for a small area, the ellipsoidal area for a large one", async () => {
    const small = await ok<RecordJson>(await di("/orders", bearer, "POST", orderOf([august])));
    expect(small).toMatchObject({ status: "CREATED", sqkm: 1, name: "West Flanders order" });
    expect(small.collectionId).toBeUndefined();
    expect(JSON.stringify(small)).not.toContain("planetApiKey");
    const large = await ok<RecordJson>(
      await di("/orders", bearer, "POST", orderOf([august], { bbox: [2.5, 50.5, 3.5, 51.5] })),
    );
    expect(large.sqkm / quadrangleKm2(2.5, 50.5, 3.5, 51.5)).toBeCloseTo(1, 5);
    const equator = await ok<RecordJson>(
      await di("/orders", bearer, "POST", orderOf([august], { bbox: [0, 0, 1, 1] })),
    );
    expect(equator.sqkm).toBeCloseTo(quadrangleKm2(0, 0, 1, 1), 0); // 12308.8 km2, not a sphere's 12391
    expect(equator.sqkm).toBeGreaterThan(12300);
    expect(equator.sqkm).toBeLessThan(12320);
  });

  it("orders the products a query matches when no itemIds are given, and refuses bad input", async () => {
    const q = await ok<RecordJson>(
      await di("/orders", bearer, "POST", {
        name: "autumn",
        input: sampleInput("2017-09-01T00:00:00Z", "2017-11-30T00:00:00Z"),
      }),
    );
    expect(q.status).toBe("CREATED");
    await refusedWith(
      await di("/orders", bearer, "POST", { input: sampleInput("2000-01-01T00:00:00Z", "2000-02-01T00:00:00Z") }),
      400,
    );
    await refusedWith(await di("/orders", bearer, "POST", orderOf(["no-such-product"])), 400);
    await refusedWith(await di("/orders", bearer, "POST", { name: "x" }), 400);
    await refusedWith(
      await di("/orders", bearer, "POST", { ...orderOf([august]), collectionId: crypto.randomUUID() }),
      404,
    );
    await refusedWith(await di("/orders?status=SHIPPED", bearer), 400);
    await refusedWith(await di("/orders?deleted=maybe", bearer), 400);
    await refusedWith(await di(`/orders/${crypto.randomUUID()}`, bearer), 404);
  });
});

describe("order lifecycle", () => {
  it("confirm -> deliveries DONE -> a BYOC collection whose pixels equal the built-in scene's", async () => {
    const account = crypto.randomUUID();
    const me = await tokenOf(account);
    const quote = await ok<RecordJson>(await di("/orders", me, "POST", orderOf([august])));
    const confirmed = await ok<RecordJson>(await di(`/orders/${quote.id}/confirm`, me, "POST"));
    expect(confirmed.status).toBe("RUNNING");
    expect(confirmed.collectionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(confirmed.accountId).toBe(account);

    // the spec's rejections while it runs
    expect((await refusedWith(await di(`/orders/${quote.id}/confirm`, me, "POST"), 409)).message).toContain(
      "only a CREATED order",
    );
    // (the delivery needs two queue hops: the order is still RUNNING when the confirm has just answered)
    expect((await refusedWith(await di(`/orders/${quote.id}`, me, "DELETE"), 409)).message).toContain("RUNNING");

    const [d] = await endedDeliveries(`/orders/${quote.id}`, me, 1);
    expect(d, d?.errorMessage).toMatchObject({ itemId: august, status: "DONE", sqkm: 1, provider: "SAMPLE" });
    const done = await until("order DONE", async () => {
      const o = await ok<RecordJson>(await di(`/orders/${quote.id}`, me));
      return o.status === "DONE" ? o : undefined;
    });
    expect(done.collectionId).toBe(confirmed.collectionId);

    // Process on the imported collection = the built-in collection, pixel for pixel (real B04 DN, not all 0)
    const imported = await wfB04(`byoc-${confirmed.collectionId}`, me);
    const builtin = await wfB04("sentinel-2-l2a", me);
    expect(imported).toEqual(builtin);
    expect(new Set(builtin).size).toBeGreaterThan(50);

    // the quota was charged once, despite the second confirm
    const quotas = await ok<{ data: { collectionId: string; quotaSqkm: number; quotaUsed: number }[] }>(
      await di("/accountquotas", me),
    );
    expect(quotas.data.find((q) => q.collectionId === "SAMPLE_SENTINEL_2")).toEqual({
      collectionId: "SAMPLE_SENTINEL_2",
      quotaSqkm: 1000,
      quotaUsed: 1,
    });
    expect(await ok(await di("/accountquotas/SAMPLE_SENTINEL_2", me))).toEqual({
      collectionId: "SAMPLE_SENTINEL_2",
      quotaSqkm: 1000,
      quotaUsed: 1,
    });
    await refusedWith(await di("/accountquotas/NOPE", me), 404);

    // files: listed, byte-equal to the provider's, Range and HEAD
    const base = `/orders/${quote.id}/deliveries/${d!.id}`;
    expect(await ok(await di(`${base}/files`, me))).toEqual(["B02.tif", "B03.tif", "B04.tif", "B08.tif"]);
    const item = (await westFlandersItems()).find((i) => i.id === august)!;
    const b04 = new Uint8Array(await sampleFile(item.assets.B04!.href));
    const got = await di(`${base}/files/B04.tif`, me);
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(b04);
    const part = await authed(`${DI}${base}/files/B04.tif`, { headers: { range: "bytes=100-199" } }, me);
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${b04.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(b04.slice(100, 200));
    const head = await authed(`${DI}${base}/files/B04.tif`, { method: "HEAD" }, me);
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(b04.length));
    await refusedWith(await di(`${base}/files/B05.tif`, me), 404);

    // delivery tiles mirror the BYOC tile
    const tiles = await ok<{ data: { id: string; deliveryId: string; status: string }[] }>(
      await di(`${base}/tiles`, me),
    );
    expect(tiles.data).toHaveLength(1);
    expect(tiles.data[0]).toMatchObject({ deliveryId: d!.id, status: "INGESTED" });
    const byoc = await ok<{ data: { id: string; status: string; sensingTime: string } }>(
      await authed(`/api/v1/byoc/collections/${confirmed.collectionId}/tiles/${tiles.data[0]!.id}`, {}, me),
    );
    expect(byoc.data.status).toBe("INGESTED");
    expect(Date.parse(byoc.data.sensingTime)).toBe(Date.parse(item.properties.datetime));
    expect(await ok(await di(`${base}/tiles/${tiles.data[0]!.id}`, me))).toEqual(tiles.data[0]);

    // zip archive: requested once, DONE, its stored entries are the files
    await refusedWith(await di(`${base}/archive`, me), 404);
    expect(await ok(await di(`${base}/archive/create?format=zip`, me, "POST"))).toMatchObject({
      deliveryId: d!.id,
      format: "zip",
      status: "WAITING",
    });
    await refusedWith(await di(`${base}/archive/create`, me, "POST"), 409);
    await refusedWith(await di(`${base}/archive/create?format=tar`, me, "POST"), 400);
    const status = await until("archive DONE", async () => {
      const a = await ok<{ status: string; size?: number }>(await di(`${base}/archive/status`, me));
      return a.status === "DONE" ? a : undefined;
    });
    const zip = new Uint8Array(await (await di(`${base}/archive`, me)).arrayBuffer());
    expect(zip.length).toBe(status.size);
    const eocd = zip.length - 22;
    const view = new DataView(zip.buffer, zip.byteOffset);
    expect(view.getUint32(eocd, true)).toBe(0x06054b50); // end of central directory, no comment
    expect(view.getUint16(eocd + 10, true)).toBe(4); // entries
    const text = new TextDecoder("latin1").decode(zip);
    expect(text.indexOf(new TextDecoder("latin1").decode(b04))).toBeGreaterThan(0); // stored verbatim
    const zipPart = await authed(`${DI}${base}/archive`, { headers: { range: "bytes=0-3" } }, me);
    expect(zipPart.status).toBe(206);
    expect([...new Uint8Array(await zipPart.arrayBuffer())]).toEqual([0x50, 0x4b, 0x03, 0x04]);

    // delete a DONE order: hidden from the list, listed with deleted=true, still retrievable
    expect((await di(`/orders/${quote.id}`, me, "DELETE")).status).toBe(204);
    expect((await ok<{ data: RecordJson[] }>(await di("/orders", me))).data.map((o) => o.id)).not.toContain(quote.id);
    expect((await ok<{ data: RecordJson[] }>(await di("/orders?deleted=true", me))).data.map((o) => o.id)).toEqual([
      quote.id,
    ]);
    expect((await ok<RecordJson>(await di(`/orders/${quote.id}`, me))).status).toBe("DONE");
  });

  it("a CREATED order is deleted for good; lists filter by status, collectionId and search", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const a = await ok<RecordJson>(await di("/orders", me, "POST", { ...orderOf([august]), name: "alpha order" }));
    // b delivers into a BYOC collection of the account (empty: any bands fit), a into a new one at confirmation
    const bucket = `orders-list-${crypto.randomUUID().slice(0, 8)}`;
    const target = await api(me, "POST", "/api/v1/byoc/collections", { name: "order target", s3Bucket: bucket });
    expect(target.status).toBe(201);
    const b = await ok<RecordJson>(
      await di("/orders", me, "POST", { ...orderOf([august]), name: "beta order", collectionId: target.json.data.id }),
    );
    expect(b.collectionId).toBe(target.json.data.id);
    expect((await ok<{ data: RecordJson[] }>(await di("/orders?search=beta", me))).data.map((o) => o.id)).toEqual([
      b.id,
    ]);
    expect(
      (await ok<{ data: RecordJson[] }>(await di(`/orders?collectionId=${b.collectionId}`, me))).data.map((o) => o.id),
    ).toEqual([b.id]);
    expect(
      (
        await ok<{ data: RecordJson[] }>(await di(`/orders?collectionId=${String(b.collectionId).toUpperCase()}`, me))
      ).data.map((o) => o.id),
    ).toEqual([b.id]);
    expect(
      (await ok<{ data: RecordJson[] }>(await di(`/orders?collectionId=${crypto.randomUUID()}`, me))).data,
    ).toEqual([]);
    await refusedWith(await di("/orders?collectionId=not-a-uuid", me), 400);
    expect((await ok<{ data: RecordJson[] }>(await di("/orders?status=CREATED", me))).data.map((o) => o.id)).toEqual([
      a.id,
      b.id,
    ]);
    expect((await ok<{ data: RecordJson[] }>(await di("/orders?status=DONE", me))).data).toEqual([]);
    const page = await ok<{ data: RecordJson[]; links: { next?: string } }>(await di("/orders?count=1", me));
    expect(page.data.map((o) => o.id)).toEqual([a.id]);
    expect(page.links.next).toContain("viewtoken=");
    expect((await di(`/orders/${a.id}`, me, "DELETE")).status).toBe(204);
    await refusedWith(await di(`/orders/${a.id}`, me), 404);
    expect((await ok<{ data: RecordJson[] }>(await di("/orders?deleted=true", me))).data).toEqual([]);
  });
});

describe("quota", () => {
  it("refuses a confirm beyond the available quota with availableQuota and requiredQuota, and charges nothing", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const big = await ok<RecordJson>(
      await di("/orders", me, "POST", orderOf([august], { bbox: [2.8, 50.6, 3.3, 51.0] })),
    );
    expect(big.sqkm).toBeGreaterThan(1000);
    const e = await refusedWith(await di(`/orders/${big.id}/confirm`, me, "POST"), 403);
    expect(e.errors).toEqual({ availableQuota: 1000, requiredQuota: big.sqkm });
    expect((await ok<RecordJson>(await di(`/orders/${big.id}`, me))).status).toBe("CREATED");
    // 600 km2 fits, then 600 more does not: 400 left
    const b600 = (x: number) => ({ bbox: [2.8, 50.6, 2.8 + x, 50.6 + x] });
    const first = await ok<RecordJson>(await di("/orders", me, "POST", orderOf([august], b600(0.29))));
    const second = await ok<RecordJson>(await di("/orders", me, "POST", orderOf([august], b600(0.29))));
    expect(first.sqkm).toBeGreaterThan(500);
    expect((await ok<RecordJson>(await di(`/orders/${first.id}/confirm`, me, "POST"))).status).toBe("RUNNING");
    const e2 = await refusedWith(await di(`/orders/${second.id}/confirm`, me, "POST"), 403);
    expect(e2.errors.availableQuota as number).toBeCloseTo(1000 - first.sqkm, 6);
    expect(e2.errors.requiredQuota).toBe(second.sqkm);
  });

  it("an operator sets an account's quota (admin API); confirms beyond it are refused", async () => {
    const ADMIN_TOKEN = "test-admin-secret-0123456789abcdefghijklmnop";
    const admin = (path: string, method: string, body: unknown) =>
      callWithEnv({ ADMIN_TOKEN } as never, `/api/v1/admin${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const created = await ok<{ id: string }>(await admin("/accounts", "POST", { name: "importer" }), 201);
    expect(
      await ok(await admin(`/accounts/${created.id}/importquotas/SAMPLE_SENTINEL_2`, "PUT", { quotaSqkm: 2 })),
    ).toEqual({ collectionId: "SAMPLE_SENTINEL_2", quotaSqkm: 2, quotaUsed: 0 });
    await refusedWith(await admin(`/accounts/${created.id}/importquotas/NOPE`, "PUT", { quotaSqkm: 2 }), 400);
    await refusedWith(
      await admin(`/accounts/${created.id}/importquotas/SAMPLE_SENTINEL_2`, "PUT", { quotaSqkm: -1 }),
      400,
    );
    await refusedWith(
      await admin(`/accounts/${crypto.randomUUID()}/importquotas/SAMPLE_SENTINEL_2`, "PUT", { quotaSqkm: 2 }),
      404,
    );
    const me = await tokenOf(created.id);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await ok<RecordJson>(await di("/orders", me, "POST", orderOf([august])))).id);
    expect((await ok<RecordJson>(await di(`/orders/${ids[0]}/confirm`, me, "POST"))).status).toBe("RUNNING");
    expect((await ok<RecordJson>(await di(`/orders/${ids[1]}/confirm`, me, "POST"))).status).toBe("RUNNING");
    expect((await refusedWith(await di(`/orders/${ids[2]}/confirm`, me, "POST"), 403)).errors).toEqual({
      availableQuota: 0,
      requiredQuota: 1,
    });
    expect(await ok(await di("/accountquotas/SAMPLE_SENTINEL_2", me))).toEqual({
      collectionId: "SAMPLE_SENTINEL_2",
      quotaSqkm: 2,
      quotaUsed: 2,
    });
  });

  it("charges raced confirms exactly once: one 200, the others 409", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const o = await ok<RecordJson>(
      await di("/orders", me, "POST", orderOf([august], { bbox: [2.9, 50.7, 3.0, 50.8] })),
    );
    const answers = await Promise.all(Array.from({ length: 6 }, () => di(`/orders/${o.id}/confirm`, me, "POST")));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const q = await ok<{ quotaUsed: number }>(await di("/accountquotas/SAMPLE_SENTINEL_2", me));
    expect(q.quotaUsed).toBeCloseTo(o.sqkm, 9);
  });
});

describe("deliveries", () => {
  it("files, archives and tiles of a delivery not DONE are refused; unknown ids are 404", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const o = await ok<RecordJson>(await di("/orders", me, "POST", orderOf([august])));
    await refusedWith(await di(`/orders/${o.id}/deliveries/${crypto.randomUUID()}`, me), 404);
    expect((await ok<{ data: DeliveryJson[] }>(await di(`/orders/${o.id}/deliveries`, me))).data).toEqual([]);
    await refusedWith(await di(`/orders/${o.id}/deliveries?status=LOST`, me), 400);
  });
});

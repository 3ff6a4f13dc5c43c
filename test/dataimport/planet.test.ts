/**
 * The PLANET provider: its sunset told by the API (Sunset, Link, 410 Gone naming the replacement by default), and,
 * with the operator's DATAIMPORT_AFTER_SUNSET=serve, the adapter speaking Planet's public APIs with the user's key
 * against a local HTTP server answering Planet's documented shapes (test/dataimport/planet-stub.mjs): quick search
 * with paging, Planet's errors (refused key, invalid item type) as 4xx envelopes that never echo the key,
 * thumbnails, and an order delivered through the Orders API (polled until success) and ingested: its Red band
 * equals the built-in B04 it was made of; a failed Planet order ends DELIVERY_FAILED with Planet's hint; reads of
 * RUNNING subscriptions never call Planet: only their poll units search.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { callWithEnv } from "../helpers/auth";
import { tokenOf } from "../helpers/byoc";
import { process, readTiff } from "../helpers/process";
import { wfB04, wfRequest } from "../tenancy/helpers";
import { PLANET_ITEMS, PLANET_TEST_KEY } from "./planet-data.mjs";
import { PENDING_MAX_MS, pendingRetryMs } from "../../src/dataimport/deliver";
import {
  DI,
  di,
  endedDeliveries,
  ok,
  pollNow,
  refusedWith,
  seedWestFlanders,
  until,
  WF_BBOX,
  type DeliveryJson,
  type RecordJson,
} from "./helpers";

const SUNSET = "Wed, 11 Nov 2026 00:00:00 GMT";
let bearer: string;
beforeAll(async () => {
  await seedWestFlanders();
  bearer = await tokenOf(crypto.randomUUID());
});

const planetInput = (key: string | null = PLANET_TEST_KEY, extra: Record<string, unknown> = {}) => ({
  provider: "PLANET",
  ...(key ? { planetApiKey: key } : {}),
  bounds: { bbox: WF_BBOX },
  data: [
    {
      type: "catalog",
      itemType: "PSScene",
      productBundle: "analytic_sr_udm2",
      dataFilter: { timeRange: { from: "2017-08-01T00:00:00Z", to: "2017-08-31T00:00:00Z" } },
      ...extra,
    },
  ],
});

/** A call of the area as an operator who keeps Planet working after its sunset. */
const served = (path: string, method = "GET", body?: unknown, who = bearer): Promise<Response> =>
  callWithEnv({ DATAIMPORT_AFTER_SUNSET: "serve" } as never, DI + path, {
    method,
    headers: { authorization: `Bearer ${who}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe("Planet's sunset", () => {
  it("is 410 Gone naming the replacement, with Sunset, Deprecation and the successor Link (the default)", async () => {
    for (const r of [
      await di("/search", bearer, "POST", planetInput()),
      await di("/nativesearch", bearer, "POST", {
        provider: "PLANET",
        planetApiKey: PLANET_TEST_KEY,
        item_types: ["PSScene"],
      }),
      await di("/collections/PLANET_SCOPE/products/x/thumbnail", bearer),
      await di("/orders", bearer, "POST", {
        input: planetInput(PLANET_TEST_KEY, { harmonizeTo: "NONE", itemIds: ["a"] }),
      }),
      await di("/subscriptions", bearer, "POST", { input: planetInput() }),
    ]) {
      const e = await refusedWith(r.clone(), 410);
      expect(e).toMatchObject({ reason: "Gone", code: "COMMON_GONE" });
      expect(e.errors.replacement).toMatch(/^https:\/\//);
      expect(e.message).toContain("sunset");
      expect(r.headers.get("sunset")).toBe(SUNSET);
      expect(r.headers.get("deprecation")).toMatch(/^@\d+$/);
      expect(r.headers.get("link")).toContain('rel="successor-version"');
    }
  });
});

interface Page {
  features: { id: string; properties: { acquired: string; cloud_cover: number } }[];
  links: { nextToken?: string; next?: string };
}

describe("the Planet adapter (operator keeps it after the sunset)", () => {
  it("searches with the user's key, pages through Planet's _next links, and says the sunset", async () => {
    const r = await served("/search?count=2", "POST", planetInput());
    expect(r.headers.get("sunset")).toBe(SUNSET);
    const first = await ok<Page>(r);
    const august = PLANET_ITEMS.filter((i) => i.acquired < "2017-08-31");
    expect(first.features.map((f) => f.id)).toEqual(august.slice(0, 2).map((i) => i.id));
    expect(first.features[0]!.properties.cloud_cover).toBe(august[0]!.cloud_cover);
    const second = await ok<Page>(
      await served(first.links.next!.replace(/^.*\/dataimport/, ""), "POST", planetInput()),
    );
    expect(second.features.map((f) => f.id)).toEqual(august.slice(2, 4).map((i) => i.id));
    expect(second.links.nextToken).toBeUndefined();
    const clear = await ok<Page>(
      await served(
        "/search",
        "POST",
        planetInput(PLANET_TEST_KEY, {
          dataFilter: { maxCloudCoverage: 10, timeRange: { from: "2017-08-01T00:00:00Z" } },
        }),
      ),
    );
    expect(clear.features.map((f) => f.id)).toEqual(PLANET_ITEMS.filter((i) => i.cloud_cover <= 0.1).map((i) => i.id));
  });

  it("passes a native search on unchanged and maps Planet's errors, never echoing the key", async () => {
    const native = await ok<Page & { type: string }>(
      await served("/nativesearch", "POST", {
        provider: "PLANET",
        planetApiKey: PLANET_TEST_KEY,
        item_types: ["PSScene"],
        filter: { type: "RangeFilter", field_name: "cloud_cover", config: { gte: 0.3 } },
      }),
    );
    expect(native.type).toBe("FeatureCollection");
    expect(native.features.map((f) => f.id)).toEqual(PLANET_ITEMS.filter((i) => i.cloud_cover >= 0.3).map((i) => i.id));
    const bad = await refusedWith(
      await served("/nativesearch", "POST", {
        provider: "PLANET",
        planetApiKey: PLANET_TEST_KEY,
        item_types: ["PSScene4Band"],
      }),
      400,
    );
    expect(bad.message).toContain("not a valid item type");
    const wrongKey = "PLAK-wrong-secret-key-42";
    const refused = await refusedWith(await served("/search", "POST", planetInput(wrongKey)), 403);
    expect(refused.message).toContain("refused the API key");
    expect(JSON.stringify(refused)).not.toContain(wrongKey);
    await refusedWith(await served("/search", "POST", planetInput(null)), 400);
    await refusedWith(await served("/search", "POST", planetInput(PLANET_TEST_KEY, { itemType: "REOrthoTile" })), 400);
    await refusedWith(await served("/search?count=251", "POST", planetInput()), 400);
  });

  it("serves a product's thumbnail from Planet's tiles API", async () => {
    const r = await served(
      `/collections/PLANET_SCOPE/products/${PLANET_ITEMS[0]!.id}/thumbnail?planetApiKey=${PLANET_TEST_KEY}`,
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    expect([...new Uint8Array(await r.arrayBuffer()).slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    await refusedWith(
      await served(`/collections/PLANET_SCOPE/products/nope/thumbnail?planetApiKey=${PLANET_TEST_KEY}`),
      404,
    );
  });

  it("orders an item through Planet's Orders API and ingests it: Red equals the B04 it was made of", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const quote = await ok<RecordJson>(
      await served(
        "/orders",
        "POST",
        {
          name: "planet",
          input: planetInput(PLANET_TEST_KEY, { harmonizeTo: "NONE", itemIds: [PLANET_ITEMS[0]!.id] }),
        },
        me,
      ),
    );
    expect(JSON.stringify(quote)).not.toContain(PLANET_TEST_KEY);
    expect(quote.sqkm).toBe(1);
    const running = await ok<RecordJson>(await served(`/orders/${quote.id}/confirm`, "POST", undefined, me));
    const [d] = await endedDeliveries(`/orders/${quote.id}`, me, 1);
    expect(d, d?.errorMessage).toMatchObject({ status: "DONE", provider: "PLANET", itemId: PLANET_ITEMS[0]!.id });
    expect(await ok(await di(`/orders/${quote.id}/deliveries/${d!.id}/files`, me))).toEqual(["AnalyticMS_SR_clip.tif"]);
    const red = {
      ...wfRequest(`byoc-${running.collectionId}`),
      evalscript:
        '//VERSION=3\nfunction setup(){return {input:[{bands:["Red"],units:"DN"}],output:{bands:1,sampleType:"UINT16"}}}\nfunction evaluatePixel(s){return [s.Red]}',
    };
    const r = await process(red, me);
    expect(r.status, r.status === 200 ? "" : await r.clone().text()).toBe(200);
    expect(Array.from((await readTiff(await r.arrayBuffer())).data)).toEqual(await wfB04("sentinel-2-l2a", me));
    await until(
      "order DONE",
      async () => (await ok<RecordJson>(await di(`/orders/${quote.id}`, me))).status === "DONE",
    );
    // the key is kept only while deliveries may need it
    expect(await env.DB.prepare("SELECT api_key FROM import_orders WHERE id = ?").bind(quote.id).first()).toEqual({
      api_key: null,
    });
  }, 60_000);

  it("a failed Planet order ends the delivery DELIVERY_FAILED with Planet's hint, the order FAILED", async () => {
    const me = await tokenOf(crypto.randomUUID());
    const bad = PLANET_ITEMS.find((i) => i.id.endsWith("_bad"))!.id;
    const quote = await ok<RecordJson>(
      await served(
        "/orders",
        "POST",
        { input: planetInput(PLANET_TEST_KEY, { harmonizeTo: "NONE", itemIds: [bad] }) },
        me,
      ),
    );
    await ok(await served(`/orders/${quote.id}/confirm`, "POST", undefined, me));
    const [d] = await endedDeliveries(`/orders/${quote.id}`, me, 1);
    expect(d).toMatchObject({ status: "DELIVERY_FAILED" });
    expect(d!.errorMessage).toContain("Item could not be delivered");
    expect((await ok<RecordJson>(await di(`/orders/${quote.id}`, me))).status).toBe("FAILED");
  }, 60_000);

  it("a product Planet prepares for more than 48 hours ends DELIVERY_FAILED; the looks between slow down to 10 min", async () => {
    expect([0, 60_000, 3600_000, PENDING_MAX_MS].map(pendingRetryMs)).toEqual([5_000, 6_000, 360_000, 600_000]);
    const me = await tokenOf(crypto.randomUUID());
    const quote = await ok<RecordJson>(
      await served(
        "/orders",
        "POST",
        { input: planetInput(PLANET_TEST_KEY, { harmonizeTo: "NONE", itemIds: [PLANET_ITEMS[0]!.id] }) },
        me,
      ),
    );
    await ok(await served(`/orders/${quote.id}/confirm`, "POST", undefined, me));
    // the delivery as if made 49 hours ago: its next look at Planet's still running order gives up
    const longAgo = new Date(Date.now() - PENDING_MAX_MS - 3600_000).toISOString();
    await env.DB.prepare("UPDATE import_deliveries SET created = ? WHERE parent = ?").bind(longAgo, quote.id).run();
    const [d] = await endedDeliveries(`/orders/${quote.id}`, me, 1);
    expect(d).toMatchObject({ status: "DELIVERY_FAILED" });
    expect(d!.errorMessage).toBe(`PLANET did not deliver item ${PLANET_ITEMS[0]!.id} within 48 hours.`);
    await until(
      "order FAILED",
      async () => (await ok<RecordJson>(await di(`/orders/${quote.id}`, me))).status === "FAILED",
    );
  }, 60_000);

  it("reads of RUNNING subscriptions make no Planet search: only each one's poll unit searches", async () => {
    const me = await tokenOf(crypto.randomUUID());
    // a start after every stub item (the polls find nothing to deliver), unique to this test: it marks its searches
    const from = new Date(Date.UTC(2021, 0, 1) + Math.floor(Math.random() * 365 * 86_400_000)).toISOString();
    const searches = async () =>
      ((await (await fetch(`${env.PLANET_API_URL}/stub/searches?containing=${from}`)).json()) as { count: number })
        .count;
    const input = planetInput(PLANET_TEST_KEY, { dataFilter: { timeRange: { from } } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await ok<RecordJson>(await served("/subscriptions", "POST", { name: `watch ${i}`, input }, me));
      expect((await ok<RecordJson>(await served(`/subscriptions/${s.id}/confirm`, "POST", undefined, me))).status).toBe(
        "RUNNING",
      );
      ids.push(s.id);
    }
    await until("each subscription's first poll", async () => (await searches()) === 3);
    for (const id of ids) await pollNow(id); // each poll unit snoozes after its first poll; then one more poll each
    await until("each subscription's second poll", async () => (await searches()) === 6);
    for (let round = 0; round < 5; round++) {
      expect(
        (await ok<{ data: RecordJson[] }>(await di("/subscriptions?count=100", me))).data.map((s) => s.status),
      ).toEqual(["RUNNING", "RUNNING", "RUNNING"]);
      for (const id of ids) {
        expect((await ok<RecordJson>(await di(`/subscriptions/${id}`, me))).status).toBe("RUNNING");
        expect((await ok<{ data: DeliveryJson[] }>(await di(`/subscriptions/${id}/deliveries`, me))).data).toEqual([]);
      }
    }
    expect(await searches()).toBe(6); // 20 reads of each subscription: no search
    for (const id of ids) await ok(await di(`/subscriptions/${id}/cancel`, me, "POST"));
  });
});

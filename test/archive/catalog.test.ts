/**
 * Catalog federation (src/catalog/federated.ts) against the archive twin's Earth Search API: searches of
 * sentinel-2-l2a with nothing in the local store are answered from the archive, in the catalog's item shape
 * (Sentinel Hub band names as asset keys, the real sentinel-cogs hrefs, this catalog's links), with bbox,
 * intersects, datetime, ids and CQL2 filters (eo:cloud_cover translated, the rest applied after); items by id; the
 * local store answers first once it holds the scene.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { postJson, twinScope, type TwinScope } from "./scope";

const ROOT = "/api/v1/catalog/1.0.0";
const RKH = "S2A_29RKH_20200219_0_L2A";
const COGS =
  "https://sentinel-cogs.s3.us-west-2.amazonaws.com/sentinel-s2-l2a-cogs/29/R/KH/2020/2/S2A_29RKH_20200219_0_L2A";
const BBOX = [-12, 24, -11, 25];
let bearer: string;
let twin: TwinScope;

const hook = (path: string, body?: unknown) => twin.hook(path, body);
/** The Worker reading this file's twin scope (GET `path`, or POST `body` as JSON). */
const authed = (path: string, init: RequestInit, _bearer: string) => twin.call(path, init, bearer);

interface Fc {
  features: {
    id: string;
    collection: string;
    assets: Record<string, { href: string; "eo:bands"?: { name: string }[] }>;
    links: { rel: string; href: string }[];
    properties: Record<string, unknown>;
  }[];
  context?: { next?: unknown; returned: number; matched?: number };
  links: { rel: string; href: string }[];
}

async function search(body: Record<string, unknown>): Promise<Fc> {
  const r = await authed(
    `${ROOT}/search`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ collections: ["sentinel-2-l2a"], ...body }),
    },
    bearer,
  );
  expect(r.status).toBe(200);
  return (await r.json()) as Fc;
}

const ids = (fc: Fc) => fc.features.map((f) => f.id);

beforeAll(async () => {
  bearer = await token();
  twin = await twinScope();
});

beforeEach(async () => {
  await hook("reset", {});
});

describe("searches answered by the archive", () => {
  it("bbox + datetime: the upstream item in the catalog's shape", async () => {
    const fc = await search({ bbox: BBOX, datetime: "2020-02-01T00:00:00Z/2020-03-01T00:00:00Z", limit: 5 });
    expect(ids(fc)).toEqual([RKH]);
    const item = fc.features[0]!;
    expect(item.collection).toBe("sentinel-2-l2a");
    expect(item.assets.B04!.href).toBe(`${COGS}/B04.tif`);
    expect(item.assets.B8A!.href).toBe(`${COGS}/B8A.tif`);
    expect(item.assets.SCL!["eo:bands"]![0]!.name).toBe("SCL");
    expect(item.assets.red).toBeUndefined();
    expect(item.properties["eo:cloud_cover"]).toBeCloseTo(4.051854, 6);
    expect(item.links.find((l) => l.rel === "self")!.href).toBe(
      `http://localhost${ROOT}/collections/sentinel-2-l2a/items/${RKH}`,
    );
    expect(item.links.find((l) => l.rel === "via")!.href).toBe(
      `${twin.vars().ARCHIVE_STAC_URL}/collections/sentinel-2-l2a/items/${RKH}`,
    );
    expect(fc.context!.next).toBeUndefined();
    expect((await hook("stats")).stac).toBeGreaterThanOrEqual(1);
  });

  it("filters: eo:cloud_cover sent upstream, other properties applied after, both ways", async () => {
    const cc = (op: string, v: number) => ({
      filter: { op, args: [{ property: "eo:cloud_cover" }, v] },
      "filter-lang": "cql2-json",
    });
    expect(ids(await search({ bbox: BBOX, ...cc("<", 3) }))).toEqual([]);
    expect(ids(await search({ bbox: BBOX, ...cc("<=", 10) }))).toEqual([RKH]);
    expect(
      ids(await search({ bbox: BBOX, filter: "s2:processing_baseline = '02.14'", "filter-lang": "cql2-text" })),
    ).toEqual([RKH]);
    expect(
      ids(await search({ bbox: BBOX, filter: "s2:processing_baseline = '04.00'", "filter-lang": "cql2-text" })),
    ).toEqual([]);
    expect(
      ids(
        await search({
          bbox: BBOX,
          filter: "eo:cloud_cover < 10 AND platform = 'sentinel-2a'",
          "filter-lang": "cql2-text",
        }),
      ),
    ).toEqual([RKH]);
  });

  it("intersects, ids and datetime outside the scene", async () => {
    const inside = {
      type: "Polygon",
      coordinates: [
        [
          [-11.5, 24.5],
          [-11.4, 24.5],
          [-11.4, 24.6],
          [-11.5, 24.6],
          [-11.5, 24.5],
        ],
      ],
    };
    const outside = {
      type: "Polygon",
      coordinates: [
        [
          [10, 40],
          [11, 40],
          [11, 41],
          [10, 41],
          [10, 40],
        ],
      ],
    };
    expect(ids(await search({ intersects: inside }))).toEqual([RKH]);
    expect(ids(await search({ intersects: outside }))).toEqual([]);
    expect(ids(await search({ ids: [RKH] }))).toEqual([RKH]);
    expect(ids(await search({ ids: ["S2A_00XXX_20200219_0_L2A"] }))).toEqual([]);
    expect(ids(await search({ bbox: BBOX, datetime: "2021-01-01T00:00:00Z/.." }))).toEqual([]);
  });

  it("GET /search and the items of the collection", async () => {
    const r = await authed(`${ROOT}/search?collections=sentinel-2-l2a&bbox=${BBOX.join(",")}&limit=2`, {}, bearer);
    expect(ids((await r.json()) as Fc)).toEqual([RKH]);
    const items = await authed(`${ROOT}/collections/sentinel-2-l2a/items?bbox=${BBOX.join(",")}`, {}, bearer);
    expect(ids((await items.json()) as Fc)).toEqual([RKH]);
  });

  it("one item by id from the archive; an unknown id is a 404", async () => {
    const r = await authed(`${ROOT}/collections/sentinel-2-l2a/items/${RKH}`, {}, bearer);
    expect(r.status).toBe(200);
    const item = (await r.json()) as Fc["features"][number];
    expect(item.assets.B02!.href).toBe(`${COGS}/B02.tif`);
    const missing = await authed(`${ROOT}/collections/sentinel-2-l2a/items/nope`, {}, bearer);
    expect(missing.status).toBe(404);
  });

  it("a malformed archive token is a 400; an archive failure a 503 envelope", async () => {
    const bad = await authed(
      `${ROOT}/search`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ collections: ["sentinel-2-l2a"], next: "a.%%%" }),
      },
      bearer,
    );
    expect(bad.status).toBe(400);
    await hook("faults", { prefix: "/earth-search/", status: 502, count: 3 });
    const r = await authed(
      `${ROOT}/search`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ collections: ["sentinel-2-l2a"], bbox: [-12, 24, -11.9, 24.1] }),
      },
      bearer,
    );
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("COMMON_SERVICE_UNAVAILABLE");
  });

  it("paging maps onto the upstream's: stac-server's next (Earth Search), pgstac's token (Planetary Computer)", async () => {
    for (const archive of ["earth-search", "planetary-computer"] as const) {
      const over = twin.vars(archive);
      const post = (body: Record<string, unknown>) =>
        twin
          .call(`${ROOT}/search`, postJson({ collections: ["dem"], limit: 1, ...body }), bearer, over)
          .then((r) => r.json() as Promise<Fc>);
      const first = await post({});
      expect(first.features).toHaveLength(1);
      const next = first.context!.next as string;
      expect(next).toMatch(/^a\./);
      expect(first.links.find((l) => l.rel === "next")).toMatchObject({ method: "POST", body: { next } });
      const second = await post({ next });
      expect(second.features).toHaveLength(1);
      expect(second.features[0]!.id).not.toBe(first.features[0]!.id);
      expect(second.context!.next).toBeUndefined();
      // the GET form: the next link's href carries the token
      const got = (await (await twin.call(`${ROOT}/search?collections=dem&limit=1`, {}, bearer, over)).json()) as Fc;
      const href = got.links.find((l) => l.rel === "next")!.href;
      const page2 = (await (
        await twin.call(new URL(href).pathname + new URL(href).search, {}, bearer, over)
      ).json()) as Fc;
      expect(ids(page2)).toEqual(ids(second));
      expect([...ids(first), ...ids(second)].sort()).toEqual([
        "Copernicus_DSM_COG_10_N00_00_E006_00_DEM",
        "Copernicus_DSM_COG_30_S90_00_W164_00_DEM",
      ]);
    }
  });

  it("tenancy: a user collection (another account's, or none) is never searched upstream", async () => {
    const before = (await hook("stats")).stac as number;
    const r = await authed(
      `${ROOT}/search`,
      postJson({ collections: [`byoc-${crypto.randomUUID()}`], bbox: BBOX }),
      bearer,
    );
    expect(r.status).toBe(404);
    const item = await authed(`${ROOT}/collections/byoc-${crypto.randomUUID()}/items/${RKH}`, {}, bearer);
    expect(item.status).toBe(404);
    expect((await hook("stats")).stac).toBe(before);
  });

  it("the local store answers first once it holds the scene", async () => {
    await seedSamples((i) => i.id === RKH);
    await hook("reset", {});
    const fc = await search({ bbox: BBOX });
    expect(ids(fc)).toEqual([RKH]);
    expect(fc.features[0]!.assets.B04!.href).toBe(
      `http://localhost${ROOT}/collections/sentinel-2-l2a/items/${RKH}/assets/B04`,
    );
    expect((await hook("stats")).stac).toBe(0);
  });
});

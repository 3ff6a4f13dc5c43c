/**
 * The STAC API item search beyond Sentinel Hub's narrower interface (README, Catalog): `datetime` optional, no or
 * several `collections`, `numberMatched` / `context.matched`, `sortby`, queryables at the root and per collection
 * with their link relations, titled links and the landing page's `item` relation. Expected ids come from the
 * seeded items' own JSON, ordered with plain comparisons here.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import { api, ROOT, seedCatalog } from "./helpers";

const [L1C, L2A, S1] = ["sentinel-2-l1c", "sentinel-2-l2a", "sentinel-1-grd"];
let items: StacItem[];

const time = (i: StacItem): number => Date.parse(i.properties.datetime);
const cc = (i: StacItem): number | null => (i.properties["eo:cloud_cover"] as number | undefined) ?? null;
const cmp = (a: string | number | null, b: string | number | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;
/** Ascending (datetime, id, collection): the catalog's default order. */
const byTime = (a: StacItem, b: StacItem): number =>
  cmp(time(a), time(b)) || cmp(a.id, b.id) || cmp(a.collection, b.collection);
const key = (i: StacItem): string => `${i.collection}/${i.id}`;
const keys = (fs: any[]): string[] => fs.map((f) => `${f.collection}/${f.id}`);
const inCollections = (cs: string[]) => items.filter((i) => cs.includes(i.collection));

type Page = { status: number; json: any };

/** Every page of a search, following rel=next (GET href, or POST body merged into `body`). */
async function allPages(first: string, body?: Record<string, unknown>): Promise<{ features: any[]; pages: Page[] }> {
  const features: any[] = [];
  const pages: Page[] = [];
  let page: Page | null = await api(first, body);
  for (let n = 0; page && n < 60; n++) {
    expect(page.status, JSON.stringify(page.json?.error)).toBe(200);
    pages.push(page);
    features.push(...page.json.features);
    const next: any = page.json.links.find((l: any) => l.rel === "next");
    if (!next) break;
    page =
      next.method === "POST"
        ? await api(`${ROOT}/search`, { ...body, ...next.body })
        : await api(new URL(next.href).pathname + new URL(next.href).search);
  }
  return { features, pages };
}

beforeAll(async () => {
  items = await seedCatalog();
  // Ties across collections: an L2A item copied into L1C and S1 with the same id and datetime, and a second L1C
  // item with the same datetime and another id; the order must still be total (datetime, id, collection).
  const src = items.find((i) => i.id === "S2A_29RKH_20200219_0_L2A")!;
  for (const copy of [
    { ...src, collection: L1C },
    { ...src, collection: S1 },
    { ...src, collection: L1C, id: `${src.id}_tie` },
  ] as StacItem[]) {
    await upsertItem(env, copy);
    items.push(copy);
  }
});

describe("datetime and collections are optional", () => {
  it("no collections: every collection of the location, in (datetime, id, collection) order", async () => {
    const want = [...items].sort(byTime).map(key);
    const post = await allPages(`${ROOT}/search`, { limit: 7 });
    expect(keys(post.features)).toEqual(want);
    const get = await allPages(`${ROOT}/search?limit=5`);
    expect(keys(get.features)).toEqual(want);
    const empty = await api(`${ROOT}/search`, { collections: [], limit: 100 });
    expect(keys(empty.json.features)).toEqual(want);
    for (const p of [post.pages[0]!, get.pages[0]!]) expect(p.json.numberMatched).toBe(items.length);
    expect(post.pages[1]!.json.numberMatched).toBeUndefined(); // the count comes with the first page only
  });

  it("several collections, as a JSON array, a comma-separated string and the GET list; duplicates count once", async () => {
    const want = inCollections([L1C, S1]).sort(byTime).map(key);
    expect(want.length).toBeGreaterThan(4);
    for (const body of [{ collections: [L1C, S1] }, { collections: `${S1},${L1C}` }, { collections: [S1, L1C, S1] }]) {
      const r = await allPages(`${ROOT}/search`, { ...body, limit: 2 });
      expect(keys(r.features), JSON.stringify(body)).toEqual(want);
    }
    const get = await allPages(`${ROOT}/search?collections=${L1C},${S1}&limit=3`);
    expect(keys(get.features)).toEqual(want);
    expect(get.pages[0]!.json.numberMatched).toBe(want.length);
  });

  it("a datetime narrows a search over several collections; an empty range matches nothing", async () => {
    const [a, b] = [Date.parse("2018-01-01T00:00:00Z"), Date.parse("2020-12-31T00:00:00Z")];
    const want = items
      .filter((i) => time(i) >= a && time(i) <= b)
      .sort(byTime)
      .map(key);
    const r = await allPages(`${ROOT}/search`, { datetime: "2018-01-01T00:00:00Z/2020-12-31T00:00:00Z", limit: 4 });
    expect(keys(r.features)).toEqual(want);
    expect(r.pages[0]!.json.context.matched).toBe(want.length);
    const none = await api(`${ROOT}/search?datetime=1990-01-01T00:00:00Z/1990-02-01T00:00:00Z`);
    expect([none.json.features, none.json.numberMatched, none.json.context.matched]).toEqual([[], 0, 0]);
  });

  it("ids without collections find the item in every collection that holds it", async () => {
    const r = await api(`${ROOT}/search?ids=S2A_29RKH_20200219_0_L2A,S2A_T01LAC_20200717T221944_L1C`);
    expect(keys(r.json.features)).toEqual(
      [
        `${L2A}/S2A_29RKH_20200219_0_L2A`,
        `${L1C}/S2A_29RKH_20200219_0_L2A`,
        `${S1}/S2A_29RKH_20200219_0_L2A`,
        `${L1C}/S2A_T01LAC_20200717T221944_L1C`,
      ].sort((x, y) => {
        const [ix, iy] = [x, y].map((k) => items.find((i) => key(i) === k)!);
        return byTime(ix!, iy!);
      }),
    );
    expect(r.json.numberMatched).toBe(4);
  });

  it("a filter over several collections resolves names against all their queryables", async () => {
    const s1Only = await api(`${ROOT}/search`, { filter: "sar:instrument_mode = 'IW'", limit: 100 });
    expect(s1Only.status, JSON.stringify(s1Only.json.error)).toBe(200);
    expect(keys(s1Only.json.features)).toEqual(
      items
        .filter((i) => i.properties["sar:instrument_mode"] === "IW")
        .sort(byTime)
        .map(key),
    );
    const byCollection = await api(`${ROOT}/search?filter=collection='${L1C}'&limit=100`);
    expect(keys(byCollection.json.features)).toEqual(inCollections([L1C]).sort(byTime).map(key));
    const json = await api(`${ROOT}/search`, {
      filter: { op: "in", args: [{ property: "collection" }, [L1C, S1]] },
      "filter-lang": "cql2-json",
      limit: 100,
    });
    expect(keys(json.json.features)).toEqual(inCollections([L1C, S1]).sort(byTime).map(key));
    const mission = await api(`${ROOT}/search?filter=mission LIKE 'sentinel%25'`); // a STAC common field no item has
    expect([mission.status, mission.json.features.length]).toEqual([200, 0]);
    const gsd = await api(`${ROOT}/search`, { filter: "eo:gsd = 10", limit: 100 }); // Sentinel Hub Catalog 0.9's name of gsd
    expect(keys(gsd.json.features)).toEqual(
      items
        .filter((i) => i.properties.gsd === 10)
        .sort(byTime)
        .map(key),
    );
    expect(gsd.json.features.every((f: any) => f.properties.gsd === 10 && !("eo:gsd" in f.properties))).toBe(true); // eo v1.0.0 forbids it
  });
});

describe("CQL2 forms STAC tools send", () => {
  it("between with its bounds as one array (CQL2 drafts, stac-api-validator) equals the three-argument form", async () => {
    const want = items
      .filter((i) => cc(i) !== null && cc(i)! >= 0.1 && cc(i)! <= 5)
      .sort(byTime)
      .map(key);
    for (const args of [
      [{ property: "eo:cloud_cover" }, 0.1, 5],
      [{ property: "eo:cloud_cover" }, [0.1, 5]],
    ]) {
      const r = await api(`${ROOT}/search`, {
        filter: { op: "between", args },
        "filter-lang": "cql2-json",
        limit: 100,
      });
      expect(keys(r.json.features), JSON.stringify(args)).toEqual(want);
    }
    const bad = await api(`${ROOT}/search`, {
      filter: { op: "between", args: [{ property: "eo:cloud_cover" }, [1, 2, 3]] },
      "filter-lang": "cql2-json",
    });
    expect([bad.status, bad.json.error.message]).toEqual([400, "Operator 'between' takes 3 arguments; got 2."]);
  });
});

describe("numberMatched and context.matched", () => {
  it("on the first page, equal the number of items all pages return, for exact and spatial conditions", async () => {
    const searches: Record<string, unknown>[] = [
      { collections: [L2A], filter: "eo:cloud_cover < 10" },
      { bbox: [3.02, 50.81, 3.03, 50.82] }, // inside the 31UDS patches: every candidate decided on its footprint
      { bbox: [3, 50.8, 3.05, 50.83] }, // around the patches: bboxes inside the box, counted without tests
      { bbox: [1.52, 44.54, 1.55, 44.56] }, // inside the S1 fixture's bbox, outside its footprint
      { bbox: [1.5, 44.5, 1.6, 46.1] }, // across the S1 fixture's west edge
      { bbox: [179.5, -16.2, -179.9, -15.5] }, // across the antimeridian
      {
        intersects: { type: "Point", coordinates: [3.024, 50.816] },
        filter: "eo:cloud_cover > 50 OR eo:cloud_cover IS NULL",
      },
      { bbox: [-180, -90, 180, 90], datetime: "2019-01-01T00:00:00Z/.." },
    ];
    const want = [
      items.filter((i) => i.collection === L2A && cc(i) !== null && cc(i)! < 10).length,
      items.filter((i) => i.id.includes("31UDS")).length,
      items.filter((i) => i.id.includes("31UDS")).length,
      0,
      1,
      1,
      items.filter((i) => i.id.includes("31UDS") && (cc(i) === null || cc(i)! > 50)).length,
      items.filter((i) => time(i) >= Date.parse("2019-01-01T00:00:00Z")).length,
    ];
    for (const [n, body] of searches.entries()) {
      const r = await allPages(`${ROOT}/search`, { ...body, limit: 3 });
      expect(r.features.length, JSON.stringify(body)).toBe(want[n]);
      expect(r.pages[0]!.json.numberMatched, JSON.stringify(body)).toBe(want[n]);
      expect(r.pages[0]!.json.context.matched).toBe(want[n]);
      for (const p of r.pages.slice(1))
        expect([p.json.numberMatched, p.json.context.matched]).toEqual([undefined, undefined]);
    }
  });

  it("feature lists of a collection carry numberMatched; distinct answers do not", async () => {
    const r = await api(`${ROOT}/collections/${L2A}/items?limit=2`);
    expect(r.json.numberMatched).toBe(inCollections([L2A]).length);
    expect(r.json.context).toBeUndefined();
    const d = await api(`${ROOT}/search`, { collections: [L2A], distinct: "date" });
    expect(d.json.numberMatched).toBeUndefined();
    expect(d.json.context.matched).toBeUndefined();
  });
});

describe("sortby", () => {
  const asc = () =>
    inCollections([L2A])
      .sort(byTime)
      .map((i) => i.id);
  const idsOf = (r: { json: any }) => r.json.features.map((f: any) => f.id);

  it("datetime ascending (GET with %2B, a decoded '+', no sign; POST) and descending (GET '-', POST desc)", async () => {
    for (const s of ["%2Bproperties.datetime", "+datetime", "properties.datetime", "datetime"]) {
      expect(idsOf(await api(`${ROOT}/search?collections=${L2A}&limit=100&sortby=${s}`)), s).toEqual(asc());
    }
    const post = await api(`${ROOT}/search`, {
      collections: [L2A],
      limit: 100,
      sortby: [{ field: "properties.datetime", direction: "asc" }],
    });
    expect(idsOf(post)).toEqual(asc());
    const desc = [...asc()].reverse();
    expect(idsOf(await api(`${ROOT}/search?collections=${L2A}&limit=100&sortby=-properties.datetime`))).toEqual(desc);
    expect(
      idsOf(
        await api(`${ROOT}/search`, {
          collections: L2A,
          limit: 100,
          sortby: [{ field: "datetime", direction: "desc" }],
        }),
      ),
    ).toEqual(desc);
  });

  it("eo:cloud_cover both ways (items without one first ascending, last descending), id, collection then datetime", async () => {
    const all = [...items];
    const byCc = (d: number) => (a: StacItem, b: StacItem) => d * (cmp(cc(a), cc(b)) || byTime(a, b));
    const r = await allPages(`${ROOT}/search`, { sortby: [{ field: "eo:cloud_cover", direction: "asc" }], limit: 100 });
    expect(keys(r.features)).toEqual(all.sort(byCc(1)).map(key));
    expect(cc(items.find((i) => key(i) === keys(r.features)[0])!)).toBeNull();
    const down = await api(`${ROOT}/search?sortby=-eo:cloud_cover&limit=100`);
    expect(keys(down.json.features)).toEqual(all.sort(byCc(-1)).map(key));
    const ids = await api(`${ROOT}/search?sortby=-id&collections=${L2A}&limit=100`);
    expect(idsOf(ids)).toEqual(asc().sort().reverse());
    const two = await api(`${ROOT}/search`, {
      sortby: [{ field: "collection" }, { field: "datetime", direction: "desc" }],
      limit: 100,
    });
    // ties after the requested terms: datetime, id, collection in the first term's direction (ascending here)
    expect(keys(two.json.features)).toEqual(
      all.sort((a, b) => cmp(a.collection, b.collection) || -cmp(time(a), time(b)) || cmp(a.id, b.id)).map(key),
    );
  });

  it("pages of a sorted search: offsets for cloud cover, keyset positions for datetime descending, over several collections", async () => {
    const byCcDesc = [...items].sort((a, b) => -(cmp(cc(a), cc(b)) || byTime(a, b))).map(key);
    const cloudy = await allPages(`${ROOT}/search`, {
      sortby: [{ field: "eo:cloud_cover", direction: "desc" }],
      limit: 4,
    });
    expect(keys(cloudy.features)).toEqual(byCcDesc);
    const tokens = cloudy.pages.map((p) => p.json.context.next).filter((n) => n !== undefined);
    expect(tokens).toEqual(tokens.map((_, k) => 4 * (k + 1))); // offsets
    const newest = await allPages(`${ROOT}/search?sortby=-datetime&limit=3`);
    expect(keys(newest.features)).toEqual([...items].sort(byTime).reverse().map(key));
    expect(newest.pages[0]!.json.context.next).toBeGreaterThan(2 ** 40); // keyset
    const itemsEndpoint = await allPages(`${ROOT}/collections/${L2A}/items?sortby=-datetime&limit=6`);
    expect(itemsEndpoint.features.map((f) => f.id)).toEqual([...asc()].reverse());
  });

  it("without sortby the order is Sentinel Hub's (datetime, then id) and pages use its integer tokens", async () => {
    const r = await allPages(`${ROOT}/search`, { collections: [L2A], datetime: "2000-01-01T00:00:00Z/..", limit: 10 });
    expect(r.features.map((f) => f.id)).toEqual(asc());
    const offset = await api(`${ROOT}/search`, { collections: [L2A], limit: 5, next: 5 }); // sentinelhub-js findTiles offsets
    expect(idsOf(offset)).toEqual(asc().slice(5, 10));
    expect(offset.json.context.next).toBe(10);
  });
});

describe("queryables, links and the landing page", () => {
  const QUERYABLES = "http://www.opengis.net/def/rel/ogc/1.0/queryables";

  it("the landing page links the item search's queryables; each collection links its own; $id is the URL", async () => {
    const landing = await api(`${ROOT}/`);
    const root = landing.json.links.find((l: any) => l.rel === QUERYABLES);
    expect(root).toMatchObject({ href: `http://localhost${ROOT}/queryables`, type: "application/schema+json" });
    const doc = await api(new URL(root.href).pathname);
    expect(doc.headers.get("content-type")).toBe("application/schema+json");
    expect(doc.json).toMatchObject({
      $schema: "https://json-schema.org/draft/2019-09/schema",
      $id: root.href,
      type: "object",
    });
    for (const name of [
      "collection",
      "datetime",
      "eo:cloud_cover",
      "sar:instrument_mode",
      "s2:processing_baseline",
      "mission",
    ]) {
      expect(doc.json.properties, name).toHaveProperty([name]);
    }
    for (const id of [L1C, L2A, S1]) {
      const c = await api(`${ROOT}/collections/${id}`);
      const link = c.json.links.find((l: any) => l.rel === QUERYABLES);
      expect(link.href).toBe(`http://localhost${ROOT}/collections/${id}/queryables`);
      expect((await api(new URL(link.href).pathname)).json.$id).toBe(link.href);
    }
  });

  it("every link of the landing page, the collections and search pages has a title (self aside)", async () => {
    const docs = [
      (await api(`${ROOT}/`)).json,
      (await api(`${ROOT}/collections`)).json,
      (await api(`${ROOT}/search?limit=1`)).json,
    ];
    const collections = docs[1].collections;
    expect(collections.length).toBe(5); // the 3 with local items, dem and landsat-ot-l2 of the tests' archive
    for (const d of [...docs, ...collections]) {
      for (const l of d.links) if (l.rel !== "self") expect(typeof l.title, `${l.rel} ${l.href}`).toBe("string");
    }
  });

  it("the landing page's item relation links the newest item of each collection, which resolves", async () => {
    const landing = await api(`${ROOT}/`);
    const links = landing.json.links.filter((l: any) => l.rel === "item");
    const want = [L1C, L2A, S1].map((c) => inCollections([c]).sort(byTime).reverse()[0]!);
    expect(links.map((l: any) => l.href)).toEqual(
      want.map((i) => `http://localhost${ROOT}/collections/${i.collection}/items/${i.id}`),
    );
    for (const l of links) {
      const r = await api(new URL(l.href).pathname);
      expect([r.status, r.json.type, l.type]).toEqual([200, "Feature", "application/geo+json"]);
    }
    const conf = landing.json.conformsTo;
    for (const c of ["item-search#sort", "ogcapi-features#sort"])
      expect(conf).toContain(`https://api.stacspec.org/v1.0.0/${c}`);
  });
});

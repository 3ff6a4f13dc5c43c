/**
 * The page-size cap and the end of the result list, on a catalog of more than 100 items: the real L2A items plus
 * 120 copies derived from them (later datetimes, ids D<nnn>_<id>, marked "eoedge:derived"; helpers.seedDerived).
 * Every feature of every page is checked against the STAC item schema.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { StacItem } from "../../src/storage/stac";
import { MAX_LIMIT } from "../../src/catalog/query";
import { api, ROOT, seedCatalog, seedDerived, stacValidator, type StacValidator } from "./helpers";

const L2A = "sentinel-2-l2a";
const BASE = { collections: [L2A], datetime: "2000-01-01T00:00:00Z/.." };
let all: string[]; // every L2A id, in the catalog's (datetime, id) order
let validator: StacValidator;

beforeAll(async () => {
  const real = (await seedCatalog()).filter((i) => i.collection === L2A);
  const derived = await seedDerived(real, 120);
  const key = (i: StacItem): [number, string] => [Date.parse(i.properties.datetime), i.id];
  all = [...real, ...derived]
    .sort((a, b) => key(a)[0] - key(b)[0] || (key(a)[1] < key(b)[1] ? -1 : key(a)[1] > key(b)[1] ? 1 : 0))
    .map((i) => i.id);
  validator = await stacValidator();
});

const nextLink = (json: any): any => json.links.find((l: any) => l.rel === "next");

function valid(features: any[]): void {
  for (const f of features) expect(validator.check(f, "item"), f.id).toEqual([]);
}

describe(`limit above ${MAX_LIMIT}`, () => {
  it("POST /search with limit 1000 returns pages of exactly 100 until the end", async () => {
    expect(all.length).toBeGreaterThan(MAX_LIMIT); // more than one full page
    const seen: string[] = [];
    let next: unknown;
    for (let page = 0; page < 10; page++) {
      const r = await api(`${ROOT}/search`, { ...BASE, limit: 1000, ...(next === undefined ? {} : { next }) });
      expect(r.status).toBe(200);
      const want = Math.min(MAX_LIMIT, all.length - seen.length);
      expect(r.json.features).toHaveLength(want);
      expect(r.json.context).toMatchObject({ limit: MAX_LIMIT, returned: want });
      valid(r.json.features);
      seen.push(...r.json.features.map((f: any) => f.id));
      next = r.json.context.next;
      if (next === undefined) break;
      expect(nextLink(r.json).body.next).toBe(next);
    }
    expect(seen).toEqual(all);
  });

  it("GET /items with limit=500 returns 100 features (numberReturned 100) and a next link", async () => {
    const r = await api(`${ROOT}/collections/${L2A}/items?limit=500`);
    expect(r.status).toBe(200);
    expect(r.json.features).toHaveLength(MAX_LIMIT);
    expect(r.json.numberReturned).toBe(MAX_LIMIT);
    expect(r.json.features.map((f: any) => f.id)).toEqual(all.slice(0, MAX_LIMIT));
    valid(r.json.features);
    const second = await api(new URL(nextLink(r.json).href).pathname + new URL(nextLink(r.json).href).search);
    expect(second.json.features.map((f: any) => f.id)).toEqual(all.slice(MAX_LIMIT, 2 * MAX_LIMIT));
    expect(nextLink(second.json)).toBeUndefined();
  });
});

describe("next past the end", () => {
  it("an offset beyond the last item gives an empty last page (200, no next)", async () => {
    for (const next of [all.length, all.length + 50, 10 ** 9]) {
      const r = await api(`${ROOT}/search`, { ...BASE, limit: 10, next });
      expect(r.status, String(next)).toBe(200);
      expect(r.json.features).toEqual([]);
      expect(r.json.context).toEqual({ limit: 10, returned: 0 }); // the count comes with the first page only
      expect(nextLink(r.json)).toBeUndefined();
    }
    const last = await api(`${ROOT}/search`, { ...BASE, limit: 10, next: all.length - 3 });
    expect(last.json.features.map((f: any) => f.id)).toEqual(all.slice(-3));
    expect(last.json.context.next).toBeUndefined();
  });

  it("a keyset position after the last datetime gives an empty page; GET /items the same", async () => {
    const after = Date.parse("2100-01-01T00:00:00Z") * 2048; // keyset form of `next` (src/catalog/paging.ts)
    const r = await api(`${ROOT}/search`, { ...BASE, limit: 10, next: after });
    expect(r.status).toBe(200);
    expect(r.json.features).toEqual([]);
    expect(nextLink(r.json)).toBeUndefined();
    const items = await api(`${ROOT}/collections/${L2A}/items?limit=10&next=${all.length + 1}`);
    expect(items.status).toBe(200);
    expect(items.json).toMatchObject({ type: "FeatureCollection", numberReturned: 0, features: [] });
  });
});

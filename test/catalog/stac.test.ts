/**
 * Every JSON document the catalog serves validates against the official STAC 1.0.0 JSON schemas (item, collection,
 * catalog) and the extension schemas it lists (eo, projection, sar; offline copies in test/fixtures/catalog/schemas).
 */
import { beforeAll, describe, expect, it } from "vitest";
import Ajv2019 from "ajv/dist/2019";
import { env } from "cloudflare:workers";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import draft7 from "ajv/dist/refs/json-schema-draft-07.json";
import { api, fixture, GEOJSON_FILES, ROOT, seedCatalog, stacValidator, type StacValidator } from "./helpers";

let validator: StacValidator;
let items: StacItem[];
const COLLECTIONS = ["sentinel-2-l1c", "sentinel-2-l2a", "sentinel-1-grd"];
/** Every collection listed: the tests' archive (the twin, with its AWS keys) also offers dem and landsat-ot-l2 (src/archive). */
const LISTED = [...COLLECTIONS, "dem", "landsat-ot-l2"];

beforeAll(async () => {
  items = await seedCatalog();
  validator = await stacValidator();
});

describe("STAC schema validity", () => {
  it("landing page is a valid STAC Catalog with the required links and conformance classes", async () => {
    const { json } = await api(`${ROOT}/`);
    expect(validator.check(json, "catalog")).toEqual([]);
    const rels = json.links.map((l: any) => l.rel);
    for (const rel of ["self", "root", "service-desc", "service-doc", "conformance", "data", "child", "search"])
      expect(rels).toContain(rel);
    expect(
      json.links
        .filter((l: any) => l.rel === "search")
        .map((l: any) => l.method)
        .sort(),
    ).toEqual(["GET", "POST"]);
    expect(json.links.filter((l: any) => l.rel === "child").map((l: any) => l.href.split("/").pop())).toEqual(LISTED);
    const conf = await api(`${ROOT}/conformance`);
    expect(conf.json.conformsTo).toEqual(json.conformsTo);
    expect((await api(`${ROOT}/conformances`)).json).toEqual(conf.json);
    for (const c of [
      "core",
      "item-search",
      "item-search#fields",
      "item-search#filter",
      "item-search#context",
      "collections",
    ]) {
      expect(json.conformsTo).toContain(`https://api.stacspec.org/v1.0.0/${c}`);
    }
    const desc = await api(`${ROOT}/api`); // the whole API's OpenAPI document (test/openapi), also at service-desc
    expect(desc.json.openapi).toBe("3.1.0");
  });

  it("collections are valid STAC Collections with extents computed from their items", async () => {
    const { json } = await api(`${ROOT}/collections`);
    expect(json.collections.map((c: any) => c.id)).toEqual(LISTED);
    for (const c of json.collections) expect(validator.check(c, "collection"), c.id).toEqual([]);
    for (const id of COLLECTIONS) {
      const one = await api(`/api/v1/catalog/collections/${id}`);
      expect(validator.check(one.json, "collection"), id).toEqual([]);
      const mine = items.filter((i) => i.collection === id);
      const times = mine.map((i) => Date.parse(i.properties.datetime)).sort((a, b) => a - b);
      const [[t0, t1]] = one.json.extent.temporal.interval;
      expect([Date.parse(t0), Date.parse(t1)]).toEqual([times[0], times[times.length - 1]]);
      const [[w, s, e, n]] = one.json.extent.spatial.bbox;
      expect(s).toBe(Math.min(...mine.map((i) => i.bbox[1]!)));
      expect(n).toBe(Math.max(...mine.map((i) => i.bbox[3]!)));
      if (id === "sentinel-2-l1c") expect(w).toBeGreaterThan(e); // the T01LAC item crosses the antimeridian
    }
    const s2 = json.collections.find((c: any) => c.id === "sentinel-2-l2a");
    expect(s2.summaries["eo:cloud_cover"]).toEqual({ minimum: 0, maximum: 100 });
    expect(s2.summaries["eo:bands"].find((b: any) => b.name === "B04")).toMatchObject({
      common_name: "red",
      center_wavelength: 0.6646,
    });
    const s1 = json.collections.find((c: any) => c.id === "sentinel-1-grd");
    expect(s1.summaries["sar:polarizations"]).toContain("VV");
    expect(s1.summaries["s1:polarization"]).toContain("DV");
  });

  it("extents follow deletions and replacements of items", async () => {
    const extentOf = async () => (await api(`${ROOT}/collections/sentinel-2-l1c`)).json.extent;
    const before = await extentOf();
    // T19UDP (-70.4..-68.9) and T01LAC (179.3 across the antimeridian to -179.7): one box from -70.4 east to -179.7.
    expect(before.spatial.bbox[0][0]).toBe(-70.3608232);
    expect(before.spatial.bbox[0][2]).toBe(-179.70343);
    const l1c = items.filter((i) => i.collection === "sentinel-2-l1c");
    const crossing = l1c.find((i) => i.id.startsWith("S2A_T01LAC"))!;
    await env.DB.prepare("DELETE FROM items WHERE collection = ? AND id = ?")
      .bind(crossing.collection, crossing.id)
      .run();
    const other = l1c.find((i) => i !== crossing)!;
    expect((await extentOf()).spatial.bbox[0]).toEqual(other.bbox);
    const moved = {
      ...other,
      bbox: [10, 10, 11, 11],
      properties: { ...other.properties, datetime: "2021-01-01T00:00:00Z" },
    };
    await upsertItem(env, moved);
    expect(await extentOf()).toEqual({
      spatial: { bbox: [[10, 10, 11, 11]] },
      temporal: { interval: [["2021-01-01T00:00:00Z", "2021-01-01T00:00:00Z"]] },
    });
    await upsertItem(env, other);
    await upsertItem(env, crossing);
    expect(await extentOf()).toEqual(before);
  });

  it("every item, from the item endpoint and from search pages, is a valid STAC Item", async () => {
    for (const item of items) {
      const one = await api(`${ROOT}/collections/${item.collection}/items/${item.id}`);
      expect(one.status).toBe(200);
      expect(validator.check(one.json, "item"), item.id).toEqual([]);
      expect(one.json.links.find((l: any) => l.rel === "self").href).toBe(
        `http://localhost${ROOT}/collections/${item.collection}/items/${item.id}`,
      );
    }
    for (const c of COLLECTIONS) {
      const page = await api(`${ROOT}/search`, { collections: [c], datetime: "2000-01-01T00:00:00Z/..", limit: 100 });
      for (const f of page.json.features) expect(validator.check(f, "item"), f.id).toEqual([]);
    }
  });

  it("the validator is not vacuous: it applies eo/projection/sar and rejects broken items", async () => {
    const { json } = await api(`${ROOT}/collections/sentinel-2-l2a/items/S2A_29RKH_20200219_0_L2A`);
    expect(
      validator.check({ ...json, properties: { ...json.properties, "eo:cloud_cover": 150 } }, "item").join(),
    ).toContain("eo/v1.0.0");
    expect(
      validator.check({ ...json, properties: { ...json.properties, "proj:epsg": "32629" } }, "item").join(),
    ).toContain("projection");
    expect(validator.check({ ...json, links: undefined }, "item")).not.toEqual([]);
    const s1 = await api(
      `${ROOT}/collections/sentinel-1-grd/items/S1A_IW_GRDH_1SDV_20180716T004042_20180716T004107_022812_02792A_FD5B`,
    );
    expect(
      validator.check({ ...s1.json, properties: { ...s1.json.properties, "sar:polarizations": "VV" } }, "item").join(),
    ).toContain("sar");
  });

  it("items carry the Sentinel Hub properties and service URLs for every asset", async () => {
    const { json } = await api(`${ROOT}/collections/sentinel-2-l2a/items/S2A_29RKH_20200219_0_L2A`);
    const p = json.properties;
    for (const k of [
      "datetime",
      "platform",
      "instruments",
      "constellation",
      "gsd",
      "eo:cloud_cover",
      "proj:epsg",
      "proj:bbox",
      "proj:geometry",
      "eo:bands",
    ]) {
      expect(p[k], k).toBeDefined();
    }
    expect(p["proj:geometry"].coordinates[0][0]).toEqual([199980, 2690220]);
    expect(p["eo:bands"].map((b: any) => b.name)).toContain("B8A");
    expect(json.geometry.crs.properties.name).toBe("urn:ogc:def:crs:OGC::CRS84");
    expect(json.assets.data.href).toBe(
      `http://localhost${ROOT}/collections/sentinel-2-l2a/items/S2A_29RKH_20200219_0_L2A/assets/data`,
    );
    expect(json.assets.B04.href).toBe(
      `http://localhost${ROOT}/collections/sentinel-2-l2a/items/S2A_29RKH_20200219_0_L2A/assets/B04`,
    );
  });

  it("queryables is a JSON Schema with eo:cloud_cover 0..100", async () => {
    const ajv = new Ajv2019({ strict: false, validateFormats: false });
    ajv.addMetaSchema(draft7);
    for (const f of GEOJSON_FILES) ajv.addSchema((await fixture(`schemas/${f}`)) as object);
    for (const id of COLLECTIONS) {
      const r = await api(`${ROOT}/collections/${id}/queryables`);
      expect(r.headers.get("content-type")).toBe("application/schema+json");
      const valid = ajv.compile(r.json);
      expect(valid({ "eo:cloud_cover": 5, datetime: "2020-01-01T00:00:00Z" })).toBe(id !== "sentinel-1-grd");
      expect(valid({ nope: 1 })).toBe(false);
      if (id !== "sentinel-1-grd")
        expect(r.json.properties["eo:cloud_cover"]).toMatchObject({ type: "number", minimum: 0, maximum: 100 });
      else expect(Object.keys(r.json.properties)).toContain("sar:instrument_mode");
    }
  });

  it("feature lists and search results are FeatureCollections of valid items, on every page", async () => {
    const first = await api(
      `${ROOT}/collections/sentinel-2-l2a/items?limit=3&bbox=3,50,4,51&datetime=2018-01-01T00:00:00Z/..`,
    );
    expect(first.json).toMatchObject({ type: "FeatureCollection", numberReturned: 3 });
    expect(Date.parse(first.json.timeStamp)).toBeGreaterThan(0);
    expect(first.json.links.find((l: any) => l.rel === "next").href).toContain("next=");
    for (const c of COLLECTIONS) {
      const want = items
        .filter((i) => i.collection === c)
        .map((i) => i.id)
        .sort();
      const fromItems = await everyPage(`${ROOT}/collections/${c}/items?limit=4`, (p) => {
        expect(p.json).toMatchObject({ type: "FeatureCollection", numberReturned: p.json.features.length });
        const next = p.json.links.find((l: any) => l.rel === "next");
        return next ? api(new URL(next.href).pathname + new URL(next.href).search) : null;
      });
      expect(fromItems.sort(), c).toEqual(want);
      const body = { collections: [c], datetime: "2000-01-01T00:00:00Z/..", limit: 3 };
      const fromSearch = await everyPage(
        `${ROOT}/search`,
        (p) => {
          expect(p.json.type).toBe("FeatureCollection");
          return p.json.context.next === undefined
            ? null
            : api(`${ROOT}/search`, { ...body, next: p.json.context.next });
        },
        body,
      );
      expect(fromSearch.sort(), c).toEqual(want);
    }
  });
});

type Page = { status: number; json: any };

/** Follows pages from `path` (POSTing `body` when given), validating every feature as a STAC Item; returns the ids. */
async function everyPage(path: string, follow: (p: Page) => Promise<Page> | null, body?: unknown): Promise<string[]> {
  const ids: string[] = [];
  for (let page: Page | null = await api(path, body), n = 0; page && n < 50; n++) {
    expect(page.status).toBe(200);
    for (const f of page.json.features) {
      expect(validator.check(f, "item"), f.id).toEqual([]);
      ids.push(f.id);
    }
    page = await follow(page);
  }
  return ids;
}

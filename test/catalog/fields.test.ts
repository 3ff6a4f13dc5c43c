/**
 * The Fields extension's include/exclude semantics (stac-api-extensions/fields README, "Include/Exclude
 * Semantics" and its null/empty/missing table), on /search (GET and POST) and on a collection's items, including
 * top-level members: the cases stac-api-validator 0.6.8 sends, with their expected members written out here.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, ROOT, seedCatalog } from "./helpers";

const L2A = "sentinel-2-l2a";
const ID = "S2A_29RKH_20200219_0_L2A";
const DEFAULT = [
  "assets",
  "bbox",
  "collection",
  "geometry",
  "id",
  "links",
  "properties",
  "stac_extensions",
  "stac_version",
  "type",
];
const ALWAYS = ["collection", "id", "stac_version", "type"];
let full: any; // the item without fields

const members = (f: any): string[] => Object.keys(f).sort();
const get = async (fields: string): Promise<any> => {
  const r = await api(`${ROOT}/search?collections=${L2A}&ids=${ID}&fields=${fields}`);
  expect(r.status, JSON.stringify(r.json?.error)).toBe(200);
  return r.json.features[0];
};
const post = async (fields: unknown): Promise<any> => {
  const r = await api(`${ROOT}/search`, { collections: [L2A], ids: [ID], fields });
  expect(r.status, JSON.stringify(r.json?.error)).toBe(200);
  return r.json.features[0];
};

beforeAll(async () => {
  await seedCatalog();
  full = (await api(`${ROOT}/collections/${L2A}/items/${ID}`)).json;
  expect(Object.keys(full.properties).length).toBeGreaterThan(10);
});

describe("the default set", () => {
  it("empty GET value, {}, null and empty include/exclude: a valid item with properties.datetime only", async () => {
    for (const f of [
      await get(""),
      await post({}),
      await post({ include: null, exclude: null }),
      await post({ include: [], exclude: [] }),
    ]) {
      expect(members(f)).toEqual(DEFAULT);
      expect(f.properties).toEqual({ datetime: full.properties.datetime });
      expect(f.geometry).toEqual(full.geometry);
      expect(f.assets).toEqual(full.assets);
    }
  });
});

describe("include", () => {
  it("only the included top-level member, plus type, stac_version, id and collection (GET +/%2B/none, POST)", async () => {
    for (const field of ["type", "stac_version", "id", "geometry", "bbox", "links", "assets"]) {
      const want = [...new Set([...ALWAYS, field])].sort();
      for (const f of [await get(field), await get(`%2B${field}`), await post({ include: [field] })]) {
        expect(members(f), field).toEqual(want);
        expect(f[field], field).toEqual(full[field]);
      }
    }
  });

  it("a nested path keeps only that member of its object", async () => {
    const f = await post({ include: ["properties.eo:cloud_cover", "properties.gsd"] });
    expect(members(f)).toEqual([...ALWAYS, "properties"].sort());
    expect(f.properties).toEqual({ "eo:cloud_cover": full.properties["eo:cloud_cover"], gsd: 10 });
    const absent = await post({ include: ["properties.nope", "nope"] }); // no error for fields the item lacks
    expect(members(absent)).toEqual(ALWAYS);
  });
});

describe("exclude", () => {
  it("POST without include: everything but the excluded members", async () => {
    const f = await post({ exclude: ["geometry", "properties.gsd"] });
    expect(members(f)).toEqual(members(full).filter((k) => k !== "geometry"));
    const { gsd: _gsd, ...rest } = full.properties;
    expect(f.properties).toEqual(rest);
  });

  it("POST with include null or [] and GET: the default set minus the excluded members", async () => {
    for (const f of [
      await post({ include: null, exclude: ["geometry"] }),
      await post({ include: [], exclude: ["geometry"] }),
      await get("-geometry"),
    ]) {
      expect(members(f)).toEqual(DEFAULT.filter((k) => k !== "geometry"));
      expect(f.properties).toEqual({ datetime: full.properties.datetime });
    }
  });
});

describe("include and exclude together", () => {
  it("excluding an object but including one of its members keeps only that member", async () => {
    for (const f of [
      await get("-properties,%2Bproperties.eo:cloud_cover"),
      await post({ exclude: ["properties"], include: ["properties.eo:cloud_cover"] }),
    ]) {
      expect(members(f)).toEqual([...ALWAYS, "properties"].sort());
      expect(f.properties).toEqual({ "eo:cloud_cover": full.properties["eo:cloud_cover"] });
    }
  });

  it("including an object but excluding one of its members keeps the others", async () => {
    const f = await get("properties,-properties.datetime");
    const { datetime: _d, ...rest } = full.properties;
    expect(f.properties).toEqual(rest);
  });

  it("a path both included and excluded is included", async () => {
    for (const f of [
      await get("%2Bgeometry,-geometry"),
      await post({ include: ["geometry"], exclude: ["geometry"] }),
    ]) {
      expect(members(f)).toEqual([...ALWAYS, "geometry"].sort());
    }
  });

  it("an explicitly excluded identifying member is left out", async () => {
    const f = await post({ include: ["bbox"], exclude: ["stac_version", "collection"] });
    expect(members(f)).toEqual(["bbox", "id", "type"]);
  });

  it("applies to a collection's items (OGC API Features binding) and to every page", async () => {
    const r = await api(`${ROOT}/collections/${L2A}/items?limit=3&fields=id,-links`);
    expect(r.json.features.map(members)).toEqual([ALWAYS, ALWAYS, ALWAYS]);
    const next = r.json.links.find((l: any) => l.rel === "next");
    const second = await api(new URL(next.href).pathname + new URL(next.href).search);
    expect(second.json.features.map(members)).toEqual([ALWAYS, ALWAYS, ALWAYS]);
  });
});

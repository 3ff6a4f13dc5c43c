/** Bad input gets the spec's error envelope with a status that says what is wrong (never a 500). */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, call } from "../helpers/auth";
import { api, ROOT, seedCatalog } from "./helpers";

const BASE = { collections: ["sentinel-2-l2a"], datetime: "2017-01-01T00:00:00Z/.." };

async function expectError(
  r: Promise<{ status: number; json: any }>,
  status: number,
  message?: RegExp,
): Promise<string> {
  const { status: got, json } = await r;
  expect(got, JSON.stringify(json)).toBe(status);
  expect(Object.keys(json.error).sort()).toEqual(["code", "errors", "message", "reason", "status"]);
  expect(json.error.status).toBe(status);
  if (message) expect(json.error.message).toMatch(message);
  return json.error.message;
}

const post = (body: unknown) => api(`${ROOT}/search`, body);

beforeAll(async () => {
  await seedCatalog();
});

describe("400 for invalid search members", () => {
  it("bbox", async () => {
    await expectError(post({ ...BASE, bbox: [1, 2, 3] }), 400, /4 or 6 numbers/);
    await expectError(post({ ...BASE, bbox: [1, 2, 3, 4, 5] }), 400, /4 or 6 numbers/);
    await expectError(post({ ...BASE, bbox: [0, -95, 1, 1] }), 400, /latitudes/);
    await expectError(post({ ...BASE, bbox: [0, 10, 1, 5] }), 400, /south latitude is above/);
    await expectError(post({ ...BASE, bbox: [0, 1, 200, 2] }), 400, /longitudes/);
    await expectError(
      api(`${ROOT}/search?collections=sentinel-2-l2a&datetime=2020-01-01T00:00:00Z&bbox=1,x,2,3`),
      400,
      /bbox/,
    );
    await expectError(post({ ...BASE, bbox: "1,2,3,4" }), 400, /bbox/);
    await expectError(
      post({ ...BASE, bbox: [0, 0, 1, 1], intersects: { type: "Point", coordinates: [0, 0] } }),
      400,
      /either 'bbox' or 'intersects'/,
    );
  });

  it("intersects", async () => {
    await expectError(
      post({
        ...BASE,
        intersects: {
          type: "Polygon",
          coordinates: [
            [
              [0, 0],
              [1, 1],
            ],
          ],
        },
      }),
      400,
      /intersects/,
    );
    await expectError(post({ ...BASE, intersects: { type: "Circle", coordinates: [0, 0] } }), 400);
    await expectError(post({ ...BASE, intersects: { type: "Point", coordinates: [10, 95] } }), 400, /outside lon\/lat/);
    await expectError(
      api(`${ROOT}/search?collections=sentinel-2-l2a&datetime=2020-01-01T00:00:00Z&intersects=notjson`),
      400,
      /GeoJSON/,
    );
  });

  it("datetime", async () => {
    await expectError(post({ ...BASE, datetime: "2020-13-01T00:00:00Z" }), 400, /RFC 3339/);
    await expectError(post({ ...BASE, datetime: "2020-01-01" }), 400, /RFC 3339/);
    await expectError(
      post({ ...BASE, datetime: "2020-02-01T00:00:00Z/2020-01-01T00:00:00Z" }),
      400,
      /start is after the end/,
    );
    await expectError(post({ ...BASE, datetime: "a/b/c" }), 400);
    for (const open of ["../..", "/", "/..", "../"])
      await expectError(post({ ...BASE, datetime: open }), 400, /at most one end/);
  });

  it("limit, next, collections, unknown members", async () => {
    await expectError(post({ ...BASE, limit: 0 }), 400, /limit/);
    await expectError(post({ ...BASE, limit: -3 }), 400, /limit/);
    await expectError(post({ ...BASE, limit: 2.5 }), 400, /limit/);
    await expectError(post({ ...BASE, limit: "ten" }), 400);
    await expectError(
      api(`${ROOT}/search?collections=sentinel-2-l2a&datetime=2020-01-01T00:00:00Z&limit=0`),
      400,
      /limit/,
    );
    await expectError(post({ ...BASE, next: -1 }), 400, /next/);
    await expectError(post({ ...BASE, next: "abc" }), 400, /next/);
    await expectError(post({ ...BASE, collections: ["sentinel-2-l2a", "nope"] }), 404, /Collection 'nope' not found/);
    await expectError(post({ ...BASE, collections: "sentinel-2-l2a,nope" }), 404, /'nope'/);
    await expectError(
      post({ ...BASE, sortby: [{ field: "gsd", direction: "desc" }] }),
      400,
      /Cannot sort by 'gsd'.*datetime, eo:cloud_cover, id, collection/,
    );
    await expectError(post({ ...BASE, sortby: [{ field: "datetime", direction: "down" }] }), 400, /sortby/);
    await expectError(post({ ...BASE, sortby: [{ direction: "asc" }] }), 400, /sortby/);
    await expectError(api(`${ROOT}/search?sortby=-properties.geometry`), 400, /Cannot sort by 'properties.geometry'/);
    await expectError(api(`${ROOT}/search?sortby=datetime,,id`), 400, /Invalid sortby/);
    await expectError(
      post({ ...BASE, sortby: "eo:cloud_cover", next: 2 ** 41 }),
      400,
      /Invalid 'next'.*sorted by eo:cloud_cover/,
    );
    await expectError(post({ ...BASE, fields: null }), 400, /fields/);
    await expectError(post({ ...BASE, fields: { include: "id" } }), 400, /fields/);
    await expectError(post({ ...BASE, query: { "eo:cloud_cover": { lt: 10 } } }), 400, /filter/);
    await expectError(post({ ...BASE, distinct: "geometry" }), 400, /geometry/);
    await expectError(post({ ...BASE, distinct: "nope" }), 400, /Unknown property 'nope'/);
    expect((await call(`${ROOT}/search`, { method: "POST", body: "{}" })).status).toBe(401); // no token
    const bad = await authed(`${ROOT}/search`, { method: "POST", body: "{not json" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toMatch(/not valid JSON/);
  });
});

describe("CQL2 errors", () => {
  it("syntax errors name the position in the user's text", async () => {
    const m1 = await expectError(post({ ...BASE, filter: "eo:cloud_cover <", "filter-lang": "cql2-text" }), 400);
    expect(m1).toMatch(/line 1, column 17 .*end of the filter/);
    const m2 = await expectError(post({ ...BASE, filter: "eo:cloud_cover < 10 AND", "filter-lang": "cql2-text" }), 400);
    expect(m2).toMatch(/column 24/);
    const m3 = await expectError(post({ ...BASE, filter: "eo:cloud_cover << 10" }), 400);
    expect(m3).toMatch(/column 17 .*near '< 10'/);
    await expectError(
      post({ ...BASE, filter: "eo:cloud_cover < 10) OR (gsd = 10" }),
      400,
      /character 20: '\)' closes no '\('/,
    );
    await expectError(
      api(
        `${ROOT}/search?collections=sentinel-2-l2a&datetime=2020-01-01T00:00:00Z&filter=${encodeURIComponent("platform = 'x")}`,
      ),
      400,
      /column/,
    );
  });

  it("an input that traps the parser is a 400, and the parser keeps working", async () => {
    await expectError(post({ ...BASE, filter: "platform || AND IS IN" }), 400, /CQL2/);
    const ok = await post({ ...BASE, filter: "eo:cloud_cover < 1e1 AND eo:cloud_cover >= 0", limit: 100 });
    expect(ok.status).toBe(200);
    expect(ok.json.features.length).toBeGreaterThan(0);
    expect(ok.json.features.every((f: any) => f.properties["eo:cloud_cover"] < 10)).toBe(true);
  });

  it("unknown properties, type mismatches and unsupported operators", async () => {
    const m = await expectError(post({ ...BASE, filter: "cloud_cover < 10" }), 400, /Unknown property 'cloud_cover'/);
    expect(m).toContain("eo:cloud_cover");
    await expectError(
      post({ ...BASE, filter: { op: "<", args: [{ property: "eo:cloudcover" }, 10] } }),
      400,
      /Unknown property/,
    );
    await expectError(post({ ...BASE, filter: "eo:cloud_cover = 'low'" }), 400, /Cannot compare/);
    await expectError(post({ ...BASE, filter: "datetime > 'yesterday'" }), 400, /RFC 3339/);
    await expectError(
      post({ ...BASE, filter: { op: "s_within", args: [{ property: "geometry" }, { bbox: [0, 0, 1, 1] }] } }),
      400,
      /Unsupported filter operator 's_within'/,
    );
    await expectError(
      post({ ...BASE, filter: { op: "between", args: [{ property: "eo:cloud_cover" }, 1] } }),
      400,
      /3 arguments/,
    );
    await expectError(post({ ...BASE, filter: { property: "eo:cloud_cover" } }), 400, /boolean expression/);
    await expectError(
      post({ ...BASE, filter: "eo:cloud_cover < 10", "filter-crs": "http://www.opengis.net/def/crs/EPSG/0/4326" }),
      400,
      /filter-crs/,
    );
    await expectError(post({ ...BASE, filter: { op: "<" }, "filter-lang": "cql2-text" }), 400, /cql2-text/);
    await expectError(post({ ...BASE, filter: "{", "filter-lang": "cql2-json" }), 400, /not valid JSON/);
    await expectError(post({ ...BASE, filter: "s_intersects(geometry, POINT(200 0))" }), 400, /lon, lat/);
    // names of Object.prototype members are unsupported operators, never table lookups (they were a 500)
    for (const op of ["constructor", "toString", "__proto__"]) {
      await expectError(
        post({ ...BASE, filter: { op, args: [{ property: "platform" }, "x"] } }),
        400,
        new RegExp(`Unsupported filter operator '${op}'`),
      );
      await expectError(
        post({ ...BASE, filter: { op: "=", args: [{ op, args: [1, 2] }, 3] } }),
        400,
        /Unsupported expression/,
      );
    }
  });
});

describe("404 and 405", () => {
  it("unknown collections, items and assets", async () => {
    await expectError(post({ ...BASE, collections: ["sentinel-3-olci"] }), 404, /sentinel-3-olci/);
    await expectError(api(`${ROOT}/collections/nope`), 404, /nope/);
    await expectError(api(`/api/v1/catalog/collections/nope/items`), 404);
    await expectError(api(`${ROOT}/collections/nope/queryables`), 404);
    await expectError(api(`${ROOT}/collections/sentinel-2-l2a/items/nope`), 404, /nope/);
    await expectError(
      api(`${ROOT}/collections/sentinel-2-l2a/items/S2A_29RKH_20200219_0_L2A/assets/B99`),
      404,
      /no asset 'B99'/,
    );
  });

  it("names of Object.prototype members are unknown collections and items, never property lookups", async () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      await expectError(post({ ...BASE, collections: [name] }), 404, new RegExp(name));
      await expectError(api(`${ROOT}/collections/${name}`), 404);
      await expectError(api(`${ROOT}/collections/${name}/items`), 404);
      await expectError(api(`${ROOT}/collections/${name}/queryables`), 404);
      await expectError(api(`${ROOT}/collections/sentinel-2-l2a/items/${name}`), 404);
      await expectError(post({ ...BASE, filter: { op: "=", args: [{ property: name }, 1] } }), 400, /Unknown property/);
      await expectError(post({ ...BASE, distinct: name }), 400, /Unknown property/);
    }
  });

  it("wrong method", async () => {
    const r = await call(`${ROOT}/search`, { method: "DELETE" });
    expect(r.status).toBe(405);
  });
});

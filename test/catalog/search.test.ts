/**
 * Search semantics on the real STAC items (data/items and the shared STAC fixtures): every filter member, the
 * antimeridian, open intervals, fields, distinct. Expected ids are derived from the items' own JSON.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { StacItem } from "../../src/storage/stac";
import { api, ROOT, seedCatalog } from "./helpers";

let items: StacItem[];
const L2A = "sentinel-2-l2a";
const ALL_TIME = "1970-01-07T00:00:00Z/..";

const ids = (r: { json: any }): string[] => r.json.features.map((f: any) => f.id).sort();
const expected = (pred: (i: StacItem) => boolean, collection = L2A): string[] =>
  items
    .filter((i) => i.collection === collection && pred(i))
    .map((i) => i.id)
    .sort();
const cc = (i: StacItem): number | undefined => i.properties["eo:cloud_cover"] as number | undefined;
const time = (i: StacItem): number => Date.parse(i.properties.datetime);

async function search(body: Record<string, unknown>): Promise<{ status: number; json: any }> {
  return api(`${ROOT}/search`, { collections: [L2A], datetime: ALL_TIME, limit: 100, ...body });
}

beforeAll(async () => {
  items = await seedCatalog();
});

describe("datetime", () => {
  it("closed interval, open start, open end and instant select by acquisition time", async () => {
    const [a, b] = [Date.parse("2018-03-01T00:00:00Z"), Date.parse("2018-07-15T10:53:00Z")];
    const closed = await search({ datetime: "2018-03-01T00:00:00Z/2018-07-15T10:53:00Z" });
    expect(ids(closed)).toEqual(expected((i) => time(i) >= a && time(i) <= b));
    expect(ids(closed)).toContain("S2_L2A_31UDS_20180715T105300_wc00002806639B424A"); // end is inclusive
    const openStart = await search({ datetime: "../2017-12-31T00:00:00Z" });
    expect(ids(openStart)).toEqual(expected((i) => time(i) <= Date.parse("2017-12-31T00:00:00Z")));
    const openEnd = await search({ datetime: "2023-01-01T00:00:00+02:00/" });
    expect(ids(openEnd)).toEqual(expected((i) => time(i) >= Date.parse("2022-12-31T22:00:00Z")));
    const instant = await search({ datetime: "2020-02-19T11:34:25.405Z" });
    expect(ids(instant)).toEqual(["S2A_29RKH_20200219_0_L2A"]);
  });
});

describe("bbox and intersects", () => {
  it("bbox selects items whose footprint intersects it (4 and 6 numbers)", async () => {
    const wf = await search({ bbox: [3.02, 50.81, 3.03, 50.82] });
    expect(ids(wf)).toEqual(expected((i) => i.id.includes("31UDS")));
    const six = await search({ bbox: [3.02, 50.81, 0, 3.03, 50.82, 100] });
    expect(ids(six)).toEqual(ids(wf));
    const none = await search({ bbox: [3.03, 50.82, 3.04, 50.83] });
    expect(ids(none)).toEqual([]);
  });

  it("antimeridian: a box crossing 180 finds the item crossing it, from both sides", async () => {
    const q = { collections: ["sentinel-2-l1c"] };
    const crossing = await search({ ...q, bbox: [179.5, -16.2, -179.9, -15.5] });
    expect(ids(crossing)).toEqual(["S2A_T01LAC_20200717T221944_L1C"]);
    const east = await search({ ...q, bbox: [-179.95, -16.2, -179.8, -15.5] });
    expect(ids(east)).toEqual(["S2A_T01LAC_20200717T221944_L1C"]);
    const west = await search({ ...q, bbox: [179.3, -16.2, 179.4, -15.5] });
    expect(ids(west)).toEqual(["S2A_T01LAC_20200717T221944_L1C"]);
    const elsewhere = await search({ ...q, bbox: [170, -16.2, -170, -17] });
    expect(elsewhere.status).toBe(400); // south above north
    const gap = await search({ ...q, bbox: [-179.6, -16.2, 179.2, -15.5] }); // everything except the item's span
    expect(ids(gap)).not.toContain("S2A_T01LAC_20200717T221944_L1C");
  });

  it("intersects accepts every GeoJSON geometry type and tests the real footprint", async () => {
    const inside = [3.024, 50.816];
    const geoms = [
      { type: "Point", coordinates: inside },
      { type: "MultiPoint", coordinates: [[0, 0], inside] },
      {
        type: "LineString",
        coordinates: [
          [3.0, 50.816],
          [3.05, 50.816],
        ],
      },
      {
        type: "MultiLineString",
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
          [
            [3.0, 50.816],
            [3.05, 50.816],
          ],
        ],
      },
      {
        type: "Polygon",
        coordinates: [
          [
            [3.02, 50.81],
            [3.03, 50.81],
            [3.03, 50.82],
            [3.02, 50.82],
            [3.02, 50.81],
          ],
        ],
      },
      {
        type: "MultiPolygon",
        coordinates: [
          [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 0],
            ],
          ],
          [
            [
              [3.02, 50.81],
              [3.03, 50.81],
              [3.03, 50.82],
              [3.02, 50.81],
            ],
          ],
        ],
      },
      { type: "GeometryCollection", geometries: [{ type: "Point", coordinates: inside }] },
    ];
    for (const g of geoms) {
      const r = await search({ intersects: g });
      expect(r.status, g.type).toBe(200);
      expect(ids(r), g.type).toEqual(expected((i) => i.id.includes("31UDS")));
    }
    // Inside the 29RKH item's bbox but outside its (tilted) footprint: the bbox corner north-east.
    const corner = await search({ intersects: { type: "Point", coordinates: [-10.876, 25.303] } });
    expect(ids(corner)).toEqual([]);
    const bboxCorner = await search({ bbox: [-10.877, 25.302, -10.8746, 25.3046] });
    expect(ids(bboxCorner)).toEqual([]);
  });
});

describe("ids, limit, collections", () => {
  it("ids restricts to the listed items", async () => {
    const want = ["S2A_29RKH_20200219_0_L2A", "openEO_2023-06-04_mol_31U", "no-such-item"];
    expect(ids(await search({ ids: want }))).toEqual(want.slice(0, 2).sort());
  });

  it("limit above 100 is accepted as 100 (the cap on more than 100 items: cap.test.ts); default is 10", async () => {
    const big = await search({ limit: 1000 });
    expect(big.status).toBe(200);
    expect(big.json.context.limit).toBe(100);
    const dflt = await api(`${ROOT}/search`, { collections: [L2A], datetime: ALL_TIME });
    expect(dflt.json.features).toHaveLength(10);
    expect(dflt.json.context).toMatchObject({ limit: 10, returned: 10 });
  });

  it("GET and POST agree, and every alias root serves search", async () => {
    const post = await search({ bbox: [3, 50, 4, 51], filter: "eo:cloud_cover < 1" });
    const qs = `collections=${L2A}&datetime=${ALL_TIME}&limit=100&bbox=3,50,4,51&filter=${encodeURIComponent("eo:cloud_cover < 1")}`;
    for (const root of [ROOT, "/catalog/v1", "/api/v1/catalog"]) {
      const get = await api(`${root}/search?${qs}`);
      expect(ids(get), root).toEqual(ids(post));
    }
  });
});

describe("client payloads as sent", () => {
  it("sentinelhub-js findTiles: bbox null with intersects, millisecond datetimes, cql2-json filter", async () => {
    const r = await api(`${ROOT}/search`, {
      bbox: null,
      datetime: "2018-01-01T00:00:00.000Z/2018-12-31T23:59:59.999Z",
      collections: [L2A],
      limit: 50,
      intersects: {
        type: "Polygon",
        coordinates: [
          [
            [3, 50.8],
            [3.05, 50.8],
            [3.05, 50.83],
            [3, 50.83],
            [3, 50.8],
          ],
        ],
      },
      filter: { op: "<=", args: [{ property: "eo:cloud_cover" }, 20] },
      "filter-lang": "cql2-json",
    });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(
      expected((i) => i.id.includes("31UDS") && cc(i)! <= 20 && i.properties.datetime.startsWith("2018")),
    );
  });

  it("sentinelhub-py search: filter-lang sent without a filter, then with a text filter", async () => {
    const base = {
      collections: [L2A],
      datetime: "2020-01-01T00:00:00Z/2020-12-31T23:59:59Z",
      bbox: [-12, 24, -10, 26],
      limit: 100,
      "filter-lang": "cql2-text",
    };
    expect(ids(await api(`${ROOT}/search`, base))).toEqual(["S2A_29RKH_20200219_0_L2A"]);
    expect(ids(await api(`${ROOT}/search`, { ...base, filter: "eo:cloud_cover > 5" }))).toEqual([]);
    const fields = await api(`${ROOT}/search`, {
      ...base,
      fields: { include: ["id", "properties.datetime"], exclude: [] },
    });
    expect(fields.json.features[0].properties).toEqual({ datetime: "2020-02-19T11:34:25.405000Z" });
  });
});

describe("filter", () => {
  const cases: [string, unknown, (i: StacItem) => boolean][] = [
    ["eo:cloud_cover < 10", { op: "<", args: [{ property: "eo:cloud_cover" }, 10] }, (i) => cc(i)! < 10],
    ["eo:cloud_cover >= 71.39", { op: ">=", args: [{ property: "eo:cloud_cover" }, 71.39] }, (i) => cc(i)! >= 71.39],
    ["eo:cloud_cover = 0", { op: "=", args: [{ property: "eo:cloud_cover" }, 0] }, (i) => cc(i) === 0],
    [
      "eo:cloud_cover <> 0",
      { op: "<>", args: [{ property: "eo:cloud_cover" }, 0] },
      (i) => cc(i) !== undefined && cc(i) !== 0,
    ],
    ["eo:cloud_cover <= 0.1", { op: "<=", args: [{ property: "eo:cloud_cover" }, 0.1] }, (i) => cc(i)! <= 0.1],
    ["eo:cloud_cover > 50", { op: ">", args: [{ property: "eo:cloud_cover" }, 50] }, (i) => cc(i)! > 50],
    [
      "eo:cloud_cover BETWEEN 0.1 AND 5",
      { op: "between", args: [{ property: "eo:cloud_cover" }, 0.1, 5] },
      (i) => cc(i)! >= 0.1 && cc(i)! <= 5,
    ],
    ["eo:cloud_cover IS NULL", { op: "isNull", args: [{ property: "eo:cloud_cover" }] }, (i) => cc(i) === undefined],
    [
      "eo:cloud_cover IS NOT NULL",
      { op: "not", args: [{ op: "isNull", args: [{ property: "eo:cloud_cover" }] }] },
      (i) => cc(i) !== undefined,
    ],
    ["id LIKE 'openEO%'", { op: "like", args: [{ property: "id" }, "openEO%"] }, (i) => i.id.startsWith("openEO")],
    ["id LIKE 'openeo%'", { op: "like", args: [{ property: "id" }, "openeo%"] }, () => false], // case-sensitive
    [
      "CASEI(id) LIKE 'openeo%'",
      { op: "like", args: [{ op: "casei", args: [{ property: "id" }] }, "openeo%"] },
      (i) => i.id.startsWith("openEO"),
    ],
    [
      "platform IN ('sentinel-2a', 'sentinel-2b')",
      { op: "in", args: [{ property: "platform" }, ["sentinel-2a", "sentinel-2b"]] },
      (i) => ["sentinel-2a", "sentinel-2b"].includes(i.properties.platform as string),
    ],
    [
      "platform = 'sentinel-2a' OR eo:cloud_cover > 90",
      {
        op: "or",
        args: [
          { op: "=", args: [{ property: "platform" }, "sentinel-2a"] },
          { op: ">", args: [{ property: "eo:cloud_cover" }, 90] },
        ],
      },
      (i) => i.properties.platform === "sentinel-2a" || cc(i)! > 90,
    ],
    [
      "NOT (eo:cloud_cover < 1) AND datetime > TIMESTAMP('2018-01-01T00:00:00Z')",
      {
        op: "and",
        args: [
          { op: "not", args: [{ op: "<", args: [{ property: "eo:cloud_cover" }, 1] }] },
          { op: ">", args: [{ property: "datetime" }, { timestamp: "2018-01-01T00:00:00Z" }] },
        ],
      },
      (i) => cc(i) !== undefined && !(cc(i)! < 1) && time(i) > Date.parse("2018-01-01T00:00:00Z"),
    ],
    [
      "datetime < '2017-10-01T00:00:00Z'",
      { op: "<", args: [{ property: "datetime" }, "2017-10-01T00:00:00Z"] },
      (i) => time(i) < Date.parse("2017-10-01T00:00:00Z"),
    ],
    [
      "T_INTERSECTS(datetime, INTERVAL('2018-04-01', '2018-04-30'))",
      { op: "t_intersects", args: [{ property: "datetime" }, { interval: ["2018-04-01", "2018-04-30"] }] },
      (i) => time(i) >= Date.parse("2018-04-01T00:00:00Z") && time(i) <= Date.parse("2018-04-30T00:00:00Z"),
    ],
    [
      "S_INTERSECTS(geometry, POINT(3.024 50.816))",
      { op: "s_intersects", args: [{ property: "geometry" }, { type: "Point", coordinates: [3.024, 50.816] }] },
      (i) => i.id.includes("31UDS"),
    ],
    [
      "S_INTERSECTS(geometry, BBOX(3.02, 50.81, 3.03, 50.82)) OR eo:cloud_cover > 50",
      {
        op: "or",
        args: [
          { op: "s_intersects", args: [{ property: "geometry" }, { bbox: [3.02, 50.81, 3.03, 50.82] }] },
          { op: ">", args: [{ property: "eo:cloud_cover" }, 50] },
        ],
      },
      (i) => i.id.includes("31UDS") || cc(i)! > 50,
    ],
    [
      "NOT S_INTERSECTS(geometry, BBOX(3.02, 50.81, 3.03, 50.82))",
      {
        op: "not",
        args: [{ op: "s_intersects", args: [{ property: "geometry" }, { bbox: [3.02, 50.81, 3.03, 50.82] }] }],
      },
      (i) => !i.id.includes("31UDS"),
    ],
    [
      "\"s2:processing_baseline\" = '02.14'",
      { op: "=", args: [{ property: "s2:processing_baseline" }, "02.14"] },
      (i) => i.properties["s2:processing_baseline"] === "02.14",
    ],
    ["gsd = 1e1", { op: "=", args: [{ property: "gsd" }, 10] }, (i) => i.properties.gsd === 10],
  ];

  for (const [text, json, pred] of cases) {
    it(`${text} (cql2-text and cql2-json)`, async () => {
      const want = expected(pred);
      const t = await search({ filter: text, "filter-lang": "cql2-text" });
      expect(t.status, JSON.stringify(t.json?.error)).toBe(200);
      expect(ids(t)).toEqual(want);
      const j = await search({ filter: json, "filter-lang": "cql2-json" });
      expect(j.status, JSON.stringify(j.json?.error)).toBe(200);
      expect(ids(j)).toEqual(want);
    });
  }

  it("sentinel-1 filters of sentinelhub-py (text) and sentinelhub-js (JSON, single-argument and)", async () => {
    const s1 = (i: StacItem) =>
      i.properties["sar:instrument_mode"] === "IW" && i.properties["s1:polarization"] === "DV";
    const py = await search({
      collections: ["sentinel-1-grd"],
      filter: "sar:instrument_mode='IW' AND s1:polarization='DV'",
      "filter-lang": "cql2-text",
    });
    expect(ids(py)).toEqual(expected(s1, "sentinel-1-grd"));
    const js = await search({
      collections: ["sentinel-1-grd"],
      filter: { op: "and", args: [{ op: "=", args: [{ property: "sar:instrument_mode" }, "IW"] }] },
      "filter-lang": "cql2-json",
    });
    expect(ids(js)).toEqual(expected((i) => i.properties["sar:instrument_mode"] === "IW", "sentinel-1-grd"));
  });
});

describe("fields", () => {
  it("object form: include wins over exclude, nested paths", async () => {
    const r = await search({
      ids: ["S2A_29RKH_20200219_0_L2A"],
      fields: {
        include: ["id", "type", "bbox", "properties"],
        exclude: ["geometry", "links", "assets", "properties.view:sun_azimuth"],
      },
    });
    const f = r.json.features[0];
    expect(Object.keys(f).sort()).toEqual(["bbox", "collection", "id", "properties", "stac_version", "type"]);
    expect(f.properties["eo:cloud_cover"]).toBe(4.051854);
    expect(f.properties["view:sun_azimuth"]).toBeUndefined();
    const both = await search({
      ids: ["S2A_29RKH_20200219_0_L2A"],
      fields: { include: ["assets"], exclude: ["assets"] },
    });
    expect(both.json.features[0].assets.B04).toBeDefined();
    const sub = await search({
      ids: ["S2A_29RKH_20200219_0_L2A"],
      fields: { include: ["properties.gsd"], exclude: ["properties"] },
    });
    expect(sub.json.features[0].properties).toEqual({ gsd: 10 });
  });

  it("paths naming Object.prototype members select nothing (own members only)", async () => {
    const r = await search({
      ids: ["S2A_29RKH_20200219_0_L2A"],
      fields: {
        include: ["toString", "__proto__", "constructor.name", "properties.valueOf", "properties.__proto__.x"],
        exclude: ["hasOwnProperty"],
      },
    });
    expect(r.status, JSON.stringify(r.json?.error)).toBe(200);
    const f = r.json.features[0];
    expect(Object.keys(f).sort()).toEqual(["collection", "id", "stac_version", "type"]); // only the members always returned
    const get = await api(
      `${ROOT}/search?collections=${L2A}&datetime=${ALL_TIME}&ids=S2A_29RKH_20200219_0_L2A&fields=__proto__,-toString,properties.constructor`,
    );
    expect(get.status).toBe(200);
    expect(Object.keys(get.json.features[0]).sort()).toEqual(["collection", "id", "stac_version", "type"]);
  });

  it("GET comma form with '-' excludes; a GET exclude-only list excludes from the default set", async () => {
    const base = `${ROOT}/search?collections=${L2A}&datetime=${ALL_TIME}&ids=S2A_29RKH_20200219_0_L2A`;
    const inc = await api(`${base}&fields=id,properties.eo:cloud_cover,-links`);
    const f = inc.json.features[0];
    expect(f.links).toBeUndefined();
    expect(f.properties).toEqual({ "eo:cloud_cover": 4.051854 });
    expect(f.geometry).toBeUndefined();
    const exc = await api(`${base}&fields=-assets,-properties.gsd`);
    const g = exc.json.features[0];
    expect(Object.keys(g).sort()).toEqual([
      "bbox",
      "collection",
      "geometry",
      "id",
      "links",
      "properties",
      "stac_extensions",
      "stac_version",
      "type",
    ]);
    expect(g.properties).toEqual({ datetime: "2020-02-19T11:34:25.405000Z" });
    const empty = await search({ ids: ["S2A_29RKH_20200219_0_L2A"], fields: {} });
    expect(Object.keys(empty.json.features[0].properties)).toEqual(["datetime"]);
  });
});

describe("distinct", () => {
  it("date lists each acquisition day once, ascending (sentinelhub-js findDatesUTC)", async () => {
    const r = await search({ distinct: "date", bbox: [-180, -90, 180, 90] });
    const days = [
      ...new Set(items.filter((i) => i.collection === L2A).map((i) => new Date(time(i)).toISOString().slice(0, 10))),
    ].sort();
    expect(r.json.features).toEqual(days);
    const page = await search({ distinct: "date", limit: 5 });
    expect(page.json.features).toEqual(days.slice(0, 5));
    expect(page.json.context).toMatchObject({ next: 5, limit: 5, returned: 5 });
    const second = await search({ distinct: "date", limit: 5, next: 5 });
    expect(second.json.features).toEqual(days.slice(5, 10));
  });

  it("distinct of a property, with a filter", async () => {
    const r = await search({ distinct: "platform", filter: "eo:cloud_cover < 10" });
    const want = [
      ...new Set(items.filter((i) => i.collection === L2A && cc(i)! < 10).map((i) => i.properties.platform)),
    ].sort();
    expect(r.json.features).toEqual(want);
  });
});

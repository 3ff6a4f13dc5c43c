/**
 * Third-party search and thumbnails on the SAMPLE provider (interface spec 4.9): the sample scenes of data/ as
 * products (ids, footprints, acquisition time, cloud cover checked against data/items), count/viewtoken paging
 * with links, native search in Planet's filter language, a thumbnail made of the scene's pixels (decoded by Pillow
 * and compared with the band files decoded by tifffile), the deprecation headers on every answer, and bad input.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/auth";
import { tokenOf } from "../helpers/byoc";
import { pyDecode, samplesOf, type PyImage } from "../helpers/pydecode";
import { sampleFile } from "../helpers/seed";
import { DI, di, ok, refusedWith, sampleInput, seedWestFlanders, westFlandersItems } from "./helpers";

let bearer: string;
beforeAll(async () => {
  await seedWestFlanders();
  bearer = await tokenOf(crypto.randomUUID());
});

interface Feature {
  id: string;
  geometry: { type: string; coordinates: number[][][] };
  properties: { acquired: string; cloud_cover: number; item_type: string };
}
interface Page {
  features: Feature[];
  links: { currentToken: string; nextToken?: string; next?: string; previousToken?: string };
}

describe("search (process-like)", () => {
  it("finds the scenes of the time range, newest first, with their footprint, time and cloud cover", async () => {
    const page = await ok<Page>(
      await di("/search", bearer, "POST", sampleInput("2017-08-01T00:00:00Z", "2017-12-31T00:00:00Z")),
    );
    const expected = (await westFlandersItems()).filter(
      (i) => i.properties.datetime >= "2017-08" && i.properties.datetime < "2018",
    );
    expect(expected.length).toBe(3);
    expect(page.features.map((f) => f.id)).toEqual(expected.map((i) => i.id));
    for (const [k, f] of page.features.entries()) {
      const item = expected[k]!;
      expect(f.geometry).toEqual(item.geometry);
      expect(Date.parse(f.properties.acquired)).toBe(Date.parse(item.properties.datetime));
      expect(f.properties.cloud_cover).toBeCloseTo((item.properties["eo:cloud_cover"] as number) / 100, 10);
    }
    expect(page.links.nextToken).toBeUndefined();
  });

  it("pages with count and viewtoken, following links.next", async () => {
    const input = sampleInput("2017-01-01T00:00:00Z", "2018-12-31T00:00:00Z");
    const all = (await westFlandersItems()).map((i) => i.id);
    const seen: string[] = [];
    let url: string | undefined = `/search?count=7`;
    while (url) {
      const page: Page = await ok<Page>(await di(url.replace(/^.*\/dataimport/, ""), bearer, "POST", input));
      expect(page.features.length).toBeLessThanOrEqual(7);
      seen.push(...page.features.map((f) => f.id));
      url = page.links.next;
    }
    expect(seen).toEqual(all);
  });

  it("filters by maxCloudCoverage (percent) and by a nativeFilter", async () => {
    const spring = (extra: Record<string, unknown>) =>
      sampleInput("2018-04-01T00:00:00Z", "2018-04-30T00:00:00Z", {
        dataFilter: { timeRange: { from: "2018-04-01T00:00:00Z", to: "2018-04-30T00:00:00Z" }, ...extra },
      });
    const items = (await westFlandersItems()).filter((i) => i.properties.datetime.startsWith("2018-04"));
    const clear = await ok<Page>(await di("/search", bearer, "POST", spring({ maxCloudCoverage: 50 })));
    expect(clear.features.map((f) => f.id)).toEqual(
      items.filter((i) => (i.properties["eo:cloud_cover"] as number) <= 50).map((i) => i.id),
    );
    const cloudy = await ok<Page>(
      await di(
        "/search",
        bearer,
        "POST",
        spring({ nativeFilter: { type: "RangeFilter", field_name: "cloud_cover", config: { gte: 0.9 } } }),
      ),
    );
    expect(cloudy.features.map((f) => f.id)).toEqual(
      items.filter((i) => (i.properties["eo:cloud_cover"] as number) >= 90).map((i) => i.id),
    );
    expect(cloudy.features.length).toBe(3);
  });

  it("finds nothing outside the scenes' footprint", async () => {
    const far = {
      ...sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z"),
      bounds: { bbox: [10, 10, 10.1, 10.1] },
    };
    expect((await ok<Page>(await di("/search", bearer, "POST", far))).features).toEqual([]);
  });

  it("refuses bad input with 400 in the error envelope", async () => {
    const good = sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z");
    const cases: [string, unknown][] = [
      ["/search", { ...good, data: [good.data[0], good.data[0]] }],
      ["/search", { ...good, provider: "NOBODY" }],
      ["/search", { ...good, bounds: {} }],
      ["/search", { ...good, data: [{ ...good.data[0], itemType: "PSScene" }] }],
      ["/search", { ...good, data: [{ ...good.data[0], dataFilter: { maxCloudCoverage: 101 } }] }],
      ["/search?count=0", good],
      ["/search?count=101", good],
      ["/search?viewtoken=garbage!", good],
      ["/nativesearch", { provider: "SAMPLE", item_types: ["sentinel-2-l2a"], filter: { type: "FancyFilter" } }],
      ["/nativesearch", { provider: "SAMPLE", item_types: ["PSScene"] }],
    ];
    for (const [path, body] of cases) {
      const e = await refusedWith(await di(path, bearer, "POST", body), 400);
      expect(e.code, path).toBe("COMMON_BAD_PAYLOAD");
    }
  });
});

describe("native search", () => {
  it("takes Planet's filter language and answers the features plus links", async () => {
    const body = {
      provider: "SAMPLE",
      item_types: ["sentinel-2-l2a"],
      filter: {
        type: "AndFilter",
        config: [
          {
            type: "DateRangeFilter",
            field_name: "acquired",
            config: { gte: "2018-01-01T00:00:00Z", lte: "2018-03-31T00:00:00Z" },
          },
          { type: "GeometryFilter", field_name: "geometry", config: { type: "Point", coordinates: [3.024, 50.816] } },
        ],
      },
    };
    const page = await ok<Page>(await di("/nativesearch", bearer, "POST", body));
    const expected = (await westFlandersItems()).filter(
      (i) => i.properties.datetime >= "2018-01" && i.properties.datetime < "2018-04",
    );
    expect(page.features.map((f) => f.id)).toEqual(expected.map((i) => i.id));
    expect(page.links.currentToken).toBeTypeOf("string");
  });
});

describe("thumbnail", () => {
  it("is a PNG of the scene's true colour made from its band pixels", async (ctx) => {
    const item = (await westFlandersItems())[0]!;
    const r = await di(`/collections/SAMPLE_SENTINEL_2/products/${item.id}/thumbnail`, bearer);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    const png = new Uint8Array(await r.arrayBuffer());
    const bands = await Promise.all(
      ["B04", "B03", "B02"].map(async (b) => new Uint8Array(await sampleFile(item.assets[b]!.href))),
    );
    const [thumb, ...tifs] = (await pyDecode(ctx, [
      { kind: "png", data: png },
      ...bands.map((data) => ({ kind: "tiff" as const, data })),
    ])) as PyImage[];
    const rgb = samplesOf(thumb!.pillow);
    const dn = tifs.map((t) => samplesOf(t.tifffile));
    expect(rgb.length).toBe(64 * 64 * 3);
    for (let i = 0; i < 64 * 64; i++)
      for (let b = 0; b < 3; b++) expect(rgb[i * 3 + b]).toBe(Math.min(255, Math.round((dn[b]![i]! * 255) / 3000)));
  });

  it("is 404 for an unknown product or collection", async () => {
    await refusedWith(await di("/collections/SAMPLE_SENTINEL_2/products/nope/thumbnail", bearer), 404);
    await refusedWith(await di("/collections/NOT_A_COLLECTION/products/x/thumbnail", bearer), 404);
  });
});

describe("deprecation", () => {
  it("every answer carries Deprecation (RFC 9745) and a deprecation Link, errors and 401s too", async () => {
    const answers = [
      await di("/search", bearer, "POST", sampleInput("2017-01-01T00:00:00Z", "2019-01-01T00:00:00Z")),
      await di("/search", bearer, "POST", {}),
      await call(`${DI}/search`, { method: "POST", body: "{}" }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 400, 401]);
    for (const r of answers) {
      expect(r.headers.get("deprecation")).toMatch(/^@\d+$/);
      expect(r.headers.get("link")).toContain('rel="deprecation"');
      expect(r.headers.get("sunset")).toBeNull(); // SAMPLE has no sunset
    }
    // the link's type is what it points at (the OpenAPI document's media type, as GET answers it)
    const [, href, type] = /^<([^>]+)>; rel="deprecation"; type="([^"]+)"$/.exec(answers[0]!.headers.get("link")!)!;
    const doc = await call(href!);
    expect([doc.status, doc.headers.get("content-type")]).toEqual([200, type]);
  });
});

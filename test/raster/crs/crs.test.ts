import { describe, expect, it } from "vitest";
import { thrown } from "../../helpers/engine";
import { crsArea, crsFromEpsg, parseCrs, transformer } from "../../../src/raster/crs";
import { refs } from "../warp/refs";

describe("parseCrs", () => {
  it("accepts the Processing API URI forms, EPSG:<code> and urn:ogc:def:crs", () => {
    expect(parseCrs("http://www.opengis.net/def/crs/EPSG/0/32633").epsg).toBe(32633);
    expect(parseCrs("http://www.opengis.net/def/crs/OGC/1.3/CRS84")).toMatchObject({ epsg: 4326, geographic: true });
    expect(parseCrs("http://www.opengis.net/def/crs/EPSG/0/4326").epsg).toBe(4326);
    expect(parseCrs("EPSG:3857")).toMatchObject({ epsg: 3857, geographic: false });
    expect(parseCrs("urn:ogc:def:crs:EPSG::32760").epsg).toBe(32760);
    expect(parseCrs("https://www.opengis.net/def/crs/EPSG/0/32601").proj4).toContain("+zone=1 ");
    expect(parseCrs("EPSG:32701").proj4).toContain("+south");
    expect(parseCrs("http://www.opengis.net/def/crs/EPSG/0/3035")).toMatchObject({ epsg: 3035, geographic: false });
    expect(parseCrs("EPSG:3035").proj4).toContain("+proj=laea +lat_0=52 +lon_0=10 ");
    expect(parseCrs("urn:ogc:def:crs:EPSG::2154").proj4).toContain("+proj=lcc ");
    expect(parseCrs("http://www.opengis.net/def/crs/EPSG/0/3031").proj4).toContain("+proj=stere +lat_0=-90 ");
  });

  it.each([
    [
      "http://www.opengis.net/def/crs/EPSG/0/2056",
      /EPSG:2056\) is not supported.*32601-32660.*2154.*3035.*docs\.sentinel-hub\.com\/api\/latest\/api\/process\/crs/,
    ],
    ["EPSG:32661", /not supported/],
    ["EPSG:25831", /not supported/],
    ["EPSG:4327", /not supported/],
    ["http://www.opengis.net/def/crs/OGC/1.3/CRS83", /not recognised.*CRS84/],
    ["foo", /"foo" is not recognised/],
  ])("rejects %s with a 400 naming the CRS and what is supported", (uri, message) => {
    const e = thrown(() => parseCrs(uri));
    expect([e.kind, e.status]).toEqual(["unsupported", 400]);
    expect(e.message).toMatch(message);
  });

  it("crsFromEpsg rejects unsupported codes", () => {
    expect(thrown(() => crsFromEpsg(2056)).kind).toBe("unsupported");
    expect(crsFromEpsg(32629)).toBe(crsFromEpsg(32629));
  });
});

describe("crsArea", () => {
  it("is the globe for 4326, EPSG's +-85.06 degrees for 3857, a generous zone area for UTM", () => {
    expect(crsArea(crsFromEpsg(4326))).toEqual([-180, -90, 180, 90]);
    const [x0, y0, x1, y1] = crsArea(crsFromEpsg(3857));
    expect(x0).toBeCloseTo(-20037508.34, 1);
    expect(x1).toBeCloseTo(20037508.34, 1);
    expect(y0).toBeCloseTo(-20048966.1, 0);
    expect(y1).toBeCloseTo(20048966.1, 0);
    const utm = crsArea(crsFromEpsg(32629));
    // the 29RKH tile [199980, 2690220, 309780, 2800020] and its neighbours well beyond the zone edge fit
    expect(utm[0]).toBeLessThan(-400000);
    expect(utm[2]).toBeGreaterThan(1400000);
    expect(utm[1]).toBeLessThan(-8e6);
    expect(utm[3]).toBeGreaterThan(9.3e6);
    const south = crsArea(crsFromEpsg(32759));
    expect(south[1]).toBeLessThan(1.2e6);
    expect(south[3]).toBeGreaterThan(10e6);
  });
});

describe("crsArea of the national and polar CRSs", () => {
  it("covers EPSG's projected bounds of the area of use, plus a 15-degree margin", () => {
    // projected bounds of the EPSG areas of use (as epsg.io lists them, approximately)
    const inside: [number, number[]][] = [
      [3035, [1896628, 1507846, 4662111, 6829874]],
      [2154, [-378305, 6005281, 1320649, 7235612]],
      [3031, [-3333134, -3333134, 3333134, 3333134]],
      [3413, [-3314764, -3314764, 3314764, 3314764]],
    ];
    for (const [code, [x0, y0, x1, y1]] of inside) {
      const [a0, b0, a1, b1] = crsArea(crsFromEpsg(code));
      expect(a0 <= x0! && b0 <= y0! && a1 >= x1! && b1 >= y1!, `EPSG:${code} ${[a0, b0, a1, b1]}`).toBe(true);
    }
    // the 15-degree margin: Lambert-93 reaches 26 degrees north (the area of use starts at 41.15)
    const [, south] = crsArea(crsFromEpsg(2154));
    const xs = Float64Array.of(3),
      ys = Float64Array.of(26.2);
    transformer(crsFromEpsg(4326), crsFromEpsg(2154))(xs, ys);
    expect(south).toBeLessThan(ys[0]!);
  });
});

describe("transformer", () => {
  it("matches GDAL/PROJ (OGR CoordinateTransformation, lon/lat order) within a millimetre", async () => {
    const pts = (await refs())["crs_points"] as Record<string, { in: number[][]; out: number[][] }>;
    for (const [pair, { in: input, out }] of Object.entries(pts)) {
      const [from, to] = pair.split(">").map(Number) as [number, number];
      const xs = Float64Array.from(input.map((p) => p[0]!));
      const ys = Float64Array.from(input.map((p) => p[1]!));
      transformer(crsFromEpsg(from), crsFromEpsg(to))(xs, ys);
      const tol = to === 4326 ? 1e-8 : 1e-3;
      out.forEach(([x, y], i) => {
        expect(Math.abs(xs[i]! - x!), `${pair} x of point ${i}`).toBeLessThan(tol);
        expect(Math.abs(ys[i]! - y!), `${pair} y of point ${i}`).toBeLessThan(tol);
      });
    }
  });

  it("is a no-op for the same CRS and yields NaN for points it cannot transform", () => {
    const xs = Float64Array.of(1, 2);
    const ys = Float64Array.of(3, 4);
    transformer(crsFromEpsg(32629), crsFromEpsg(32629))(xs, ys);
    expect([...xs, ...ys]).toEqual([1, 2, 3, 4]);
    const bad = [Float64Array.of(NaN), Float64Array.of(0)] as const;
    transformer(crsFromEpsg(4326), crsFromEpsg(3857))(...bad);
    expect(Number.isNaN(bad[0][0]!) && Number.isNaN(bad[1][0]!)).toBe(true);
  });
});

/** WMS parameter parsing, version negotiation, tile maths and the capabilities XML of both versions (read back with fast-xml-parser). */
import { describe, expect, it } from "vitest";
import { XMLParser } from "fast-xml-parser";
import proj4 from "proj4";
import { CAPABILITY_CRS, kvp, parseGetMap, parseTime } from "../../src/wms/params";
import { WmsException } from "../../src/wms/exceptions";
import { MERCATOR_HALF, tileBbox } from "../../src/wms/tiles";
import { capabilitiesXml } from "../../src/wms/capabilities";
import { negotiateVersion } from "../../src/wms/version";
import type { LayerInput } from "../../src/wms/configuration/schema";

const q = (s: string) => kvp(new URL("http://x/ogc/wms/i?" + s));
const BASE = "SERVICE=WMS&REQUEST=GetMap&VERSION=1.3.0&LAYERS=TC&WIDTH=64&HEIGHT=32&FORMAT=image/png";

/** The OGC code a parse throws. */
function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof WmsException ? `${e.code}@${e.locator}` : `other: ${String(e)}`;
  }
  return undefined;
}

describe("GetMap parameters", () => {
  it("EPSG:4326 in 1.3.0 is lat,lon; CRS:84 and 1.1.1 SRS=EPSG:4326 are lon,lat; names are case-insensitive", () => {
    const a = parseGetMap(q(`${BASE}&CRS=EPSG:4326&BBOX=24.5,-11.9,24.8,-11.6`));
    const b = parseGetMap(q(`${BASE}&crs=CRS:84&bbox=-11.9,24.5,-11.6,24.8`));
    const c = parseGetMap(q(`${BASE.replace("1.3.0", "1.1.1")}&SRS=EPSG:4326&BBOX=-11.9,24.5,-11.6,24.8`));
    for (const r of [a, b, c]) {
      expect(r.bbox).toEqual([-11.9, 24.5, -11.6, 24.8]);
      expect(r.crs.epsg).toBe(4326);
      expect([r.width, r.height, r.format, r.transparent, r.layer]).toEqual([64, 32, "image/png", false, "TC"]);
    }
    const m = parseGetMap(
      q(`${BASE}&CRS=EPSG:3857&BBOX=-1324000,2800000,-1290000,2830000&TRANSPARENT=true&MAXCC=20&STYLES=default`),
    );
    expect([m.crs.epsg, m.bbox[0], m.transparent, m.maxcc, m.style]).toEqual([3857, -1324000, true, 20, "default"]);
  });

  it("TIME: a range, a date (its whole UTC day), a date-time, a range with a period", () => {
    expect(parseTime("2020-02-01/2020-03-01")).toEqual({ from: Date.UTC(2020, 1, 1), to: Date.UTC(2020, 2, 2) - 1 });
    expect(parseTime("2020-02-19")).toEqual({ from: Date.UTC(2020, 1, 19), to: Date.UTC(2020, 1, 20) - 1 });
    expect(parseTime("2020-02-19T11:34:25Z")).toEqual({
      from: Date.UTC(2020, 1, 19, 11, 34, 25),
      to: Date.UTC(2020, 1, 19, 11, 34, 25),
    });
    expect(parseTime("2020-02-19T00:00:00Z/2020-02-20T00:00:00Z/P1D")).toEqual({
      from: Date.UTC(2020, 1, 19),
      to: Date.UTC(2020, 1, 20),
    });
  });

  it.each([
    ["", "MissingParameterValue@CRS", "BBOX=1,2,3,4"],
    ["&CRS=EPSG:4326", "MissingParameterValue@BBOX", ""],
    ["&CRS=EPSG:4269&BBOX=1,2,3,4", "InvalidCRS@CRS", ""],
    ["&CRS=EPSG:99999&BBOX=1,2,3,4", "InvalidCRS@CRS", ""],
    ["&CRS=FOO&BBOX=1,2,3,4", "InvalidCRS@CRS", ""],
    ["&CRS=CRS:84&BBOX=1,2,3", "InvalidParameterValue@BBOX", ""],
    ["&CRS=CRS:84&BBOX=3,2,1,4", "InvalidParameterValue@BBOX", ""],
    ["&CRS=CRS:84&BBOX=a,2,3,4", "InvalidParameterValue@BBOX", ""],
    ["&CRS=CRS:84&BBOX=1,2,3,4&TIME=yesterday", "InvalidDimensionValue@TIME", ""],
    ["&CRS=CRS:84&BBOX=1,2,3,4&TIME=2020-03-01/2020-01-01", "InvalidDimensionValue@TIME", ""],
    ["&CRS=CRS:84&BBOX=1,2,3,4&TIME=2020-02-30", "InvalidDimensionValue@TIME", ""],
    ["&CRS=CRS:84&BBOX=1,2,3,4&MAXCC=101", "InvalidParameterValue@MAXCC", ""],
    ["&CRS=CRS:84&BBOX=1,2,3,4&TRANSPARENT=maybe", "InvalidParameterValue@TRANSPARENT", ""],
  ])("%s -> %s", (extra, code, more) => {
    expect(codeOf(() => parseGetMap(q(`${BASE}${extra}${more ? "&" + more : ""}`)))).toBe(code);
  });

  it.each([
    ["WIDTH=0", "InvalidParameterValue@WIDTH"],
    ["WIDTH=2501", "InvalidParameterValue@WIDTH"],
    ["WIDTH=12.5", "InvalidParameterValue@WIDTH"],
    ["HEIGHT=", "MissingParameterValue@HEIGHT"],
    ["FORMAT=image/gif", "InvalidFormat@FORMAT"],
    ["LAYERS=", "MissingParameterValue@LAYERS"],
    ["LAYERS=A,B", "InvalidParameterValue@LAYERS"],
    ["VERSION=2.0.0", "InvalidParameterValue@VERSION"],
    ["CRS=", "MissingParameterValue@CRS"],
    ["VERSION=1.1.1", "MissingParameterValue@SRS"], // 1.1.1 names it SRS
  ])("override %s -> %s", (override, code) => {
    const p = q(`${BASE}&CRS=CRS:84&BBOX=1,2,3,4`);
    const [k, v] = override.split("=") as [string, string];
    p.set(k, v);
    expect(codeOf(() => parseGetMap(p))).toBe(code);
  });
});

describe("version negotiation (WMS 1.3.0 / 1.1.1 section 6.2.4)", () => {
  it.each([
    [undefined, "1.3.0"], // none: the highest
    ["1.3.0", "1.3.0"],
    ["1.1.1", "1.1.1"],
    ["1.1.0", "1.1.1"], // lower than every supported version: the lowest
    ["1.0.0", "1.1.1"],
    ["1.2.0", "1.1.1"], // unknown: the highest supported below it
    ["1.3", "1.3.0"],
    ["1.3.1", "1.3.0"],
    ["2.0.0", "1.3.0"], // higher than every supported version: the highest
  ])("VERSION %s -> %s", (requested, answered) => {
    expect(negotiateVersion(requested)).toBe(answered);
  });

  it("a VERSION that is not a version number is InvalidParameterValue", () => {
    for (const v of ["latest", "1.3.0.0", "1..3", "-1"])
      expect(codeOf(() => negotiateVersion(v))).toBe("InvalidParameterValue@VERSION");
  });
});

describe("Web Mercator tiles", () => {
  /** Slippy-map tile corners in degrees (OpenStreetMap wiki "Slippy map tilenames"), independent of tileBbox. */
  const lon = (x: number, z: number) => (x / 2 ** z) * 360 - 180;
  const lat = (y: number, z: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI;

  it("tile 0/0/0 is the whole EPSG:3857 square; tile corners match the slippy-map formulas", () => {
    expect(tileBbox(0, 0, 0)).toEqual([-MERCATOR_HALF, -MERCATOR_HALF, MERCATOR_HALF, MERCATOR_HALF]);
    for (const [z, x, y] of [
      [1, 1, 0],
      [9, 239, 219],
      [12, 1913, 1758],
    ] as const) {
      const b = tileBbox(z, x, y);
      const [w, n] = proj4("EPSG:3857", "EPSG:4326", [b[0], b[3]]);
      const [e, s] = proj4("EPSG:3857", "EPSG:4326", [b[2], b[1]]);
      expect(w).toBeCloseTo(lon(x, z), 9);
      expect(e).toBeCloseTo(lon(x + 1, z), 9);
      expect(n).toBeCloseTo(lat(y, z), 9);
      expect(s).toBeCloseTo(lat(y + 1, z), 9);
    }
  });
});

describe("GetCapabilities XML", () => {
  const layer: LayerInput = {
    id: "TRUE_COLOR",
    title: "True colour & more",
    styles: [
      { name: "default", evalScript: "//VERSION=3" },
      { name: "bright", description: "Brighter", evalScript: "//VERSION=3" },
    ],
    datasourceDefaults: {
      type: "sentinel-2-l2a",
      timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" },
    },
  };
  const caps = (version: "1.1.1" | "1.3.0") =>
    capabilitiesXml(
      version,
      "http://h/ogc/wms/abc",
      "My <maps>",
      [layer],
      new Map([["sentinel-2-l2a", { bbox: [-12, 24.3, -10.8, 25.3], interval: ["2017-08-24", "2023-06-06"] }]]),
      () => "sentinel-2-l2a",
    );
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", parseAttributeValue: true });
  const doc = parser.parse(caps("1.3.0"));

  it("is WMS 1.3.0 with GetCapabilities/GetMap, the CRS list, escaped text and one named layer", () => {
    const caps = doc.WMS_Capabilities;
    expect(caps["@version"]).toBe("1.3.0");
    expect(caps["@xmlns"]).toBe("http://www.opengis.net/wms");
    expect(caps.Service.Name).toBe("WMS");
    expect(caps.Service.Title).toBe("My <maps>");
    expect(caps.Capability.Request.GetMap.Format).toEqual(["image/png", "image/jpeg"]);
    expect(caps.Capability.Request.GetMap.DCPType.HTTP.Get.OnlineResource["@xlink:href"]).toBe("http://h/ogc/wms/abc?");
    expect(caps.Capability.Layer.CRS).toEqual(CAPABILITY_CRS["1.3.0"]);
    expect(caps.Capability.Layer.CRS.slice(0, 3)).toEqual(["CRS:84", "EPSG:4326", "EPSG:3857"]);
    const l = caps.Capability.Layer.Layer;
    expect(l.Name).toBe("TRUE_COLOR");
    expect(l.Title).toBe("True colour & more");
    expect(l.EX_GeographicBoundingBox).toEqual({
      westBoundLongitude: -12,
      eastBoundLongitude: -10.8,
      southBoundLatitude: 24.3,
      northBoundLatitude: 25.3,
    });
    expect(l.Dimension["@name"]).toBe("time");
    expect(l.Dimension["@units"]).toBe("ISO8601");
    expect(l.Dimension["@default"]).toBe("2020-02-01/2020-03-01");
    expect(l.Dimension["#text"]).toBe("2017-08-24/2023-06-06/P1D");
    expect(l.Style.map((s: { Name: string }) => s.Name)).toEqual(["default", "bright"]);
  });

  it("is WMS 1.1.1 (WMT_MS_Capabilities, no DOCTYPE): OGC:WMS, SRS, LatLonBoundingBox, Dimension + Extent, se_xml", () => {
    const xml = caps("1.1.1");
    expect(xml).not.toMatch(/<!DOCTYPE|xmlns=/);
    const c = parser.parse(xml).WMT_MS_Capabilities;
    expect(c["@version"]).toBe("1.1.1");
    expect(c.Service.Name).toBe("OGC:WMS");
    expect(c.Service.Title).toBe("My <maps>");
    expect(c.Capability.Request.GetCapabilities.Format).toBe("application/vnd.ogc.wms_xml");
    expect(c.Capability.Request.GetMap.Format).toEqual(["image/png", "image/jpeg"]);
    expect(c.Capability.Request.GetMap.DCPType.HTTP.Get.OnlineResource["@xlink:href"]).toBe("http://h/ogc/wms/abc?");
    expect(c.Capability.Exception.Format).toBe("application/vnd.ogc.se_xml");
    expect(c.Capability.Layer.SRS).toEqual(CAPABILITY_CRS["1.1.1"]);
    expect(c.Capability.Layer.SRS).toContain("EPSG:32631");
    expect(c.Capability.Layer.CRS).toBeUndefined();
    const l = c.Capability.Layer.Layer;
    expect(l.Name).toBe("TRUE_COLOR");
    expect(l.LatLonBoundingBox).toEqual({ "@minx": -12, "@miny": 24.3, "@maxx": -10.8, "@maxy": 25.3 });
    expect(l.BoundingBox).toEqual({ "@SRS": "EPSG:4326", "@minx": -12, "@miny": 24.3, "@maxx": -10.8, "@maxy": 25.3 });
    expect(l.Dimension).toEqual({ "@name": "time", "@units": "ISO8601" });
    expect(l.Extent["@name"]).toBe("time");
    expect(l.Extent["@default"]).toBe("2020-02-01/2020-03-01");
    expect(l.Extent["#text"]).toBe("2017-08-24/2023-06-06/P1D");
    // the DTD's element order: Name, Title, Abstract, SRS*, LatLonBoundingBox, BoundingBox*, Dimension*, Extent*, Style*
    const order = [
      "<Name>",
      "<Title>",
      "<Abstract",
      "<LatLonBoundingBox",
      "<BoundingBox",
      "<Dimension",
      "<Extent",
      "<Style>",
    ];
    const inner = xml.slice(xml.indexOf("<Layer queryable"));
    const at = order.map((t) => inner.indexOf(t));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });
});

describe("capabilities CRS list", () => {
  it("advertises every CRS GetMap accepts: Sentinel Hub's list with the UTM zones; each listed one is accepted", () => {
    for (const version of ["1.1.1", "1.3.0"] as const) {
      const crs = CAPABILITY_CRS[version];
      expect(crs).toEqual(
        expect.arrayContaining(["EPSG:4326", "EPSG:3857", "EPSG:32601", "EPSG:32631", "EPSG:32760", "EPSG:3035"]),
      );
      expect(crs.filter((c) => /^EPSG:32[67]\d\d$/.test(c))).toHaveLength(120);
      const param = version === "1.3.0" ? "CRS" : "SRS";
      for (const c of crs) {
        const bbox = c === "EPSG:4326" || c === "CRS:84" ? "10,40,11,41" : "400000,4000000,410000,4010000";
        expect(() => parseGetMap(q(`${BASE.replace("1.3.0", version)}&${param}=${c}&BBOX=${bbox}`)), c).not.toThrow();
      }
    }
  });
});

/** WMS parameter parsing, tile maths and the capabilities XML (read back with fast-xml-parser). */
import { describe, expect, it } from "vitest";
import { XMLParser } from "fast-xml-parser";
import proj4 from "proj4";
import { kvp, parseGetMap, parseTime } from "../../src/wms/params";
import { WmsException } from "../../src/wms/exceptions";
import { MERCATOR_HALF, tileBbox } from "../../src/wms/tiles";
import { capabilitiesXml } from "../../src/wms/capabilities";
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
    const m = parseGetMap(q(`${BASE}&CRS=EPSG:3857&BBOX=-1324000,2800000,-1290000,2830000&TRANSPARENT=true&MAXCC=20&STYLES=default`));
    expect([m.crs.epsg, m.bbox[0], m.transparent, m.maxcc, m.style]).toEqual([3857, -1324000, true, 20, "default"]);
  });

  it("TIME: a range, a date (its whole UTC day), a date-time, a range with a period", () => {
    expect(parseTime("2020-02-01/2020-03-01")).toEqual({ from: Date.UTC(2020, 1, 1), to: Date.UTC(2020, 2, 2) - 1 });
    expect(parseTime("2020-02-19")).toEqual({ from: Date.UTC(2020, 1, 19), to: Date.UTC(2020, 1, 20) - 1 });
    expect(parseTime("2020-02-19T11:34:25Z")).toEqual({ from: Date.UTC(2020, 1, 19, 11, 34, 25), to: Date.UTC(2020, 1, 19, 11, 34, 25) });
    expect(parseTime("2020-02-19T00:00:00Z/2020-02-20T00:00:00Z/P1D")).toEqual({ from: Date.UTC(2020, 1, 19), to: Date.UTC(2020, 1, 20) });
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
  ])("override %s -> %s", (override, code) => {
    const p = q(`${BASE}&CRS=CRS:84&BBOX=1,2,3,4`);
    const [k, v] = override.split("=") as [string, string];
    p.set(k, v);
    expect(codeOf(() => parseGetMap(p))).toBe(code);
  });
});

describe("Web Mercator tiles", () => {
  /** Slippy-map tile corners in degrees (OpenStreetMap wiki "Slippy map tilenames"), independent of tileBbox. */
  const lon = (x: number, z: number) => (x / 2 ** z) * 360 - 180;
  const lat = (y: number, z: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI;

  it("tile 0/0/0 is the whole EPSG:3857 square; tile corners match the slippy-map formulas", () => {
    expect(tileBbox(0, 0, 0)).toEqual([-MERCATOR_HALF, -MERCATOR_HALF, MERCATOR_HALF, MERCATOR_HALF]);
    for (const [z, x, y] of [[1, 1, 0], [9, 239, 219], [12, 1913, 1758]] as const) {
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
    styles: [{ name: "default", evalScript: "//VERSION=3" }, { name: "bright", description: "Brighter", evalScript: "//VERSION=3" }],
    datasourceDefaults: { type: "sentinel-2-l2a", timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" } },
  };
  const xml = capabilitiesXml("http://h/ogc/wms/abc", "My <maps>", [layer], new Map([["sentinel-2-l2a", { bbox: [-12, 24.3, -10.8, 25.3], interval: ["2017-08-24", "2023-06-06"] }]]), () => "sentinel-2-l2a");
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" }).parse(xml);

  it("is WMS 1.3.0 with GetCapabilities/GetMap, the CRS list, escaped text and one named layer", () => {
    const caps = doc.WMS_Capabilities;
    expect(caps["@version"]).toBe("1.3.0");
    expect(caps["@xmlns"]).toBe("http://www.opengis.net/wms");
    expect(caps.Service.Name).toBe("WMS");
    expect(caps.Service.Title).toBe("My <maps>");
    expect(caps.Capability.Request.GetMap.Format).toEqual(["image/png", "image/jpeg"]);
    expect(caps.Capability.Request.GetMap.DCPType.HTTP.Get.OnlineResource["@xlink:href"]).toBe("http://h/ogc/wms/abc?");
    expect(caps.Capability.Layer.CRS).toEqual(["CRS:84", "EPSG:4326", "EPSG:3857"]);
    const l = caps.Capability.Layer.Layer;
    expect(l.Name).toBe("TRUE_COLOR");
    expect(l.Title).toBe("True colour & more");
    expect(l.EX_GeographicBoundingBox).toEqual({ westBoundLongitude: -12, eastBoundLongitude: -10.8, southBoundLatitude: 24.3, northBoundLatitude: 25.3 });
    expect(l.Dimension["@name"]).toBe("time");
    expect(l.Dimension["@units"]).toBe("ISO8601");
    expect(l.Dimension["@default"]).toBe("2020-02-01/2020-03-01");
    expect(l.Dimension["#text"]).toBe("2017-08-24/2023-06-06/P1D");
    expect(l.Style.map((s: { Name: string }) => s.Name)).toEqual(["default", "bright"]);
  });
});

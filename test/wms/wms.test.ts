/**
 * OGC WMS / WMTS endpoints on the real 29RKH scene: GetMap and GetTile give the same bytes as the Processing API
 * for the same bbox, CRS, size, data source and evalscript; EPSG:4326 (lat,lon axis order) equals the GDAL
 * reference of test/fixtures/process (test/reference/references.py); WMS 1.1.1 (SRS, lon,lat EPSG:4326) gives the same
 * map; GetCapabilities negotiates the version as the WMS standard says; every bad parameter is an OGC exception
 * with 400, in the request's version.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { XMLParser } from "fast-xml-parser";
import { call, token } from "../helpers/auth";
import { CRS, process } from "../helpers/process";
import { decodePng } from "../helpers/png";
import { compare, reference } from "../helpers/refs";
import { sampleFile, seedSamples } from "../helpers/seed";
import { createInstance, layerBody } from "../helpers/wms";

const TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
let bearer: string;
let trueColor: string;
let wms: string;
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" });

beforeAll(async () => {
  const [items] = await Promise.all([
    seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A"),
    (async () => (bearer = await token()))(),
  ]);
  expect(items).toHaveLength(1);
  trueColor = new TextDecoder().decode(await sampleFile("evalscripts/sentinel-2__true_color__script.js"));
  const inst = await createInstance(bearer, [
    layerBody("TRUE_COLOR", trueColor),
    layerBody("OLD", trueColor, {
      datasourceDefaults: { type: "S2L2A", timeRange: { from: "2019-01-01T00:00:00Z", to: "2019-02-01T00:00:00Z" } },
    }),
  ]);
  wms = `/ogc/wms/${inst.id}`;
});

/** The Processing API's image for the same request. */
async function processImage(
  epsg: number,
  bbox: number[],
  width: number,
  height: number,
  type = "image/png",
  dataFilter: Record<string, unknown> = { timeRange: TIME, mosaickingOrder: "mostRecent" },
): Promise<Uint8Array> {
  const body = {
    input: { bounds: { bbox, properties: { crs: CRS(epsg) } }, data: [{ type: "sentinel-2-l2a", dataFilter }] },
    output: { width, height, responses: [{ identifier: "default", format: { type } }] },
    evalscript: trueColor,
  };
  const r = await process(body, bearer);
  expect(r.status).toBe(200);
  return new Uint8Array(await r.arrayBuffer());
}

const getMap = (q: string) => call(`${wms}?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=TRUE_COLOR&${q}`);

describe("GetMap", () => {
  it("EPSG:4326 with lat,lon BBOX equals the GDAL reference and the Processing API's PNG byte for byte", async () => {
    const ref = await reference("rkh4326_rgb");
    const [w, s, e, n] = ref.meta.grid.bbox;
    const r = await getMap(`CRS=EPSG:4326&BBOX=${s},${w},${n},${e}&WIDTH=128&HEIGHT=128&FORMAT=image/png`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await r.arrayBuffer());
    expect(bytes).toEqual(await processImage(4326, [w, s, e, n], 128, 128));
    const png = await decodePng(bytes.buffer as ArrayBuffer);
    const expected = new Float32Array(128 * 128 * 3);
    const got = new Float32Array(128 * 128 * 3);
    for (let i = 0; i < 128 * 128; i++) {
      for (let b = 0; b < 3; b++) {
        expected[i * 3 + b] = Math.min(255, Math.max(0, Math.round(ref.data[i * 3 + b]! * 2.5 * 255)));
        got[i * 3 + b] = png.data[i * 4 + b]!;
      }
    }
    expect(compare(got, expected, 1).mismatch).toBeLessThan(0.005);
    // CRS:84 with the same lon,lat bbox is the same map
    const r84 = await getMap(`CRS=CRS:84&BBOX=${w},${s},${e},${n}&WIDTH=128&HEIGHT=128&FORMAT=image/png`);
    expect(new Uint8Array(await r84.arrayBuffer())).toEqual(bytes);
  });

  it("WMS 1.1.1: SRS=EPSG:4326 with a lon,lat BBOX is the same map as 1.3.0's lat,lon one", async () => {
    const [w, s, e, n] = [-11.9, 24.5, -11.6, 24.8];
    const v13 = await getMap(`CRS=EPSG:4326&BBOX=${s},${w},${n},${e}&WIDTH=96&HEIGHT=64&FORMAT=image/png`);
    const v11 = await call(
      `${wms}?SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=TRUE_COLOR&STYLES=&SRS=EPSG:4326&BBOX=${w},${s},${e},${n}&WIDTH=96&HEIGHT=64&FORMAT=image/png&EXCEPTIONS=application/vnd.ogc.se_xml`,
    );
    expect([v13.status, v11.status]).toEqual([200, 200]);
    const bytes = new Uint8Array(await v11.arrayBuffer());
    expect(bytes).toEqual(new Uint8Array(await v13.arrayBuffer()));
    expect(bytes).toEqual(await processImage(4326, [w, s, e, n], 96, 64));
    // 1.1.1 EPSG:3857 too
    const m = await call(
      `${wms}?SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=TRUE_COLOR&SRS=EPSG:3857&BBOX=-1320000,2810000,-1300000,2830000&WIDTH=50&HEIGHT=50&FORMAT=image/png`,
    );
    expect(new Uint8Array(await m.arrayBuffer())).toEqual(
      await processImage(3857, [-1320000, 2810000, -1300000, 2830000], 50, 50),
    );
  });

  it("EPSG:3857 PNG and JPEG, TIME as a date, equal the Processing API's output", async () => {
    const bbox = [-1320000, 2810000, -1300000, 2830000];
    const png = await getMap(
      `CRS=EPSG:3857&BBOX=${bbox}&WIDTH=200&HEIGHT=150&FORMAT=image/png&TIME=2020-02-19&TRANSPARENT=TRUE`,
    );
    expect(png.status).toBe(200);
    const bytes = new Uint8Array(await png.arrayBuffer());
    expect(bytes).toEqual(
      await processImage(3857, bbox, 200, 150, "image/png", {
        timeRange: { from: "2020-02-19T00:00:00.000Z", to: "2020-02-19T23:59:59.999Z" },
        mosaickingOrder: "mostRecent",
      }),
    );
    const decoded = await decodePng(bytes.buffer as ArrayBuffer);
    expect(new Set(decoded.data.filter((_, i) => i % 4 === 0)).size).toBeGreaterThan(50); // real pixels, not a flat image
    const jpg = await getMap(`CRS=EPSG:3857&BBOX=${bbox}&WIDTH=200&HEIGHT=150&FORMAT=image/jpeg`);
    expect(jpg.headers.get("content-type")).toBe("image/jpeg");
    expect(new Uint8Array(await jpg.arrayBuffer())).toEqual(await processImage(3857, bbox, 200, 150, "image/jpeg"));
  });

  it("TIME and MAXCC select the scenes: another month or MAXCC under the scene's 4.05 % give no data (alpha 0)", async () => {
    const q = "CRS=CRS:84&BBOX=-11.9,24.5,-11.6,24.8&WIDTH=32&HEIGHT=32&FORMAT=image/png";
    const alpha = async (r: Response) => {
      expect(r.status).toBe(200);
      const p = await decodePng(await r.arrayBuffer());
      return [...new Set(p.data.filter((_, i) => i % 4 === 3))];
    };
    expect(await alpha(await getMap(q))).toEqual([255]);
    expect(await alpha(await getMap(`${q}&MAXCC=5`))).toEqual([255]);
    expect(await alpha(await getMap(`${q}&MAXCC=4`))).toEqual([0]);
    expect(await alpha(await getMap(`${q}&TIME=2020-01-01/2020-02-18`))).toEqual([0]);
    expect(await alpha(await call(`${wms}?REQUEST=GetMap&LAYERS=OLD&${q}`))).toEqual([0]); // the layer's default time range
    expect(await alpha(await call(`${wms}?REQUEST=GetMap&LAYERS=OLD&${q}&TIME=2020-02-19`))).toEqual([255]);
  });
});

describe("WMTS GetTile (XYZ tiles)", () => {
  it("tile 9/239/219 equals the Processing API over the tile's EPSG:3857 bounds", async () => {
    const [z, x, y] = [9, 239, 219];
    const size = (2 * 20037508.342789244) / 2 ** z;
    const bbox = [
      -20037508.342789244 + x * size,
      20037508.342789244 - (y + 1) * size,
      -20037508.342789244 + (x + 1) * size,
      20037508.342789244 - y * size,
    ];
    const r = await call(
      `/ogc/wmts/${wms.split("/").pop()}?REQUEST=GetTile&LAYER=TRUE_COLOR&TILEMATRIXSET=PopularWebMercator256&TILEMATRIX=${z}&TILECOL=${x}&TILEROW=${y}`,
    );
    expect(r.status).toBe(200);
    const bytes = new Uint8Array(await r.arrayBuffer());
    expect(bytes).toEqual(await processImage(3857, bbox, 256, 256));
    const png = await decodePng(bytes.buffer as ArrayBuffer);
    expect(png.data.filter((_, i) => i % 4 === 3 && png.data[i] === 255).length).toBeGreaterThan(256 * 128); // mostly over the scene
    expect(new Set(png.data.filter((_, i) => i % 4 === 0)).size).toBeGreaterThan(50);
  });

  it.each([
    ["TILEMATRIXSET=Foo&TILEMATRIX=1&TILECOL=0&TILEROW=0", "InvalidParameterValue"],
    ["TILEMATRIX=1&TILECOL=2&TILEROW=0", "TileOutOfRange"],
    ["TILEMATRIX=1&TILECOL=0", "MissingParameterValue"],
    ["TILEMATRIX=-1&TILECOL=0&TILEROW=0", "InvalidParameterValue"],
    ["TILEMATRIX=1&TILECOL=0&TILEROW=0&FORMAT=image/webp", "InvalidFormat"],
  ])("%s -> %s", async (q, code) => {
    const r = await call(`/ogc/wmts/${wms.split("/").pop()}?REQUEST=GetTile&LAYER=TRUE_COLOR&${q}`);
    expect(r.status).toBe(400);
    expect(xml.parse(await r.text()).ServiceExceptionReport.ServiceException["@code"]).toBe(code);
  });
});

describe("GetCapabilities", () => {
  it("lists the instance's layers with the collection extent of the seeded scene and a TIME dimension", async () => {
    const r = await call(`${wms}?SERVICE=WMS&REQUEST=GetCapabilities`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/xml/);
    const caps = xml.parse(await r.text()).WMS_Capabilities;
    expect(caps["@version"]).toBe("1.3.0");
    const layers = caps.Capability.Layer.Layer as Record<string, any>[];
    expect(layers.map((l) => l.Name)).toEqual(["TRUE_COLOR", "OLD"]);
    // the 29RKH item's bbox (data/items/sentinel-2-l2a/S2A_29RKH_20200219_0_L2A.json)
    const g = layers[0]!.EX_GeographicBoundingBox;
    expect([g.westBoundLongitude, g.southBoundLatitude, g.eastBoundLongitude, g.northBoundLatitude]).toEqual([
      -11.9792449, 24.2963214, -10.8745468, 25.3046239,
    ]);
    expect(layers[0]!.Dimension["#text"]).toBe("2020-02-19/2020-02-19/P1D");
    expect(layers[1]!.Dimension["@default"]).toBe("2019-01-01/2019-02-01");
  });
});

describe("GetCapabilities version negotiation (WMS 1.3.0 section 6.2.4)", () => {
  it.each([
    ["", "WMS_Capabilities", "1.3.0", "text/xml; charset=utf-8"],
    ["&VERSION=1.3.0", "WMS_Capabilities", "1.3.0", "text/xml; charset=utf-8"],
    ["&VERSION=1.1.1", "WMT_MS_Capabilities", "1.1.1", "application/vnd.ogc.wms_xml"],
    ["&VERSION=1.2.0", "WMT_MS_Capabilities", "1.1.1", "application/vnd.ogc.wms_xml"], // the next lower supported
    ["&VERSION=1.0.0", "WMT_MS_Capabilities", "1.1.1", "application/vnd.ogc.wms_xml"], // the lowest supported
    ["&WMTVER=1.0.0", "WMT_MS_Capabilities", "1.1.1", "application/vnd.ogc.wms_xml"], // WMS 1.0's name for it
    ["&VERSION=2.0.0", "WMS_Capabilities", "1.3.0", "text/xml; charset=utf-8"], // the highest supported
  ])("%s -> %s %s", async (q, root, version, type) => {
    const r = await call(`${wms}?SERVICE=WMS&REQUEST=GetCapabilities${q}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe(type);
    const caps = xml.parse(await r.text())[root];
    expect(caps["@version"]).toBe(version);
    const layers = caps.Capability.Layer.Layer as Record<string, any>[];
    expect(layers.map((l) => l.Name)).toEqual(["TRUE_COLOR", "OLD"]);
    expect(caps.Capability.Request.GetMap.DCPType.HTTP.Get.OnlineResource["@xlink:href"]).toBe(
      `http://localhost${wms}?`,
    );
  });

  it("1.1.1: the extent of the seeded scene as LatLonBoundingBox and EPSG:4326 BoundingBox, TIME as an Extent", async () => {
    const caps = xml.parse(
      await (await call(`${wms}?SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.1.1`)).text(),
    ).WMT_MS_Capabilities;
    const l = caps.Capability.Layer.Layer[0];
    const box = ["@minx", "@miny", "@maxx", "@maxy"];
    expect(box.map((k) => Number(l.LatLonBoundingBox[k]))).toEqual([-11.9792449, 24.2963214, -10.8745468, 25.3046239]);
    expect([l.BoundingBox["@SRS"], ...box.map((k) => Number(l.BoundingBox[k]))]).toEqual([
      "EPSG:4326",
      -11.9792449,
      24.2963214,
      -10.8745468,
      25.3046239,
    ]);
    expect(l.Extent["#text"]).toBe("2020-02-19/2020-02-19/P1D");
  });

  it("a VERSION that is not a version number is an exception report", async () => {
    const r = await call(`${wms}?SERVICE=WMS&REQUEST=GetCapabilities&VERSION=latest`);
    expect(r.status).toBe(400);
    expect(xml.parse(await r.text()).ServiceExceptionReport.ServiceException["@locator"]).toBe("VERSION");
  });
});

describe("WMTS GetCapabilities", () => {
  it("lists the layers with Sentinel Hub's tile matrix sets (GoogleMapsCompatible scales of OGC 07-057r7 annex E.4)", async () => {
    const r = await call(`/ogc/wmts/${wms.split("/").pop()}?SERVICE=WMTS&REQUEST=GetCapabilities`);
    expect(r.status).toBe(200);
    const caps = xml.parse(await r.text()).Capabilities;
    expect(caps["@version"]).toBe("1.0.0");
    const layers = caps.Contents.Layer as Record<string, any>[];
    expect(layers.map((l) => l["ows:Identifier"])).toEqual(["TRUE_COLOR", "OLD"]);
    expect(layers[0]!["ows:WGS84BoundingBox"]).toEqual({
      "ows:LowerCorner": "-11.9792449 24.2963214",
      "ows:UpperCorner": "-10.8745468 25.3046239",
    });
    expect(layers[0]!.Style["@isDefault"]).toBe("true"); // an attribute with a value (GDAL's XML parser needs it)
    expect(layers[0]!.TileMatrixSetLink.map((t: { TileMatrixSet: string }) => t.TileMatrixSet)).toEqual([
      "PopularWebMercator256",
      "PopularWebMercator512",
    ]);
    const set = (caps.Contents.TileMatrixSet as Record<string, any>[]).find(
      (t) => t["ows:Identifier"] === "PopularWebMercator256",
    )!;
    const m0 = set.TileMatrix[0];
    expect(m0.ScaleDenominator).toBeCloseTo(559082264.0287178, 4);
    expect([m0.TileWidth, m0.MatrixWidth, m0.TopLeftCorner]).toEqual([
      256,
      1,
      "-20037508.342789244 20037508.342789244",
    ]);
    expect(set.TileMatrix[18].ScaleDenominator).toBeCloseTo(2132.729583849784, 6);
  });
});

describe("service exceptions", () => {
  const G = "CRS=CRS:84&BBOX=-11.9,24.5,-11.6,24.8&WIDTH=32&HEIGHT=32&FORMAT=image/png";
  it.each([
    ["REQUEST=GetMap&LAYERS=NOPE&" + G, "LayerNotDefined", 400],
    ["REQUEST=GetMap&LAYERS=TRUE_COLOR&STYLES=nope&" + G, "StyleNotDefined", 400],
    ["REQUEST=GetMap&LAYERS=TRUE_COLOR&" + G.replace("CRS:84", "EPSG:4269"), "InvalidCRS", 400],
    ["REQUEST=GetMap&LAYERS=TRUE_COLOR&" + G.replace("image/png", "image/gif"), "InvalidFormat", 400],
    ["REQUEST=GetMap&LAYERS=TRUE_COLOR&" + G.replace("WIDTH=32&", ""), "MissingParameterValue", 400],
    [
      "REQUEST=GetMap&LAYERS=TRUE_COLOR&" + G.replace("-11.9,24.5,-11.6,24.8", "-11.9,24.5,-11.6,95"),
      "InvalidParameterValue",
      400,
    ],
    ["REQUEST=GetFeatureInfo", "OperationNotSupported", 400],
    ["SERVICE=WFS&REQUEST=GetCapabilities", "InvalidParameterValue", 400],
    ["SERVICE=WMS", "MissingParameterValue", 400],
  ])("%s -> %s", async (q, code, status) => {
    const r = await call(`${wms}?${q}`);
    expect(r.status).toBe(status);
    expect(r.headers.get("content-type")).toMatch(/^text\/xml/);
    const report = xml.parse(await r.text()).ServiceExceptionReport;
    expect(report["@version"]).toBe("1.3.0");
    expect(report.ServiceException["@code"]).toBe(code);
  });

  it.each([
    [
      "REQUEST=GetMap&LAYERS=TRUE_COLOR&BBOX=-11.9,24.5,-11.6,24.8&WIDTH=32&HEIGHT=32&FORMAT=image/png",
      "MissingParameterValue",
      "SRS",
    ],
    [
      "REQUEST=GetMap&LAYERS=TRUE_COLOR&SRS=EPSG:4269&BBOX=-11.9,24.5,-11.6,24.8&WIDTH=32&HEIGHT=32&FORMAT=image/png",
      "InvalidCRS",
      "SRS",
    ],
    [
      "REQUEST=GetMap&LAYERS=NOPE&SRS=EPSG:4326&BBOX=-11.9,24.5,-11.6,24.8&WIDTH=32&HEIGHT=32&FORMAT=image/png",
      "LayerNotDefined",
      "LAYERS",
    ],
  ])("a WMS 1.1.1 request's exception is a 1.1.1 report (application/vnd.ogc.se_xml): %s", async (q, code, locator) => {
    const r = await call(`${wms}?SERVICE=WMS&VERSION=1.1.1&${q}`);
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toBe("application/vnd.ogc.se_xml");
    const text = await r.text();
    expect(text).not.toContain("xmlns");
    const report = xml.parse(text).ServiceExceptionReport;
    expect(report["@version"]).toBe("1.1.1");
    expect([report.ServiceException["@code"], report.ServiceException["@locator"]]).toEqual([code, locator]);
  });

  it("an unknown instance id is a 404 exception report", async () => {
    const r = await call(`/ogc/wms/${crypto.randomUUID()}?REQUEST=GetCapabilities`);
    expect(r.status).toBe(404);
    expect(xml.parse(await r.text()).ServiceExceptionReport.ServiceException["#text"]).toMatch(/No WMS instance/);
  });
});

/**
 * OGC clients, unmodified, against the WMS/WMTS of an instance over the real 29RKH scene (test/services/py_ogc.py through
 * the CLIENT_RELAY, test/helpers/relay.ts: the clients send real HTTP requests that the Worker answers):
 * - OWSLib's WebMapService with version="1.1.1" and "1.3.0": GetCapabilities (it asks for its version and must get
 *   that version's document) and getmap; the map equals the Processing API's image of the same grid byte for byte;
 * - GDAL's WMS driver: gdalinfo of GetCapabilities in both versions (subdatasets per layer), gdal_translate of a
 *   GetMap in 1.1.1 (EPSG:4326 lon,lat) and 1.3.0 (EPSG:4326 lat,lon), and its WMTS driver reading one tile; the
 *   pixels equal the Processing API's (decoded by fast-png here, not by the Worker's encoder).
 * Skipped with the reason when OWSLib or GDAL is missing (Debian: python3-owslib, gdal-bin).
 */
import { beforeAll, describe, expect, it, type TestContext } from "vitest";
import { token } from "../helpers/auth";
import { CRS, process } from "../helpers/process";
import { decodePng } from "../helpers/png";
import { runClient, type ClientRun } from "../helpers/relay";
import { sampleFile, seedSamples } from "../helpers/seed";
import { createInstance, layerBody } from "../helpers/wms";

const TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
/** Over the 29RKH scene: lon/lat degrees, and EPSG:3857 metres. */
const [W, S, E, N] = [-11.9, 24.5, -11.6, 24.8];
const MERC = [-1320000, 2810000, -1300000, 2830000];
/** Half the side of the EPSG:3857 square, metres. */
const HALF = 20037508.342789244;
let bearer: string;
let trueColor: string;
let instance: string;

beforeAll(async () => {
  const [items] = await Promise.all([
    seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A"),
    (async () => (bearer = await token()))(),
  ]);
  expect(items).toHaveLength(1);
  trueColor = new TextDecoder().decode(await sampleFile("evalscripts/sentinel-2__true_color__script.js"));
  instance = (await createInstance(bearer, [layerBody("TRUE_COLOR", trueColor)], "OGC clients")).id;
});

/** The Processing API's PNG of the same data source and evalscript over `bbox` in EPSG `epsg`. */
async function processPng(epsg: number, bbox: readonly number[], width: number, height: number): Promise<Uint8Array> {
  const body = {
    input: {
      bounds: { bbox, properties: { crs: CRS(epsg) } },
      data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: TIME, mosaickingOrder: "mostRecent" } }],
    },
    output: { width, height, responses: [{ identifier: "default", format: { type: "image/png" } }] },
    evalscript: trueColor,
  };
  const r = await process(body, bearer);
  expect(r.status).toBe(200);
  return new Uint8Array(await r.arrayBuffer());
}

/** Runs test/services/py_ogc.py with `request`; its JSON answer (the run must succeed). */
async function pyOgc(ctx: TestContext, request: unknown): Promise<{ result: any; run: ClientRun }> {
  const run = await runClient(ctx, ["/usr/bin/python3", "test/services/py_ogc.py"], JSON.stringify(request));
  expect(run.code, run.stderr).toBe(0);
  return { result: JSON.parse(run.stdout), run };
}

const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/** The first three bands of two PNGs are equal, and the image is not flat. */
async function expectSameRgb(got: Uint8Array, want: Uint8Array): Promise<void> {
  const [a, b] = await Promise.all([decodePng(got), decodePng(want)]);
  expect([a.width, a.height]).toEqual([b.width, b.height]);
  const rgb = (p: typeof a) =>
    Array.from({ length: p.width * p.height * 3 }, (_, i) => p.data[Math.floor(i / 3) * 4 + (i % 3)]!); // data is RGBA
  const [x, y] = [rgb(a), rgb(b)];
  expect(x.filter((v, i) => v !== y[i]).length).toBe(0);
  expect(new Set(x.filter((_, i) => i % 3 === 0)).size).toBeGreaterThan(50);
}

describe("OWSLib WebMapService", () => {
  it.for<[string, string, number[], number]>([
    ["1.1.1", "EPSG:4326", [W, S, E, N], 4326],
    ["1.3.0", "EPSG:3857", MERC, 3857],
  ])(
    "version=%s: GetCapabilities of that version, getmap %s equal to the Processing API",
    { timeout: 60_000 },
    async ([version, srs, bbox, epsg], ctx) => {
      const { result, run } = await pyOgc(ctx, {
        client: "owslib",
        url: `/ogc/wms/${instance}`,
        version,
        getmap: { layer: "TRUE_COLOR", srs, bbox, size: [120, 90], format: "image/png" },
      });
      expect(run.requests[0]).toMatch(
        new RegExp(`^GET /ogc/wms/${instance}\\?.*version=${version.replaceAll(".", "\\.")}`, "i"),
      );
      expect(result.version).toBe(version);
      expect(result.type).toBe(version === "1.1.1" ? "OGC:WMS" : "WMS");
      expect(result.title).toBe("OGC clients");
      expect(result.formats).toEqual(["image/png", "image/jpeg"]);
      const layer = result.layers.TRUE_COLOR;
      expect(layer.title).toBe("Layer TRUE_COLOR");
      expect(layer.bbox84.slice(0, 4)).toEqual([-11.9792449, 24.2963214, -10.8745468, 25.3046239]);
      expect(layer.crs).toEqual(expect.arrayContaining(["EPSG:4326", "EPSG:3857", "EPSG:32629", "EPSG:3035"]));
      expect(layer.styles).toEqual(["default"]);
      expect(layer.time).toEqual(["2020-02-19/2020-02-19/P1D"]);
      expect(result.getmap.content_type).toBe("image/png");
      const png = bytes(result.getmap.data);
      const want = await processPng(epsg, bbox, 120, 90);
      expect(png).toEqual(want);
      await expectSameRgb(png, want);
    },
  );
});

describe("GDAL WMS and WMTS drivers", () => {
  it("gdalinfo of GetCapabilities in 1.1.1 and 1.3.0 lists the layer as a subdataset in that version", async (ctx) => {
    const info = (version: string) => `WMS:/ogc/wms/${instance}?SERVICE=WMS&VERSION=${version}&REQUEST=GetCapabilities`;
    const { result, run } = await pyOgc(ctx, { client: "gdal", info: [info("1.1.1"), info("1.3.0")] });
    expect(run.requests.every((r) => r.startsWith(`GET /ogc/wms/${instance}?`))).toBe(true);
    for (const [i, version] of ["1.1.1", "1.3.0"].entries()) {
      const sub = result.info[i].metadata.SUBDATASETS as Record<string, string>;
      const names = Object.entries(sub)
        .filter(([k]) => k.endsWith("_NAME"))
        .map(([, v]) => v);
      expect(
        names.some((n) => n.includes("LAYERS=TRUE_COLOR") && n.includes(`VERSION=${version}`)),
        names.join("\n"),
      ).toBe(true);
      expect(
        names.some((n) => n.includes(version === "1.1.1" ? "SRS=EPSG:4326" : "CRS=")),
        names.join("\n"),
      ).toBe(true);
    }
  }, 60_000);

  it("gdal_translate of GetMap 1.1.1 (lon,lat) and 1.3.0 (lat,lon) in EPSG:4326: the Processing API's pixels", async (ctx) => {
    // 1024 x 1024: GDAL's smallest overview of a GetMap URL is one 1024 px block of the whole BBOX (one GetMap)
    const size = ["-outsize", "1024", "1024"];
    const getMap = (q: string) =>
      `WMS:/ogc/wms/${instance}?SERVICE=WMS&REQUEST=GetMap&LAYERS=TRUE_COLOR&FORMAT=image/png&${q}`;
    const { result, run } = await pyOgc(ctx, {
      client: "gdal",
      translate: [
        { source: getMap(`VERSION=1.1.1&SRS=EPSG:4326&BBOX=${W},${S},${E},${N}`), args: size },
        { source: getMap(`VERSION=1.3.0&CRS=EPSG:4326&BBOX=${S},${W},${N},${E}`), args: size },
      ],
    });
    const maps = run.requests.filter((r) => /request=getmap/i.test(r));
    expect(maps.length).toBe(2);
    expect(maps[0]).toMatch(/bbox=-11\.90*,24\.50*,-11\.60*,24\.80*&srs=EPSG:4326/i); // 1.1.1: lon,lat
    expect(maps[1]).toMatch(/bbox=24\.50*,-11\.90*,24\.80*,-11\.60*&crs=EPSG:4326/i); // 1.3.0: lat,lon
    const want = await processPng(4326, [W, S, E, N], 1024, 1024);
    for (const t of result.translate) await expectSameRgb(bytes(t.data), want);
  }, 120_000);

  it("the WMTS driver reads tile 9/239/219 of PopularWebMercator256: the Processing API's pixels", async (ctx) => {
    const t = (2 * HALF) / 2 ** 9;
    // matrix 9 as the dataset's full resolution and the whole tile matrix set as its extent (not the layer's): tile
    // (col 239, row 219) is exactly pixels 239 * 256, 219 * 256
    const source = `WMTS:/ogc/wmts/${instance}?SERVICE=WMTS&REQUEST=GetCapabilities,layer=TRUE_COLOR,tilematrixset=PopularWebMercator256,tilematrix=9`;
    const { result, run } = await pyOgc(ctx, {
      client: "gdal",
      translate: [
        {
          source,
          args: [
            "-oo",
            "EXTENT_METHOD=MOST_PRECISE_TILE_MATRIX",
            "-srcwin",
            String(239 * 256),
            String(219 * 256),
            "256",
            "256",
          ],
        },
      ],
    });
    const tiles = run.requests
      .filter((r) => /request=gettile/i.test(r))
      .map((r) => /TileMatrix=(\d+)&TileRow=(\d+)&TileCol=(\d+)/i.exec(r)?.slice(1));
    expect(tiles).toEqual([["9", "219", "239"]]);
    const bbox = [-HALF + 239 * t, HALF - 220 * t, -HALF + 240 * t, HALF - 219 * t];
    await expectSameRgb(bytes(result.translate[0].data), await processPng(3857, bbox, 256, 256));
  }, 60_000);
});

/**
 * The official JS client (sentinelhub-js) against EO Edge: its own request building for the Processing API
 * (`layer.getMap(..., ApiType.PROCESSING)`) and the Catalog (`findTiles`, `findDatesUTC`), and its parsing of
 * our responses. Requests reach the worker under test through an axios adapter (test/helpers/shjs.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ApiType, BBox, CRS_EPSG4326, MimeTypes, S2L2ALayer, setAuthToken } from "@sentinel-hub/sentinelhub-js";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { routeSentinelHubJsToWorker } from "../helpers/shjs";
import { decodePng } from "../helpers/png";

const TRUE_COLOR = `//VERSION=3
function setup(){ return { input: ["B02","B03","B04","dataMask"], output: { bands: 4 } }; }
function evaluatePixel(s){ return [2.5*s.B04, 2.5*s.B03, 2.5*s.B02, s.dataMask]; }`;
const WF_BBOX = new BBox(CRS_EPSG4326, 3.0193042, 50.8130854, 3.028392, 50.8188427);

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A" || i.id.includes("31UDS_2018"));
  setAuthToken(await token());
  routeSentinelHubJsToWorker();
});

describe("sentinelhub-js", () => {
  it("getMap with the Processing API returns a PNG of the requested size with data where the tile is", async () => {
    const layer = new S2L2ALayer({ evalscript: TRUE_COLOR, maxCloudCoverPercent: 100 });
    const data = (await layer.getMap(
      {
        bbox: new BBox(CRS_EPSG4326, -12.0, 24.3, -10.8, 25.3),
        fromTime: new Date("2020-02-01T00:00:00Z"),
        toTime: new Date("2020-03-01T00:00:00Z"),
        width: 256,
        height: 256,
        format: MimeTypes.PNG,
      },
      ApiType.PROCESSING,
    )) as unknown as ArrayBuffer;
    const png = await decodePng(data);
    expect([png.width, png.height]).toEqual([256, 256]);
    const centre = (128 * 256 + 128) * 4;
    expect(png.data[centre + 3]).toBe(255); // dataMask 1 in the middle of 29RKH
    expect(png.data[centre]).toBeGreaterThan(100); // bright desert
  });

  it("findTiles lists the catalog's acquisitions with their cloud cover", async () => {
    const layer = new S2L2ALayer({ evalscript: TRUE_COLOR });
    const { tiles, hasMore } = await layer.findTiles(
      WF_BBOX,
      new Date("2018-04-10T00:00:00Z"),
      new Date("2018-04-22T00:00:00Z"),
      50,
      0,
    );
    expect(hasMore).toBe(false);
    expect(tiles.map((t) => t.sensingTime.toISOString().slice(0, 10)).sort()).toEqual([
      "2018-04-11",
      "2018-04-14",
      "2018-04-16",
      "2018-04-19",
      "2018-04-21",
    ]);
    expect(tiles.find((t) => t.sensingTime.toISOString().startsWith("2018-04-16"))!.meta.cloudCoverPercent).toBeCloseTo(
      71.39,
      2,
    );
  });

  it("findTiles pages with offsets and honours maxCloudCoverPercent", async () => {
    const layer = new S2L2ALayer({ evalscript: TRUE_COLOR, maxCloudCoverPercent: 50 });
    const from = new Date("2018-04-01T00:00:00Z");
    const to = new Date("2018-04-30T00:00:00Z");
    const first = await layer.findTiles(WF_BBOX, from, to, 1, 0);
    const second = await layer.findTiles(WF_BBOX, from, to, 1, 1);
    const third = await layer.findTiles(WF_BBOX, from, to, 1, 2);
    expect(first.hasMore).toBe(true);
    expect(second.hasMore).toBe(false);
    expect(third.tiles).toHaveLength(0);
    const days = [first, second].map((p) => p.tiles[0]!.sensingTime.toISOString().slice(0, 10)).sort();
    expect(days).toEqual(["2018-04-19", "2018-04-26"]); // the April dates with eo:cloud_cover <= 50
  });

  it("findDatesUTC returns the acquisition dates", async () => {
    const layer = new S2L2ALayer({ evalscript: TRUE_COLOR });
    const dates = await layer.findDatesUTC(WF_BBOX, new Date("2018-04-01T00:00:00Z"), new Date("2018-04-30T00:00:00Z"));
    expect(dates.map((d) => d.toISOString().slice(0, 10))).toEqual([
      "2018-04-26",
      "2018-04-21",
      "2018-04-19",
      "2018-04-16",
      "2018-04-14",
      "2018-04-11",
    ]);
  });
});

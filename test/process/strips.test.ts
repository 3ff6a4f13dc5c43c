/**
 * Requests above STRIP_PIXELS are read, mosaicked and evaluated in strips of rows in one script session:
 * the result must be the same image as in one piece. The strip count is in Server-Timing (`strips;desc="n"`),
 * so each test also proves which path ran.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { window } from "../helpers/raster";
import { CRS, bandsScript, process, readTiff } from "../helpers/process";
import { CACHED_MAP_PIXELS, STRIP_PIXELS, STRIP_TARGET } from "../../src/pipeline/pipeline";
import { indexCache } from "../../src/raster/warp";

/** The strip count the Processing API reports in Server-Timing. */
const strips = (r: Response): number => Number(/strips;desc="(\d+)"/.exec(r.headers.get("server-timing") ?? "")?.[1]);
/** Strips expected for a width x height request (rows of about STRIP_TARGET pixels). */
const expectedStrips = (width: number, height: number): number =>
  width * height <= STRIP_PIXELS ? 1 : Math.ceil(height / Math.max(1, Math.ceil(STRIP_TARGET / width)));
const WF_BBOX = [501360, 5629040, 502000, 5629680];
const RKH_B04 = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif";

/** B04 of the whole 29RKH tile (its 100 m file's extent, EPSG:32629) at `res` metres, as a FLOAT32 GeoTIFF. */
const rkhTile = (res: number) => ({
  input: {
    bounds: { bbox: [199980, 2690220, 309780, 2800020], properties: { crs: CRS(32629) } },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } },
      },
    ],
  },
  output: { resx: res, resy: res, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: bandsScript(["B04"]),
});

/**
 * Pixels of a size x size GeoTIFF of rkhTile that differ from the file read with geotiff.js: NEAREST takes file pixel
 * floor((i + 0.5) * scale) per axis (scale = output / file pixel size; exact in binary for 1 and 0.75), DN / 10000.
 */
async function mismatchesVsFile(bytes: ArrayBuffer, size: number, scale: number): Promise<number> {
  const tif = await readTiff(bytes);
  expect([tif.width, tif.height]).toEqual([size, size]);
  const file = await window(RKH_B04, 0, 0, 0, 1098, 1098);
  let bad = 0;
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const src = Math.floor((row + 0.5) * scale) * 1098 + Math.floor((col + 0.5) * scale);
      if (Math.abs(tif.data[row * size + col]! - file[src]! / 10000) > 1e-6) bad++;
    }
  }
  return bad;
}

let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A" || i.id.includes("31UDS_2018041"));
  bearer = await token();
});

describe("strip processing", () => {
  it("the whole 29RKH tile at native 100 m (1098 x 1098 px) equals the file's pixels; its strips' index maps are kept", async () => {
    indexCache.clear();
    const r = await process(rkhTile(100), bearer);
    expect(r.status).toBe(200);
    expect(r.headers.get("server-timing")).toMatch(/read;dur=/);
    expect(strips(r)).toBe(expectedStrips(1098, 1098));
    expect(strips(r)).toBe(3);
    // 1098 x 1098 <= CACHED_MAP_PIXELS: one NEAREST index map per strip stays for the next request
    expect(indexCache.stats.entries).toBe(3);
    // 4.8 MB of FLOAT32: uncompressed (AUTO), its strips streamed unjoined (src/process/stream.ts)
    expect(r.body).toBeInstanceOf(ReadableStream);
    const bytes = await r.arrayBuffer();
    expect(bytes.byteLength).toBeGreaterThan(1098 * 1098 * 4);
    expect(await mismatchesVsFile(bytes, 1098, 1)).toBe(0);
  });

  it("above CACHED_MAP_PIXELS (the tile at 75 m, 1464 x 1464 px) equals the file's pixels and keeps no index map", async () => {
    expect(1464 * 1464).toBeGreaterThan(CACHED_MAP_PIXELS);
    indexCache.clear();
    const r = await process(rkhTile(75), bearer);
    expect(r.status).toBe(200);
    expect(strips(r)).toBe(expectedStrips(1464, 1464));
    expect(indexCache.stats.entries).toBe(0);
    expect(await mismatchesVsFile(await r.arrayBuffer(), 1464, 0.75)).toBe(0);
  });

  it("ORBIT samples keep their order and count across strips (1050 x 1050 px over West Flanders)", async () => {
    const script = `//VERSION=3
function setup(){return {input:[{bands:["B04","dataMask"]}], output:{bands:2, sampleType:"FLOAT32"}, mosaicking:"ORBIT"}}
function evaluatePixel(samples){ return [samples.length, samples[samples.length-1].B04]; }`;
    const body = {
      input: {
        bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
        data: [
          {
            type: "sentinel-2-l2a",
            dataFilter: { timeRange: { from: "2018-04-14T00:00:00Z", to: "2018-04-19T23:59:59Z" } },
          },
        ],
      },
      output: { width: 1050, height: 1050, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
      evalscript: script,
    };
    const r = await process(body, bearer);
    expect(r.status).toBe(200);
    expect(strips(r)).toBe(expectedStrips(1050, 1050));
    expect(strips(r)).toBeGreaterThan(1);
    const tif = await readTiff(await r.arrayBuffer());
    const oldest = await window("sentinel-2-l2a/westflanders/2018-04-14/B04.tif", 0, 0, 0, 64, 64);
    let bad = 0;
    for (let row = 0; row < 1050; row++) {
      for (let col = 0; col < 1050; col++) {
        const i = row * 1050 + col;
        const src = Math.floor(((row + 0.5) * 64) / 1050) * 64 + Math.floor(((col + 0.5) * 64) / 1050);
        if (tif.data[i * 2] !== 3 || Math.abs(tif.data[i * 2 + 1]! - oldest[src]! / 10000) > 1e-6) bad++;
      }
    }
    expect(bad).toBe(0);
  });

  it("just above STRIP_PIXELS (1050 x 1000) equals two requests under it (1050 x 500 each) and the file", async () => {
    const body = (bbox: number[], height: number) => ({
      input: {
        bounds: { bbox, properties: { crs: CRS(32631) } },
        data: [
          {
            type: "sentinel-2-l2a",
            dataFilter: { timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-19T23:59:59Z" } },
          },
        ],
      },
      output: { width: 1050, height, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
      evalscript: bandsScript(["B04"]),
    });
    expect(1050 * 1000).toBeGreaterThan(STRIP_PIXELS);
    expect(1050 * 500).toBeLessThanOrEqual(STRIP_PIXELS);
    const whole = await process(body(WF_BBOX, 1000), bearer);
    const mid = (WF_BBOX[1]! + WF_BBOX[3]!) / 2;
    const top = await process(body([WF_BBOX[0]!, mid, WF_BBOX[2]!, WF_BBOX[3]!], 500), bearer);
    const bottom = await process(body([WF_BBOX[0]!, WF_BBOX[1]!, WF_BBOX[2]!, mid], 500), bearer);
    expect([whole.status, top.status, bottom.status]).toEqual([200, 200, 200]);
    expect([strips(whole), strips(top), strips(bottom)]).toEqual([2, 1, 1]);
    const w = (await readTiff(await whole.arrayBuffer())).data;
    const halves = [
      ...Array.from((await readTiff(await top.arrayBuffer())).data),
      ...Array.from((await readTiff(await bottom.arrayBuffer())).data),
    ];
    const file = await window("sentinel-2-l2a/westflanders/2018-04-19/B04.tif", 0, 0, 0, 64, 64);
    let [vsHalves, vsFile] = [0, 0];
    for (let row = 0; row < 1000; row++) {
      for (let col = 0; col < 1050; col++) {
        const i = row * 1050 + col;
        if (w[i] !== halves[i]) vsHalves++;
        const src = Math.floor(((row + 0.5) * 64) / 1000) * 64 + Math.floor(((col + 0.5) * 64) / 1050);
        if (Math.abs(w[i]! - file[src]! / 10000) > 1e-6) vsFile++;
      }
    }
    expect([vsHalves, vsFile]).toEqual([0, 0]);
  });
});

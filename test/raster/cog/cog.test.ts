import { beforeEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { clearCogCaches, cogCacheStats, openCog, readCogWindow } from "../../../src/raster/cog";
import { r2Source } from "../../../src/storage/r2source";
import { sampleFile } from "../../helpers/seed";
import { B04, BELGIUM, ref, sourceFor } from "../warp/refs";

/** Copies a fixture GeoTIFF (test/fixtures/warp) into R2 and opens it. */
async function fixtureCog(name: string) {
  const key = `fixtures/warp/${name}`;
  await env.DATA.put(key, await sampleFile(key));
  return openCog((await r2Source(env.DATA, key))!);
}

beforeEach(() => clearCogCaches());

describe("openCog", () => {
  it("reads the 29RKH B04 header with one range read: CRS, geotransform, overviews, nodata, sample type", async () => {
    const source = await sourceFor(B04);
    const cog = await openCog(source);
    expect(source.stats).toMatchObject({ heads: 0, gets: 1 });
    expect(cog.crs.epsg).toBe(32629);
    expect([cog.width, cog.height, cog.bandCount]).toEqual([1098, 1098, 1]);
    expect(cog.geoTransform).toEqual([199980, 100, 0, 2800020, 0, -100]);
    expect(cog.bbox).toEqual([199980, 2690220, 309780, 2800020]);
    expect(cog.nodata).toBe(0);
    expect(cog.sampleType).toBe("UINT16");
    expect(cog.levels.map((l) => [l.width, l.height, l.blockWidth])).toEqual([
      [1098, 1098, 512],
      [549, 549, 128],
      [275, 275, 128],
    ]);
    expect(cog.levels[1]!.resolution).toEqual([200, 200]);
    expect(cog.levels[2]!.ratio).toBeCloseTo(1098 / 275, 12);
    expect(cog.levels[2]!.geoTransform[1]).toBeCloseTo(100 * (1098 / 275), 9);
  });

  it("caches parsed headers per isolate by source id (key + etag)", async () => {
    const s1 = await sourceFor(B04);
    await openCog(s1);
    const s2 = (await r2Source(env.DATA, B04))!;
    const again = await openCog(s2);
    expect(s2.stats.gets).toBe(1); // the open itself; the header comes from the cache
    expect(again.source).toBe(s2);
    expect(cogCacheStats().headers).toBe(1);
  });

  it("reads the multi-band Int16 Belgium file: 3 bands, nodata -32768, EPSG:32631", async () => {
    const cog = await openCog(await sourceFor(BELGIUM));
    expect([cog.crs.epsg, cog.width, cog.height, cog.bandCount, cog.nodata, cog.sampleType]).toEqual([
      32631,
      73,
      58,
      3,
      -32768,
      "INT16",
    ]);
    expect(cog.levels).toHaveLength(1);
  });
});

describe("readCogWindow", () => {
  it("returns the file's pixels (compared with GDAL ReadAsArray) with one R2 read for a window in one block", async () => {
    const { data } = await ref("rkhutm_native_pixels");
    const source = await sourceFor(B04);
    const cog = await openCog(source);
    const before = source.stats.gets;
    const [px] = await readCogWindow(cog, 0, [0], { x0: 300, y0: 400, width: 64, height: 64 });
    expect(source.stats.gets - before).toBe(1);
    expect(Array.from(px!)).toEqual(Array.from(data));
  });

  it("reads all 25 blocks of the 549 px overview with a single coalesced R2 request, then none from cache", async () => {
    const source = await sourceFor(B04);
    const cog = await openCog(source);
    const before = source.stats.gets;
    const [a] = await readCogWindow(cog, 1, [0], { x0: 0, y0: 0, width: 549, height: 549 });
    expect(source.stats.gets - before).toBe(1);
    const [b] = await readCogWindow(cog, 1, [0], { x0: 0, y0: 0, width: 549, height: 549 });
    expect(source.stats.gets - before).toBe(1);
    expect(b).toEqual(a);
    expect(cogCacheStats().blocks).toBe(25);
  });

  it("joins blocks in flight: a prefetch, then reads of the same blocks before it lands, make one request", async () => {
    const source = await sourceFor(B04);
    const cog = await openCog(source);
    const win = { x0: 100, y0: 100, width: 300, height: 200 };
    const before = source.stats.gets;
    const prefetched = cog.prefetch!(1, [0], { x0: 0, y0: 0, width: 549, height: 549 });
    const [a, b] = await Promise.all([readCogWindow(cog, 1, [0], win), readCogWindow(cog, 1, [0], win)]);
    await prefetched;
    expect(source.stats.gets - before).toBe(1);
    expect(cogCacheStats().blocks).toBe(25);
    clearCogCaches();
    const [fresh] = await readCogWindow(await openCog(source), 1, [0], win);
    expect(a).toEqual([fresh]);
    expect(b).toEqual([fresh]);
  });

  it("reads only the requested band of a band-interleaved file", async () => {
    await sourceFor(BELGIUM);
    const source = (await r2Source(env.DATA, BELGIUM, { prefix: 0 }))!;
    const cog = await openCog(source);
    const before = source.stats.bytes;
    const [b1] = await readCogWindow(cog, 0, [1], { x0: 0, y0: 0, width: 73, height: 58 });
    expect(source.stats.bytes - before).toBe(6820);
    expect(b1!.every((v) => v >= 263 && v <= 1358)).toBe(true);
  });

  it("decodes LZW + predictor strips (geotiff.js decoder) to the same pixels", async () => {
    const { data } = await ref("rkhutm_native_pixels");
    const cog = await fixtureCog("b04_lzw_strips.tif");
    expect(cog.geoTransform).toEqual([199980 + 300 * 100, 100, 0, 2800020 - 400 * 100, 0, -100]);
    expect(cog.levels[0]).toMatchObject({ blockWidth: 64, blockHeight: 10 });
    const [px] = await readCogWindow(cog, 0, [0], { x0: 0, y0: 3, width: 64, height: 61 });
    expect(Array.from(px!)).toEqual(Array.from(data.subarray(3 * 64)));
  });

  it("reads pixel-interleaved multi-band tiles like band-interleaved ones", async () => {
    const planar = await openCog(await sourceFor(BELGIUM));
    const chunky = await fixtureCog("belgium_pixel_interleaved.tif");
    const win = { x0: 5, y0: 7, width: 60, height: 40 };
    expect(await readCogWindow(chunky, 0, [2, 0], win)).toEqual(await readCogWindow(planar, 0, [2, 0], win));
  });

  it("reads windows in the stored 16-bit type (readNative) with the same values as the Float32 read", async () => {
    const { data } = await ref("rkhutm_native_pixels");
    const cog = await openCog(await sourceFor(B04));
    const [px] = await cog.readNative!(0, [0], { x0: 300, y0: 400, width: 64, height: 64 });
    expect(px).toBeInstanceOf(Uint16Array);
    expect(Array.from(px!)).toEqual(Array.from(data));
    const win = { x0: 500, y0: 0, width: 549, height: 30 }; // across two 512 px blocks
    const [a, b] = [await cog.readNative!(0, [0], win), await readCogWindow(cog, 0, [0], win)];
    expect(Array.from(a[0]!)).toEqual(Array.from(b[0]!));
    const chunky = await fixtureCog("belgium_pixel_interleaved.tif");
    const bwin = { x0: 5, y0: 7, width: 60, height: 40 };
    const native = await chunky.readNative!(0, [2, 0], bwin);
    expect(native[0]).toBeInstanceOf(Int16Array);
    expect(native.map((n) => Array.from(n))).toEqual(
      (await readCogWindow(chunky, 0, [2, 0], bwin)).map((f) => Array.from(f)),
    );
  });

  it("rejects windows outside the level and bad band indices", async () => {
    const cog = await openCog(await sourceFor(BELGIUM));
    expect(() => readCogWindow(cog, 0, [3], { x0: 0, y0: 0, width: 1, height: 1 })).toThrow(RangeError);
    expect(() => readCogWindow(cog, 0, [0], { x0: 70, y0: 0, width: 10, height: 1 })).toThrow(RangeError);
    expect(() => readCogWindow(cog, 1, [0], { x0: 0, y0: 0, width: 1, height: 1 })).toThrow(RangeError);
  });
});

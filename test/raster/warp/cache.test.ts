/**
 * The per-isolate caches of readWarped: prepared warps (src/raster/warp/prepared.ts: level, coordinates, window) and
 * NEAREST index maps (near.ts): shared between files of one layout, never stale when a file is replaced, bounded. Oracles: GDAL references (test/fixtures/warp)
 * and the files' pixels read with geotiff.js (test/helpers/raster.ts), both independent of the engine.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { clearCogCaches, openCog } from "../../../src/raster/cog";
import { crsFromEpsg } from "../../../src/raster/crs";
import type { Grid, WarpedBand } from "../../../src/raster/types";
import { INDEX_CACHE_BYTES, indexCache, preparedCache, readWarped } from "../../../src/raster/warp";
import { r2Source } from "../../../src/storage/r2source";
import { sampleFile } from "../../helpers/seed";
import { window } from "../../helpers/raster";
import { B04, B08, ref, REF_NODATA, sourceFor, type WarpRef } from "./refs";

const gridOf = (m: WarpRef): Grid => ({ crs: crsFromEpsg(m.epsg), bbox: m.bbox, width: m.width, height: m.height });

/**
 * The keys of `cache` (prepared warps or index maps) of grids with `grid`'s CRS and bbox, which both key on first.
 * The tests count these, not all entries: in the runtime this file shares with others, work those left running (a
 * queue consumer, an un-awaited block prefetch) may add entries of their own grids meanwhile.
 */
const held = (cache: { keys(): string[] }, grid: Grid) =>
  cache.keys().filter((k) => k.startsWith(`${[grid.crs.epsg, ...grid.bbox].join("|")}|`));
const B01 = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B01.tif";

/** Pixels where validity or value differ from a GDAL reference (-9999 = no data). */
function mismatches(expected: Float32Array, got: WarpedBand): number {
  let bad = 0;
  for (let i = 0; i < expected.length; i++) {
    const valid = expected[i] !== REF_NODATA;
    if (valid !== (got.valid[i] === 1) || (valid && expected[i] !== got.data[i])) bad++;
  }
  return bad;
}

/** Puts sample file `path` under `key` in R2 and opens it (a new etag: a new source id). */
async function replace(key: string, path: string) {
  await env.DATA.put(key, await sampleFile(path));
  return openCog((await r2Source(env.DATA, key))!);
}

afterEach(() => indexCache.resize(64, INDEX_CACHE_BYTES));

/** Empties both caches; the GDAL references of B04 and B08 over 29RKH (EPSG:4326, NEAREST) and their grid. */
async function emptyCachesAndRefs() {
  indexCache.clear();
  preparedCache.clear();
  const near04 = await ref("rkh4326_near");
  return { near04, near08: await ref("rkh4326_b08_near"), grid: gridOf(near04.meta) };
}

describe("NEAREST index maps", () => {
  it("are shared by files of one layout, each warped to its own GDAL reference", async () => {
    const { near04, near08, grid } = await emptyCachesAndRefs();
    const [b04] = await readWarped(await openCog(await sourceFor(B04)), [0], grid, {
      resampling: "NEAREST",
      errorThreshold: 0,
    });
    expect(held(indexCache, grid)).toHaveLength(1);
    const [b08] = await readWarped(await openCog(await sourceFor(B08)), [0], grid, {
      resampling: "NEAREST",
      errorThreshold: 0,
    });
    expect(held(indexCache, grid)).toHaveLength(1);
    expect(held(preparedCache, grid)).toHaveLength(1);
    expect(indexCache.get(held(indexCache, grid)[0]!)!.byteLength).toBe(grid.width * grid.height * 4);
    expect(mismatches(near04.data, b04!)).toBe(0);
    expect(mismatches(near08.data, b08!)).toBe(0);
    const [again] = await readWarped(await openCog(await sourceFor(B04)), [0], grid, {
      resampling: "NEAREST",
      errorThreshold: 0,
    });
    expect(mismatches(near04.data, again!)).toBe(0);
  });

  it("a cold warp reads its blocks before its coordinates are prepared, once, and gives GDAL's pixels", async () => {
    const { near04, grid } = await emptyCachesAndRefs();
    clearCogCaches();
    const source = await sourceFor(B04);
    const preparedAtRead: number[] = [];
    const watched = {
      ...source,
      read: (r: Parameters<typeof source.read>[0]) => {
        preparedAtRead.push(held(preparedCache, grid).length);
        return source.read(r);
      },
    };
    const cog = await openCog(watched);
    const before = source.stats.gets;
    const [band] = await readWarped(cog, [0], grid, { resampling: "NEAREST", errorThreshold: 0 });
    expect(preparedAtRead.slice(-1)).toEqual([0]); // the prefetch left before the warp was prepared
    expect(source.stats.gets - before).toBe(1); // and the exact window's read joined it
    expect(mismatches(near04.data, band!)).toBe(0);
  });

  it("follow a file replaced under the same key, with another layout (B04 at 100 m, then B01 at 600 m)", async () => {
    indexCache.clear();
    preparedCache.clear();
    const key = "test/index-cache/swap.tif";
    const grid: Grid = { crs: crsFromEpsg(32629), bbox: [199980, 2797020, 203580, 2800020], width: 36, height: 30 };
    const [fine] = await readWarped(await replace(key, B04), [0], grid, { resampling: "NEAREST", nodata: null });
    const pixels04 = await window(B04, 0, 0, 0, 36, 30);
    expect(Array.from(fine!.data)).toEqual(Array.from(pixels04));
    const [coarse] = await readWarped(await replace(key, B01), [0], grid, { resampling: "NEAREST", nodata: null });
    expect(held(indexCache, grid)).toHaveLength(2);
    expect(held(preparedCache, grid)).toHaveLength(2);
    const pixels01 = await window(B01, 0, 0, 0, 6, 5);
    const expected = Array.from(
      { length: 36 * 30 },
      (_, i) => pixels01[Math.floor(i / 36 / 6) * 6 + Math.floor((i % 36) / 6)]!,
    );
    expect(Array.from(coarse!.data)).toEqual(expected);
    expect(coarse!.valid.every((v) => v === 1)).toBe(true);
  });

  it("stay within their byte budget: a map larger than it is used once and not kept", async () => {
    indexCache.clear();
    expect(indexCache.stats.maxBytes).toBe(INDEX_CACHE_BYTES);
    const { meta, data } = await ref("rkh4326_near");
    indexCache.resize(64, meta.width * meta.height * 4 - 1);
    const cog = await openCog(await sourceFor(B04));
    const [band] = await readWarped(cog, [0], gridOf(meta), { resampling: "NEAREST", errorThreshold: 0 });
    expect(mismatches(data, band!)).toBe(0);
    expect(held(indexCache, gridOf(meta))).toHaveLength(0);
    indexCache.resize(64, 3 * 32 * 32 * 4);
    for (const size of [32, 31, 30, 29])
      await readWarped(cog, [0], { ...gridOf(meta), width: size, height: size }, { resampling: "NEAREST" });
    expect(held(indexCache, gridOf(meta))).toHaveLength(3);
    expect(indexCache.stats.bytes).toBeLessThanOrEqual(3 * 32 * 32 * 4);
  });

  it("are neither looked up nor kept with cacheIndex false (strips), and equal GDAL's with three warps of two layouts at once", async () => {
    const { near04, near08, grid } = await emptyCachesAndRefs();
    const opts = { resampling: "NEAREST" as const, errorThreshold: 0, cacheIndex: false };
    // B01 (600 m) has another window than B04 / B08 (100 m): its map differs, and all three share the one scratch map
    const grid01: Grid = { crs: crsFromEpsg(32629), bbox: [199980, 2797020, 203580, 2800020], width: 36, height: 30 };
    const [cog04, cog08, cog01] = await Promise.all(
      [B04, B08, B01].map(async (path) => openCog(await sourceFor(path))),
    );
    // started in one turn, the largest map first: each reads (an await) before it gathers
    const [[b04], [b01], [b08]] = await Promise.all([
      readWarped(cog04!, [0], grid, opts),
      readWarped(cog01!, [0], grid01, { ...opts, nodata: null }),
      readWarped(cog08!, [0], grid, opts),
    ]);
    expect(mismatches(near04.data, b04!)).toBe(0);
    expect(mismatches(near08.data, b08!)).toBe(0);
    expect([...held(indexCache, grid), ...held(indexCache, grid01)]).toHaveLength(0);
    const pixels01 = await window(B01, 0, 0, 0, 6, 5);
    expect(Array.from(b01!.data)).toEqual(
      Array.from({ length: 36 * 30 }, (_, i) => pixels01[Math.floor(i / 36 / 6) * 6 + Math.floor((i % 36) / 6)]!),
    );
    await readWarped(await openCog(await sourceFor(B04)), [0], grid, { ...opts, cacheIndex: true });
    expect(held(indexCache, grid)).toHaveLength(1);
  });
});

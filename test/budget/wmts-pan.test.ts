/**
 * A WMTS map panned over many tiles (distinct bboxes: a scene search, a prepared warp and index maps per tile) does
 * not grow the isolate's memory without bound: every per-isolate cache stays within its byte budget and each tile
 * stays within the subrequest budgets. `npm run test:edge` runs this file with workerd's isolates limited to 128 MB
 * as at the edge (EDGE_V8_ENV of scripts/lib/bench.mjs), where unbounded growth would abort the isolate.
 */
import { beforeAll, expect, it } from "vitest";
import { call, token } from "../helpers/auth";
import { sampleFile, seedSamples } from "../helpers/seed";
import { createInstance, layerBody } from "../helpers/wms";
import { recentMeters } from "../../src/budget/meter";
import { CACHE_BUDGETS } from "../../src/raster/memory";
import { sceneCacheStats } from "../../src/storage/scenes";
import { fileCacheStats } from "../../src/storage/sources";
import { indexCache, preparedCache } from "../../src/raster/warp";
import { blockCache } from "../../src/raster/cog/blocks";

let path: string;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  const script = new TextDecoder().decode(await sampleFile("evalscripts/sentinel-2__true_color__script.js"));
  const inst = await createInstance(await token(), [layerBody("TRUE_COLOR", script)]);
  path = `/ogc/wmts/${inst.id}`;
});

it("80 tiles at zoom 12 over 29RKH: all served, caches within their byte budgets, subrequests per tile bounded", async () => {
  // tile 9/239/219 covers the scene; at zoom 12 its 8 x 8 children and a ring of neighbours: 80 distinct bboxes
  let most = 0;
  for (let k = 0; k < 80; k++) {
    const [x, y] = [239 * 8 - 1 + (k % 10), 219 * 8 - 1 + Math.floor(k / 10)];
    const r = await call(
      `${path}?REQUEST=GetTile&LAYER=TRUE_COLOR&TILEMATRIXSET=PopularWebMercator256&TILEMATRIX=12&TILECOL=${x}&TILEROW=${y}`,
    );
    expect(r.status).toBe(200);
    await r.arrayBuffer();
    const m = [...recentMeters()].reverse().find((x) => x.label === `GET ${path}`)!;
    most = Math.max(most, m.subrequests);
  }
  expect(most).toBeLessThan(40);
  expect(sceneCacheStats().bytes).toBeLessThanOrEqual(CACHE_BUDGETS.SCENE_CACHE_BYTES!);
  expect(fileCacheStats().bytes).toBeLessThanOrEqual(CACHE_BUDGETS.FILE_CACHE_BYTES!);
  expect(preparedCache.stats.bytes).toBeLessThanOrEqual(CACHE_BUDGETS.PREPARED_WARP_BYTES!);
  expect(indexCache.stats.bytes).toBeLessThanOrEqual(CACHE_BUDGETS.INDEX_CACHE_BYTES!);
  expect(blockCache.stats.bytes).toBeLessThanOrEqual(CACHE_BUDGETS.BLOCK_CACHE_BYTES!);
  expect(sceneCacheStats().entries).toBeGreaterThan(10);
  expect(preparedCache.stats.entries).toBeGreaterThan(0);
}, 180_000);

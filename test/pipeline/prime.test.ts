/**
 * The read stage's priming (src/pipeline/prime.ts): it runs the real engine on its synthetic scene without error and
 * leaves nothing in the caches a request reads (COG headers and blocks, NEAREST index maps).
 */
import { describe, expect, it } from "vitest";
import { primeReadStage } from "../../src/pipeline/prime";
import { cogCacheStats } from "../../src/raster/cog";
import { indexCache } from "../../src/raster/warp";

describe("primeReadStage", () => {
  it("completes its rounds and keeps no COG header, block or index map", async () => {
    const [cog, maps] = [cogCacheStats(), indexCache.stats.entries];
    await expect(primeReadStage(2)).resolves.toBeUndefined();
    expect(cogCacheStats()).toEqual(cog);
    expect(indexCache.stats.entries).toBe(maps);
  });
});

/**
 * The per-isolate caches are sized in bytes inside the isolate's memory budget (src/raster/memory.ts):
 * each is filled past its budget with real entries and holds no more than its budget afterwards.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CACHE_BUDGETS,
  FILE_CACHE_BYTES,
  SCENE_CACHE_BYTES,
  SCRIPT_CACHE_BYTES,
  REQUEST_CACHE_BYTES,
} from "../../src/raster/memory";
import { findScenes, sceneCacheStats } from "../../src/storage/scenes";
import { fileCacheStats, openFile } from "../../src/storage/sources";
import { compileEvalscript } from "../../src/raster/evalscript";
import { compiledCacheStats } from "../../src/raster/evalscript/compile/compile";
import { authCache } from "../../src/auth/verified";
import { approxBytes } from "../../src/raster/lru";
import { seedSamples } from "../helpers/seed";
import type { Env } from "../../src/env";

const E = env as unknown as Env;

beforeAll(async () => {
  await seedSamples((i) => i.id.includes("31UDS"));
});

describe("caches sized in bytes", () => {
  it("every new budget is part of the isolate's cache budgets", () => {
    for (const name of [
      "SCENE_CACHE_BYTES",
      "FILE_CACHE_BYTES",
      "SCRIPT_CACHE_BYTES",
      "PREPARED_WARP_BYTES",
      "REQUEST_CACHE_BYTES",
    ])
      expect(CACHE_BUDGETS[name]).toBeGreaterThan(0);
  });

  it("the scene cache: one entry per bbox (a panned map), its bytes within SCENE_CACHE_BYTES", async () => {
    let found = 0;
    for (let i = 0; i < 150; i++) {
      const d = i * 1e-5; // distinct boxes over the West Flanders scenes, as the tiles of a panned map
      const scenes = await findScenes(E, {
        collection: "sentinel-2-l2a",
        lonLatBbox: [3.02 + d, 50.814, 3.025 + d, 50.818],
        from: 0,
        to: Date.now(),
        maxCloudCoverage: 100,
        order: "mostRecent",
        limit: 100,
        cacheable: true,
      });
      found += scenes.length;
    }
    expect(found).toBeGreaterThan(150 * 10); // each search found the scenes (about 19 items of ~4 KB each)
    const s = sceneCacheStats();
    expect(s.maxBytes).toBe(SCENE_CACHE_BYTES);
    expect(s.bytes).toBeLessThanOrEqual(SCENE_CACHE_BYTES);
    expect(s.entries).toBeLessThan(150); // evicted by bytes, not by its 512 entries
    expect(s.bytes).toBeGreaterThan(SCENE_CACHE_BYTES / 2);
  });

  it("the file cache: opened archive files within FILE_CACHE_BYTES", async () => {
    const body = new Uint8Array(20_000);
    for (let i = 0; i < 200; i++) await E.DATA.put(`budget/file-${i}.bin`, body);
    for (let i = 0; i < 200; i++) expect(await openFile(E, null, `budget/file-${i}.bin`)).not.toBeNull();
    const s = fileCacheStats();
    expect(s.maxBytes).toBe(FILE_CACHE_BYTES);
    expect(s.bytes).toBeLessThanOrEqual(FILE_CACHE_BYTES);
    expect(s.entries).toBeLessThan(200);
  });

  it("the compiled-script cache: scripts within their share of SCRIPT_CACHE_BYTES", () => {
    const pad = "x".repeat(20_000);
    for (let i = 0; i < 64; i++)
      compileEvalscript(
        `//VERSION=3\n// ${i} ${pad}\nfunction setup(){return {input:["B04"], output:{bands:1}}}\nfunction evaluatePixel(s){return [s.B04]}`,
      );
    const s = compiledCacheStats();
    expect(s.bytes).toBeLessThanOrEqual(SCRIPT_CACHE_BYTES / 2);
    expect(s.entries).toBeLessThan(64);
  });

  it("the verified-token cache: tokens (their text is the key) within their share of REQUEST_CACHE_BYTES", () => {
    const claims = { sub: "s", account: "a", client_id: "c", exp: 1, iat: 0, iss: "http://localhost", jti: "j" };
    for (let i = 0; i < 2048; i++) authCache.tokens.set(`token-${i}-${"t".repeat(800)}`, claims as never);
    const s = authCache.tokens.stats;
    expect(s.bytes).toBeLessThanOrEqual((REQUEST_CACHE_BYTES * 2) / 5);
    expect(s.entries).toBeLessThan(2048);
    expect(approxBytes(claims)).toBeGreaterThan(100);
  });
});

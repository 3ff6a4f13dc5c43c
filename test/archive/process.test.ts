/**
 * Processing over the upstream archive (src/archive) against the archive twin (scripts/archive-twin.mjs, wired by
 * vitest.config.ts): the 29RKH scene read from the twin's Earth Search API and sentinel-cogs bucket gives the same
 * pixels as GDAL (test/reference/references.py) and as the bundled sample read from R2; failures upstream are retried and
 * then answered as 502 / 503 envelopes; the local store answers first when it holds scenes.
 */
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { compare, reference } from "../helpers/refs";
import { CRS, readTiff } from "../helpers/process";
import { postJson, twinScope, type TwinScope } from "./scope";
import { forgetOpens } from "../../src/archive/bytes";
import { forgetUpstreamSearches } from "../../src/archive/upstream";
import { clearCogCaches } from "../../src/raster/cog";

const RKH_TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
const NDVI = `//VERSION=3
function setup(){return {input:["B04","B08"], output:{bands:1, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [(s.B08-s.B04)/(s.B08+s.B04)]}`;
let bearer: string;
let twin: TwinScope;

const hook = (path: string, body?: unknown) => twin.hook(path, body);
/** POST /api/v1/process through the Worker reading this file's twin scope (`over`: further bindings). */
const process = (body: unknown, over: Record<string, unknown> = {}) =>
  twin.call("/api/v1/process", postJson(body), bearer, over);

const ndviRequest = (bbox: number[], width: number, height: number, extra: Record<string, unknown> = {}) => ({
  input: {
    bounds: { bbox, properties: { crs: CRS(4326) } },
    data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: RKH_TIME }, ...extra }],
  },
  output: { width, height, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: NDVI,
});

/** Empties the isolate's caches of upstream reads, so that the next request goes to the twin. */
function cold(): void {
  forgetOpens();
  forgetUpstreamSearches();
  clearCogCaches();
}

beforeAll(async () => {
  bearer = await token();
  twin = await twinScope();
});

beforeEach(async () => {
  await hook("reset", {});
  cold();
});

describe("NDVI over 29RKH through the archive", () => {
  let archived: Float32Array;

  it("equals GDAL on the same COG, read from the twin (no local items)", async () => {
    const ref = await reference("rkh4326_ndvi");
    const g = ref.meta.grid;
    const r = await process(ndviRequest(g.bbox, g.width, g.height));
    expect(r.status).toBe(200);
    const tif = await readTiff(await r.arrayBuffer());
    expect([tif.width, tif.height]).toEqual([g.width, g.height]);
    const c = compare(tif.data, ref.data, 1e-6);
    expect(c.mismatch).toBeLessThan(0.005);
    archived = Float32Array.from(tif.data);
    const stats = await hook("stats");
    expect(stats.stac).toBeGreaterThanOrEqual(1);
    const objects = Object.keys(stats.objects as Record<string, number>);
    expect(objects.some((k) => k.endsWith("/B04.tif"))).toBe(true);
    expect(objects.some((k) => k.endsWith("/B08.tif"))).toBe(true);
    expect(stats.peakInFlight).toBeLessThanOrEqual(6); // Workers' simultaneous connections
  });

  it("a warm request makes no upstream request", async () => {
    const ref = await reference("rkh4326_ndvi");
    const g = ref.meta.grid;
    expect((await process(ndviRequest(g.bbox, g.width, g.height))).status).toBe(200);
    await hook("reset", {});
    const r = await process(ndviRequest(g.bbox, g.width, g.height));
    expect(r.status).toBe(200);
    await r.arrayBuffer();
    const stats = await hook("stats");
    expect(stats.object).toBe(0);
    expect(stats.stac).toBe(0);
  });

  it("two cold requests at once share one scene search and one open of each file", async () => {
    const g = (await reference("rkh4326_ndvi")).meta.grid;
    const [a, b] = await Promise.all([0, 1].map(() => process(ndviRequest(g.bbox, g.width, g.height))));
    expect([a!.status, b!.status]).toEqual([200, 200]);
    const [pa, pb] = await Promise.all([a!, b!].map(async (r) => (await readTiff(await r.arrayBuffer())).data));
    expect(Float32Array.from(pb!)).toEqual(Float32Array.from(pa!));
    const stats = await hook("stats");
    expect(stats.stac).toBe(1);
    // per file: one open (prefix GET), then each request's block read at most (they may travel together)
    const counts = stats.objects as Record<string, number>;
    for (const band of ["B04", "B08"]) {
      const key = Object.keys(counts).find((k) => k.endsWith(`/${band}.tif`))!;
      expect(counts[key]).toBeLessThanOrEqual(3);
    }
  });

  it("cold isolate, warm caches: opens from the Cache API and blocks from the R2 block cache (ARCHIVE_CACHE): no object request", async () => {
    const g = (await reference("rkh4326_ndvi")).meta.grid;
    const bucket = env.BUCKETS; // a test R2 bucket as the block cache
    const first = await process(ndviRequest(g.bbox, g.width, g.height), { ARCHIVE_CACHE: bucket });
    expect(first.status).toBe(200);
    const pixels = Float32Array.from((await readTiff(await first.arrayBuffer())).data);
    const stored = await env.BUCKETS.list({ prefix: "archive-blocks/" });
    expect(stored.objects.length).toBeGreaterThan(0);
    const before = (await hook("stats")).object as number;
    cold(); // this isolate forgets its opens, headers and blocks
    const second = await process(ndviRequest(g.bbox, g.width, g.height), { ARCHIVE_CACHE: bucket });
    expect(second.status).toBe(200);
    expect(Float32Array.from((await readTiff(await second.arrayBuffer())).data)).toEqual(pixels);
    expect((await hook("stats")).object).toBe(before);
  });

  it("retries a 5xx, then answers; keeps failing -> 503 envelope; a 403 -> 502 envelope", async () => {
    const g = (await reference("rkh4326_ndvi")).meta.grid;
    await hook("faults", { prefix: "/objects/", status: 500, count: 1 });
    const ok = await process(ndviRequest(g.bbox, g.width, g.height));
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    cold();
    await hook("faults", { prefix: "/objects/", status: 503, count: 100 });
    const down = await process(ndviRequest(g.bbox, g.width, g.height));
    expect(down.status).toBe(503);
    const body = (await down.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({
      status: 503,
      reason: "Service Unavailable",
      code: "COMMON_SERVICE_UNAVAILABLE",
    });
    expect(String(body.error.message)).toMatch(/twin archive is not answering \(HTTP 503 after 3 attempts\)/);
    expect(down.headers.get("retry-after")).toBe("30");
    await hook("reset", {});
    cold();
    await hook("faults", { prefix: "/earth-search/", status: 403, count: 1 });
    const denied = await process(ndviRequest(g.bbox, g.width, g.height));
    expect(denied.status).toBe(502);
    expect(((await denied.json()) as { error: Record<string, unknown> }).error).toMatchObject({
      status: 502,
      reason: "Bad Gateway",
      code: "COMMON_BAD_GATEWAY",
    });
  });

  it("an upstream that does not answer is a 503 within the timeout, never a hang", async () => {
    const g = (await reference("rkh4326_ndvi")).meta.grid;
    await hook("faults", { prefix: "/earth-search/", status: "hang", count: 3 });
    const t0 = Date.now();
    const r = await process(ndviRequest(g.bbox, g.width, g.height), { ARCHIVE_TIMEOUT_MS: "300" });
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(
      /no answer within 300 ms after 3 attempts/,
    );
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it("the local store answers first: the seeded sample gives the same pixels, no object read upstream", async () => {
    await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
    const g = (await reference("rkh4326_ndvi")).meta.grid;
    const r = await process(ndviRequest(g.bbox, g.width, g.height));
    expect(r.status).toBe(200);
    const tif = await readTiff(await r.arrayBuffer());
    expect(Float32Array.from(tif.data)).toEqual(archived);
    const stats = await hook("stats");
    // the archive's search is hedged (src/archive/index.ts findScenes): it leaves with the local query, its answer unused
    expect(stats.stac).toBeLessThanOrEqual(1);
    expect(stats.object).toBe(0);
  });
});

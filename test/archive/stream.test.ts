/**
 * Upstream range reads (src/archive/stream.ts through src/archive/bytes.ts openUpstream) against the archive twin:
 * the same bytes as the file; an answer that breaks off in the middle of its body (the twin's "cut" and "stall"
 * faults) is asked again, and when it keeps breaking off, the read fails with an
 * UpstreamError (503) and a Process API request with its envelope, never a hang.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openUpstream, forgetOpens } from "../../src/archive/bytes";
import type { AssetAccess } from "../../src/archive/access";
import { UpstreamError } from "../../src/archive/errors";
import { forgetUpstreamSearches } from "../../src/archive/upstream";
import { clearCogCaches } from "../../src/raster/cog";
import { token } from "../helpers/auth";
import { postJson, twinScope, type TwinScope } from "./scope";

const RKH = "sentinel-s2-l2a-cogs/29/R/KH/2020/2/S2A_29RKH_20200219_0_L2A";
let twin: TwinScope;
let bearer: string;
let file: Uint8Array;

/** Plain access to object `key` of sentinel-cogs in this file's twin scope. */
const access = (key = `${RKH}/B04.tif`): AssetAccess => {
  const url = `${twin.url}/objects/sentinel-cogs/${key}`;
  return { url, request: async (method, headers) => new Request(url, { method, headers }) };
};
const options = (timeoutMs = 10_000) => ({
  archive: "twin",
  retry: { attempts: 3, backoffMs: 10, timeoutMs },
});
/** Three ranges past the 16 KiB prefix: two neighbours (one span) and one far away (another span). */
const RANGES = [
  { offset: 600_000, length: 100_000 },
  { offset: 700_000, length: 50_000 },
  { offset: 2_000_000, length: 300_000 },
];
const expected = (r: { offset: number; length: number }) => file.slice(r.offset, r.offset + r.length);

beforeAll(async () => {
  twin = await twinScope();
  bearer = await token();
  file = new Uint8Array(await (await fetch(access().url)).arrayBuffer()); // the whole object (no Range)
});

beforeEach(async () => {
  await twin.hook("reset", {});
  forgetOpens();
  forgetUpstreamSearches();
  clearCogCaches();
});

describe("upstream range reads", () => {
  it("read gives the file's bytes of every range: two spans, one range from the prefix, an empty one", async () => {
    const source = (await openUpstream(access(), options()))!;
    const all = await source.read([...RANGES, { offset: 100, length: 50 }, { offset: 5, length: 0 }]);
    all.slice(0, 3).forEach((b, i) => expect(new Uint8Array(b)).toEqual(expected(RANGES[i]!)));
    expect(new Uint8Array(all[3]!)).toEqual(file.slice(100, 150)); // from the prefix read at open
    expect(all[4]!.byteLength).toBe(0);
    const stats = await twin.hook("stats");
    expect(stats.object).toBe(1 + 2); // the open, then one request per span
  });

  it("an answer cut off in the middle of its body is asked again", async () => {
    const source = (await openUpstream(access(), options()))!;
    await twin.hook("reset", {});
    await twin.hook("faults", { prefix: `/objects/sentinel-cogs/${RKH}/B04.tif`, status: "cut", count: 1 });
    const got = await source.read([RANGES[2]!]);
    expect(new Uint8Array(got[0]!)).toEqual(expected(RANGES[2]!));
    const stats = await twin.hook("stats");
    expect(stats.object).toBe(2); // the cut answer, then the whole range again
    expect(stats.bytes).toBe(2 * RANGES[2]!.length); // the twin counts the bytes asked
  });

  it("an answer that keeps breaking off fails with a 503 UpstreamError naming the byte reached", async () => {
    const source = (await openUpstream(access(), options()))!;
    await twin.hook("faults", { prefix: `/objects/sentinel-cogs/${RKH}/B04.tif`, status: "cut", count: 100 });
    // one span 600000-749999; each answer breaks off halfway, so nothing of it is ever in
    const e = await source.read(RANGES.slice(0, 2)).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(UpstreamError);
    expect((e as UpstreamError).kind).toBe("upstream-unavailable");
    expect((e as Error).message).toMatch(
      /did not deliver .*B04\.tif bytes 600000-749999 \(the answer broke off before byte 600000: .*, 3 attempts\)/,
    );
  });

  it("an answer that stalls mid-body fails within the attempts' timeouts, never a hang", async () => {
    const source = (await openUpstream(access(), options(300)))!;
    await twin.hook("faults", { prefix: `/objects/sentinel-cogs/${RKH}/B04.tif`, status: "stall", count: 100 });
    const t0 = Date.now();
    const e = await source.read([RANGES[2]!]).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(UpstreamError);
    expect((e as Error).message).toMatch(/no data in time.*3 attempts/);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it("an open whose answer breaks off is asked again; when it keeps breaking off, a 503 UpstreamError", async () => {
    await caches.default.delete(`https://archive-cache.eo-edge.invalid/open?u=${encodeURIComponent(access().url)}`);
    await twin.hook("faults", { prefix: `/objects/sentinel-cogs/${RKH}/B04.tif`, status: "cut", count: 1 });
    const source = (await openUpstream(access(), options()))!;
    expect(new Uint8Array((await source.read([{ offset: 0, length: 1000 }]))[0]!)).toEqual(file.slice(0, 1000));
    expect((await twin.hook("stats")).object).toBe(2);
    forgetOpens();
    await caches.default.delete(`https://archive-cache.eo-edge.invalid/open?u=${encodeURIComponent(access().url)}`);
    await twin.hook("faults", { prefix: `/objects/sentinel-cogs/${RKH}/B04.tif`, status: "cut", count: 100 });
    const e = await openUpstream(access(), options()).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(UpstreamError);
    expect((e as Error).message).toMatch(/did not deliver the start of .*B04\.tif \(the answer broke off/);
  });

  it("a Process API request whose block reads keep breaking off answers the 503 envelope", async () => {
    const request = {
      input: {
        bounds: { bbox: [-12.0, 24.3, -10.8, 25.3] },
        data: [
          {
            type: "sentinel-2-l2a",
            dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } },
          },
        ],
      },
      output: { width: 256, height: 256, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
      evalscript: `//VERSION=3
function setup(){return {input:["B04"], output:{bands:1, sampleType:"UINT16"}}}
function evaluatePixel(s){return [s.B04]}`,
    };
    // the open (a 16 KiB prefix) passes; every later answer of B04 breaks off
    const first = await twin.call("/api/v1/process", postJson(request), bearer);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    forgetOpens();
    clearCogCaches();
    await twin.hook("reset", {});
    await twin.hook("faults", { prefix: `/objects/sentinel-cogs/${RKH}/B04.tif`, status: "cut", count: 100 });
    const r = await twin.call("/api/v1/process", postJson(request), bearer);
    expect(r.status).toBe(503);
    const body = (await r.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ status: 503, code: "COMMON_SERVICE_UNAVAILABLE" });
    expect(String(body.error.message)).toMatch(/twin archive/);
  });
});

/**
 * Memory within 128 MB per isolate: the budgets of src/raster/memory.ts add up, the caches are bounded by
 * them, and the admission of src/pipeline/admission.ts lets Processing, Statistical API and WMS / WMTS requests in
 * by the bytes their pixels hold: real requests beyond a small budget wait for room or get 503 with Retry-After,
 * and the admitted ones answer the GDAL reference's pixels. (The isolate's peak JS memory under four 2500 x 2500
 * FLOAT32 requests is checked by bench/bench-memory.mjs, with workerd's isolates limited to 128 MB as at the
 * edge: a test in workerd cannot see the heap.)
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";
import { compare, reference } from "../helpers/refs";
import { CRS, process, readTiff } from "../helpers/process";
import { authed, call, envelope } from "../helpers/auth";
import { createInstance, jsonInit, layerBody } from "../helpers/wms";
import {
  BASELINE_BYTES,
  CACHE_BUDGETS,
  CACHE_BYTES,
  ISOLATE_MEMORY_BYTES,
  REQUEST_BYTES,
  SANDBOX_BASELINE_BYTES,
  SANDBOX_BLOCK_BYTES,
  SANDBOX_POOL_BYTES,
  SANDBOX_RECYCLE_BYTES,
} from "../../src/raster/memory";
import {
  ADMISSION_RETRY_AFTER_S,
  ADMISSION_STALL_MS,
  admissionStats,
  admit,
  planBytes,
  requestBytes,
  setAdmission,
} from "../../src/pipeline/admission";
import { MAX_SYNC_SIZE } from "../../src/pipeline/plan";
import { blockCache } from "../../src/raster/cog/blocks";
import { indexCache } from "../../src/raster/warp";
import { DEFAULT_LIMITS } from "../../src/raster/evalscript/host/runtime";
import type { Lru } from "../../src/raster/lru";

const RKH_TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
const NDVI = `//VERSION=3
function setup(){return {input:["B04","B08"], output:{bands:1, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [(s.B08-s.B04)/(s.B08+s.B04)]}`;
let bearer: string;
let ndvi: { body: unknown; ref: Float32Array; bytes: number };

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
  const ref = await reference("rkh4326_ndvi");
  const g = ref.meta.grid;
  const body = {
    input: {
      bounds: { bbox: g.bbox, properties: { crs: CRS(4326) } },
      data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: RKH_TIME } }],
    },
    output: {
      width: g.width,
      height: g.height,
      responses: [{ identifier: "default", format: { type: "image/tiff" } }],
    },
    evalscript: NDVI,
  };
  // 2 file bands + dataMask in, 1 FLOAT32 band out
  ndvi = { body, ref: ref.data, bytes: requestBytes(g.width * g.height, 2 * 4 + 1, 4) };
});

afterEach(() => setAdmission());

/** An answer read at once (its body holds the request's share until read): status, headers, body. */
interface Answer {
  status: number;
  headers: Headers;
  body: ArrayBuffer;
}
const answer = async (r: Response): Promise<Answer> => ({
  status: r.status,
  headers: r.headers,
  body: await r.arrayBuffer(),
});
/** `n` NDVI requests sent at once, each read as it comes. */
const burst = (n: number): Promise<Answer[]> =>
  Promise.all(Array.from({ length: n }, () => process(ndvi.body, bearer).then(answer)));

/** The NDVI GeoTIFF of `a` equals GDAL's (test/reference/references.py), as in test/process/process.test.ts. */
async function expectNdvi(a: Answer): Promise<void> {
  expect(a.status, new TextDecoder().decode(a.body).slice(0, 300)).toBe(200);
  const tif = await readTiff(a.body);
  expect(compare(tif.data, ndvi.ref, 1e-6).mismatch).toBeLessThan(0.005);
}

/** The admission wait of a response (its Server-Timing `admission` stage), in ms. */
const waited = (r: Answer): number =>
  Number(/admission;dur=([\d.]+)/.exec(r.headers.get("server-timing") ?? "")?.[1] ?? NaN);

/**
 * Fills `cache` (empty first) with 1 MiB values up to its budget plus 4 MiB, then checks it holds at most its budget
 * (and more than the budget less one value), the oldest values gone and the newest kept; empties it again.
 */
function fillPastBudget<V>(cache: Lru<V>, budget: number, make: (bytes: number) => V): void {
  expect(cache.stats.maxBytes).toBe(budget);
  cache.clear();
  const size = 1 << 20;
  const n = Math.ceil(budget / size) + 4;
  for (let i = 0; i < n; i++) cache.set(`fill-${i}`, make(size));
  const { bytes, entries } = cache.stats;
  expect(bytes).toBeLessThanOrEqual(budget);
  expect(bytes).toBeGreaterThan(budget - size);
  expect(entries).toBe(bytes / size);
  expect([cache.get("fill-0"), cache.get("fill-3")]).toEqual([undefined, undefined]);
  expect(cache.get(`fill-${n - 1}`)).toBeDefined();
  cache.clear();
}

describe("the isolate's memory budgets", () => {
  it("code + caches + the requests in flight fit in 128 MB, and the largest Processing request fits the requests' share", () => {
    expect(BASELINE_BYTES + CACHE_BYTES + REQUEST_BYTES).toBeLessThanOrEqual(ISOLATE_MEMORY_BYTES);
    expect(CACHE_BYTES).toBe(Object.values(CACHE_BUDGETS).reduce((a, b) => a + b, 0));
    // 2500 x 2500, two bands in, one FLOAT32 band out (the bench's heavy request): admitted beside nothing larger
    const largest = planBytes(
      {
        grid: { width: MAX_SYNC_SIZE, height: MAX_SYNC_SIZE } as never,
        sources: [{ fileBands: ["B04", "B08"] }] as never,
      },
      { outputs: [{ id: "default", bands: 1, sampleType: "FLOAT32" }] as never },
    );
    expect(largest).toBe(requestBytes(MAX_SYNC_SIZE * MAX_SYNC_SIZE, 9, 4));
    expect(BASELINE_BYTES + CACHE_BYTES + largest).toBeLessThanOrEqual(ISOLATE_MEMORY_BYTES);
    expect(admissionStats().budget).toBe(REQUEST_BYTES);
  });

  it("the caches are bounded by their budgets: filled past it, each keeps at most its budget and drops the oldest", () => {
    fillPastBudget(blockCache, CACHE_BUDGETS.BLOCK_CACHE_BYTES, (bytes) => new Float32Array(bytes / 4));
    fillPastBudget(indexCache, CACHE_BUDGETS.INDEX_CACHE_BYTES, (bytes) => new Int32Array(bytes / 4));
  });

  it("a sandbox isolate: its code and one call each way fit in 128 MB (V8 collects its garbage under that limit)", () => {
    expect(DEFAULT_LIMITS.blockBytes).toBe(SANDBOX_BLOCK_BYTES);
    expect(DEFAULT_LIMITS.recycleBytes).toBe(SANDBOX_RECYCLE_BYTES);
    expect(SANDBOX_BASELINE_BYTES + 2 * SANDBOX_BLOCK_BYTES).toBeLessThanOrEqual(ISOLATE_MEMORY_BYTES);
    // recycling bounds local workerd's lazily collected garbage; the pool bounds all sandbox isolates together
    expect(SANDBOX_RECYCLE_BYTES).toBeLessThanOrEqual(SANDBOX_POOL_BYTES);
  });
});

describe("admission of Processing requests", () => {
  it("a request that does not fit beside the ones in flight gets 503 with Retry-After, then passes once there is room", async () => {
    setAdmission({ budget: ndvi.bytes, waitMs: 0 });
    const held = await admit(1); // another request in flight: this one no longer fits
    try {
      const r = await process(ndvi.body, bearer);
      const e = await envelope(r);
      expect([r.status, e.status, e.code, e.reason]).toEqual([
        503,
        503,
        "COMMON_SERVICE_UNAVAILABLE",
        "Service Unavailable",
      ]);
      expect(r.headers.get("retry-after")).toBe(String(ADMISSION_RETRY_AFTER_S));
      expect(e.errors).toEqual({ retryAfter: ADMISSION_RETRY_AFTER_S });
      expect(e.message).toMatch(/busy.*Retry after 2 s/);
    } finally {
      held.release();
    }
    await expectNdvi(await answer(await process(ndvi.body, bearer)));
    expect(admissionStats()).toMatchObject({ bytes: 0, requests: 0, waiting: 0 }); // released once the body was read
  });

  it("a request waits for room (first come, first served) and answers the same pixels", async () => {
    setAdmission({ budget: ndvi.bytes, waitMs: 5000 });
    const held = await admit(ndvi.bytes);
    const pending = process(ndvi.body, bearer).then(answer);
    await new Promise((r) => setTimeout(r, 300));
    expect(admissionStats().waiting).toBe(1);
    held.release();
    const r = await pending;
    expect(waited(r)).toBeGreaterThanOrEqual(100); // it reached the admission within the 300 ms and waited there
    await expectNdvi(r);
  });

  it("a streamed body holds its share while read; one nobody reads lets it go after ADMISSION_STALL_MS", async () => {
    setAdmission({ budget: ndvi.bytes, waitMs: ADMISSION_STALL_MS + 5000 });
    const unread = await process(ndvi.body, bearer); // a streamed GeoTIFF nobody reads yet
    const next = await answer(await process(ndvi.body, bearer));
    expect(waited(next)).toBeGreaterThanOrEqual(ADMISSION_STALL_MS - 300);
    expect(waited(next)).toBeLessThan(ADMISSION_STALL_MS + 5000);
    await expectNdvi(next);
    await expectNdvi(await answer(unread));
  });

  it("concurrent requests beyond the budget: those admitted are correct, the others 503 with Retry-After, never more in flight than fits", async () => {
    setAdmission({ budget: 2 * ndvi.bytes, waitMs: 0 });
    const held = await admit(ndvi.bytes); // one slot taken for the whole burst: at most one request runs at a time
    try {
      const answers = await burst(4);
      const statuses = answers.map((r) => r.status);
      expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
      for (const r of answers) {
        if (r.status === 200) await expectNdvi(r);
        else expect(r.headers.get("retry-after")).toBe(String(ADMISSION_RETRY_AFTER_S));
      }
      expect(admissionStats().peakBytes).toBeLessThanOrEqual(2 * ndvi.bytes);
    } finally {
      held.release();
    }
  });

  it("with the default wait, four requests at once on room for one all answer, one after the other", async () => {
    setAdmission({ budget: ndvi.bytes });
    const answers = await burst(4);
    for (const r of answers) await expectNdvi(r);
    expect(admissionStats().peakBytes).toBe(ndvi.bytes);
    expect(answers.filter((r) => waited(r) > 0).length).toBeGreaterThanOrEqual(1);
  });
});

describe("admission of image formats", () => {
  it("a JPEG counts its encoder's RGBA copies: where a request's PNG fits, its JPEG gets 503", async () => {
    const { input, output } = ndvi.body as { input: unknown; output: { width: number; height: number } };
    const evalscript = NDVI.replace('sampleType:"FLOAT32"', 'sampleType:"UINT8"').replace("return [", "return [255 * ");
    const body = (type: string) => ({
      input,
      evalscript,
      output: { ...output, responses: [{ identifier: "default", format: { type } }] },
    });
    const png = requestBytes(output.width * output.height, 2 * 4 + 1, 1); // 1 UINT8 band out
    setAdmission({ budget: png + 1, waitMs: 0 });
    const held = await admit(1);
    try {
      const p = await answer(await process(body("image/png"), bearer));
      const j = await answer(await process(body("image/jpeg"), bearer));
      expect([p.status, p.headers.get("content-type")]).toEqual([200, "image/png"]);
      expect([j.status, j.headers.get("retry-after")]).toEqual([503, String(ADMISSION_RETRY_AFTER_S)]);
    } finally {
      held.release();
    }
    const j = await answer(await process(body("image/jpeg"), bearer)); // alone it runs (estimated larger than the budget)
    expect([j.status, j.headers.get("content-type")]).toEqual([200, "image/jpeg"]);
  });
});

describe("admission of Statistical API and WMS / WMTS requests", () => {
  const STATS = `//VERSION=3
function setup(){return {input:["B04","B08","dataMask"], output:[{id:"ndvi",bands:1,sampleType:"FLOAT32"},{id:"dataMask",bands:1}]}}
function evaluatePixel(s){return {ndvi:[(s.B08-s.B04)/(s.B08+s.B04)], dataMask:[s.dataMask]}}`;
  const statistics = () => {
    const { input, output } = ndvi.body as { input: unknown; output: { width: number; height: number } };
    const aggregation = {
      timeRange: RKH_TIME,
      aggregationInterval: { of: "P1D" },
      width: output.width,
      height: output.height,
      evalscript: STATS,
    };
    return authed("/api/v1/statistics", jsonInit("POST", { input, aggregation, calculations: {} }), bearer);
  };
  /** Takes the whole (tiny) budget, runs `f`, lets it go. */
  const whileFull = async <T>(f: () => Promise<T>): Promise<T> => {
    setAdmission({ budget: 1, waitMs: 0 });
    const held = await admit(1);
    try {
      return await f();
    } finally {
      held.release();
      setAdmission();
    }
  };

  it("a statistical request finds no room: 503 with Retry-After; with room, the mean of GDAL's NDVI", async () => {
    const r = await whileFull(statistics);
    const e = await envelope(r);
    expect([r.status, e.code, r.headers.get("retry-after")]).toEqual([
      503,
      "COMMON_SERVICE_UNAVAILABLE",
      String(ADMISSION_RETRY_AFTER_S),
    ]);
    const ok = await statistics();
    const json = (await ok.json()) as {
      status: string;
      data: { outputs: { ndvi: { bands: { B0: { stats: { mean: number } } } } } }[];
    };
    expect([ok.status, json.status]).toEqual([200, "OK"]);
    const valid = ndvi.ref.filter(Number.isFinite);
    const mean = valid.reduce((a, v) => a + v, 0) / valid.length;
    expect(json.data[0]!.outputs.ndvi.bands.B0.stats.mean).toBeCloseTo(mean, 3);
    expect(admissionStats()).toMatchObject({ bytes: 0, requests: 0, waiting: 0 });
  });

  it("GetMap and GetTile find no room: a 503 exception report with Retry-After; with room, the map", async () => {
    const inst = await createInstance(bearer, [
      layerBody("NDVI", NDVI.replace('sampleType:"FLOAT32"', 'sampleType:"UINT8"')),
    ]);
    const getMap = () =>
      call(
        `/ogc/wms/${inst.id}?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=NDVI&CRS=EPSG:4326&BBOX=24.4,-11.9,24.6,-11.7&WIDTH=64&HEIGHT=64&FORMAT=image/png`,
      );
    const getTile = () =>
      call(
        `/ogc/wmts/${inst.id}?SERVICE=WMTS&REQUEST=GetTile&LAYER=NDVI&TILEMATRIXSET=PopularWebMercator256&TILEMATRIX=10&TILECOL=479&TILEROW=439&FORMAT=image/png`,
      );
    for (const r of await whileFull(() => Promise.all([getMap(), getTile()]))) {
      const text = await r.text();
      expect([r.status, r.headers.get("retry-after"), r.headers.get("content-type")?.split(";")[0]]).toEqual([
        503,
        String(ADMISSION_RETRY_AFTER_S),
        "text/xml",
      ]);
      expect(text).toMatch(/<ServiceException code="COMMON_SERVICE_UNAVAILABLE">This server is busy/);
    }
    for (const r of [await getMap(), await getTile()]) {
      expect([r.status, r.headers.get("content-type")]).toEqual([200, "image/png"]);
      expect(new Uint8Array(await r.arrayBuffer()).subarray(1, 4)).toEqual(new TextEncoder().encode("PNG"));
    }
    expect(admissionStats()).toMatchObject({ bytes: 0, requests: 0, waiting: 0 });
  });
});

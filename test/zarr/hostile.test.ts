/**
 * Hostile Zarr stores (workerd, real D1 and R2), reproductions of hostile stores, built from the West Flanders group
 * of test/reference/make-zarr.py with one metadata file or chunk rewritten: a 200-byte `.zarray` declaring a
 * 1 000 000 000-value chunk (it took workerd down: "JavaScript heap out of memory"), an empty `x`, `chunks: [1,0,0]`,
 * blosc, an unknown compressor, a `delta` filter, an object `fill_value` (INGESTED, then all zeros or 500s),
 * random bytes or a DEFLATE bomb as a chunk and a `path` of 1100 characters (500s). Each ends FAILED with
 * `ingestionErrors` naming what is supported, or 400 in the error envelope on Process when the store changes after
 * ingestion, while a request of another account made at the same time succeeds: its Zarr collection's pixels
 * equal the built-in collection's over the same COGs.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { envelope } from "../helpers/auth";
import { api, tokenOf } from "../helpers/byoc";
import { CRS, process, readTiff } from "../helpers/process";
import { sampleFile, seedSamples } from "../helpers/seed";
import { deflateBomb } from "../helpers/tiff";
import { putZarrFile, putZarrFixture, settledZarr, zarrFixtureFiles } from "../helpers/zarr";
import { crsFromEpsg } from "../../src/raster/crs";
import type { EngineError } from "../../src/raster/errors";
import { guardedStore } from "../../src/raster/zarr/guard";
import { openZarrSlice } from "../../src/raster/zarr/reader";

const ROOT = "/api/v1/zarr/collections";
const FIXTURE = "westflanders.zarr";
const [A_BUCKET, B_BUCKET] = ["zarr-hostile-a", "zarr-hostile-b"];
let a: string, b: string, bType: string, expected: number[];

const json = (v: unknown): string => JSON.stringify(v);
/** The 200-byte `.zarray` of the issue: one chunk of a billion float64 values. */
const BILLION = json({
  zarr_format: 2,
  shape: [1_000_000_000],
  chunks: [1_000_000_000],
  dtype: "<f8",
  compressor: null,
  fill_value: null,
  order: "C",
  filters: null,
});

/** A Process request of B04 (DN) on 2018-04-19 at full resolution (64 x 64 px of 10 m). */
const full = (type: string) => ({
  input: {
    bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
    data: [
      {
        type,
        dataFilter: { timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" } },
        processing: { harmonizeValues: false },
      },
    ],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: `//VERSION=3
function setup(){return {input:[{bands:["B04"],units:"DN"}], output:{bands:1, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [s.B04]}`,
});

async function pixels(type: string, bearer: string): Promise<number[]> {
  const r = await process(full(type), bearer);
  expect(r.status, r.status === 200 ? "" : await r.clone().text()).toBe(200);
  return Array.from((await readTiff(await r.arrayBuffer())).data);
}

/** The `.zarray` of B04 of the fixture. */
const b04Zarray = async (): Promise<Record<string, unknown>> =>
  JSON.parse(new TextDecoder().decode(await sampleFile(`fixtures/zarr/${FIXTURE}/B04/.zarray`))) as Record<
    string,
    unknown
  >;

/** Account B's Process request on its own Zarr collection: 200 and the built-in collection's pixels. */
async function otherAccountSucceeds(): Promise<void> {
  expect(await pixels(bType, b)).toEqual(expected);
}

/** Creates `bearer`'s collection on `path` of `bucket`; the answer, its `data` the collection once ingested. */
async function createAs(bearer: string, bucket: string, path: string): Promise<{ status: number; json: any }> {
  const r = await api(bearer, "POST", ROOT, { name: path, s3Bucket: bucket, path, crs: CRS(32631) });
  if (r.status === 201) {
    expect(r.json.data.status).toBe("CREATED"); // ingested right after the answer
    r.json.data = await settledZarr(bearer, r.json.data.id);
  }
  return r;
}

/** Creates account A's collection on `path` of A's bucket (createAs). */
const create = (path: string) => createAs(a, A_BUCKET, path);

/** `.zarray` of array `array` of the fixture rewritten by `edit` (an object to merge, or the whole new text). */
const zarray = (array: string, edit: Record<string, unknown> | string) => (file: string, bytes: ArrayBuffer) => {
  if (file !== `${array}/.zarray`) return bytes;
  return typeof edit === "string" ? edit : json({ ...JSON.parse(new TextDecoder().decode(bytes)), ...edit });
};

beforeAll(async () => {
  await seedSamples((i) => i.assets.B04?.href.includes("westflanders") ?? false);
  [a, b] = await Promise.all([tokenOf(crypto.randomUUID()), tokenOf(crypto.randomUUID())]);
  await putZarrFixture(FIXTURE, `s3://${B_BUCKET}/wf.zarr`);
  const created = await createAs(b, B_BUCKET, "wf.zarr/");
  expect(created.json.data.status).toBe("INGESTED");
  bType = `zarr-${created.json.data.id}`;
  expected = await pixels("sentinel-2-l2a", b);
  expect(expected.filter((v) => v > 0).length).toBeGreaterThan(4000);
});

describe("ingestion: FAILED with ingestionErrors naming the problem, another account unaffected", () => {
  const cases: [string, string, ReturnType<typeof zarray>, RegExp][] = [
    [
      "a 200-byte x/.zarray of one billion-value chunk",
      "billion",
      zarray("x", BILLION),
      /^array x has chunks of 1000000000 values of <f8 \(8000000000 bytes\); at most zarr\.chunkBytes = 75497472 bytes per chunk are supported$/,
    ],
    [
      "an x of a billion values in small chunks (read whole)",
      "long-x",
      zarray("x", { shape: [1_000_000_000] }),
      /^coordinate array x has shape \[1000000000\]; 1-D with 1 to zarr\.coordinates = 1048576 values is supported\.$/,
    ],
    [
      "an empty x array",
      "empty-x",
      zarray("x", { shape: [0] }),
      /^coordinate array x has shape \[0\]; 1-D with 1 to zarr\.coordinates = 1048576 values is supported\.$/,
    ],
    [
      "chunks [1, 0, 0]",
      "chunks0",
      zarray("B04", { chunks: [1, 0, 0] }),
      /^array B04 has chunks \[1,0,0\]; one positive integer per dimension of its shape is needed$/,
    ],
    [
      "blosc",
      "blosc",
      zarray("B04", { compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 } }),
      /^array B04 uses compressor "blosc"; supported: none \(null\), zlib, gzip$/,
    ],
    [
      "an unknown compressor id",
      "unknown",
      zarray("B04", { compressor: { id: "snappy-ng" } }),
      /^array B04 uses compressor "snappy-ng"; supported: none \(null\), zlib, gzip$/,
    ],
    [
      "a delta filter",
      "delta",
      zarray("B04", { filters: [{ id: "delta", dtype: "<u4" }] }),
      /^array B04 uses filters \["delta"\]; filters are not supported \(null\)$/,
    ],
    [
      "an object fill_value",
      "fill",
      zarray("B04", { fill_value: { value: 0 } }),
      /^array B04 has fill_value \{"value":0\}; supported: null, a number, or "NaN" \/ "Infinity" \/ "-Infinity" for floats$/,
    ],
  ];
  it.each(cases)("%s", async (_, path, edit, error) => {
    // data chunks are never read by ingestion: left out
    await putZarrFixture(FIXTURE, `s3://${A_BUCKET}/${path}`, (f, bytes) =>
      /^B0\d\/\d/.test(f) ? null : edit(f, bytes),
    );
    const [r] = await Promise.all([create(`${path}/`), otherAccountSucceeds()]);
    expect([r.status, r.json.data.status]).toEqual([201, "FAILED"]);
    expect(r.json.data.ingestionErrors).toMatch(error);
  });

  it("a path of 1100 characters: 400 naming the limit, nothing created", async () => {
    const [r] = await Promise.all([create(`${"p".repeat(1100)}/`), otherAccountSucceeds()]);
    expect([r.status, r.json.error.code, r.json.error.message]).toEqual([
      400,
      "COMMON_BAD_PAYLOAD",
      "Invalid request at 'path': path must be at most 512 bytes (UTF-8)",
    ]);
    expect((await api(a, "GET", ROOT)).json.data.map((c: { name: string }) => c.name)).not.toContain(
      `${"p".repeat(1100)}/`,
    );
  });
});

describe("Process after the store changed: 400 in the envelope, another account unaffected", () => {
  /** An ingested copy of the fixture at `path` of A's bucket, then `change` applied to it; its processing type. */
  async function changed(path: string, change: (url: string) => Promise<unknown>): Promise<string> {
    const url = `s3://${A_BUCKET}/${path}`;
    await putZarrFixture(FIXTURE, url);
    const r = await create(`${path}/`);
    expect(r.json.data.status).toBe("INGESTED");
    await change(url);
    return `zarr-${r.json.data.id}`;
  }

  /** A's request answers 400 naming the problem while B's succeeds. */
  async function refused(type: string, message: RegExp): Promise<void> {
    const [r] = await Promise.all([process(full(type), a), otherAccountSucceeds()]);
    const e = await envelope(r);
    expect([r.status, e.status, e.reason, e.code]).toEqual([400, 400, "Bad Request", "COMMON_BAD_PAYLOAD"]);
    expect(e.message).toMatch(message);
  }

  /** Rewrites every B04 chunk of the store at `url` with `body(bytes)`. */
  const b04Chunks = (body: (original: string) => ArrayBuffer) => async (url: string) => {
    for (const f of (await zarrFixtureFiles(FIXTURE)).filter((f) => /^B04\/\d/.test(f)))
      await putZarrFile(url, f, body(f));
  };

  it("a 200-byte x/.zarray of one billion-value chunk", async () => {
    await refused(
      await changed("p-billion", (url) => putZarrFile(url, "x/.zarray", BILLION)),
      /^Zarr s3:\/\/zarr-hostile-a\/p-billion\/B04#t=\d+: array x has chunks of 1000000000 values .* at most zarr\.chunkBytes = 75497472/,
    );
  });

  it("chunks [1, 0, 0], blosc, an unknown compressor, a delta filter, an object fill_value in B04/.zarray", async () => {
    const edits: [Record<string, unknown>, RegExp][] = [
      [{ chunks: [1, 0, 0] }, /array B04 has chunks \[1,0,0\]/],
      [
        { compressor: { id: "blosc", cname: "lz4" } },
        /array B04 uses compressor "blosc"; supported: none \(null\), zlib, gzip/,
      ],
      [{ compressor: { id: "snappy-ng" } }, /uses compressor "snappy-ng"/],
      [{ filters: [{ id: "delta", dtype: "<u4" }] }, /uses filters \["delta"\]/],
      [{ fill_value: { value: 0 } }, /has fill_value \{"value":0\}/],
    ];
    const url = `s3://${A_BUCKET}/p-meta`;
    const type = await changed("p-meta", async () => undefined);
    const original = await b04Zarray();
    for (const [edit, message] of edits) {
      await putZarrFile(url, "B04/.zarray", json({ ...original, ...edit }));
      await refused(type, message);
    }
  });

  it("random bytes as chunks", async () => {
    const type = await changed(
      "p-random",
      b04Chunks(() => crypto.getRandomValues(new Uint8Array(600)).buffer),
    );
    await refused(
      type,
      /^Zarr s3:\/\/zarr-hostile-a\/p-random\/B04#t=\d+: a chunk is not valid deflate data of at most 4096 bytes/,
    );
  });

  it("uncompressed chunks of the wrong size", async () => {
    const type = await changed("p-raw", async (url) => {
      await putZarrFile(url, "B04/.zarray", json({ ...(await b04Zarray()), compressor: null }));
      await b04Chunks(() => new Uint8Array(1000).buffer)(url);
    });
    await refused(type, /chunk B04\/\d+\.\d\.\d holds 1000 bytes; an uncompressed chunk of its array holds 4096/);
  });

  it("a DEFLATE bomb as chunks (1.6 KB inflating to 258 KB, the chunk holds 4 KiB): refused at the chunk's size", async () => {
    const type = await changed(
      "p-bomb",
      b04Chunks(() => deflateBomb(1000).slice().buffer),
    );
    await refused(
      type,
      /a chunk is not valid deflate data of at most 4096 bytes \(deflate data decompresses to more than 4096 bytes\)/,
    );
  });
});

describe("the Zarr reader on a store in memory", () => {
  const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  const vector = (n: number) =>
    new Uint8Array(new Float64Array(Array.from({ length: n }, (_, i) => i * 10 + 5)).buffer);
  const meta = (shape: number[], chunks: number[]) =>
    enc({ zarr_format: 2, shape, chunks, dtype: "<f8", compressor: null, fill_value: 0, order: "C", filters: null });

  it("a window spanning more than zarr.chunksPerRead chunks is refused before any chunk is read", async () => {
    const objects = new Map<string, Uint8Array>([
      ["/.zgroup", enc({ zarr_format: 2 })],
      ["/x/.zarray", meta([200], [200])],
      ["/x/0", vector(200)],
      ["/y/.zarray", meta([200], [200])],
      ["/y/0", vector(200)],
      ["/B/.zarray", meta([200, 200], [1, 1])],
    ]);
    const reads: string[] = [];
    const store = guardedStore({ get: async (key) => (reads.push(key), objects.get(key)) });
    const reader = await openZarrSlice(store, { arrays: ["B"], crs: crsFromEpsg(32631), id: "mem" });
    expect((await reader.read(0, [0], { x0: 0, y0: 0, width: 100, height: 100 }))[0]!.length).toBe(10_000); // 10 000 chunks: at the limit
    reads.length = 0;
    const e = (await reader.read(0, [0], { x0: 0, y0: 0, width: 101, height: 100 }).then(
      () => expect.fail("not refused"),
      (err: unknown) => err,
    )) as EngineError;
    expect([e.kind, e.message, e.limit]).toEqual([
      "invalid-file",
      "Zarr mem: a 101 x 100 px window spans 10100 chunks of 1 x 1 px; at most zarr.chunksPerRead = 10000 (use larger chunks).",
      { name: "zarr.chunksPerRead", max: 10_000 },
    ]);
    expect(reads).toEqual([]);
  });

  it("a group listing more than zarr.overviews overview levels is refused before opening them", async () => {
    const objects = new Map<string, Uint8Array>([
      ["/.zgroup", enc({ zarr_format: 2 })],
      ["/.zattrs", enc({ overviews: Array.from({ length: 33 }, (_, i) => `o${i}`) })],
    ]);
    const reads: string[] = [];
    const store = guardedStore({ get: async (key) => (reads.push(key), objects.get(key)) });
    await expect(openZarrSlice(store, { arrays: ["B"], crs: crsFromEpsg(32631), id: "mem" })).rejects.toThrow(
      "Zarr mem: the group's overviews attribute must list at most zarr.overviews = 32 sub-group names.",
    );
    expect(reads.some((k) => k.startsWith("/o"))).toBe(false);
  });
});

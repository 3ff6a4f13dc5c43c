/**
 * src/storage/sources.ts: "bucket + key" -> ByteSource, from the built-in archive (DATA) and from a local user
 * bucket (BUCKETS via resolveBucket). A COG in a user bucket must warp to the same pixels with the same number of
 * storage reads as the same file in DATA; the pipeline's scene reader must open `s3://` asset hrefs unchanged.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { clearCogCaches, openCog } from "../../src/raster/cog";
import { crsFromEpsg } from "../../src/raster/crs";
import { readWarped } from "../../src/raster/warp";
import type { Grid } from "../../src/raster/types";
import { resolveBucket } from "../../src/buckets";
import { locationOf, openFile, storeSource } from "../../src/storage/sources";
import { r2Source } from "../../src/storage/r2source";
import { readScene } from "../../src/pipeline/read";
import { collectionForType } from "../../src/pipeline/collections";
import { rejection } from "../helpers/engine";
import { sampleFile, sampleItems } from "../helpers/seed";
import { B04, ref, sourceFor } from "../raster/warp/refs";

const USER = { url: "s3://user-bucket/byoc" };
/** The account that reads the user bucket (it claims it on first use). */
const READER = crypto.randomUUID();

/** Copies a sample file into the local user bucket `s3://user-bucket/byoc` (same key as in data/). */
async function putInUserBucket(path: string): Promise<void> {
  const bucket = await resolveBucket(env, READER, USER);
  if (!(await bucket.store.head(bucket.key(path)))) await bucket.store.put(bucket.key(path), await sampleFile(path));
}

const gridOf = (m: { epsg: number; bbox: [number, number, number, number]; width: number; height: number }): Grid => ({
  crs: crsFromEpsg(m.epsg),
  bbox: m.bbox,
  width: m.width,
  height: m.height,
});

beforeEach(() => clearCogCaches());

describe("locationOf", () => {
  it("reads s3:// hrefs as bucket + key and anything else as a key in the archive", () => {
    expect(locationOf("s3://user-bucket/byoc/a/B04.tif")).toEqual({
      bucket: { url: "s3://user-bucket" },
      key: "byoc/a/B04.tif",
    });
    expect(locationOf(B04)).toEqual({ bucket: null, key: B04 });
  });
});

describe("openFile", () => {
  it("warps a COG from a user bucket to the same pixels as from DATA, with the same number of reads", async () => {
    const { meta } = await ref("rkh4326_bilinear");
    await sourceFor(B04);
    await putInUserBucket(B04);
    const fromData = (await r2Source(env.DATA, B04))!;
    const fromUser = (await openFile(env, READER, `s3://user-bucket/byoc/${B04}`))!;
    expect(fromUser.id).toBe(`s3://user-bucket/byoc/${B04}#${fromUser.etag}`);
    const warp = async (source: typeof fromData) =>
      readWarped(await openCog(source), [0], gridOf(meta), { resampling: "BILINEAR" });
    const [a] = await warp(fromData);
    clearCogCaches();
    const [b] = await warp(fromUser);
    expect(a!.valid.reduce((s, v) => s + v, 0)).toBe(meta.width * meta.height);
    expect(Array.from(b!.data)).toEqual(Array.from(a!.data));
    expect(Array.from(b!.valid)).toEqual(Array.from(a!.valid));
    expect(fromUser.stats).toEqual(fromData.stats);
    expect([fromUser.stats.gets, fromUser.stats.heads]).toEqual([2, 0]);
  });

  it("reuses an opened archive file (no request) but opens user-bucket files afresh", async () => {
    await sourceFor(B04);
    await putInUserBucket(B04);
    expect(await openFile(env, READER, B04)).toBe(await openFile(env, READER, B04));
    const href = `s3://user-bucket/byoc/${B04}`;
    expect(await openFile(env, READER, href)).not.toBe(await openFile(env, READER, href));
  });

  it("returns null for missing files and rejects an invalid bucket name with invalid-argument (400)", async () => {
    expect(await openFile(env, READER, "no/such/file.tif")).toBeNull();
    expect(await openFile(env, READER, "s3://user-bucket/no/such/file.tif")).toBeNull();
    const e = await rejection((async () => openFile(env, READER, { bucket: { url: "s3://No_Such" }, key: "a.tif" }))());
    expect([e.kind, e.status]).toEqual(["invalid-argument", 400]);
  });
});

describe("storeSource", () => {
  it("coalesces close ranges into one ranged get and returns the same bytes and counts as r2Source", async () => {
    await sourceFor(B04);
    await putInUserBucket(B04);
    const ranges = [
      { offset: 40000, length: 100 },
      { offset: 30000, length: 50 },
      { offset: 900000, length: 10 },
    ];
    const viaStore = (await storeSource((await resolveBucket(env, READER, USER)).store, `byoc/${B04}`, { prefix: 0 }))!;
    const viaR2 = (await r2Source(env.DATA, B04, { prefix: 0 }))!;
    const got = await viaStore.read(ranges);
    expect(got.map((b) => Array.from(new Uint8Array(b)))).toEqual(
      (await viaR2.read(ranges)).map((b) => Array.from(new Uint8Array(b))),
    );
    expect(viaStore.stats).toEqual({ heads: 1, gets: 2, bytes: 10100 + 10 });
    expect(viaR2.stats).toEqual(viaStore.stats);
  });

  it("fails instead of mixing versions when the object is replaced after it was opened", async () => {
    const { store } = await resolveBucket(env, READER, USER);
    await store.put("tmp/changing.bin", new Uint8Array(100));
    const s = (await storeSource(store, "tmp/changing.bin", { prefix: 0 }))!;
    await store.put("tmp/changing.bin", new Uint8Array(100).fill(1));
    await expect(s.read([{ offset: 0, length: 10 }])).rejects.toThrow(/changed/);
  });
});

describe("readScene", () => {
  it("reads a scene whose assets live in a user bucket (s3:// hrefs) as the same scene in DATA", async () => {
    const item = (await sampleItems()).find((i) => i.id === "S2A_29RKH_20200219_0_L2A")!;
    const bands = ["B04", "B08", "SCL"];
    for (const b of bands) {
      await sourceFor(item.assets[b]!.href);
      await putInUserBucket(item.assets[b]!.href);
    }
    const moved = {
      ...item,
      assets: Object.fromEntries(
        Object.entries(item.assets).map(([k, a]) => [k, { ...a, href: `s3://user-bucket/byoc/${a.href}` }]),
      ),
    };
    const { meta } = await ref("rkh4326_near");
    const request = [
      { name: "B04", units: "REFLECTANCE" },
      { name: "B08", units: "DN" },
      { name: "CLM", units: "DN" },
    ];
    const o = { upsampling: "NEAREST", downsampling: "NEAREST", harmonize: false } as const;
    const c = await collectionForType(env, null, "sentinel-2-l2a");
    const a = await readScene(env, c, item, request, gridOf(meta), o);
    // the same bands as a collection of the bucket's owner (a built-in collection reads no user bucket)
    const b = await readScene(env, { ...c, owner: READER }, moved, request, gridOf(meta), o);
    await expect(readScene(env, c, moved, request, gridOf(meta), o)).rejects.toMatchObject({ kind: "forbidden" });
    expect(a.valid.reduce((s, v) => s + v, 0)).toBe(meta.width * meta.height);
    expect(Object.keys(b.bands).sort()).toEqual(["B04", "B08", "CLM"]);
    for (const name of Object.keys(a.bands)) expect(Array.from(b.bands[name]!)).toEqual(Array.from(a.bands[name]!));
    expect(Array.from(b.valid)).toEqual(Array.from(a.valid));
  });
});

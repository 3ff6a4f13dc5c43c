/**
 * Hostile band files in BYOC collections (workerd, real D1, R2 and queue), reproductions of hostile files: a COG
 * whose first IFD points at itself (the tile stayed INGESTING for good and the isolate ran out of memory),
 * TileWidth 0 (INGESTED, then all zeros), a tile past the end of the file, corrupt, truncated and "bomb" DEFLATE
 * tiles (500s on Process at full resolution). Each ends FAILED with a cause at ingestion, or 400 in the error
 * envelope on Process, while a request of another account made at the same time succeeds with its own pixels
 * (checked against the sample file read by geotiff.js). Files: West Flanders COGs of data/ patched byte-wise
 * (test/helpers/tiff.ts).
 */
import { fromArrayBuffer } from "geotiff";
import { beforeAll, describe, expect, it } from "vitest";
import { envelope } from "../helpers/auth";
import { api, putInBucket, settled, tokenOf } from "../helpers/byoc";
import { CRS, process, readTiff } from "../helpers/process";
import { sampleFile } from "../helpers/seed";
import { deflateBomb, TAG, TiffPatch } from "../helpers/tiff";

const FILE = "sentinel-2-l2a/westflanders/2017-08-24/B04.tif"; // 64 x 64 px, one 512 x 512 DEFLATE tile
const C = "/api/v1/byoc/collections";
const [A_BUCKET, B_BUCKET] = ["byoc-hostile-a", "byoc-hostile-b"];
const SENSING = "2017-08-24T10:52:40Z";
let a: string, b: string, bCollection: string, expected: number[];

/** A tile of a new collection of `bearer` at `path` (holding B04.tif); waits for its end state. */
async function tile(bearer: string, bucket: string, path: string): Promise<{ collection: string; tile: any }> {
  const collection = (await api(bearer, "POST", C, { name: path, s3Bucket: bucket })).json.data.id;
  const r = await api(bearer, "POST", `${C}/${collection}/tiles`, { path, sensingTime: SENSING });
  expect(r.status).toBe(201);
  return { collection, tile: await settled(bearer, collection, r.json.data.id) };
}

/** A full-resolution (10 m) Process request of B04 over the file's 64 x 64 px. */
const full = (collection: string) => ({
  input: {
    bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
    data: [
      {
        type: `byoc-${collection}`,
        dataFilter: { timeRange: { from: "2017-08-24T00:00:00Z", to: "2017-08-25T00:00:00Z" } },
      },
    ],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: `//VERSION=3
function setup() { return { input: [{ bands: ["B04"], units: "DN" }], output: { bands: 1, sampleType: "UINT16" } }; }
function evaluatePixel(s) { return [s.B04]; }`,
});

/** Account B's Process request on its own collection: 200 and the file's pixels. */
async function otherAccountSucceeds(): Promise<void> {
  const r = await process(full(bCollection), b);
  expect(r.status).toBe(200);
  expect(Array.from((await readTiff(await r.arrayBuffer())).data)).toEqual(expected);
}

/** The sample file patched by `patch`. */
async function hostile(patch: (t: TiffPatch) => unknown): Promise<ArrayBuffer> {
  const t = new TiffPatch(await sampleFile(FILE));
  patch(t);
  return t.buffer;
}

const loop = (t: TiffPatch) => t.setNext(0, t.ifd(0));
const tileWidth0 = (t: TiffPatch) => t.set(0, TAG.TileWidth, 0);
const pastEof = (t: TiffPatch) => t.set(0, TAG.TileOffsets, t.bytes.length + 1000);

beforeAll(async () => {
  [a, b] = await Promise.all([tokenOf(crypto.randomUUID()), tokenOf(crypto.randomUUID())]);
  await putInBucket(B_BUCKET, "good/B04.tif", FILE);
  const ingested = await tile(b, B_BUCKET, "good");
  expect(ingested.tile.status).toBe("INGESTED");
  bCollection = ingested.collection;
  const image = await (await fromArrayBuffer(await sampleFile(FILE))).getImage();
  expected = Array.from((await image.readRasters({ interleave: true })) as unknown as ArrayLike<number>);
  expect(expected.some((v) => v > 0)).toBe(true);
});

describe("ingestion: FAILED with a cause naming the problem, another account unaffected", () => {
  const cases: [string, string, (t: TiffPatch) => unknown, RegExp][] = [
    [
      "a first IFD whose next-IFD offset points at itself",
      "loop",
      loop,
      /^GeoTIFF s3:\/\/byoc-hostile-a\/loop\/B04\.tif: the IFD chain loops: IFD 1 \(at byte 192\) was already read\.$/,
    ],
    ["TileWidth 0", "width0", tileWidth0, /TileWidth is 0; it must be a positive integer/],
    [
      "a tile offset past the end of the file",
      "eof",
      pastEof,
      /block 0 \(bytes \d+\.\.\d+\) lies past the end of the file \(14332 bytes\)/,
    ],
  ];
  it.each(cases)("%s", async (_, path, patch, cause) => {
    await putInBucket(A_BUCKET, `${path}/B04.tif`, await hostile(patch));
    const [ingested] = await Promise.all([tile(a, A_BUCKET, path), otherAccountSucceeds()]);
    expect(ingested.tile.status).toBe("FAILED");
    expect(ingested.tile.additionalData.failedIngestionCause).toMatch(cause);
  });

  it("the tile of the looping file is reingested once the file is fixed", async () => {
    await putInBucket(A_BUCKET, "fixed/B04.tif", await hostile(loop));
    const { collection, tile: failed } = await tile(a, A_BUCKET, "fixed");
    expect(failed.status).toBe("FAILED");
    await putInBucket(A_BUCKET, "fixed/B04.tif", FILE);
    expect((await api(a, "POST", `${C}/${collection}/tiles/${failed.id}/reingest`)).status).toBe(204);
    const again = await settled(a, collection, failed.id);
    expect([again.status, again.additionalData.failedIngestionCause]).toEqual(["INGESTED", null]);
    const r = await process(full(collection), a);
    expect(Array.from((await readTiff(await r.arrayBuffer())).data)).toEqual(expected);
  });
});

describe("Process at full resolution: 400 in the envelope, another account unaffected", () => {
  /** A collection of account A with an ingested tile whose file is then replaced by `bytes`. */
  async function replaced(path: string, bytes: ArrayBuffer): Promise<string> {
    await putInBucket(A_BUCKET, `${path}/B04.tif`, FILE);
    const { collection, tile: t } = await tile(a, A_BUCKET, path);
    expect(t.status).toBe("INGESTED");
    await putInBucket(A_BUCKET, `${path}/B04.tif`, bytes);
    return collection;
  }

  /** A's request on `collection` answers 400 naming the problem while B's succeeds. */
  async function refused(collection: string, message: RegExp): Promise<void> {
    const [r] = await Promise.all([process(full(collection), a), otherAccountSucceeds()]);
    const e = await envelope(r);
    expect([r.status, e.status, e.reason, e.code]).toEqual([400, 400, "Bad Request", "COMMON_BAD_PAYLOAD"]);
    expect(e.message).toMatch(message);
  }

  it("a file replaced after ingestion by a looping, a TileWidth 0 or a past-the-end one", async () => {
    await refused(
      await replaced("p-loop", await hostile(loop)),
      /GeoTIFF s3:\/\/byoc-hostile-a\/p-loop\/B04\.tif: the IFD chain loops/,
    );
    await refused(await replaced("p-width0", await hostile(tileWidth0)), /TileWidth is 0/);
    await refused(await replaced("p-eof", await hostile(pastEof)), /lies past the end of the file/);
  });

  it("a corrupt DEFLATE tile (ingested: headers are fine)", async () => {
    const { collection, tile: t } = await tile(a, A_BUCKET, await putTile("corrupt", (p) => p.block(0).fill(0x5a, 2)));
    expect(t.status).toBe("INGESTED");
    await refused(
      collection,
      /GeoTIFF s3:\/\/byoc-hostile-a\/corrupt\/B04\.tif: block 0 cannot be decoded \(GeoTIFF block: corrupt or truncated DEFLATE data/,
    );
  });

  it("a truncated DEFLATE tile", async () => {
    const { collection } = await tile(
      a,
      A_BUCKET,
      await putTile("truncated", (p) => p.set(0, TAG.TileByteCounts, p.values(0, TAG.TileByteCounts)[0]! >> 1)),
    );
    await refused(
      collection,
      /block 0 cannot be decoded \(GeoTIFF block: corrupt or truncated DEFLATE data \(3720 bytes\)\)/,
    );
  });

  it("a DEFLATE bomb (a 422 KB tile inflating to 64 MiB) is refused once it passes twice the tile's 512 KiB", async () => {
    const { collection } = await tile(
      a,
      A_BUCKET,
      await putTile("bomb", (p) => p.replaceBlock(0, deflateBomb(260_000))),
    );
    await refused(collection, /block 0 cannot be decoded \(.*to more than 1048576 bytes/);
  });

  /** Puts the sample file patched by `patch` at `<path>/B04.tif`; returns `path`. */
  async function putTile(path: string, patch: (t: TiffPatch) => unknown): Promise<string> {
    await putInBucket(A_BUCKET, `${path}/B04.tif`, await hostile(patch));
    return path;
  }
});

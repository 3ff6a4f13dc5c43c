/**
 * The S3 endpoint at the root of an S3 address (S3_HOSTS, src/s3/address.ts) as GDAL and rasterio users reach it:
 * over a real TCP address (the CLIENT_RELAY of vitest.config.ts on 127.0.0.2, an S3_HOSTS address, whose requests
 * this Worker answers, test/helpers/relay.ts), configured only as their documentation says (AWS_S3_ENDPOINT=<host:port>, AWS_HTTPS=NO,
 * AWS_VIRTUAL_HOSTING=FALSE, the keys; test/services/py_s3_clients.py). What they read is compared with the stored bytes
 * and with readers independent of the Worker: tifffile on the COG's bytes, zarr-python on the Zarr store's files.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, type TestContext } from "vitest";
import { createS3Key } from "../../src/buckets/keys";
import { token } from "../helpers/auth";
import { DATA, bucketFiles, runBatchTask } from "../helpers/batch";
import { pyDecode, type PyImage } from "../helpers/pydecode";
import { pyReadZarr } from "../helpers/pyzarr";
import { runClient } from "../helpers/relay";
import { boto, s3Account, type S3Account } from "../helpers/s3";
import { seedSamples } from "../helpers/seed";

/** An S3 address (S3_HOSTS: 127.0.0.2 on any port) the uploads are signed for; the clients use the relay's. */
const endpoint = "127.0.0.2:8789";

type Read = { raster: string } | { zarr: string } | { list: string };
/** One read's answer (see test/services/py_s3_clients.py), `error` when the client failed. */
type ClientResult = Record<string, any> & { error?: string };

/** Runs `tool` ("gdal" or "rasterio") on `reads` through the relay with `keys`; skips the test when it is not installed. */
async function clients(
  ctx: TestContext,
  tool: "gdal" | "rasterio",
  keys: S3Account,
  reads: Read[],
): Promise<ClientResult[]> {
  const stdin = JSON.stringify({ tool, key: keys.key, secret: keys.secret, reads });
  const run = await runClient(ctx, ["/usr/bin/python3", "test/services/py_s3_clients.py"], stdin, "127.0.0.2");
  if (run.code !== 0)
    throw new Error(`test/services/py_s3_clients.py failed (${run.code}): ${run.stderr.slice(-2000)}`);
  return (JSON.parse(run.stdout) as { results: ClientResult[] }).results;
}

const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const unique = () => `cl-${crypto.randomUUID().slice(0, 8)}`;

/** A Sentinel-2 L2A COG of data/ (UTM 29N, DEFLATE-compressed uint16). */
const COG = "sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif";

/** Uploads the sample COG with boto3 through the root of an S3 address, as `keys`; its bytes. */
async function uploadCog(ctx: TestContext, keys: S3Account, bucket: string, key: string): Promise<Uint8Array> {
  const bytes = new Uint8Array(await (await env.SAMPLE_DATA.fetch(`http://sample/${COG}`)).arrayBuffer());
  const put = await boto(ctx, {
    op: "put_object",
    params: { Bucket: bucket, Key: key, Body: bytes },
    key: keys.key,
    secret: keys.secret,
    endpoint: `http://${endpoint}`,
  });
  expect(put.status).toBe(200);
  return bytes;
}

/** python3 and GDAL under the load of a full suite on 2 cores take far longer than alone (2-5 s). */
const SLOW = { timeout: 120_000 };

describe("GDAL and rasterio over the S3 endpoint's own address", () => {
  it("GDAL /vsis3/ reads a COG byte for byte, as tifffile decodes it, and lists its folder", SLOW, async (ctx) => {
    const keys = await s3Account();
    const bucket = unique();
    const bytes = await uploadCog(ctx, keys, bucket, "scenes/29RKH/B04.tif");
    const [cog, listing, missing] = await clients(ctx, "gdal", keys, [
      { raster: `${bucket}/scenes/29RKH/B04.tif` },
      { list: `${bucket}/scenes` },
      { raster: `${bucket}/scenes/none.tif` },
    ]);
    expect(cog!.error).toBeUndefined();
    expect(cog!.md5).toBe(hex(await crypto.subtle.digest("MD5", bytes)));
    const [local] = (await pyDecode(ctx, [{ kind: "tiff", data: bytes }])) as PyImage[];
    const tiff = local!.tifffile as { shape: number[]; data: string };
    const gdal = local!.gdal as { geotransform: number[]; epsg: number };
    expect(cog).toMatchObject({
      driver: "GTiff",
      size: [tiff.shape[1], tiff.shape[0]],
      count: 1,
      dtype: "uint16",
      geotransform: gdal.geotransform,
      epsg: 32629,
    });
    expect(cog!.data).toBe(tiff.data); // every pixel, as tifffile decodes the uploaded bytes
    expect(listing).toEqual({ files: ["29RKH/B04.tif"] });
    expect(missing!.error).toMatch(/does not exist/);
    // another account's keys read nothing of the bucket
    const [refused] = await clients(ctx, "gdal", await s3Account(), [{ raster: `${bucket}/scenes/29RKH/B04.tif` }]);
    expect(refused!.error).toMatch(/Access Denied|403/);
  });

  it("rasterio opens s3:// URLs of the endpoint with the same pixels", SLOW, async (ctx) => {
    const keys = await s3Account();
    const bucket = unique();
    const bytes = await uploadCog(ctx, keys, bucket, "B04.tif");
    const [cog] = await clients(ctx, "rasterio", keys, [{ raster: `${bucket}/B04.tif` }]);
    expect(cog!.error).toBeUndefined();
    const [local] = (await pyDecode(ctx, [{ kind: "tiff", data: bytes }])) as PyImage[];
    const tiff = local!.tifffile as { shape: number[]; data: string };
    expect(cog).toMatchObject({
      driver: "GTiff",
      size: [tiff.shape[1], tiff.shape[0]],
      count: 1,
      dtype: "uint16",
      epsg: 32629,
      geotransform: (local!.gdal as { geotransform: number[] }).geotransform,
    });
    expect(cog!.data).toBe(tiff.data);
  });
});

describe("GDAL's Zarr driver on a batch Zarr output", () => {
  beforeAll(async () => {
    await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  });

  it(
    "opens the store over /vsis3/ with every array equal to zarr-python's reading of the same files",
    SLOW,
    async (ctx) => {
      const account = crypto.randomUUID();
      const made = (await createS3Key(env, account))!;
      const keys = { account, key: made.accessKeyId, secret: made.secretAccessKey };
      const script = `//VERSION=3
function setup() { return { input: ["B04", "B08", "dataMask"], output: [{ id: "red", bands: 1, sampleType: "UINT16" }, { id: "nir", bands: 1, sampleType: "FLOAT32" }] }; }
function evaluatePixel(s) { return { red: [s.dataMask ? 1 + s.B04 * 10000 : 0], nir: [s.dataMask ? s.B08 : 0] }; }`;
      const bucket = unique();
      const body = {
        processRequest: {
          input: { bounds: { bbox: [-11.2, 24.6, -11.05, 24.8] }, data: DATA },
          output: { responses: ["red", "nir"].map((identifier) => ({ identifier, format: { type: "zarr/array" } })) },
          evalscript: script,
        },
        input: { type: "tiling-grid", id: 3, resolution: 0.008 },
        output: {
          type: "zarr",
          delivery: { s3: { url: `s3://${bucket}/out/<requestId>` } },
          group: { zarr_format: 2, customAttributes: { title: "GDAL check" } },
          arrayParameters: { dtype: "<u2", order: "C", chunks: [1, 125, 125], fill_value: 0 },
          arrayOverrides: { nir: { dtype: ">f4", chunks: [1, 25, 25], fill_value: 0, compressor: { id: "gzip" } } },
        },
      };
      const { id, task } = await runBatchTask(body, await token(account));
      expect(task.status).toBe("DONE");

      const [store] = await clients(ctx, "gdal", keys, [{ zarr: `${bucket}/out/${id}` }]);
      expect(store!.error).toBeUndefined();
      const prefix = `out/${id}/`;
      const files = new Map([...(await bucketFiles(bucket, prefix))].map(([k, v]) => [k.slice(prefix.length), v]));
      const reference = await pyReadZarr(ctx, files);
      expect(store).toMatchObject({
        driver: "Zarr",
        attrs: { title: "GDAL check", crs: "EPSG:4326", "eoedge:requestId": id },
      });
      expect(Object.keys(store!.arrays).sort()).toEqual(Object.keys(reference.arrays).sort());
      for (const [name, a] of Object.entries(reference.arrays)) {
        expect(store!.arrays[name].shape, name).toEqual(a.shape);
        expect(store!.arrays[name].data, name).toBe(a.data); // every value, little-endian C order
      }
      expect(store!.arrays.red.dimensions).toEqual(["time", "lat", "lon"]);
      const red = new Uint16Array(Uint8Array.from(atob(store!.arrays.red.data), (c) => c.charCodeAt(0)).buffer);
      expect(red.filter((v) => v > 1).length).toBeGreaterThan(1000); // real reflectances, not a fill-only store
    },
  );
});

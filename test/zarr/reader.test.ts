/**
 * The raster reader contract (test/helpers/reader-contract.ts: GDAL's description and ReadAsArray windows of real
 * COGs) run on the Zarr reader over the same pixels written as Zarr groups by test/reference/make-zarr.py (a UInt8 file
 * with an overview level, a 3-band Int16 file with nodata), read from a local user bucket through an ObjectStore.
 */
import { env } from "cloudflare:workers";
import { resolveBucket } from "../../src/buckets";
import { crsFromEpsg } from "../../src/raster/crs";
import { openZarrSlice } from "../../src/raster/zarr/reader";
import { objectZarrStore } from "../../src/storage/zarrstore";
import { readerContract, readerRefs } from "../helpers/reader-contract";
import { sampleFile } from "../helpers/seed";
import { putZarrFixture } from "../helpers/zarr";

/** The account the reader reads the bucket as (it claims the bucket on first use). */
const READER = crypto.randomUUID();
const stores = JSON.parse(new TextDecoder().decode(await sampleFile("fixtures/zarr/reader/stores.json"))) as Record<
  string,
  string
>;
const { refs } = await readerRefs();

await readerContract(
  "Zarr reader on a user bucket",
  async (file) => {
    const url = `s3://zarr-bucket/${stores[file]}`;
    await putZarrFixture(stores[file]!, url);
    const bucket = await resolveBucket(env, READER, { url });
    const bands = Array.from({ length: refs[file]!.bandCount }, (_, i) => `b${i + 1}`);
    return openZarrSlice(objectZarrStore(bucket.store, bucket.prefix), {
      arrays: bands,
      crs: crsFromEpsg(refs[file]!.epsg),
      id: url,
    });
  },
  Object.keys(stores),
);

/**
 * The raster reader interface's contract (test/helpers/reader-contract.ts: GDAL's description and ReadAsArray
 * windows of real sample COGs at every overview level) run against its first implementation, the COG reader,
 * on files in the built-in archive (DATA) and in a local user bucket (BUCKETS, opened through resolveBucket as an account).
 */
import { env } from "cloudflare:workers";
import { openCog } from "../../../src/raster/cog";
import { openFile } from "../../../src/storage/sources";
import { resolveBucket } from "../../../src/buckets";
import { readerContract } from "../../helpers/reader-contract";
import { sampleFile } from "../../helpers/seed";
import { sourceFor } from "../warp/refs";

await readerContract("COG reader on DATA", async (file) => openCog(await sourceFor(file)));

// a bucket of its own: files sharing a runtime (vitest.config.ts) share storage, and the first account claims a name
const USER = { url: `s3://user-bucket-${crypto.randomUUID().slice(0, 8)}/cogs` };
/** The account that reads the user bucket (it claims it on first use). */
const READER = crypto.randomUUID();

await readerContract("COG reader on a user bucket", async (file) => {
  const bucket = await resolveBucket(env, READER, USER);
  if (!(await bucket.store.head(bucket.key(file)))) await bucket.store.put(bucket.key(file), await sampleFile(file));
  const source = await openFile(env, READER, { bucket: USER, key: file });
  if (!source) throw new Error(`missing ${file}`);
  return openCog(source);
});

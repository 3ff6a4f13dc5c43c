/**
 * Copies the Zarr stores written by scripts/make-zarr.py (test/fixtures/zarr/<name>, listed in its files.json) into a
 * local user bucket (BUCKETS, through resolveBucket), for tests of Zarr collections and the Zarr reader.
 */
import { env } from "cloudflare:workers";
import { resolveBucket } from "../../src/buckets";
import { sampleFile } from "./seed";

/** Puts every file of fixture store `name` (e.g. "westflanders.zarr") under `s3://<bucket>/<prefix>`; returns the key count. */
export async function putZarrFixture(name: string, url: string): Promise<number> {
  const files = JSON.parse(new TextDecoder().decode(await sampleFile(`fixtures/zarr/${name}/files.json`))) as string[];
  const bucket = resolveBucket(env, { url });
  for (const f of files) if (!(await bucket.store.head(bucket.key(f)))) await bucket.store.put(bucket.key(f), await sampleFile(`fixtures/zarr/${name}/${f}`));
  return files.length;
}

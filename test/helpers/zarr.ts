/**
 * Copies the Zarr stores written by test/reference/make-zarr.py (test/fixtures/zarr/<name>, listed in its files.json) into a
 * local user bucket (straight into the BUCKETS binding: no account claims the bucket here), for tests of Zarr
 * collections and the Zarr reader; `edit` drops (returns null) or rewrites files on the way, to build broken stores
 * from the real one; `putZarrFile` overwrites one file of a store already there; `settledZarr` waits for a
 * collection's ingestion, which create starts after answering (CREATED).
 */
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { authed } from "./auth";
import { parseS3Url } from "../../src/buckets";
import { localBucket } from "../../src/buckets/local";
import { sampleFile } from "./seed";

/** Rewrites one file (its path in the store and bytes): new bytes, [new path, bytes], or null to leave the file out. */
export type ZarrEdit = (
  file: string,
  bytes: ArrayBuffer,
) => ArrayBuffer | string | [string, ArrayBuffer | string] | null;

/** The files of fixture store `name` (paths inside the store). */
export async function zarrFixtureFiles(name: string): Promise<string[]> {
  return JSON.parse(new TextDecoder().decode(await sampleFile(`fixtures/zarr/${name}/files.json`))) as string[];
}

/** The local bucket and key maker of `url` (`s3://<bucket>/<prefix>`), straight over the BUCKETS binding. */
function fixtureBucket(url: string): { store: ReturnType<typeof localBucket>; key: (path: string) => string } {
  const { bucket, prefix } = parseS3Url(url);
  return { store: localBucket(env.BUCKETS, bucket), key: (path: string) => (prefix ? `${prefix}/${path}` : path) };
}

/** Puts `body` at `file` (its path in the store) of the store at `url` (`s3://<bucket>/<prefix>`). */
export async function putZarrFile(url: string, file: string, body: ArrayBuffer | string): Promise<void> {
  const bucket = fixtureBucket(url);
  await bucket.store.put(bucket.key(file), body);
}

/** Puts every file of fixture store `name` (e.g. "westflanders.zarr") under `url` (`s3://<bucket>/<prefix>`); returns the file count. */
export async function putZarrFixture(name: string, url: string, edit?: ZarrEdit): Promise<number> {
  const files = await zarrFixtureFiles(name);
  const bucket = fixtureBucket(url);
  for (const f of files) {
    if (!edit && (await bucket.store.head(bucket.key(f)))) continue;
    const bytes = await sampleFile(`fixtures/zarr/${name}/${f}`);
    const out = edit ? edit(f, bytes) : bytes;
    if (out === null) continue;
    const [path, body] = Array.isArray(out) ? out : [f, out];
    await putZarrFile(url, path, body);
  }
  return files.length;
}

/** Waits until Zarr collection `id` (as `bearer` sees it) is INGESTED or FAILED; returns its JSON. */
export async function settledZarr(bearer: string, id: string): Promise<any> {
  let data: any;
  await vi.waitFor(
    async () => {
      data = ((await (await authed(`/api/v1/zarr/collections/${id}`, {}, bearer)).json()) as { data: any }).data;
      if (data.status !== "INGESTED" && data.status !== "FAILED")
        throw new Error(`Zarr collection ${id} is ${data.status}`);
    },
    { timeout: 20_000, interval: 100 },
  );
  return data;
}

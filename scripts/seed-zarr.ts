/**
 * Seeds the sample Zarr collection for `npm start` (called by scripts/seed.ts): copies the West Flanders Zarr group
 * written by test/reference/make-zarr.py (test/fixtures/zarr/westflanders.zarr) into the local bucket
 * `s3://eo-edge-samples/zarr/westflanders.zarr/` and registers it for the demo account as Zarr collection
 * SAMPLE_ZARR_ID (processable as `zarr-<id>`), ingested like a POST /api/v1/zarr/collections. Idempotent: files
 * already there with the same size are skipped and an existing collection is
 * re-ingested.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Env } from "../src/env";
import { resolveBucket } from "../src/buckets";
import { ingestZarr } from "../src/zarr/ingest";
import { getZarr, insertZarr } from "../src/zarr/records";
import { uploadMissing } from "./seed-files";

/** The sample collection's id (stable, so the README's examples can name `zarr-<id>`). */
export const SAMPLE_ZARR_ID = "7a1c0e52-3d4b-4f6a-9e2d-5b8c1f0a2e41";
const STORE = resolve("test/fixtures/zarr/westflanders.zarr");
const BUCKET = "eo-edge-samples";
const PATH = "zarr/westflanders.zarr/";

/** Uploads the store and (re)ingests the collection; returns its status. */
export async function seedZarr(env: Pick<Env, "DB" | "BUCKETS">, account: string): Promise<string> {
  const bucket = await resolveBucket(env, account, { url: `s3://${BUCKET}/${PATH}` });
  const files = JSON.parse(await readFile(join(STORE, "files.json"), "utf8")) as string[];
  await uploadMissing(
    bucket.store,
    bucket.key(""),
    files.map((f) => ({ key: bucket.key(f), path: join(STORE, f) })),
  );
  if (!(await getZarr(env, account, SAMPLE_ZARR_ID)))
    await insertZarr(env, {
      id: SAMPLE_ZARR_ID,
      account,
      name: "West Flanders (Zarr sample)",
      s3Bucket: BUCKET,
      path: PATH,
      crs: "http://www.opengis.net/def/crs/EPSG/0/32631",
      created: "2026-01-01T00:00:00Z",
    });
  const { status, errors } = await ingestZarr(env, (await getZarr(env, account, SAMPLE_ZARR_ID))!);
  if (errors) throw new Error(`sample Zarr collection ${SAMPLE_ZARR_ID}: ${errors}`);
  return status;
}

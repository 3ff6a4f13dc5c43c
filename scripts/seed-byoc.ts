/**
 * The BYOC sample `npm start` seeds (called by scripts/seed.ts): the 19 West Flanders Sentinel-2 L2A dates of
 * data/sentinel-2-l2a/westflanders (64 x 64 px COGs, EPSG:32631, bands B02 B03 B04 B08 SCL) copied into the local
 * bucket `eo-edge-byoc-sample` under `westflanders/<date>/<band>.tif`, registered as one BYOC collection of the
 * demo account with one tile per date (path `westflanders/<date>/(BAND)`, sensing time from the STAC item) and
 * ingested with the same code the queue consumer runs (src/byoc/ingest.ts), several files and tiles at a time.
 * Idempotent: fixed ids, files of the same size are not copied again, ingested tiles are left alone.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Env } from "../src/env";
import { byocIngest, BYOC_INGEST_KIND } from "../src/byoc/ingest";
import { getCollection, insertCollection } from "../src/byoc/store";
import { insertTile, moveTile, tileById } from "../src/byoc/tiles";
import { localBucket } from "../src/buckets/local";
import { SEED_CONCURRENCY, inPool } from "./lib/pool.mjs";
import { uploadMissing } from "./seed-files";

export const BYOC_SAMPLE_BUCKET = "eo-edge-byoc-sample";
/** The sample collection's id (processing type byoc-<id>). */
export const BYOC_SAMPLE_ID = "00000000-0000-4000-8000-00000000b70c";
const SERIES = "sentinel-2-l2a/westflanders";

type SeedEnv = Pick<Env, "DB" | "DATA" | "BUCKETS">;

/** Copies the series into the sample bucket (skipping files already there with the same size); the dates. */
async function copyFiles(env: SeedEnv, data: string): Promise<string[]> {
  const dates = (await readdir(join(data, SERIES), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const files = (await Promise.all(dates.map(async (date) => (await readdir(join(data, SERIES, date))).map((file) => `${date}/${file}`)))).flat();
  const store = localBucket(env.BUCKETS, BYOC_SAMPLE_BUCKET);
  await uploadMissing(store, "westflanders/", files.map((file) => ({ key: `westflanders/${file}`, path: join(data, SERIES, file) })));
  return dates;
}

/** The sensing time of a date: the datetime of the West Flanders STAC item of that day. */
async function sensingTimes(data: string): Promise<Map<string, string>> {
  const dir = join(data, "items", "sentinel-2-l2a");
  const out = new Map<string, string>();
  for (const f of await readdir(dir)) {
    const item = JSON.parse(await readFile(join(dir, f), "utf8")) as { properties: { datetime: string }; assets: Record<string, { href: string }> };
    const m = /westflanders\/(\d{4}-\d{2}-\d{2})\//.exec(Object.values(item.assets)[0]?.href ?? "");
    if (m) out.set(m[1]!, new Date(item.properties.datetime).toISOString());
  }
  return out;
}

/** Seeds the sample collection for `account`; returns its id and the number of tiles ingested now. */
export async function seedByoc(env: SeedEnv, account: string, data: string): Promise<{ id: string; ingested: number }> {
  const dates = await copyFiles(env, data);
  const times = await sensingTimes(data);
  if (!(await getCollection(env, account, BYOC_SAMPLE_ID)))
    await insertCollection(env, { id: BYOC_SAMPLE_ID, accountId: account, name: "West Flanders Sentinel-2 L2A (BYOC sample)", s3Bucket: BYOC_SAMPLE_BUCKET, created: "2026-01-01T00:00:00.000Z", bands: [] });
  // tiles are independent (a concurrent first configuration of the bands is settled by configureBands)
  const ingested = await inPool(dates, SEED_CONCURRENCY, async (date, i) => {
    const id = `00000000-0000-4000-8001-${date.replaceAll("-", "")}0000`;
    const tile = await tileById(env, id);
    if (tile?.status === "INGESTED") return 0;
    if (!tile) {
      const created = new Date(Date.parse("2026-01-01T00:00:00Z") + i * 1000).toISOString();
      await insertTile(env, { id, collection: BYOC_SAMPLE_ID, account, path: `westflanders/${date}/(BAND)`, status: "WAITING", sensingTime: times.get(date) ?? null, coverGeometry: null, tileGeometry: null, tileEpsg: null, nativeBbox: null, metersPerPixel: null, failedCause: null, warnings: null, created });
    }
    await moveTile(env, id, ["WAITING", "FAILED"], "QUEUED");
    await byocIngest({ kind: BYOC_INGEST_KIND, tile: id }, env as Env);
    const after = await tileById(env, id);
    if (after?.status === "INGESTED") return 1;
    console.warn(`BYOC sample tile ${date}: ${after?.failedCause}`);
    return 0;
  });
  return { id: BYOC_SAMPLE_ID, ingested: ingested.reduce((a: number, b) => a + b, 0) };
}

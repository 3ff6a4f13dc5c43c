/**
 * The BYOC samples `npm start` seeds (called by scripts/seed.ts), each a collection of the demo account whose files
 * are copied into a local bucket and whose tiles are ingested with the same code the queue consumer runs
 * (src/byoc/ingest.ts), several files and tiles at a time:
 * - West Flanders: the 19 Sentinel-2 L2A dates of data/sentinel-2-l2a/westflanders (64 x 64 px COGs, EPSG:32631,
 *   bands B02 B03 B04 B08 SCL) in bucket `eo-edge-byoc-sample` under `westflanders/<date>/<band>.tif`, one tile per
 *   date (path `westflanders/<date>/(BAND)`, sensing time from the STAC item), bands configured by the first tile.
 *   Its bucket is in no listed region: hosted by the primary location.
 * - Sentinel-1 GRD in a CREODIAS bucket: the VV and VH files of data/sentinel-1-grd in bucket
 *   CREO_SAMPLE_BUCKET, which npm start's BUCKET_REGIONS puts in CREODIAS region WAW3-1 (scripts/lib/regions.mjs), so
 *   the collection is hosted by location `creo`, as Sentinel Hub hosts BYOC collections by their bucket's region
 *   (src/locations/regions.ts). One tile, path `s1/<scene>/iw-(BAND).utm43n-200m`, bands VV and VH (UINT16).
 * Idempotent: fixed ids, files of the same size are not copied again, ingested tiles are left alone.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Env } from "../src/env";
import { byocIngest, BYOC_INGEST_KIND } from "../src/byoc/ingest";
import type { BandFormat } from "../src/storage/byoc/model";
import { getCollection, insertCollection } from "../src/storage/byoc/store";
import { insertTile, moveTile, tileById } from "../src/storage/byoc/tiles";
import { localBucket } from "../src/buckets/local";
import { CREO_SAMPLE_BUCKET } from "./lib/regions.mjs";
import { SEED_CONCURRENCY, inPool } from "./lib/pool.mjs";
import { uploadMissing } from "./seed-files";

export const BYOC_SAMPLE_BUCKET = "eo-edge-byoc-sample";
/** The West Flanders sample collection's id (processing type byoc-<id>). */
export const BYOC_SAMPLE_ID = "00000000-0000-4000-8000-00000000b70c";
/** The Sentinel-1 sample collection's id, hosted in `creo`. */
export const BYOC_CREO_SAMPLE_ID = "00000000-0000-4000-8000-00000000c4e0";
const SERIES = "sentinel-2-l2a/westflanders";
const S1_SCENE = "S1A_IW_GRDH_1SDV_20180716T004042_FD5B";

type SeedEnv = Pick<Env, "DB" | "DATA" | "BUCKETS">;

/** A sample collection: where its files go, its bands (none: the first tile configures them) and its tiles. */
interface Sample {
  id: string;
  name: string;
  bucket: string;
  bands: [string, BandFormat][];
  files: { key: string; path: string }[];
  tiles: { id: string; path: string; sensingTime: string | null }[];
}

/** The sensing time of each West Flanders date: the datetime of the STAC item of that day. */
async function sensingTimes(data: string): Promise<Map<string, string>> {
  const dir = join(data, "items", "sentinel-2-l2a");
  const out = new Map<string, string>();
  for (const f of await readdir(dir)) {
    const item = JSON.parse(await readFile(join(dir, f), "utf8")) as {
      properties: { datetime: string };
      assets: Record<string, { href: string }>;
    };
    const m = /westflanders\/(\d{4}-\d{2}-\d{2})\//.exec(Object.values(item.assets)[0]?.href ?? "");
    if (m) out.set(m[1]!, new Date(item.properties.datetime).toISOString());
  }
  return out;
}

/** The West Flanders sample: one tile per date directory of the series. */
async function westFlanders(data: string): Promise<Sample> {
  const dates = (await readdir(join(data, SERIES), { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const files = (
    await Promise.all(
      dates.map(async (date) => (await readdir(join(data, SERIES, date))).map((file) => `${date}/${file}`)),
    )
  ).flat();
  const times = await sensingTimes(data);
  return {
    id: BYOC_SAMPLE_ID,
    name: "West Flanders Sentinel-2 L2A (BYOC sample)",
    bucket: BYOC_SAMPLE_BUCKET,
    bands: [],
    files: files.map((file) => ({ key: `westflanders/${file}`, path: join(data, SERIES, file) })),
    tiles: dates.map((date) => ({
      id: `00000000-0000-4000-8001-${date.replaceAll("-", "")}0000`,
      path: `westflanders/${date}/(BAND)`,
      sensingTime: times.get(date) ?? null,
    })),
  };
}

/** The Sentinel-1 GRD sample in the CREODIAS bucket: the scene's VV and VH files as one tile. */
function sentinel1(data: string): Sample {
  const band = (source: string): BandFormat => ({ source, bandIndex: 1, bitDepth: 16, sampleFormat: "UINT" });
  return {
    id: BYOC_CREO_SAMPLE_ID,
    name: "Sentinel-1 GRD VV/VH in a CREODIAS bucket (BYOC sample, location creo)",
    bucket: CREO_SAMPLE_BUCKET,
    bands: [
      ["VV", band("vv")],
      ["VH", band("vh")],
    ],
    files: ["vv", "vh"].map((p) => ({
      key: `s1/${S1_SCENE}/iw-${p}.utm43n-200m.tif`,
      path: join(data, "sentinel-1-grd", S1_SCENE, `iw-${p}.utm43n-200m.tif`),
    })),
    tiles: [
      {
        id: "00000000-0000-4000-8002-201807160040",
        path: `s1/${S1_SCENE}/iw-(BAND).utm43n-200m`,
        sensingTime: "2018-07-16T00:40:42.000Z",
      },
    ],
  };
}

/** Seeds sample `s` for `account` (files copied, collection registered, tiles ingested); the tiles ingested now. */
async function seedSample(env: SeedEnv, account: string, s: Sample): Promise<number> {
  await uploadMissing(localBucket(env.BUCKETS, s.bucket), "", s.files);
  if (!(await getCollection(env, account, s.id)))
    await insertCollection(env, {
      id: s.id,
      accountId: account,
      name: s.name,
      s3Bucket: s.bucket,
      created: "2026-01-01T00:00:00.000Z",
      bands: s.bands,
    });
  // tiles are independent (a concurrent first configuration of the bands is settled by configureBands)
  const ingested = await inPool(s.tiles, SEED_CONCURRENCY, async ({ id, path, sensingTime }, i) => {
    const tile = await tileById(env, id);
    if (tile?.status === "INGESTED") return 0;
    if (!tile) {
      const created = new Date(Date.parse("2026-01-01T00:00:00Z") + i * 1000).toISOString();
      await insertTile(env, {
        id,
        collection: s.id,
        account,
        path,
        status: "WAITING",
        sensingTime,
        coverGeometry: null,
        tileGeometry: null,
        tileEpsg: null,
        nativeBbox: null,
        metersPerPixel: null,
        failedCause: null,
        warnings: null,
        created,
      });
    }
    await moveTile(env, id, ["WAITING", "FAILED"], "QUEUED");
    await byocIngest({ kind: BYOC_INGEST_KIND, tile: id }, env as Env);
    const after = await tileById(env, id);
    if (after?.status === "INGESTED") return 1;
    console.warn(`BYOC sample ${s.name}, tile ${path}: ${after?.failedCause}`);
    return 0;
  });
  return ingested.reduce((a: number, b) => a + b, 0);
}

/** Seeds the BYOC samples for `account`; returns each one's id and the number of its tiles ingested now. */
export async function seedByoc(
  env: SeedEnv,
  account: string,
  data: string,
): Promise<{ id: string; ingested: number }[]> {
  const out: { id: string; ingested: number }[] = [];
  for (const s of [await westFlanders(data), sentinel1(data)])
    out.push({ id: s.id, ingested: await seedSample(env, account, s) });
  return out;
}

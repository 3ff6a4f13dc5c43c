/**
 * Prepares a local D1/R2 state (the same --persist-to as `wrangler dev`) in one process, through wrangler's
 * platform proxy (getPlatformProxy):
 * 1. applies the pending D1 migrations of migrations/, recorded in the `d1_migrations` table as
 *    `wrangler d1 migrations apply` records them (so wrangler agrees on what is applied);
 * 2. loads the sample scenes of data/: every STAC item of data/items into D1, every file its assets name into R2
 *    (key = path under data/); files already there with the same size are skipped, items are upserted;
 * 3. makes sure the demo OAuth client exists: the one in <persist>/demo-client.json is reused when D1 accepts its
 *    secret, else a new one is created and written there (so one demo client per state folder, whatever the number
 *    of seeds);
 * 4. seeds the Zarr and BYOC sample collections (scripts/seed-zarr.ts, scripts/seed-byoc.ts);
 * 5. hosts every built-in collection in the primary location (states seeded before hosted Sentinel-1 GRD in
 *    `creo`; BYOC collections are hosted by their bucket's region, src/locations/regions.ts);
 * 6. writes <persist>/seed.json with the fingerprint of its inputs (scripts/lib/prepare.mjs), which lets
 *    `npm start` skip all of this while nothing changed.
 * Prints one summary line last.
 *
 * Usage (through npm so Node 22 is used): `npm run -s seed -- [persistDir]` (default .state).
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getPlatformProxy, unstable_readConfig } from "wrangler";
import { upsertItem } from "../src/storage/items";
import type { StacItem } from "../src/storage/stac";
import { createClient, verifyClient } from "../src/auth/clients";
import { r2Store } from "../src/buckets/local";
import { SAMPLE_ZARR_ID, seedZarr } from "./seed-zarr";
import { seedByoc } from "./seed-byoc";
import { seedS3Keys } from "./seed-s3-keys";
import { sampleItems, uploadMissing } from "./seed-files";
import { SEED_CONCURRENCY, inPool } from "./lib/pool.mjs";
import { seedFingerprint, seedMarker } from "./lib/prepare.mjs";

const args = process.argv.slice(2);
const options = args.filter((a) => a.startsWith("--"));
const persist = resolve(args.find((a) => !a.startsWith("--")) ?? ".state");
const DATA = resolve("data");
const DEMO_ACCOUNT = "00000000-0000-4000-8000-000000000001";

/**
 * Applies the migrations of migrations/ not yet in `d1_migrations`, each with its row in one batch (what wrangler's
 * `d1 migrations apply` and the vitest plugin's applyD1Migrations do; statements split by wrangler's SQL splitter,
 * which the vitest plugin's readD1Migrations uses). Returns the names applied.
 */
async function applyMigrations(db: D1Database): Promise<string[]> {
  await db
    .prepare(
      "CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)",
    )
    .run();
  const applied = new Set(
    (await db.prepare("SELECT name FROM d1_migrations").all<{ name: string }>()).results.map((r) => r.name),
  );
  if ((await readdir("migrations")).filter((f) => f.endsWith(".sql")).every((f) => applied.has(f))) return [];
  const { readD1Migrations } = await import("@cloudflare/vitest-plugin"); // ~0.7 s to load: only when needed
  const pending = (await readD1Migrations("migrations")).filter((m) => !applied.has(m.name));
  for (const m of pending) {
    try {
      await db.batch([
        ...m.queries.map((q) => db.prepare(q)),
        db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(m.name),
      ]);
    } catch (e) {
      throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
    }
  }
  return pending.map((m) => m.name);
}

/** Uploads the files the items' assets name (keys = paths under data/) that R2 does not hold with the same size; returns how many. */
function uploadAssets(env: { DATA: R2Bucket }, all: StacItem[]): Promise<number> {
  const keys = [...new Set(all.flatMap((item) => Object.values(item.assets).map((a) => a.href)))];
  return uploadMissing(
    r2Store(env.DATA, "eo-edge-data", ""),
    "",
    keys.map((key) => ({ key, path: join(DATA, key) })),
  );
}

/** The demo client of <persist>/demo-client.json when D1 accepts its secret, else a new one written there. */
async function demoClient(env: {
  DB: D1Database;
}): Promise<{ client_id: string; client_secret: string; created: boolean }> {
  const file = join(persist, "demo-client.json");
  const saved = await readFile(file, "utf8").then(
    (t) => JSON.parse(t) as { client_id: string; client_secret: string },
    () => undefined,
  );
  if (saved && (await verifyClient(env, saved.client_id, saved.client_secret))) return { ...saved, created: false };
  const created = await createClient(env, { accountId: DEMO_ACCOUNT, accountName: "EO Edge demo", name: "demo" });
  await writeFile(file, JSON.stringify(created, null, 2) + "\n", { mode: 0o600 });
  return { ...created, created: true };
}

/**
 * A config with only the D1 and R2 bindings of wrangler.toml (read by wrangler itself), so that the platform proxy
 * does not warn about the Durable Object classes that only the Worker exports.
 */
async function storageConfig(): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const c = unstable_readConfig({ config: "wrangler.toml" });
  const dir = await mkdtemp(join(tmpdir(), "eo-edge-seed-"));
  const path = join(dir, "wrangler.json");
  const json = {
    name: c.name,
    compatibility_date: c.compatibility_date,
    d1_databases: c.d1_databases,
    r2_buckets: c.r2_buckets,
  };
  await writeFile(path, JSON.stringify(json));
  return { path, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function main(): Promise<void> {
  const fingerprint = seedFingerprint(options); // of the inputs as this seed reads them
  await rm(seedMarker(persist), { force: true });
  const config = await storageConfig();
  const proxy = await getPlatformProxy<{ DB: D1Database; DATA: R2Bucket; BUCKETS: R2Bucket }>({
    configPath: config.path,
    persist: { path: join(persist, "v3") },
  });
  const { env } = proxy;
  try {
    const migrations = await applyMigrations(env.DB);
    const all = await sampleItems(DATA);
    await inPool(all, SEED_CONCURRENCY, (item) => upsertItem(env, item));
    const files = await uploadAssets(env, all);
    const demo = await demoClient(env);
    const s3Key = await seedS3Keys(env, DEMO_ACCOUNT, persist);
    const zarr = await seedZarr(env, DEMO_ACCOUNT);
    const byoc = await seedByoc(env, DEMO_ACCOUNT, DATA);
    // The built-ins are hosted where sentinelhub-py expects them: the primary location (registry location NULL)
    await env.DB.prepare(
      "UPDATE data_collections SET location = NULL WHERE kind = 'builtin' AND location IS NOT NULL",
    ).run();
    await writeFile(
      seedMarker(persist),
      JSON.stringify({ fingerprint, s3AccessKeyId: s3Key, seeded: new Date().toISOString() }, null, 2) + "\n",
    );
    console.log(
      `${migrations.length} migrations applied, ${all.length} items, ${files} new files, ` +
        `zarr-${SAMPLE_ZARR_ID} ${zarr}, ${byoc.map((b) => `byoc-${b.id} (${b.ingested} tiles ingested now)`).join(", ")}, ` +
        `demo client ${demo.client_id} (${demo.created ? "created" : "reused"}), demo S3 key ${s3Key}`,
    );
  } finally {
    await proxy.dispose();
    await config.cleanup();
  }
}

await main();

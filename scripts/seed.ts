/**
 * Seeds the local D1/R2 state (the same --persist-to as `wrangler dev`) with the sample scenes in data/:
 * every STAC item of data/items goes into D1, every file its assets name goes into R2 (key = path under data/).
 * Idempotent: files already in R2 with the same size are skipped; items are upserted.
 * Also makes sure the demo OAuth client exists and writes its credentials to <persist>/demo-client.json.
 *
 * Usage (through npm so Node 22 is used): `npx tsx scripts/seed.ts [persistDir]` (default .state).
 */
import { mkdtemp, readFile, readdir, rm, writeFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getPlatformProxy, unstable_readConfig } from "wrangler";
import { upsertItem, type StacItem } from "../src/storage/items";
import { createClient, verifyClient } from "../src/auth/clients";
import { SAMPLE_ZARR_ID, seedZarr } from "./seed-zarr";
import { seedByoc } from "./seed-byoc";
import { seedS3Keys } from "./seed-s3-keys";

const persist = resolve(process.argv[2] ?? ".state");
const DATA = resolve("data");
const DEMO_ACCOUNT = "00000000-0000-4000-8000-000000000001";

async function items(): Promise<StacItem[]> {
  const out: StacItem[] = [];
  for (const c of await readdir(join(DATA, "items"))) {
    for (const f of (await readdir(join(DATA, "items", c))).sort()) out.push(JSON.parse(await readFile(join(DATA, "items", c, f), "utf8")));
  }
  return out;
}

async function demoClient(env: { DB: D1Database }): Promise<{ client_id: string; client_secret: string }> {
  const file = join(persist, "demo-client.json");
  try {
    const saved = JSON.parse(await readFile(file, "utf8")) as { client_id: string; client_secret: string };
    if (await verifyClient(env, saved.client_id, saved.client_secret)) return saved;
  } catch {
    /* first start */
  }
  const created = await createClient(env, { accountId: DEMO_ACCOUNT, accountName: "EO Edge demo", name: "demo" });
  await writeFile(file, JSON.stringify(created, null, 2) + "\n", { mode: 0o600 });
  return created;
}

/**
 * A config with only the D1 and R2 bindings of wrangler.toml (read by wrangler itself), so that the platform proxy
 * does not warn about the Durable Object classes that only the Worker exports.
 */
async function storageConfig(): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const c = unstable_readConfig({ config: "wrangler.toml" });
  const dir = await mkdtemp(join(tmpdir(), "eo-edge-seed-"));
  const path = join(dir, "wrangler.json");
  const json = { name: c.name, compatibility_date: c.compatibility_date, d1_databases: c.d1_databases, r2_buckets: c.r2_buckets };
  await writeFile(path, JSON.stringify(json));
  return { path, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function main(): Promise<void> {
  const config = await storageConfig();
  const proxy = await getPlatformProxy<{ DB: D1Database; DATA: R2Bucket; BUCKETS: R2Bucket }>({ configPath: config.path, persist: { path: join(persist, "v3") } });
  const { env } = proxy;
  try {
    let files = 0;
    const all = await items();
    for (const item of all) {
      await upsertItem(env, item);
      for (const key of new Set(Object.values(item.assets).map((a) => a.href))) {
        const size = (await stat(join(DATA, key))).size;
        const head = await env.DATA.head(key);
        if (head?.size === size) continue;
        await env.DATA.put(key, await readFile(join(DATA, key)));
        files++;
      }
    }
    const demo = await demoClient(env);
    console.log(`demo account's S3 access key: ${await seedS3Keys(env, DEMO_ACCOUNT, persist)}`);
    console.log(`Zarr sample collection zarr-${SAMPLE_ZARR_ID}: ${await seedZarr(env, DEMO_ACCOUNT)}`);
    const byoc = await seedByoc(env, DEMO_ACCOUNT, DATA);
    console.log(`BYOC sample collection byoc-${byoc.id} (${byoc.ingested} tiles ingested now)`);
    console.log(`seeded ${all.length} items, uploaded ${files} new files; demo client ${demo.client_id}`);
  } finally {
    await proxy.dispose();
    await config.cleanup();
  }
}

await main();

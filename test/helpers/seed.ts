/**
 * Seeds the test's D1 and R2 with real sample scenes from data/ (served by the SAMPLE_DATA binding,
 * see vitest.config.ts). Call in beforeAll; storage is isolated per test file.
 */
import { env } from "cloudflare:workers";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";

let itemsCache: StacItem[] | undefined;

/** All seed items (data/items). */
export async function sampleItems(): Promise<StacItem[]> {
  itemsCache ??= (await (await env.SAMPLE_DATA.fetch("http://sample/items")).json()) as StacItem[];
  return itemsCache;
}

/** Bytes of a file under data/ (or `fixtures/...` under test/fixtures). */
export async function sampleFile(path: string): Promise<ArrayBuffer> {
  const r = await env.SAMPLE_DATA.fetch("http://sample/" + path);
  if (!r.ok) throw new Error(`sample file ${path}: ${r.status}`);
  return r.arrayBuffer();
}

/**
 * Inserts the items whose id matches `filter` into D1 and copies their asset files into R2.
 * Returns the seeded items.
 */
export async function seedSamples(filter: (item: StacItem) => boolean = () => true): Promise<StacItem[]> {
  const chosen = (await sampleItems()).filter(filter);
  for (const item of chosen) {
    await upsertItem(env, item);
    const keys = new Set(Object.values(item.assets).map((a) => a.href));
    for (const key of keys) {
      if (await env.DATA.head(key)) continue;
      await env.DATA.put(key, await sampleFile(key));
    }
  }
  return chosen;
}

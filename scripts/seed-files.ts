/**
 * The sample data of the seed scripts (scripts/seed.ts, seed-byoc.ts, seed-zarr.ts) and of `npm run deploy --
 * --with-samples` (scripts/lib/deploy-bootstrap.mjs): the STAC items of data/items, and uploads of the files a
 * bucket does not hold yet with the same size, found with one listing instead of a HEAD per file (each call is a
 * round trip to the platform proxy's workerd: 324 HEADs of the Zarr sample took ~5 s).
 */
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ObjectStore } from "../src/buckets";
import type { StacItem } from "../src/storage/stac";
import { SEED_CONCURRENCY, inPool } from "./lib/pool.mjs";

/** The STAC items of `<data>/items/<collection>/*.json`, collection by collection, files in name order. */
export async function sampleItems(data: string): Promise<StacItem[]> {
  const out: StacItem[] = [];
  for (const c of await readdir(join(data, "items"))) {
    for (const f of (await readdir(join(data, "items", c))).sort())
      out.push(JSON.parse(await readFile(join(data, "items", c, f), "utf8")) as StacItem);
  }
  return out;
}

/** Sizes of the objects of store whose keys start with prefix, by key. */
async function sizes(store: Pick<ObjectStore, "list">, prefix: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor: string | undefined;
  do {
    const page = await store.list({ prefix, cursor, limit: 1000 });
    for (const o of page.objects) out.set(o.key, o.size);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/**
 * Puts every `{key, path}` (object key in store, local file) that store does not hold with the file's size, at most
 * SEED_CONCURRENCY at a time; every key must start with `prefix` (the one listing made). Returns how many it put.
 */
export async function uploadMissing(
  store: Pick<ObjectStore, "list" | "put">,
  prefix: string,
  files: { key: string; path: string }[],
): Promise<number> {
  const held = await sizes(store, prefix);
  const put = await inPool(files, SEED_CONCURRENCY, async ({ key, path }) => {
    if (held.get(key) === (await stat(path)).size) return 0;
    await store.put(key, await readFile(path));
    return 1;
  });
  return put.reduce((a: number, b) => a + b, 0);
}

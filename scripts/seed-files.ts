/**
 * File uploads of the seed scripts (scripts/seed.ts, seed-byoc.ts, seed-zarr.ts): the files a bucket does not hold
 * yet with the same size, found with one listing instead of a HEAD per file (each call is a round trip to the
 * platform proxy's workerd: 324 HEADs of the Zarr sample took ~5 s).
 */
import { readFile, stat } from "node:fs/promises";
import type { ObjectStore } from "../src/buckets";
import { SEED_CONCURRENCY, inPool } from "./lib/pool.mjs";

/** Sizes of the objects of store whose keys start with prefix, by key. */
async function sizes(store: ObjectStore, prefix: string): Promise<Map<string, number>> {
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
export async function uploadMissing(store: ObjectStore, prefix: string, files: { key: string; path: string }[]): Promise<number> {
  const held = await sizes(store, prefix);
  const put = await inPool(files, SEED_CONCURRENCY, async ({ key, path }) => {
    if (held.get(key) === (await stat(path)).size) return 0;
    await store.put(key, await readFile(path));
    return 1;
  });
  return put.reduce((a: number, b) => a + b, 0);
}

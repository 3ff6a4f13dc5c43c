/**
 * The per-isolate scene cache (src/storage/scenes.ts): cacheable searches are answered without D1 until the TTL or
 * a write through upsertItem in this isolate; other searches always read D1; cached scenes are read-only.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { findScenes, type SceneQuery } from "../../src/storage/scenes";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";

const item = (collection: string, id: string, day: number): StacItem =>
  ({
    type: "Feature",
    stac_version: "1.0.0",
    id,
    collection,
    bbox: [10, 40, 11, 41],
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [10, 40],
          [11, 40],
          [11, 41],
          [10, 41],
          [10, 40],
        ],
      ],
    },
    properties: { datetime: `2024-05-0${day}T10:00:00Z`, "eo:cloud_cover": 5 },
    assets: {},
    links: [],
  }) as unknown as StacItem;

const query = (collection: string, cacheable: boolean): SceneQuery => ({
  collection,
  lonLatBbox: [10.2, 40.2, 10.8, 40.8],
  from: Date.UTC(2024, 4, 1),
  to: Date.UTC(2024, 4, 9),
  maxCloudCoverage: 100,
  order: "mostRecent",
  limit: 10,
  cacheable,
});
const ids = async (q: SceneQuery): Promise<string[]> => (await findScenes(env, q)).map((s) => s.item.id);

describe("scene cache", () => {
  it("a cacheable search is answered from the cache until this isolate writes an item; others read D1", async () => {
    const c = `cache-test-${crypto.randomUUID()}`;
    await upsertItem(env, item(c, "a", 1));
    await upsertItem(env, item(c, "b", 2));
    expect(await ids(query(c, true))).toEqual(["b", "a"]);
    // another isolate deletes "b": this isolate's cached answer still has it, an uncached search does not
    await env.DB.prepare("DELETE FROM items WHERE collection = ? AND id = ?").bind(c, "b").run();
    expect(await ids(query(c, true))).toEqual(["b", "a"]);
    expect(await ids(query(c, false))).toEqual(["a"]);
    await upsertItem(env, item(c, "d", 4)); // a write here empties the cache
    expect(await ids(query(c, true))).toEqual(["d", "a"]);
  });

  it("cached scenes are frozen: a caller cannot change what the next request gets", async () => {
    const c = `cache-test-${crypto.randomUUID()}`;
    await upsertItem(env, item(c, "a", 1));
    const [scene] = await findScenes(env, query(c, true));
    expect(() => {
      (scene!.item.properties as Record<string, unknown>)["eo:cloud_cover"] = 99;
    }).toThrow(TypeError);
    expect((await findScenes(env, query(c, true)))[0]!.item.properties["eo:cloud_cover"]).toBe(5);
  });
});

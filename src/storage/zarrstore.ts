/**
 * A zarrita store over an ObjectStore (src/buckets): Zarr keys (`/.zgroup`, `/B04/0.1.0`) are objects under
 * `<prefix>` in the bucket. Read-only: get and ranged get; a missing object reads as undefined (zarrita then fills
 * a chunk with the array's fill_value, or reports a missing array / group).
 */
import type { AbsolutePath, AsyncReadable, RangeQuery } from "zarrita";
import type { ObjectStore } from "../buckets";

/** `prefix` (no leading `/`; "" = bucket root, else ending without `/`) joined with a Zarr key. */
function objectKey(prefix: string, key: AbsolutePath): string {
  return prefix ? `${prefix}${key}` : key.slice(1);
}

/** The store of the Zarr hierarchy rooted at `prefix` in `store`. */
export function objectZarrStore(store: ObjectStore, prefix: string): AsyncReadable {
  const root = prefix.replace(/\/+$/, "");
  const bytes = async (key: AbsolutePath, range?: { offset: number; length?: number }): Promise<Uint8Array | undefined> => {
    const obj = await store.get(objectKey(root, key), range);
    return obj ? new Uint8Array(await new Response(obj.body).arrayBuffer()) : undefined;
  };
  return {
    get: (key) => bytes(key),
    async getRange(key: AbsolutePath, range: RangeQuery) {
      if ("offset" in range) return bytes(key, range);
      const head = await store.head(objectKey(root, key));
      if (!head) return undefined;
      const offset = Math.max(0, head.size - range.suffixLength);
      return bytes(key, { offset, length: head.size - offset });
    },
  };
}

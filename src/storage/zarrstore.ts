/**
 * A zarrita store over an ObjectStore (src/buckets): Zarr keys (`/.zgroup`, `/B04/0.1.0`) are objects under
 * `<prefix>` in the bucket. Read-only, whole objects, through the Zarr reader's guard (src/raster/zarr/guard.ts:
 * size limits per object, `.zarray` checks); a missing object reads as undefined (zarrita then fills a chunk with
 * the array's fill_value, or reports a missing array / group).
 */
import type { AbsolutePath, AsyncReadable } from "zarrita";
import type { ObjectStore } from "../buckets";
import { invalidFile } from "../raster/errors";
import { guardedStore } from "../raster/zarr/guard";

/** `prefix` (no leading `/`; "" = bucket root, else ending without `/`) joined with a Zarr key. */
function objectKey(prefix: string, key: AbsolutePath): string {
  return prefix ? `${prefix}${key}` : key.slice(1);
}

/**
 * The bytes of object `key` of `store`, or undefined when it does not exist.
 * @throws EngineError invalid-file when it is larger than `maxBytes` (its body is not read).
 */
export async function readObject(store: ObjectStore, key: string, maxBytes: number): Promise<Uint8Array | undefined> {
  const obj = await store.get(key);
  if (!obj) return undefined;
  if (obj.size > maxBytes) {
    await obj.body.cancel().catch(() => undefined);
    throw invalidFile(`object ${key} is ${obj.size} bytes; at most ${maxBytes} are expected there.`);
  }
  return new Uint8Array(await new Response(obj.body).arrayBuffer());
}

/** The store of the Zarr hierarchy rooted at `prefix` in `store`. */
export function objectZarrStore(store: ObjectStore, prefix: string): AsyncReadable {
  const root = prefix.replace(/\/+$/, "");
  return guardedStore({ get: (key, maxBytes) => readObject(store, objectKey(root, key), maxBytes) });
}

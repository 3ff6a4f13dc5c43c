/**
 * Files of a BYOC tile (OpenAPI listByocTileFiles / getByocTileFile): the list is the tile's band files (keys in
 * the collection's bucket) that exist; a file is streamed from the bucket with a single HTTP Range (206, 416).
 */
import type { Env } from "../env";
import { rangedResponse } from "../http/range";
import { json } from "../http/base";
import { notFound } from "../http/errors";
import type { AuthedRequest } from "../http/router";
import { collectionStore } from "./access";
import type { ByocCollection, ByocTile } from "../storage/byoc/model";
import { filesOf } from "../storage/byoc/tiles";
import { fileKey } from "../storage/byoc/paths";

/** The keys of the tile's band files present in the bucket (sorted). @throws BucketAccessDenied (403). */
async function tileFiles(env: Pick<Env, "BUCKETS" | "DB">, c: ByocCollection, t: ByocTile): Promise<string[]> {
  const store = await collectionStore(env, c);
  const keys = [...filesOf(c.bands).keys()].map((s) => fileKey(t.path, s, t.fileExt));
  const present = await Promise.all(keys.map(async (k) => ((await store.head(k)) ? k : null)));
  return present.filter((k): k is string => k !== null).sort();
}

/** GET .../files: JSON array of the tile's file keys. */
export async function listFiles(env: Env, c: ByocCollection, t: ByocTile): Promise<Response> {
  return json(await tileFiles(env, c, t));
}

/** GET .../files/<key>: the file's bytes (Range honoured). @throws ApiError 404 for a key that is not the tile's. */
export async function getFile(request: AuthedRequest, env: Env, c: ByocCollection, t: ByocTile): Promise<Response> {
  const key = decodeURIComponent(String(request.params.file ?? ""));
  const gone = () => notFound(`Tile ${t.id} has no file '${key.slice(0, 200)}'.`);
  if (!(await tileFiles(env, c, t)).includes(key)) throw gone();
  const store = await collectionStore(env, c);
  const head = (await store.head(key))!;
  return rangedResponse(
    request,
    head.size,
    { "content-type": "application/octet-stream", etag: `"${head.etag}"` },
    async (range) => (await store.get(key, range))?.body ?? null,
    gone,
  );
}

/**
 * Where a collection's items and bytes come from, behind one interface (as RasterReader is for rasters and the
 * items backend for the catalog): the local store (D1 items, R2 / bucket files: bundled samples, BYOC, batch, Zarr,
 * as before) and, for the built-ins an upstream archive serves (./catalogue.ts), the archive (a STAC API for
 * discovery, HTTP range reads of the items' COGs).
 *
 * Local first: a scene search of a built-in is answered by the local store when it finds scenes there, else by the
 * archive. So items an operator seeded (the bundled samples, `npm run deploy -- --with-samples`) keep answering as
 * they did, byte for byte the same scenes, and everywhere else the world comes from the archive; a search never
 * mixes the two (the same scene would otherwise be found twice, under two hrefs).
 */
import type { Env } from "../env";
import type { ByteSource } from "../raster/types";
import type { StacItem } from "../storage/stac";
import { itemsBackend, type Scene, type SceneQuery } from "../storage/backend";
import { cachedScenes } from "../storage/scenes";
import { openFile } from "../storage/sources";
import { archiveCollection, type ArchiveCollection, type ArchiveOptions } from "./catalogue";
import type { ArchiveEnv } from "../storage/archives";
import { archiveConfig, type ArchiveConfig } from "./config";
import { upstreamCollectionOf } from "./items";
import { openUpstreamAsset, upstreamScenes } from "./upstream";
import { openCacheApi } from "./bytes";

export type { ArchiveEnv, ArchiveOptions };
export { archiveConfig } from "./config";

/** The bindings the stores use. */
export type StoreEnv = Pick<Env, "DB" | "DATA" | "BUCKETS">;

/**
 * Background work for an isolate's first request when an archive serves built-ins: opens the Cache API the archive's
 * opens look up (./bytes.ts openCacheApi), so that the first cold read does not wait for the store to start.
 */
export function warmArchive(env: ArchiveEnv): Promise<void> {
  return archiveConfig(env) ? openCacheApi() : Promise.resolve();
}

/** Where a collection's items and bytes come from. */
export interface CollectionStore {
  /** `local`, or the archive's name (`earth-search`, `planetary-computer`, `twin`). */
  readonly name: string;
  /** At most `q.limit` scenes in the query's order. */
  scenes(q: SceneQuery, options: ArchiveOptions): Promise<Scene[]>;
  /** An asset of one of its items as a ByteSource, or null when missing. */
  open(item: StacItem, href: string): Promise<ByteSource | null>;
}

/** The local store: D1 items and files in R2 or the owner's buckets (src/storage). */
export function localStore(env: StoreEnv, owner: string | null): CollectionStore {
  return {
    name: "local",
    scenes: (q) => itemsBackend(env).scenes(q),
    open: (_item, href) => openFile(env, owner, href),
  };
}

/** The archive's store for built-in `c`. */
export function upstreamStore(
  env: StoreEnv & ArchiveEnv,
  config: ArchiveConfig,
  c: ArchiveCollection,
): CollectionStore {
  return {
    name: config.name,
    scenes: (q, options) => upstreamScenes(config, c, q, options),
    open: (item, href) => openUpstreamAsset(config, c, item, href, env.ARCHIVE_CACHE),
  };
}

/** The archive collection serving built-in collection `id` in `env`, with the configuration; undefined when none. */
export function archiveFor(
  env: ArchiveEnv,
  id: string,
): { config: ArchiveConfig; collection: ArchiveCollection } | undefined {
  const config = archiveConfig(env);
  const collection = archiveCollection(config, id);
  return config && collection ? { config, collection } : undefined;
}

/** A collection as the stores see it: its id, kind and owner (a DataCollection is one). */
export interface StoredCollection {
  id: string;
  kind: string;
  owner: string | null;
}

/**
 * The scenes of a query: the local store's, or (a built-in the archive serves, nothing found locally) the archive's.
 * Hedged: unless this isolate already knows the local answer (src/storage/scenes.ts cachedScenes), the archive's
 * search leaves together with the local query instead of after it, so a scene only the archive has waits for one
 * round trip, not two (the local query is a D1 round trip at the edge); when the local store does find scenes, the
 * archive's answer is dropped (and kept in its search cache, ./upstream.ts), as are its errors. Traced on cold
 * NDVI requests through the archive twin (loaded machine): the search left 1-3 ms after the collection was
 * resolved, where it had waited 14-143 ms for the local query.
 * @throws UpstreamError (502 / 503) when the archive fails; EngineError invalid-argument for options it cannot serve.
 */
export async function findScenes(
  env: StoreEnv & ArchiveEnv,
  c: StoredCollection,
  q: SceneQuery,
  options: ArchiveOptions = {},
): Promise<Scene[]> {
  const local = localStore(env, c.owner);
  const archive = c.kind === "builtin" ? archiveFor(env, c.id) : undefined;
  if (!archive) return local.scenes(q, options);
  const upstream = () => upstreamStore(env, archive.config, archive.collection).scenes(q, options);
  const known = cachedScenes(q);
  if (known) return known.length > 0 ? known : upstream();
  const hedged = upstream();
  hedged.catch(() => undefined); // its failure counts only when nothing local matches
  const found = await local.scenes(q, options);
  return found.length > 0 ? found : hedged;
}

/**
 * The acquisition times (ms, ascending) of a query, at most `q.limit`: the local store's (one query without the
 * items), or the archive's scenes' when nothing local matches (as findScenes).
 */
export async function findSceneTimes(
  env: StoreEnv & ArchiveEnv,
  c: StoredCollection,
  q: SceneQuery,
  options: ArchiveOptions = {},
): Promise<number[]> {
  const local = await itemsBackend(env).sceneTimes(q);
  const archive = c.kind === "builtin" && local.length === 0 ? archiveFor(env, c.id) : undefined;
  if (!archive) return local;
  const scenes = await upstreamStore(env, archive.config, archive.collection).scenes(
    { ...q, order: "leastRecent" },
    options,
  );
  return scenes.map((s) => s.time).sort((a, b) => a - b);
}

/**
 * Opens asset `href` of `item` (of collection `c`): from the archive for an item it answered (one with a `via`
 * link to the upstream API, under a built-in the archive serves), else from the local store.
 * @throws UpstreamError, BucketAccessDenied, storage errors (see the stores).
 */
export function openAsset(
  env: StoreEnv & ArchiveEnv,
  c: StoredCollection,
  item: StacItem,
  href: string,
): Promise<ByteSource | null> {
  const upstream =
    c.kind === "builtin" && /^[a-z][a-z0-9+.-]*:\/\//i.test(href) && upstreamCollectionOf(item) !== undefined;
  const archive = upstream ? archiveFor(env, c.id) : undefined;
  return archive
    ? upstreamStore(env, archive.config, archive.collection).open(item, href)
    : localStore(env, c.owner).open(item, href);
}

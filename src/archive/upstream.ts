/**
 * A built-in collection served by an upstream archive: its scene search as a STAC search (time window, area, cloud
 * cover, mosaicking order as `sortby`, Sentinel-1 filters applied to the answer, case-insensitively as the local
 * store does), paged up to the query's limit, answers cached per isolate for SEARCH_TTL_MS; and its assets opened
 * as upstream COGs (./bytes.ts) with the archive's access rules (./access.ts).
 */
import type { ByteSource } from "../raster/types";
import { Lru } from "../raster/lru";
import type { StacItem } from "../storage/stac";
import type { Scene, SceneQuery } from "../storage/scenes";
import { assetAccess } from "./access";
import { openUpstream } from "./bytes";
import type { ArchiveCollection, ArchiveOptions } from "./catalogue";
import type { ArchiveConfig } from "./config";
import { normalizeItem, upstreamCollectionOf } from "./items";
import { searchPage, type UpstreamSearch } from "./stac";

/** How long an upstream scene search answers from this isolate's cache, in ms. */
export const SEARCH_TTL_MS = 60_000;

/** Pages of one upstream scene search at most (each a subrequest). */
export const MAX_SEARCH_PAGES = 5;

const searches = new Lru<{ at: number; scenes: Scene[] }>(256);

/** Empties the upstream scene-search cache (tests). */
export function forgetUpstreamSearches(): void {
  searches.clear();
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The STAC search of a scene query (one upstream page of at most 100 items). */
export function sceneSearch(q: SceneQuery, c: ArchiveCollection, options: ArchiveOptions): UpstreamSearch {
  const query: Record<string, Record<string, unknown>> = { ...(c.query ?? {}) };
  if (q.maxCloudCoverage < 100) query["eo:cloud_cover"] = { lte: q.maxCloudCoverage };
  const sortby: UpstreamSearch["sortby"] =
    q.order === "leastCC"
      ? [
          { field: "properties.eo:cloud_cover", direction: "asc" },
          { field: "properties.datetime", direction: "desc" },
        ]
      : [{ field: "properties.datetime", direction: q.order === "leastRecent" ? "asc" : "desc" }];
  return {
    collections: [c.upstream(options)],
    bbox: [...q.lonLatBbox],
    ...(c.timeless ? {} : { datetime: `${iso(q.from)}/${iso(q.to)}` }),
    limit: Math.min(100, Math.max(1, q.limit)),
    ...(Object.keys(query).length ? { query } : {}),
    sortby,
  };
}

/** True when `item` carries every property of `props` (ASCII case-insensitive, as src/storage/scenes.ts). */
const matches = (item: StacItem, props: Record<string, string> | undefined): boolean =>
  Object.entries(props ?? {}).every(([k, v]) => String(item.properties[k] ?? "").toUpperCase() === v.toUpperCase());

/**
 * Scenes of built-in `c` from the archive: at most `q.limit`, in the query's order (the archive sorts).
 * @throws UpstreamError (502 / 503) when the STAC API fails; EngineError invalid-argument for options the archive
 *   cannot serve (catalogue.ts).
 */
export async function upstreamScenes(
  config: ArchiveConfig,
  c: ArchiveCollection,
  q: SceneQuery,
  options: ArchiveOptions,
): Promise<Scene[]> {
  const search = sceneSearch(q, c, options);
  const key = JSON.stringify([config.stacUrl, search, q.properties ?? null, q.limit]);
  const hit = searches.get(key);
  if (hit && Date.now() - hit.at < SEARCH_TTL_MS) return checked(c, options, hit.scenes);
  const scenes: Scene[] = [];
  let next: string | undefined;
  for (let page = 0; page < MAX_SEARCH_PAGES && scenes.length < q.limit; page++) {
    const got = await searchPage(config, search, next);
    for (const raw of got.items) {
      const item = normalizeItem(raw, c, config.stacUrl);
      const time = Date.parse(item.properties.datetime);
      const cc = item.properties["eo:cloud_cover"];
      if (!Number.isFinite(time) || !matches(item, q.properties) || scenes.length >= q.limit) continue;
      scenes.push({ item, time, cloudCover: typeof cc === "number" ? cc : null });
    }
    next = got.next;
    if (!next) break;
  }
  searches.set(key, { at: Date.now(), scenes });
  return checked(c, options, scenes);
}

/** `scenes`, after the collection's option check when there are any. */
function checked(c: ArchiveCollection, options: ArchiveOptions, scenes: Scene[]): Scene[] {
  if (scenes.length > 0) c.check?.(options);
  return scenes;
}

/**
 * Opens asset `href` of upstream item `item` of built-in `c` as a ByteSource, or null when the object is missing.
 * @throws UpstreamError (502 / 503) after retries; for requester-pays assets without the operator's AWS keys.
 */
export function openUpstreamAsset(
  config: ArchiveConfig,
  c: ArchiveCollection,
  item: StacItem,
  href: string,
  blockCache?: R2Bucket,
): Promise<ByteSource | null> {
  const access = assetAccess(config, href, upstreamCollectionOf(item) ?? c.upstream({}));
  return openUpstream(access, { archive: config.name, retry: config.retry, blockCache });
}

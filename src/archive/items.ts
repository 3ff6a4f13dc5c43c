/**
 * Upstream STAC items in the catalog's own shape: the built-in's collection id, assets keyed by Sentinel Hub band
 * names (the asset each band is read from, its `eo:bands` entry renamed, its real href kept), every other asset and
 * property as the archive sent them (plus the properties the built-in derives, where the item lacks them), and a `via` link to the item in the upstream STAC API (which also tells the
 * reader the upstream collection, for Planetary Computer SAS tokens).
 */
import type { StacAsset, StacItem } from "../storage/stac";
import type { ArchiveCollection } from "./catalogue";

/** Link relation of the upstream item's URL. */
export const VIA = "via";

/**
 * `upstream` (an item of upstream collection `upstreamCollection`, from the STAC API at `stacUrl`) as an item of
 * built-in `c`. Does not change `upstream`.
 */
export function normalizeItem(upstream: StacItem, c: ArchiveCollection, stacUrl: string): StacItem {
  const assets: Record<string, StacAsset> = {};
  const mapped = new Set<string>();
  for (const [band, key] of Object.entries(c.bands)) {
    const a = upstream.assets[key];
    if (!a) continue;
    mapped.add(key);
    const eo = a["eo:bands"]?.[0];
    assets[band] = { ...a, "eo:bands": [{ ...(eo ?? {}), name: band }] };
  }
  for (const [key, a] of Object.entries(upstream.assets))
    if (!mapped.has(key) && !Object.hasOwn(assets, key)) assets[key] = a;
  const self = `${stacUrl}/collections/${encodeURIComponent(upstream.collection)}/items/${encodeURIComponent(upstream.id)}`;
  const links = (upstream.links as { rel?: string }[]).filter((l) => l.rel !== VIA);
  return {
    ...upstream,
    ...(c.properties ? { properties: { ...c.properties(upstream.properties), ...upstream.properties } } : {}),
    collection: c.id,
    assets,
    links: [
      ...links,
      { rel: VIA, href: self, type: "application/geo+json", title: "The item in the upstream archive" },
    ],
  };
}

/** The upstream collection of a normalized item (from its `via` link), or undefined for a local item. */
export function upstreamCollectionOf(item: StacItem): string | undefined {
  const via = (item.links as { rel?: string; href?: string }[]).find((l) => l.rel === VIA);
  return via?.href ? /\/collections\/([^/]+)\/items\/[^/]+$/.exec(via.href)?.[1]?.replace(/%2D/gi, "-") : undefined;
}

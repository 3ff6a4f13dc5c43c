/**
 * STAC items as the catalog serves them: links of this service, asset hrefs turned from R2 keys into URLs of the
 * asset download route, a `data` asset for the scene folder, and the properties Sentinel Hub's catalog carries
 * (eo:bands gathered from the assets, proj:geometry from proj:bbox, GeoJSON `crs` members).
 */
import type { StacAsset, StacItem } from "../storage/stac";

export const EO_EXTENSION = "https://stac-extensions.github.io/eo/v1.0.0/schema.json";
export const PROJ_EXTENSION = "https://stac-extensions.github.io/projection/v1.0.0/schema.json";
const CRS84 = { type: "name", properties: { name: "urn:ogc:def:crs:OGC::CRS84" } };
const OWN_RELS = new Set(["self", "root", "parent", "collection"]);

type Band = NonNullable<StacAsset["eo:bands"]>[number];

/** Title of the catalog (its landing page), also the title of every link to it. */
export const CATALOG_TITLE = "EO Edge STAC catalog";

/** URL paths of one catalog root (e.g. `https://host/api/v1/catalog/1.0.0`). */
export class CatalogUrls {
  constructor(readonly root: string) {}
  collection = (c: string): string => `${this.root}/collections/${encodeURIComponent(c)}`;
  item = (c: string, id: string): string => `${this.collection(c)}/items/${encodeURIComponent(id)}`;
  asset = (c: string, id: string, key: string): string => `${this.item(c, id)}/assets/${encodeURIComponent(key)}`;
}

/** Bands of all assets, in asset order, each name once. */
function itemBands(assets: Record<string, StacAsset>): Band[] {
  const seen = new Map<string, Band>();
  for (const a of Object.values(assets))
    for (const b of a["eo:bands"] ?? []) if (!seen.has(b.name)) seen.set(b.name, b);
  return [...seen.values()];
}

/** True for an href that is already a URL (not an R2 key of the DATA bucket). */
export const isUrl = (href: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(href);

/** The folder (R2 key prefix ending in '/') that holds all of an item's files, or "" when they share none. */
export function assetFolder(item: StacItem): string {
  const keys = Object.values(item.assets)
    .map((a) => a.href)
    .filter((h) => !isUrl(h));
  if (keys.length === 0) return "";
  let prefix = keys[0]!.slice(0, keys[0]!.lastIndexOf("/") + 1);
  for (const k of keys)
    while (prefix && !k.startsWith(prefix)) prefix = prefix.slice(0, prefix.lastIndexOf("/", prefix.length - 2) + 1);
  return prefix;
}

function renderAssets(item: StacItem, urls: CatalogUrls): Record<string, StacAsset> {
  const out: Record<string, StacAsset> = {};
  if (!item.assets.data && assetFolder(item)) {
    out.data = {
      href: urls.asset(item.collection, item.id, "data"),
      title: "Scene folder",
      description: "JSON listing of the scene's files, each with the URL of its asset",
      type: "application/json",
      roles: ["metadata"],
    };
  }
  for (const [key, a] of Object.entries(item.assets)) {
    out[key] = isUrl(a.href) ? a : { ...a, href: urls.asset(item.collection, item.id, key) };
  }
  return out;
}

function projGeometry(props: Record<string, unknown>): Record<string, unknown> | undefined {
  const b = props["proj:bbox"];
  const epsg = props["proj:epsg"];
  if (!Array.isArray(b) || b.length !== 4 || typeof epsg !== "number") return undefined;
  const [x0, y0, x1, y1] = b as number[];
  return {
    type: "Polygon",
    crs: { type: "name", properties: { name: `urn:ogc:def:crs:EPSG::${epsg}` } },
    coordinates: [
      [
        [x0, y0],
        [x1, y0],
        [x1, y1],
        [x0, y1],
        [x0, y0],
      ],
    ],
  };
}

function renderProperties(item: StacItem): Record<string, unknown> {
  const props: Record<string, unknown> = { ...item.properties };
  const bands = itemBands(item.assets);
  if (bands.length > 0 && !props["eo:bands"]) props["eo:bands"] = bands;
  if (!props["proj:geometry"]) {
    const g = projGeometry(props);
    if (g) props["proj:geometry"] = g;
  }
  return props;
}

function extensions(item: StacItem, props: Record<string, unknown>): string[] {
  const list = [...(item.stac_extensions ?? [])];
  const has = (name: string): boolean => list.some((u) => u.includes(`/${name}/`));
  if (!has("eo") && (props["eo:bands"] || props["eo:cloud_cover"] !== undefined)) list.push(EO_EXTENSION);
  if (!has("projection") && Object.keys(props).some((k) => k.startsWith("proj:"))) list.push(PROJ_EXTENSION);
  return list;
}

/** A stored item as served under `urls` (a new object; the input is not changed). */
export function renderItem(item: StacItem, urls: CatalogUrls): Record<string, unknown> {
  const properties = renderProperties(item);
  const collection = `Collection ${item.collection}`;
  const links = [
    { rel: "self", href: urls.item(item.collection, item.id), type: "application/geo+json" },
    { rel: "parent", href: urls.collection(item.collection), type: "application/json", title: collection },
    { rel: "collection", href: urls.collection(item.collection), type: "application/json", title: collection },
    { rel: "root", href: `${urls.root}/`, type: "application/json", title: CATALOG_TITLE },
    ...(item.links as { rel?: string }[]).filter((l) => !OWN_RELS.has(l.rel ?? "")),
  ];
  return {
    type: "Feature",
    stac_version: "1.0.0",
    stac_extensions: extensions(item, properties),
    id: item.id,
    collection: item.collection,
    geometry: { ...item.geometry, crs: CRS84 },
    bbox: item.bbox,
    properties,
    links,
    assets: renderAssets(item, urls),
  };
}

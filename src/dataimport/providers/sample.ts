/**
 * SAMPLE: the built-in provider. Its products are the deployment's own Sentinel-2 L2A sample scenes (catalog items
 * of `sentinel-2-l2a` with separate B02, B03, B04, B08 COGs, from data/ via the seed): the item id is the product
 * id, its footprint, acquisition time and cloud cover (eo:cloud_cover / 100, Planet's 0..1) the product's. Search
 * and native search take Planet's quick-search filter language (./filter.ts) and answer Planet-shaped features;
 * thumbnails are made from the scene's pixels by the raster engine; a delivery is the scene's four band COGs, so
 * the imported BYOC collection reads exactly the pixels of the built-in collection. Works offline, no key.
 */
import type { Env } from "../../env";
import { badRequest, notFound } from "../../http/errors";
import { pagedList, parsePageRequest, seekArray } from "../../http/paging";
import { openCog, readCogWindow } from "../../raster/cog";
import { encodePng } from "../../raster/encode";
import { openFile } from "../../storage/sources";
import type { StacItem } from "../../storage/stac";
import type { NativeSearchBody, SearchBody } from "../schema";
import { filterOf, matches, type PlanetFilter } from "./filter";
import { DeliveryError, type PageAsk, type Provider, type ProviderContext, type SearchPage } from "./provider";

/** The catalog collection whose items are the sample products, and its item type in requests. */
export const SAMPLE_ITEM_TYPE = "sentinel-2-l2a";
/** The one product bundle: the four 10 m bands, one COG each. */
export const SAMPLE_BUNDLE = "analytic_10m";
export const SAMPLE_BANDS = ["B02", "B03", "B04", "B08"] as const;
/** Quota and thumbnail collection id of the sample products. */
export const SAMPLE_COLLECTION = "SAMPLE_SENTINEL_2";

interface Product {
  item: StacItem;
  feature: { type: "Feature"; id: string; geometry: unknown; properties: Record<string, unknown> };
}

function featureOf(item: StacItem): Product["feature"] {
  const cc = item.properties["eo:cloud_cover"];
  return {
    type: "Feature",
    id: item.id,
    geometry: item.geometry,
    properties: {
      acquired: new Date(item.properties.datetime).toISOString(),
      published: new Date(item.properties.datetime).toISOString(),
      cloud_cover: typeof cc === "number" ? cc / 100 : null,
      item_type: SAMPLE_ITEM_TYPE,
      gsd: 10,
      provider: "SAMPLE",
    },
  };
}

/** Every sample product, newest first (then by id). */
async function products(env: Pick<Env, "DB">): Promise<Product[]> {
  const { results } = await env.DB.prepare("SELECT doc FROM items WHERE collection = ? ORDER BY datetime DESC, id")
    .bind(SAMPLE_ITEM_TYPE)
    .all<{ doc: string }>();
  return results
    .map((r) => JSON.parse(r.doc) as StacItem)
    .filter((item) => SAMPLE_BANDS.every((b) => item.assets[b]?.href.endsWith(".tif")))
    .map((item) => ({ item, feature: featureOf(item) }));
}

const keyOf = (p: Product): [number, string] => [-Date.parse(p.item.properties.datetime), p.item.id];

async function matching(env: Env, filter: PlanetFilter): Promise<Product[]> {
  return (await products(env)).filter((p) => matches(filter, p.feature));
}

/** One page of `all` (count, viewtoken of the request URL) as features and links. */
function page(ctx: ProviderContext, all: Product[], ask: PageAsk): SearchPage {
  const req = parsePageRequest(ctx.url, ask.count, 2);
  const paged = pagedList(ctx.url, { ...req, count: ask.count }, seekArray(all, req, keyOf), keyOf);
  return { type: "FeatureCollection", features: paged.data.map((p) => p.feature), links: paged.links };
}

/** The product `id`. @throws ApiError 404. */
async function product(env: Env, id: string): Promise<Product> {
  const p = (await products(env)).find((x) => x.item.id === id);
  if (!p) throw notFound(`Product '${id.slice(0, 100)}' not found at provider SAMPLE.`);
  return p;
}

/** Longest side of a thumbnail, pixels: the coarsest COG level not below it is read. */
const THUMBNAIL_SIZE = 256;
/** The DN shown white: 3000, a reflectance of 0.3 at the L2A quantification of 10000 (brighter pixels clip). */
const WHITE_DN = 3000;

/** A PNG of the product's true colour (B04, B03, B02), from a COG overview of about THUMBNAIL_SIZE pixels. */
async function thumbnailPng(env: Env, item: StacItem): Promise<Uint8Array> {
  const cogs = await Promise.all(
    ["B04", "B03", "B02"].map(async (b) => {
      const src = await openFile(env, null, item.assets[b]!.href);
      if (!src) throw notFound(`The files of product ${item.id} are not in this deployment's storage.`);
      return openCog(src);
    }),
  );
  const levels = cogs[0]!.levels;
  const level = [...levels].reverse().find((l) => Math.max(l.width, l.height) >= THUMBNAIL_SIZE) ?? levels[0]!;
  const win = { x0: 0, y0: 0, width: level.width, height: level.height };
  const bands = await Promise.all(cogs.map((c) => readCogWindow(c, level.index, [0], win).then((w) => w[0]!)));
  const n = level.width * level.height;
  const rgb = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++)
    for (let b = 0; b < 3; b++)
      rgb[i * 3 + b] = Math.max(0, Math.min(255, Math.round((bands[b]![i]! * 255) / WHITE_DN)));
  return encodePng({ width: level.width, height: level.height, bands: 3, sampleType: "UINT8", data: rgb });
}

export const sampleProvider: Provider = {
  name: "SAMPLE",
  maxCount: 100,
  minimumSqkm: 1,
  thumbnailCollections: [SAMPLE_COLLECTION],

  check(input) {
    const d = input.data[0]!;
    if (d.itemType !== SAMPLE_ITEM_TYPE)
      throw badRequest(`data[0].itemType must be '${SAMPLE_ITEM_TYPE}' for provider SAMPLE.`, {
        "data.0.itemType": `'${SAMPLE_ITEM_TYPE}'`,
      });
    if (d.productBundle !== SAMPLE_BUNDLE)
      throw badRequest(`data[0].productBundle must be '${SAMPLE_BUNDLE}' for provider SAMPLE.`, {
        "data.0.productBundle": `'${SAMPLE_BUNDLE}'`,
      });
    return { quotaCollection: SAMPLE_COLLECTION };
  },

  bands: () => SAMPLE_BANDS.map((b) => [b, { source: b, bandIndex: 1, bitDepth: 16, sampleFormat: "UINT" }]),

  async search(ctx, input, ask) {
    return page(ctx, await matching(ctx.env, filterOf(input)), ask);
  },

  async nativeSearch(ctx, body: NativeSearchBody, ask) {
    const types = body.item_types;
    if (!Array.isArray(types) || !types.includes(SAMPLE_ITEM_TYPE))
      throw badRequest(`item_types must list '${SAMPLE_ITEM_TYPE}' for provider SAMPLE.`);
    const filter = (body.filter ?? { type: "AndFilter", config: [] }) as PlanetFilter;
    return page(ctx, await matching(ctx.env, filter), ask);
  },

  async thumbnail(ctx, _collection, productId) {
    const png = await thumbnailPng(ctx.env, (await product(ctx.env, productId)).item);
    return new Response(png, { headers: { "content-type": "image/png" } });
  },

  async orderItems(ctx, input: SearchBody) {
    const ids = input.data[0]!.itemIds;
    if (!ids) return (await matching(ctx.env, filterOf(input))).map((p) => p.item.id);
    const known = new Set((await products(ctx.env)).map((p) => p.item.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length)
      throw badRequest(`Unknown item id(s) at provider SAMPLE: ${unknown.slice(0, 5).join(", ")}.`, {
        "data.0.itemIds": "unknown item ids",
      });
    return [...new Set(ids)];
  },

  async deliver(ctx, _input, itemId) {
    const p = (await products(ctx.env)).find((x) => x.item.id === itemId);
    if (!p) throw new DeliveryError("DELIVERY_FAILED", `Product ${itemId} is no longer offered by provider SAMPLE.`);
    const files = await Promise.all(
      SAMPLE_BANDS.map(async (b) => {
        const o = await ctx.env.DATA.get(p.item.assets[b]!.href);
        if (!o)
          throw new DeliveryError(
            "DELIVERY_FAILED",
            `File ${b}.tif of product ${itemId} is missing at provider SAMPLE.`,
          );
        return { name: `${b}.tif`, bytes: new Uint8Array(await o.arrayBuffer()) };
      }),
    );
    return { files, sensingTime: new Date(p.item.properties.datetime).toISOString() };
  },
};

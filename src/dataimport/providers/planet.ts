/**
 * PLANET: PlanetScope and SkySat through Planet's public APIs with the user's API key (HTTP Basic, the key as user
 * name): the Data API's quick search (POST {PLANET_API_URL}/data/v1/quick-search?_page_size=N; pages follow
 * `_links._next`), item thumbnails ({PLANET_TILES_URL}/data/v1/item-types/<type>/items/<id>/thumb) and the Orders
 * API v2 ({PLANET_API_URL}/compute/ops/orders/v2: one order per delivered item, polled until `success`, its
 * `_links.results` downloaded; the item's `acquired`, from the Data API's item, is the tile's sensing time). Sources: developers.planet.com/docs/apis/data/reference, .../docs/orders/reference,
 * and Sentinel Hub's OpenAPI (PlanetSearchQuery, PlanetOrderRequest: item types, product bundles, harmonizeTo).
 * A delivery's files keep Planet's names without the item prefix (`<item>_3B_AnalyticMS_SR_clip.tif` ->
 * `AnalyticMS_SR_clip.tif`), so every delivery's tile has the same band files: Blue, Green, Red, NIR = bands 1-4.
 * The sunset (2026-11-11) is in ../deprecation.ts.
 */
import type { Env } from "../../env";
import { badRequest } from "../../http/errors";
import { decodeViewtoken, encodeViewtoken, type PageLinks } from "../../http/paging";
import { base64url } from "jose";
import type { SearchBody } from "../schema";
import { filterOf } from "./filter";
import { providerFetch } from "./http";
import { DeliveryError, type PageAsk, type Provider, type ProviderContext } from "./provider";

const ITEM_TYPES: Record<string, string> = { PSScene: "PLANET_SCOPE", SkySatCollect: "PLANET_SKYSAT" };
const THUMBNAIL_TYPES: Record<string, string> = { PLANET_SCOPE: "PSScene", PLANET_SKYSAT: "SkySatCollect" };
const BUNDLES = [
  "analytic_udm2",
  "analytic_sr_udm2",
  "analytic_8b_udm2",
  "analytic_8b_sr_udm2",
  "analytic",
  "analytic_sr",
  "panchromatic",
];
/** Most items an order-by-query resolves to (OpenAPI PlanetOrderRequest). */
const MAX_ITEMS = 500;

const apiUrl = (env: Pick<Env, "PLANET_API_URL">) =>
  (env.PLANET_API_URL || "https://api.planet.com").replace(/\/+$/, "");
const tilesUrl = (env: Pick<Env, "PLANET_TILES_URL">) =>
  (env.PLANET_TILES_URL || "https://tiles.planet.com").replace(/\/+$/, "");

/** The request headers of a call with the user's key. @throws ApiError 400 without a key. */
function auth(ctx: ProviderContext, json = true): Record<string, string> {
  if (!ctx.apiKey) throw badRequest("planetApiKey is required for provider PLANET.", { planetApiKey: "required" });
  return { authorization: `Basic ${btoa(`${ctx.apiKey}:`)}`, ...(json ? { "content-type": "application/json" } : {}) };
}

interface PlanetPage {
  features?: Record<string, unknown>[];
  _links?: { _next?: string };
  [member: string]: unknown;
}

/** Our viewtoken of Planet's next-page link (its path and query, which must stay under /data/v1/searches/). */
const tokenOf = (next: string): string =>
  encodeViewtoken({ after: [base64url.encode(new URL(next).pathname + new URL(next).search)] });

function nextPath(viewtoken: string): string {
  const key = decodeViewtoken(viewtoken).after;
  const path = key?.length === 1 ? new TextDecoder().decode(base64url.decode(String(key[0]))) : "";
  if (!path.startsWith("/data/v1/searches/"))
    throw badRequest("Invalid viewtoken: use the nextToken (or the next URL) of a previous page.");
  return path;
}

/** One quick-search page: the first (POST with the body) or the one a viewtoken names (GET). */
async function searchPage(
  ctx: ProviderContext,
  body: Record<string, unknown>,
  ask: PageAsk,
): Promise<Record<string, unknown>> {
  const base = apiUrl(ctx.env);
  const r = ask.viewtoken
    ? await providerFetch("PLANET", "the search", base + nextPath(ask.viewtoken), { headers: auth(ctx, false) })
    : await providerFetch("PLANET", "the search", `${base}/data/v1/quick-search?_page_size=${ask.count}`, {
        method: "POST",
        headers: auth(ctx),
        body: JSON.stringify(body),
      });
  const page = (await r.json()) as PlanetPage;
  const current = ask.viewtoken ?? encodeViewtoken({});
  const links: PageLinks = { currentToken: current, "@id": ctx.url.href };
  if (page._links?._next) {
    links.nextToken = tokenOf(page._links._next);
    const u = new URL(ctx.url);
    u.searchParams.set("viewtoken", links.nextToken);
    links.next = u.href;
  }
  return { ...page, features: page.features ?? [], links };
}

const searchBodyOf = (input: SearchBody) => ({ item_types: [input.data[0]!.itemType], filter: filterOf(input) });

async function orderState(
  ctx: ProviderContext,
  id: string,
): Promise<{ state: string; _links?: { results?: { name: string; location: string }[] }; error_hints?: string[] }> {
  const r = await providerFetch(
    "PLANET",
    "the order status",
    `${apiUrl(ctx.env)}/compute/ops/orders/v2/${encodeURIComponent(id)}`,
    { headers: auth(ctx, false) },
  );
  return r.json();
}

export const planetProvider: Provider = {
  name: "PLANET",
  maxCount: 250,
  minimumSqkm: 1,
  thumbnailCollections: ["PLANET_SCOPE", "PLANET_SKYSAT"],

  check(input, purpose) {
    const d = input.data[0]!;
    const quota = d.itemType ? ITEM_TYPES[d.itemType] : undefined;
    if (!quota)
      throw badRequest(`data[0].itemType must be one of ${Object.keys(ITEM_TYPES).join(", ")} for provider PLANET.`, {
        "data.0.itemType": "PSScene or SkySatCollect",
      });
    if (!d.productBundle || !BUNDLES.includes(d.productBundle))
      throw badRequest(`data[0].productBundle must be one of ${BUNDLES.join(", ")}.`, {
        "data.0.productBundle": "unknown bundle",
      });
    if (purpose === "order" && d.harmonizeTo !== "NONE" && d.harmonizeTo !== "Sentinel-2")
      throw badRequest("data[0].harmonizeTo is required for a Planet order: NONE or Sentinel-2.", {
        "data.0.harmonizeTo": "NONE or Sentinel-2",
      });
    return { quotaCollection: quota };
  },

  bands: () =>
    ["Blue", "Green", "Red", "NIR"].map((b, i) => [
      b,
      { source: "AnalyticMS_SR_clip", bandIndex: i + 1, bitDepth: 16, sampleFormat: "UINT" },
    ]),

  async search(ctx, input, ask) {
    return (await searchPage(ctx, searchBodyOf(input), ask)) as never;
  },

  nativeSearch(ctx, body, ask) {
    const { provider: _p, planetApiKey: _k, ...native } = body;
    return searchPage(ctx, native, ask);
  },

  async thumbnail(ctx, collectionId, productId) {
    const type = THUMBNAIL_TYPES[collectionId]!;
    const r = await providerFetch(
      "PLANET",
      "the thumbnail",
      `${tilesUrl(ctx.env)}/data/v1/item-types/${type}/items/${encodeURIComponent(productId)}/thumb`,
      { headers: auth(ctx, false) },
    );
    return new Response(r.body, { headers: { "content-type": r.headers.get("content-type") ?? "image/png" } });
  },

  async orderItems(ctx, input) {
    const ids = input.data[0]!.itemIds;
    if (ids) return [...new Set(ids)];
    const found: string[] = [];
    let ask: PageAsk = { count: 250, viewtoken: null };
    for (;;) {
      const page = await searchPage(ctx, searchBodyOf(input), ask);
      found.push(...(page.features as { id: string }[]).map((f) => f.id));
      const next = (page.links as PageLinks).nextToken;
      if (!next || found.length > MAX_ITEMS) return found;
      ask = { count: 250, viewtoken: next };
    }
  },

  async deliver(ctx, input, itemId, ref) {
    const d = input.data[0]!;
    if (!ref) {
      const body = {
        name: `eo-edge ${itemId}`,
        products: [{ item_ids: [itemId], item_type: d.itemType, product_bundle: d.productBundle }],
      };
      const r = await providerFetch("PLANET", "the order", `${apiUrl(ctx.env)}/compute/ops/orders/v2`, {
        method: "POST",
        headers: auth(ctx),
        body: JSON.stringify(body),
      });
      return { pending: ((await r.json()) as { id: string }).id };
    }
    const o = await orderState(ctx, ref);
    if (o.state === "failed" || o.state === "cancelled")
      throw new DeliveryError(
        "DELIVERY_FAILED",
        `Planet order ${ref} ${o.state}${o.error_hints?.length ? `: ${o.error_hints.join(" ")}` : "."}`,
      );
    if (o.state !== "success" && o.state !== "partial") return { pending: ref };
    const files = await Promise.all(
      (o._links?.results ?? []).map(async (f) => {
        const r = await providerFetch("PLANET", "a delivered file", f.location, {});
        const base = f.name.split("/").pop()!;
        return {
          name: base.includes("_3B_") ? base.slice(base.indexOf("_3B_") + 4) : base,
          bytes: new Uint8Array(await r.arrayBuffer()),
        };
      }),
    );
    const item = await providerFetch(
      "PLANET",
      "the item",
      `${apiUrl(ctx.env)}/data/v1/item-types/${d.itemType}/items/${encodeURIComponent(itemId)}`,
      { headers: auth(ctx, false) },
    );
    const acquired = ((await item.json()) as { properties?: { acquired?: string } }).properties?.acquired;
    if (!files.some((f) => f.name === "AnalyticMS_SR_clip.tif"))
      throw new DeliveryError(
        "NON_INGESTIBLE",
        `Planet order ${ref} delivered no AnalyticMS_SR_clip.tif to ingest (files: ${files.map((f) => f.name).join(", ") || "none"}).`,
      );
    return {
      files,
      sensingTime: acquired && Number.isFinite(Date.parse(acquired)) ? new Date(acquired).toISOString() : null,
    };
  },
};

/**
 * Catalog routes (STAC API 1.0.0) under the roots /api/v1/catalog/1.0.0, /catalog/v1 and /api/v1/catalog.
 * Handlers parse (schema.ts), call the domain modules and render; links point back into the root that was called.
 */
import type { Env } from "../env";
import type { Api, AuthedRequest } from "../http/router";
import { json, publicBaseUrl } from "../http/base";
import { notFound } from "../http/errors";
import { readJson } from "../http/parse";
import { serveAsset } from "./assets";
import { findCollection, itemExtents, listCollections, renderCollection } from "./collections";
import { distinctPage, distinctSql } from "./distinct";
import { CONFORMANCE, landingPage } from "./landing";
import { planSearch, queryableLookup, searchCollection } from "./query";
import { queryablesDocument } from "./queryables";
import { CatalogUrls, renderItem } from "./render";
import { featureCollection, renderFeatures, type PageLinks } from "./results";
import { searchBodySchema, searchFromBody, searchFromQuery, searchQuerySchema, type SearchRequest } from "./schema";
import { searchPage } from "./search";
import { itemsBackend } from "../storage/backend";

/** Catalog roots: the STAC 1.0.0 root of the spec, the OpenAPI's /catalog/v1 alias and the older /api/v1/catalog. */
export const CATALOG_ROOTS = ["/api/v1/catalog/1.0.0", "/catalog/v1", "/api/v1/catalog"];

/**
 * Route metadata (src/openapi): the discovery routes are public, everything else needs a token. Every catalog route
 * only reads D1: through a read session that may use a replica (RouteMeta `replicaReads`, src/http/replica.ts).
 */
const tag = { tags: ["Catalog"], replicaReads: true };
const open = { ...tag, public: true };
/** The catalog's GETs only read: they may start before the rate limiter's decision (RouteMeta `speculative`). */
const read = { ...tag, speculative: true };
const GEO = { "content-type": "application/geo+json" };
const param = (request: AuthedRequest, name: string): string => decodeURIComponent(request.params[name] ?? "");

/** The account the caller acts for: its token's, or null on public routes called without one. */
const viewer = (request: AuthedRequest): string | null => request.claims?.account ?? null;

async function requireCollection(env: Env, account: string | null, id: string) {
  const c = await findCollection(env, account, id);
  if (!c) throw notFound(`Collection '${id}' not found; GET /collections lists the collections.`);
  return c;
}

/** Runs a search or feature list and renders its page. */
async function respond(env: Env, account: string | null, urls: CatalogUrls, req: SearchRequest, collection: string, links: PageLinks, isSearch: boolean): Promise<Response> {
  const plan = planSearch(req, collection, isSearch);
  const run = async (): Promise<Record<string, unknown>> => {
    if (req.distinct !== undefined) {
      const page = await distinctPage(env, plan, distinctSql(req.distinct, queryableLookup(collection)));
      return featureCollection(urls, page.values, plan.limit, page.next, links, true);
    }
    const page = await searchPage(env, plan);
    return featureCollection(urls, renderFeatures(page.items, urls, req.fields), plan.limit, page.next, links, isSearch);
  };
  // The collection check and the search run concurrently (one D1 round trip of latency instead of two).
  const [, body] = await Promise.all([requireCollection(env, account, collection), run()]);
  return json(body, 200, GEO);
}

/**
 * Registers every catalog route on `api`. The landing page and conformance (every root, both conformance
 * spellings) are public: they describe the service and hold no data, and clients call them without a token
 * (sentinelhub-py's SentinelHubCatalog.get_info() / get_conformance() send none). Everything else needs a bearer token.
 */
export function registerCatalog(api: Api): void {
  for (const root of CATALOG_ROOTS) {
    const urlsOf = (env: Env): CatalogUrls => new CatalogUrls(publicBaseUrl(env) + root);
    const conformance = () => json({ conformsTo: CONFORMANCE });
    api
      .on("GET", root, async (request, env) => json(landingPage(urlsOf(env), await listCollections(env, viewer(request)), publicBaseUrl(env))), { ...open, summary: "STAC landing page" })
      .on("GET", `${root}/conformance`, conformance, { ...open, summary: "Conformance classes" })
      .on("GET", `${root}/conformances`, conformance, { ...open, summary: "Conformance classes (alias)" })
      .on("GET", `${root}/queryables`, (request, env) =>
        json(queryablesDocument("*", `${urlsOf(env).root}/queryables`), 200, { "content-type": "application/schema+json" }), { ...read, summary: "Queryables of every collection (JSON Schema)" })
      .on("GET", `${root}/collections`, async (request, env) => {
        const urls = urlsOf(env);
        const [collections, extents] = await Promise.all([listCollections(env, viewer(request)), itemExtents(env)]);
        return json({
          links: [
            { rel: "root", href: `${urls.root}/`, type: "application/json" },
            { rel: "self", href: `${urls.root}/collections`, type: "application/json" },
            { rel: "parent", href: `${urls.root}/`, type: "application/json" },
          ],
          collections: collections.map((c) => renderCollection(c, extents.get(c.id), urls)),
        });
      }, { ...read, summary: "List collections" })
      .on("GET", `${root}/collections/:collectionId`, async (request, env) => {
        const id = param(request, "collectionId");
        const c = await requireCollection(env, viewer(request), id);
        return json(renderCollection(c, (await itemExtents(env, id)).get(id), urlsOf(env)));
      }, { ...read, summary: "One collection" })
      .on("GET", `${root}/collections/:collectionId/queryables`, async (request, env) => {
        const id = param(request, "collectionId");
        await requireCollection(env, viewer(request), id);
        const urls = urlsOf(env);
        return json(queryablesDocument(id, `${urls.collection(id)}/queryables`), 200, { "content-type": "application/schema+json" });
      }, { ...read, summary: "Queryables of a collection (JSON Schema)" })
      .on("GET", `${root}/collections/:collectionId/items`, async (request, env) => {
        const id = param(request, "collectionId");
        const urls = urlsOf(env);
        const parent = { rel: "parent", href: urls.collection(id), type: "application/json" };
        return respond(env, viewer(request), urls, searchFromQuery(request.query), id, { self: request.url, method: "GET", extra: [parent] }, false);
      }, { ...read, summary: "Items of a collection (OGC API Features)", query: searchQuerySchema.omit({ collections: true }), responseType: GEO["content-type"] })
      .on("GET", `${root}/collections/:collectionId/items/:featureId`, async (request, env) => {
        const [c, id] = [param(request, "collectionId"), param(request, "featureId")];
        await requireCollection(env, viewer(request), c);
        const item = await itemsBackend(env).get(c, id);
        if (!item) throw notFound(`Item '${id}' not found in collection '${c}'.`);
        return json(renderItem(item, urlsOf(env)), 200, GEO);
      }, { ...read, summary: "One item", responseType: GEO["content-type"] })
      .on("GET", `${root}/collections/:collectionId/items/:featureId/assets/:asset`, async (request, env) => {
        const [c, id] = [param(request, "collectionId"), param(request, "featureId")];
        const [, item] = await Promise.all([requireCollection(env, viewer(request), c), itemsBackend(env).get(c, id)]);
        if (!item) throw notFound(`Item '${id}' not found in collection '${c}'.`);
        return serveAsset(request, env, item, param(request, "asset"), urlsOf(env));
      }, { ...read, summary: "An item's asset (HTTP Range supported)" })
      .on("GET", `${root}/search`, async (request, env) => {
        const req = searchFromQuery(request.query);
        return respond(env, viewer(request), urlsOf(env), req, searchCollection(req), { self: request.url, method: "GET" }, true);
      }, { ...read, summary: "Search items (query parameters)", query: searchQuerySchema, responseType: GEO["content-type"] })
      .on("POST", `${root}/search`, async (request, env) => {
        const req = searchFromBody(await readJson(request));
        const urls = urlsOf(env);
        return respond(env, viewer(request), urls, req, searchCollection(req), { self: `${urls.root}/search`, method: "POST" }, true);
      }, { ...tag, summary: "Search items (JSON body)", body: searchBodySchema, responseType: GEO["content-type"] });
  }
}

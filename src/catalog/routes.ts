/**
 * Catalog routes (STAC API 1.0.0) under the roots /api/v1/catalog/1.0.0, /catalog/v1 and /api/v1/catalog.
 * Handlers parse (schema.ts), call the domain modules and render; links point back into the root that was called,
 * at the address of the location that answered.
 */
import type { Env } from "../env";
import type { Api, AuthedRequest } from "../http/router";
import { json, publicBaseUrl } from "../http/base";
import { badRequest, notFound } from "../http/errors";
import { readJson } from "../http/parse";
import { serveAsset } from "./assets";
import { findCollection, itemExtents, listCollections, renderCollection } from "./collections";
import { distinctPage, distinctSql } from "./distinct";
import { CONFORMANCE, landingPage } from "./landing";
import { filterJson, namedCollections, planSearch, queryableLookup } from "./query";
import { federatedItem, federatedPage, isUpstreamToken } from "./federated";
import { queryablesDocument } from "./queryables";
import { CATALOG_TITLE, CatalogUrls, renderItem } from "./render";
import { featureCollection, renderFeatures, type Page, type PageLinks } from "./results";
import { searchBodySchema, searchFromBody, searchFromQuery, searchQuerySchema, type SearchRequest } from "./schema";
import { countMatched, searchPage, withItems } from "./search";
import { itemsBackend } from "../storage/backend";
import { findLocation, primaryLocation } from "../locations/config";

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

/**
 * The base URL of the catalog's links: the configured URL of the location serving the request (src/locations: a
 * request is served as the location whose configured URL it was sent to, never by its Host header), so that STAC
 * clients following links stay in that location's catalog; PUBLIC_BASE_URL without LOCATIONS.
 */
function locationBase(env: Env): string {
  return findLocation(env, env.LOCATION_ID || primaryLocation(env))?.url ?? publicBaseUrl(env);
}

/** The URL of `request` at the answering location's address (the router moved it to PUBLIC_BASE_URL's origin). */
function requestUrl(request: Request, env: Env): string {
  const url = new URL(request.url);
  const base = new URL(locationBase(env));
  [url.protocol, url.host] = [base.protocol, base.host];
  return url.toString();
}

/** The account the caller acts for: its token's, or null on public routes called without one. */
const viewer = (request: AuthedRequest): string | null => request.claims?.account ?? null;

async function requireCollection(env: Env, account: string | null, id: string) {
  const c = await findCollection(env, account, id);
  if (!c) throw notFound(`Collection '${id}' not found; GET /collections lists the collections.`);
  return c;
}

/**
 * Runs a search or feature list over the `named` collections (each must be one the caller sees here: 404
 * otherwise) or, when none is named, over every collection the caller sees here, and renders its page (the first
 * one with the match count).
 */
async function respond(
  env: Env,
  account: string | null,
  urls: CatalogUrls,
  req: SearchRequest,
  named: string[] | undefined,
  links: PageLinks,
  isSearch: boolean,
): Promise<Response> {
  const scope = named ?? (await listCollections(env, account)).map((c) => c.id);
  // a `next` of an upstream archive's search (federated.ts) continues it; the plan is built without it
  const upstreamNext = isUpstreamToken(req.next) ? req.next : undefined;
  // names resolve against the named collections' queryables, else against the item search's (GET /queryables)
  const plan = planSearch(upstreamNext ? { ...req, next: undefined } : req, scope, named ?? []);
  // federation: a search of one built-in an archive serves, with nothing in the local store for it
  const federated = named?.length === 1 && req.distinct === undefined ? named[0]! : undefined;
  const fromArchive = async (next?: string): Promise<Page | undefined> => {
    const page =
      federated === undefined ? undefined : await federatedPage(env, federated, req, plan, filterJson(req), next);
    return (
      page && {
        features: renderFeatures(page.items, urls, req.fields),
        limit: plan.limit,
        next: page.next,
        matched: page.matched,
      }
    );
  };
  const run = async (): Promise<Page> => {
    if (upstreamNext !== undefined) {
      const page = await fromArchive(upstreamNext);
      if (!page)
        throw badRequest(
          `Invalid 'next' ${JSON.stringify(upstreamNext)}: it continues a search of one archive-served collection; use the value of context.next.`,
        );
      return page;
    }
    const readable = await withItems(env, plan);
    if (req.distinct !== undefined) {
      const page = await distinctPage(env, readable, distinctSql(req.distinct, queryableLookup(named ?? [])));
      return { features: page.values, limit: plan.limit, next: page.next };
    }
    // the count is of the whole search: computed with its first page (pystac-client's matched() reads that one)
    const first = plan.position.kind === "offset" && plan.position.offset === 0;
    const [page, matched] = await Promise.all([
      searchPage(env, readable),
      first ? countMatched(env, readable) : undefined,
    ]);
    if (first && page.items.length === 0) {
      const upstream = await fromArchive();
      if (upstream) return upstream;
    }
    return { features: renderFeatures(page.items, urls, req.fields), limit: plan.limit, next: page.next, matched };
  };
  // The collection checks and the search run concurrently (one D1 round trip of latency instead of two).
  const [, page] = await Promise.all([
    Promise.all((named ?? []).map((id) => requireCollection(env, account, id))),
    run(),
  ]);
  return json(featureCollection(urls, page, links, isSearch || req.distinct !== undefined), 200, GEO);
}

/**
 * Registers every catalog route on `api`. The landing page and conformance (every root, both conformance
 * spellings) are public: they describe the service and hold no data, and clients call them without a token
 * (sentinelhub-py's SentinelHubCatalog.get_info() / get_conformance() send none). Everything else needs a bearer token.
 */
export function registerCatalog(api: Api): void {
  for (const root of CATALOG_ROOTS) {
    const urlsOf = (env: Env): CatalogUrls => new CatalogUrls(locationBase(env) + root);
    const conformance = () => json({ conformsTo: CONFORMANCE });
    api
      .on(
        "GET",
        root,
        async (request, env) => {
          const collections = await listCollections(env, viewer(request));
          const newest = await itemsBackend(env).newest(collections.map((c) => c.id));
          return json(landingPage(urlsOf(env), collections, newest, publicBaseUrl(env)));
        },
        { ...open, summary: "STAC landing page" },
      )
      .on("GET", `${root}/conformance`, conformance, { ...open, summary: "Conformance classes" })
      .on("GET", `${root}/conformances`, conformance, { ...open, summary: "Conformance classes (alias)" })
      .on(
        "GET",
        `${root}/queryables`,
        (request, env) =>
          json(queryablesDocument(undefined, `${urlsOf(env).root}/queryables`), 200, {
            "content-type": "application/schema+json",
          }),
        { ...read, summary: "Queryables of the item search (JSON Schema)" },
      )
      .on(
        "GET",
        `${root}/collections`,
        async (request, env) => {
          const urls = urlsOf(env);
          const [collections, extents] = await Promise.all([listCollections(env, viewer(request)), itemExtents(env)]);
          return json({
            links: [
              { rel: "root", href: `${urls.root}/`, type: "application/json", title: CATALOG_TITLE },
              { rel: "self", href: `${urls.root}/collections`, type: "application/json", title: "Collections" },
              { rel: "parent", href: `${urls.root}/`, type: "application/json", title: CATALOG_TITLE },
            ],
            collections: collections.map((c) => renderCollection(c, extents.get(c.id), urls)),
          });
        },
        { ...read, summary: "List collections" },
      )
      .on(
        "GET",
        `${root}/collections/:collectionId`,
        async (request, env) => {
          const id = param(request, "collectionId");
          const c = await requireCollection(env, viewer(request), id);
          return json(renderCollection(c, (await itemExtents(env, id)).get(id), urlsOf(env)));
        },
        { ...read, summary: "One collection" },
      )
      .on(
        "GET",
        `${root}/collections/:collectionId/queryables`,
        async (request, env) => {
          const id = param(request, "collectionId");
          await requireCollection(env, viewer(request), id);
          const urls = urlsOf(env);
          return json(queryablesDocument(id, `${urls.collection(id)}/queryables`), 200, {
            "content-type": "application/schema+json",
          });
        },
        { ...read, summary: "Queryables of a collection (JSON Schema)" },
      )
      .on(
        "GET",
        `${root}/collections/:collectionId/items`,
        async (request, env) => {
          const id = param(request, "collectionId");
          const urls = urlsOf(env);
          const parent = {
            rel: "parent",
            href: urls.collection(id),
            type: "application/json",
            title: `Collection ${id}`,
          };
          return respond(
            env,
            viewer(request),
            urls,
            searchFromQuery(request.query),
            [id],
            { self: requestUrl(request, env), method: "GET", extra: [parent] },
            false,
          );
        },
        {
          ...read,
          summary: "Items of a collection (OGC API Features)",
          query: searchQuerySchema.omit({ collections: true }),
          responseType: GEO["content-type"],
        },
      )
      .on(
        "GET",
        `${root}/collections/:collectionId/items/:featureId`,
        async (request, env) => {
          const [c, id] = [param(request, "collectionId"), param(request, "featureId")];
          await requireCollection(env, viewer(request), c);
          // a built-in an archive serves (type ids of owned collections never collide with them): the archive's item
          const item = (await itemsBackend(env).get(c, id)) ?? (await federatedItem(env, c, id));
          if (!item) throw notFound(`Item '${id}' not found in collection '${c}'.`);
          return json(renderItem(item, urlsOf(env)), 200, GEO);
        },
        { ...read, summary: "One item", responseType: GEO["content-type"] },
      )
      .on(
        "GET",
        `${root}/collections/:collectionId/items/:featureId/assets/:asset`,
        async (request, env) => {
          const [c, id] = [param(request, "collectionId"), param(request, "featureId")];
          const [, item] = await Promise.all([
            requireCollection(env, viewer(request), c),
            itemsBackend(env).get(c, id),
          ]);
          if (!item) throw notFound(`Item '${id}' not found in collection '${c}'.`);
          return serveAsset(request, env, item, param(request, "asset"), urlsOf(env));
        },
        { ...read, summary: "An item's asset (HTTP Range supported)" },
      )
      .on(
        "GET",
        `${root}/search`,
        async (request, env) => {
          const req = searchFromQuery(request.query);
          return respond(
            env,
            viewer(request),
            urlsOf(env),
            req,
            namedCollections(req),
            { self: requestUrl(request, env), method: "GET" },
            true,
          );
        },
        {
          ...read,
          summary: "Search items (query parameters)",
          query: searchQuerySchema,
          responseType: GEO["content-type"],
        },
      )
      .on(
        "POST",
        `${root}/search`,
        async (request, env) => {
          const req = searchFromBody(await readJson(request));
          const urls = urlsOf(env);
          return respond(
            env,
            viewer(request),
            urls,
            req,
            namedCollections(req),
            { self: `${urls.root}/search`, method: "POST" },
            true,
          );
        },
        { ...tag, summary: "Search items (JSON body)", body: searchBodySchema, responseType: GEO["content-type"] },
      );
  }
}

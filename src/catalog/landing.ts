/**
 * Landing page, conformance classes and the catalog's own OpenAPI description (link rel service-desc) and
 * HTML overview (service-doc).
 */
import type { CollectionBase } from "./collections";
import type { CatalogUrls } from "./render";

/** Conformance classes this catalog implements (STAC API 1.0.0, OGC API Features 1 and 3, CQL2). */
export const CONFORMANCE = [
  "https://api.stacspec.org/v1.0.0/core",
  "https://api.stacspec.org/v1.0.0/collections",
  "https://api.stacspec.org/v1.0.0/ogcapi-features",
  "https://api.stacspec.org/v1.0.0/ogcapi-features#fields",
  "https://api.stacspec.org/v1.0.0/ogcapi-features#filter",
  "https://api.stacspec.org/v1.0.0/item-search",
  "https://api.stacspec.org/v1.0.0/item-search#fields",
  "https://api.stacspec.org/v1.0.0/item-search#context",
  "https://api.stacspec.org/v1.0.0/item-search#filter",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
  "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
  "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
  "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
  "http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
  "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
  "http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
  "http://www.opengis.net/spec/cql2/1.0/conf/case-insensitive-comparison",
  "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
  "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus-points",
  "http://www.opengis.net/spec/cql2/1.0/conf/property-property",
];

/** The landing page (a STAC Catalog with conformsTo). */
export function landingPage(urls: CatalogUrls, collections: CollectionBase[]): Record<string, unknown> {
  const r = urls.root;
  return {
    type: "Catalog",
    stac_version: "1.0.0",
    id: "eo-edge",
    title: "EO Edge STAC catalog",
    description: "STAC API 1.0.0 of EO Edge: collections and acquisitions (items) of the Earth-observation archive.",
    conformsTo: CONFORMANCE,
    links: [
      { rel: "self", href: `${r}/`, type: "application/json" },
      { rel: "root", href: `${r}/`, type: "application/json" },
      { rel: "service-desc", href: `${r}/api`, type: "application/vnd.oai.openapi+json;version=3.0", title: "OpenAPI description" },
      { rel: "service-doc", href: `${r}/api.html`, type: "text/html", title: "API overview" },
      { rel: "conformance", href: `${r}/conformance`, type: "application/json", title: "Conformance classes" },
      { rel: "data", href: `${r}/collections`, type: "application/json", title: "Collections" },
      { rel: "search", href: `${r}/search`, type: "application/geo+json", title: "STAC search", method: "GET" },
      { rel: "search", href: `${r}/search`, type: "application/geo+json", title: "STAC search", method: "POST" },
      ...collections.map((c) => ({ rel: "child", href: urls.collection(c.id), type: "application/json", title: c.title })),
    ],
  };
}

const param = (name: string, where: "query" | "path", type: string, description: string, required = false) => ({
  name,
  in: where,
  required: required || where === "path",
  description,
  schema: { type },
});

const COLLECTION_ID = param("collectionId", "path", "string", "Collection id, e.g. sentinel-2-l2a");
const SEARCH_PARAMS = [
  param("collections", "query", "string", "Exactly one collection id", true),
  param("datetime", "query", "string", "RFC 3339 instant or interval; '..' for an open end", true),
  param("bbox", "query", "string", "4 or 6 comma-separated numbers, CRS84"),
  param("intersects", "query", "string", "GeoJSON geometry"),
  param("ids", "query", "string", "Comma-separated item ids"),
  param("limit", "query", "integer", "1..100, default 10"),
  param("fields", "query", "string", "Comma list; '-' prefix excludes"),
  param("filter", "query", "string", "CQL2 text"),
  param("filter-lang", "query", "string", "cql2-text or cql2-json"),
  param("distinct", "query", "string", "Return distinct values of this property ('date' for days)"),
  param("next", "query", "integer", "context.next of the previous page"),
];

const op = (summary: string, parameters: unknown[] = [], extra: Record<string, unknown> = {}) => ({
  summary,
  parameters,
  security: [{ OAuth2: [] }],
  responses: { "200": { description: "OK" }, "400": { description: "Invalid request (error envelope)" } },
  ...extra,
});

/** A compact OpenAPI 3.0 description of the catalog under `root`. */
export function openApi(root: string): Record<string, unknown> {
  return {
    openapi: "3.0.3",
    info: { title: "EO Edge catalog (STAC API 1.0.0)", version: "1.0.0" },
    servers: [{ url: root }],
    components: {
      securitySchemes: { OAuth2: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "/auth/realms/main/protocol/openid-connect/token", scopes: {} } } } },
    },
    paths: {
      "/": { get: op("Landing page") },
      "/conformance": { get: op("Conformance classes") },
      "/collections": { get: op("List collections") },
      "/collections/{collectionId}": { get: op("Get a collection", [COLLECTION_ID]) },
      "/collections/{collectionId}/queryables": { get: op("Queryables (JSON Schema)", [COLLECTION_ID]) },
      "/collections/{collectionId}/items": { get: op("Items of a collection", [COLLECTION_ID, ...SEARCH_PARAMS.slice(1)]) },
      "/collections/{collectionId}/items/{featureId}": { get: op("Get an item", [COLLECTION_ID, param("featureId", "path", "string", "Item id")]) },
      "/collections/{collectionId}/items/{featureId}/assets/{asset}": {
        get: op("Download an asset (HTTP Range supported)", [COLLECTION_ID, param("featureId", "path", "string", "Item id"), param("asset", "path", "string", "Asset key")]),
      },
      "/search": {
        get: op("Search items", SEARCH_PARAMS),
        post: op("Search items", [], { requestBody: { content: { "application/json": { schema: { type: "object" } } } } }),
      },
    },
  };
}

const escape = (s: string): string => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A plain HTML overview of the operations in `openApi(root)`. */
export function openApiHtml(root: string): string {
  const paths = openApi(root).paths as Record<string, Record<string, { summary: string }>>;
  const rows = Object.entries(paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, o]) => `<tr><td>${method.toUpperCase()}</td><td>${escape(root + path)}</td><td>${escape(o.summary)}</td></tr>`),
  );
  return `<!doctype html><html><head><meta charset="utf-8"><title>EO Edge catalog</title></head><body>` +
    `<h1>EO Edge catalog (STAC API 1.0.0)</h1><p>All operations need <code>Authorization: Bearer &lt;token&gt;</code>.</p>` +
    `<table><tr><th>Method</th><th>Path</th><th>Operation</th></tr>${rows.join("")}</table></body></html>`;
}

/**
 * Landing page and conformance classes of the catalog.
 */
import type { CollectionBase } from "./collections";
import { QUERYABLES_REL } from "./queryables";
import { CATALOG_TITLE, type CatalogUrls } from "./render";
import { DOCS_PATH, OPENAPI_PATH, OPENAPI_TYPE } from "../openapi/paths";

/** Conformance classes this catalog implements (STAC API 1.0.0 and its extensions, OGC API Features 1 and 3, CQL2). */
export const CONFORMANCE = [
  "https://api.stacspec.org/v1.0.0/core",
  "https://api.stacspec.org/v1.0.0/collections",
  "https://api.stacspec.org/v1.0.0/ogcapi-features",
  "https://api.stacspec.org/v1.0.0/ogcapi-features#fields",
  "https://api.stacspec.org/v1.0.0/ogcapi-features#sort",
  "https://api.stacspec.org/v1.0.0/ogcapi-features#filter",
  "https://api.stacspec.org/v1.0.0/item-search",
  "https://api.stacspec.org/v1.0.0/item-search#fields",
  "https://api.stacspec.org/v1.0.0/item-search#sort",
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

/**
 * The landing page (a STAC Catalog with conformsTo); `base` is PUBLIC_BASE_URL, under which the whole API's OpenAPI
 * description (service-desc) and its HTML page (service-doc) are served (src/openapi). Its links, each titled: the
 * API descriptions, conformance, collections (data), search (GET and POST), the item search's queryables, a child
 * per collection and, as the `item` relation, the newest item of each collection that has items (`newest`).
 */
export function landingPage(
  urls: CatalogUrls,
  collections: CollectionBase[],
  newest: { collection: string; id: string }[],
  base: string,
): Record<string, unknown> {
  const r = urls.root;
  const titles = new Map(collections.map((c) => [c.id, c.title]));
  return {
    type: "Catalog",
    stac_version: "1.0.0",
    id: "eo-edge",
    title: CATALOG_TITLE,
    description: "STAC API 1.0.0 of EO Edge: collections and acquisitions (items) of the Earth-observation archive.",
    conformsTo: CONFORMANCE,
    links: [
      { rel: "self", href: `${r}/`, type: "application/json", title: CATALOG_TITLE },
      { rel: "root", href: `${r}/`, type: "application/json", title: CATALOG_TITLE },
      {
        rel: "service-desc",
        href: `${base}${OPENAPI_PATH}`,
        type: OPENAPI_TYPE,
        title: "OpenAPI 3.1 description of the EO Edge API",
      },
      { rel: "service-doc", href: `${base}${DOCS_PATH}`, type: "text/html", title: "EO Edge API reference" },
      { rel: "conformance", href: `${r}/conformance`, type: "application/json", title: "Conformance classes" },
      { rel: "data", href: `${r}/collections`, type: "application/json", title: "Collections" },
      { rel: "search", href: `${r}/search`, type: "application/geo+json", title: "STAC search", method: "GET" },
      { rel: "search", href: `${r}/search`, type: "application/geo+json", title: "STAC search", method: "POST" },
      {
        rel: QUERYABLES_REL,
        href: `${r}/queryables`,
        type: "application/schema+json",
        title: "Queryables of the item search",
      },
      ...collections.map((c) => ({
        rel: "child",
        href: urls.collection(c.id),
        type: "application/json",
        title: c.title,
      })),
      ...newest.map((n) => ({
        rel: "item",
        href: urls.item(n.collection, n.id),
        type: "application/geo+json",
        title: `Newest item of ${titles.get(n.collection) ?? n.collection}`,
      })),
    ],
  };
}

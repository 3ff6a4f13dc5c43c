// The archive twin's STAC APIs over data/archive/stac/<archive>/: Earth Search v1 (stac-server: `next` tokens of the
// last item's sort values, `context` + numberMatched/numberReturned) and the Planetary Computer (stac-fastapi-pgstac:
// `token=next:<collection>:<id>`, `context` {limit, returned}). Routes: landing page, /conformance, /collections,
// /collections/{id}, /collections/{id}/items[/{itemId}], /search (GET and POST). Items keep their real asset hrefs.
import { ARCHIVES } from "./store.mjs";
import { matches, parseSearch, SearchError, sortItems } from "./search.mjs";

const CORE = [
  "https://api.stacspec.org/v1.0.0/core",
  "https://api.stacspec.org/v1.0.0/collections",
  "https://api.stacspec.org/v1.0.0/ogcapi-features",
  "https://api.stacspec.org/v1.0.0/item-search",
  "https://api.stacspec.org/v1.0.0/ogcapi-features#query",
  "https://api.stacspec.org/v1.0.0/item-search#query",
  "https://api.stacspec.org/v1.0.0/item-search#sort",
  "https://api.stacspec.org/v1.0.0/item-search#filter",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
  "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
  "http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
  "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
  "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
];

/** Per flavour: landing page identity, limits, token parameter, error codes (as the real services answer). */
const FLAVOURS = {
  "stac-server": {
    id: "earth-search-aws",
    title: "Earth Search by Element 84",
    description: "A STAC API of public datasets on AWS",
    limits: { default: 10, max: 10000 },
    tokenParam: "next",
    conformsTo: [...CORE, "https://api.stacspec.org/v1.0.0/item-search#context"],
    error: (status, description) => ({ code: status === 404 ? "NotFound" : "BadRequest", description }),
  },
  pgstac: {
    id: "microsoft-pc",
    title: "Microsoft Planetary Computer STAC API",
    description:
      "Searchable spatiotemporal metadata describing Earth science datasets hosted by the Microsoft Planetary Computer",
    limits: { default: 10, max: 1000 },
    tokenParam: "token",
    conformsTo: [...CORE, "https://api.stacspec.org/v1.0.0/item-search#fields"],
    error: (status, description) => ({
      code: status === 404 ? "NotFoundError" : "RequestValidationError",
      description,
    }),
  },
};

const send = (res, status, body, type = "application/json") => {
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      "content-type": type,
      "content-length": Buffer.byteLength(text),
      "access-control-allow-origin": "*",
    })
    .end(text);
};
const link = (rel, href, type = "application/json", extra = {}) => ({ rel, type, href, ...extra });
const API_RELS = new Set(["self", "parent", "collection", "root", "items"]);

/** The item as the API serves it: its own links (license, derived_from, ...) plus self/parent/collection/root. */
function present(item, base) {
  const own = (item.links ?? []).filter((l) => !API_RELS.has(l.rel));
  const col = `${base}/collections/${item.collection}`;
  return {
    ...item,
    links: [
      link("self", `${col}/items/${item.id}`, "application/geo+json"),
      link("parent", col),
      link("collection", col),
      link("root", base),
      ...own,
    ],
  };
}

function presentCollection(c, base) {
  const own = (c.links ?? []).filter((l) => !API_RELS.has(l.rel));
  const href = `${base}/collections/${c.id}`;
  return {
    ...c,
    links: [
      link("self", href),
      link("parent", base),
      link("root", base),
      link("items", `${href}/items`, "application/geo+json"),
      ...own,
    ],
  };
}

function landing(archive, flavour, base) {
  const f = FLAVOURS[flavour];
  return {
    type: "Catalog",
    stac_version: "1.0.0",
    id: f.id,
    title: f.title,
    description: f.description,
    conformsTo: f.conformsTo,
    links: [
      link("self", base),
      link("root", base),
      link("conformance", `${base}/conformance`),
      link("data", `${base}/collections`),
      link("search", `${base}/search`, "application/geo+json", { method: "GET" }),
      link("search", `${base}/search`, "application/geo+json", { method: "POST" }),
      ...[...archive.collections.keys()].map((id) => link("child", `${base}/collections/${id}`)),
    ],
  };
}

/** The continuation token after `item`: stac-server's sort values joined by commas, pgstac's `next:<collection>:<id>`. */
const tokenOf = (flavour, item) =>
  flavour === "pgstac"
    ? `next:${item.collection}:${item.id}`
    : `${Date.parse(item.properties?.datetime ?? "") || 0},${item.id},${item.collection}`;
function positionAfter(flavour, token, items) {
  let collection, id;
  if (flavour === "pgstac") [, collection, id] = /^next:([^:]+):(.+)$/.exec(token) ?? [];
  else [id, collection] = token.split(",").slice(-2);
  const i = items.findIndex((it) => it.id === id && it.collection === collection);
  if (!id || i < 0) throw new SearchError(`Invalid paging token: ${token}`);
  return i + 1;
}

/**
 * Runs a search and answers the ItemCollection page. `params`: GET parameters or POST body; `how`: { method, href
 * (GET: the request URL), body (POST) } to build the next link.
 */
function searchPage(archive, flavour, base, params, how) {
  const f = FLAVOURS[flavour];
  const search = parseSearch(params, f.limits);
  const matched = sortItems(
    archive.items.filter((it) => matches(it, search)),
    search.sortby,
  );
  const token = params[f.tokenParam];
  const start = token ? positionAfter(flavour, String(token), matched) : 0;
  const page = matched.slice(start, start + search.limit);
  const links = [link("root", base)];
  if (start + search.limit < matched.length) {
    const next = tokenOf(flavour, page.at(-1));
    if (how.method === "POST")
      links.unshift(
        link("next", `${base}/search`, "application/geo+json", {
          method: "POST",
          body: { ...how.body, [f.tokenParam]: next },
          merge: false,
        }),
      );
    else {
      const url = new URL(how.href);
      url.searchParams.set(f.tokenParam, next);
      links.unshift(link("next", url.href, "application/geo+json", { method: "GET" }));
    }
  }
  const features = page.map((it) => present(it, base));
  const body =
    flavour === "pgstac"
      ? {
          type: "FeatureCollection",
          features,
          links,
          numberReturned: features.length,
          context: { limit: search.limit, returned: features.length },
        }
      : {
          type: "FeatureCollection",
          stac_version: "1.0.0",
          stac_extensions: [],
          context: { limit: search.limit, matched: matched.length, returned: features.length },
          numberMatched: matched.length,
          numberReturned: features.length,
          features,
          links,
        };
  return body;
}

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString();
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    throw new SearchError("Request body is not valid JSON");
  }
}

/**
 * Answers a request under an archive's STAC root. `sub`: the path after the root ("" for the landing page);
 * `twin`: { store, url }. Unknown paths -> 404, bad parameters -> 400, in the flavour's error shape.
 */
export async function serveStac(req, res, archiveName, sub, twin) {
  const { flavour, path } = ARCHIVES[archiveName];
  const archive = twin.store.archives[archiveName];
  const base = `${twin.url}${path}`;
  const fail = (status, message) => send(res, status, FLAVOURS[flavour].error(status, message));
  const url = new URL(req.url, twin.url);
  const get = Object.fromEntries(url.searchParams);
  try {
    if (sub === "" || sub === "/") return send(res, 200, landing(archive, flavour, base));
    if (sub === "/conformance") return send(res, 200, { conformsTo: FLAVOURS[flavour].conformsTo });
    if (sub === "/collections")
      return send(res, 200, {
        collections: [...archive.collections.values()].map((c) => presentCollection(c, base)),
        links: [link("self", `${base}/collections`), link("root", base)],
      });
    if (sub === "/search") {
      if (req.method === "POST") {
        const body = await readBody(req);
        const { [FLAVOURS[flavour].tokenParam]: _, ...rest } = body;
        return send(
          res,
          200,
          searchPage(archive, flavour, base, body, { method: "POST", body: rest }),
          "application/geo+json",
        );
      }
      return send(
        res,
        200,
        searchPage(archive, flavour, base, get, { method: "GET", href: `${base}/search${url.search}` }),
        "application/geo+json",
      );
    }
    const m = /^\/collections\/([^/]+)(\/items(?:\/([^/]+))?)?$/.exec(sub);
    const collection = m && archive.collections.get(decodeURIComponent(m[1]));
    if (!collection) return fail(404, m ? `Collection ${decodeURIComponent(m[1])} does not exist.` : "Not Found");
    if (!m[2]) return send(res, 200, presentCollection(collection, base));
    if (m[3] !== undefined) {
      const item = archive.items.find((it) => it.collection === collection.id && it.id === decodeURIComponent(m[3]));
      return item
        ? send(res, 200, present(item, base), "application/geo+json")
        : fail(404, `Item ${decodeURIComponent(m[3])} in Collection ${collection.id} does not exist.`);
    }
    const params = { ...get, collections: collection.id };
    return send(
      res,
      200,
      searchPage(archive, flavour, base, params, { method: "GET", href: `${base}${sub}${url.search}` }),
      "application/geo+json",
    );
  } catch (e) {
    if (e instanceof SearchError) return fail(400, e.message);
    throw e;
  }
}

/**
 * A local stand-in for Planet's public HTTP APIs, answering with the shapes Planet documents, for the Planet adapter's
 * tests (src/dataimport/providers/planet.ts). Started by vitest.config.ts on a free loopback port; the Worker under
 * test reaches it through PLANET_API_URL / PLANET_TILES_URL.
 * - Data API (developers.planet.com/docs/apis/data/reference): POST /data/v1/quick-search?_page_size=N with
 *   {item_types, filter} (GeometryFilter ignored, DateRangeFilter on `acquired` and RangeFilter on `cloud_cover`
 *   applied, other filters ignored); pages through `_links._next` = GET /data/v1/searches/<id>/results?_page=<n>;
 *   FeatureCollection of PSScene features {id, type, geometry, properties {acquired, cloud_cover, item_type},
 *   _links, _permissions}. Errors: 401 {message} without a valid key, 400 {field, general} for an unknown item type.
 * - Items: GET /data/v1/item-types/PSScene/items/<id> -> the feature; tiles: GET .../items/<id>/thumb -> a PNG
 *   (404 for an unknown item).
 * - Orders API v2 (developers.planet.com/docs/orders/reference): POST /compute/ops/orders/v2 {name, products:
 *   [{item_ids, item_type, product_bundle}]} -> {id, state: "queued", ...}; GET /compute/ops/orders/v2/<id> ->
 *   "running" on the first poll, then "success" with `_links.results` [{name, location, delivery}] (or "failed" for
 *   an item whose id ends in "_bad"); GET /download/<order>/<file> -> the bytes.
 * Auth: HTTP Basic with the API key as user name (Planet's scheme); the one valid key is PLANET_TEST_KEY
 * (./planet-data.mjs, with the items, shared with the tests).
 * For the tests (not Planet's): GET /stub/searches?containing=<text> -> {count}, the quick searches received so far
 * whose body contains the text (e.g. a subscription's unique timeRange.from), to count the provider calls of a flow.
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { resolve } from "node:path";
import { footprint, PLANET_ITEMS, PLANET_TEST_KEY } from "./planet-data.mjs";

/** A 1 x 1 PNG (the thumbnail). */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==",
  "base64",
);

const json = (res, status, body) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

function authorized(req) {
  const h = req.headers.authorization ?? "";
  return h.startsWith("Basic ") && Buffer.from(h.slice(6), "base64").toString() === `${PLANET_TEST_KEY}:`;
}

function feature(base, i) {
  return {
    _links: {
      _self: `${base}/data/v1/item-types/PSScene/items/${i.id}`,
      thumbnail: `${base}/data/v1/item-types/PSScene/items/${i.id}/thumb`,
    },
    _permissions: ["assets.ortho_analytic_4b_sr:download"],
    geometry: footprint,
    id: i.id,
    properties: {
      acquired: i.acquired,
      cloud_cover: i.cloud_cover,
      item_type: "PSScene",
      published: i.acquired,
      gsd: 3.9,
    },
    type: "Feature",
  };
}

/** Items passing the search's DateRangeFilter(acquired) and RangeFilter(cloud_cover), anywhere in its filter tree. */
function matching(filter) {
  const leaves = [];
  const walk = (f) => (Array.isArray(f?.config) && /And|Or/.test(f.type) ? f.config.forEach(walk) : leaves.push(f));
  walk(filter);
  return PLANET_ITEMS.filter((i) =>
    leaves.every((f) => {
      const c = f?.config ?? {};
      if (f?.type === "DateRangeFilter" && f.field_name === "acquired")
        return (
          (!c.gte || Date.parse(i.acquired) >= Date.parse(c.gte)) &&
          (!c.lte || Date.parse(i.acquired) <= Date.parse(c.lte))
        );
      if (f?.type === "RangeFilter" && f.field_name === "cloud_cover")
        return (c.lte === undefined || i.cloud_cover <= c.lte) && (c.gte === undefined || i.cloud_cover >= c.gte);
      return true;
    }),
  );
}

/** Starts the stub; answers its base URL (http://127.0.0.1:<port>). */
export function startPlanetStub() {
  const searches = new Map(); // id -> {items, size}
  const orders = new Map(); // id -> {items, polls}
  const searchBodies = []; // the body of every quick search, in order
  const fixture = readFile(resolve("test/fixtures/dataimport/planet_AnalyticMS_SR_clip.tif"));
  let base = "";
  const page = (res, id, n) => {
    const s = searches.get(id);
    if (!s) return json(res, 404, { message: "Search not found" });
    const slice = s.items.slice(n * s.size, (n + 1) * s.size);
    const more = (n + 1) * s.size < s.items.length;
    json(res, 200, {
      _links: {
        _self: `${base}/data/v1/searches/${id}/results?_page=${n}`,
        ...(more ? { _next: `${base}/data/v1/searches/${id}/results?_page=${n + 1}&_page_size=${s.size}` } : {}),
      },
      features: slice.map((i) => feature(base, i)),
      type: "FeatureCollection",
    });
  };
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const url = new URL(req.url, base);
    if (url.pathname === "/stub/searches")
      return json(res, 200, {
        count: searchBodies.filter((b) => b.includes(url.searchParams.get("containing") ?? "")).length,
      });
    if (url.pathname.startsWith("/download/"))
      return res.writeHead(200, { "content-type": "image/tiff" }).end(await fixture);
    if (!authorized(req))
      return json(res, 401, { message: "Please enter your API key, or email and password.", errors: [] });
    let m;
    if (req.method === "POST" && url.pathname === "/data/v1/quick-search") {
      searchBodies.push(Buffer.concat(chunks).toString());
      const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
      if (!Array.isArray(body.item_types) || body.item_types.some((t) => t !== "PSScene"))
        return json(res, 400, {
          field: { item_types: [{ message: `'${body.item_types}' is not a valid item type` }] },
          general: [{ message: "Invalid item type" }],
        });
      const id = `s${searches.size + 1}`;
      searches.set(id, { items: matching(body.filter), size: Number(url.searchParams.get("_page_size") ?? 250) });
      return page(res, id, 0);
    }
    if (req.method === "GET" && (m = /^\/data\/v1\/searches\/([^/]+)\/results$/.exec(url.pathname)))
      return page(res, m[1], Number(url.searchParams.get("_page") ?? 0));
    if (req.method === "GET" && (m = /^\/data\/v1\/item-types\/PSScene\/items\/([^/]+)$/.exec(url.pathname))) {
      const item = PLANET_ITEMS.find((i) => i.id === m[1]);
      return item ? json(res, 200, feature(base, item)) : json(res, 404, { message: "Item not found" });
    }
    if (req.method === "GET" && (m = /^\/data\/v1\/item-types\/PSScene\/items\/([^/]+)\/thumb$/.exec(url.pathname)))
      return PLANET_ITEMS.some((i) => i.id === m[1])
        ? res.writeHead(200, { "content-type": "image/png" }).end(PNG)
        : json(res, 404, { message: "Item not found" });
    if (req.method === "POST" && url.pathname === "/compute/ops/orders/v2") {
      const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
      const product = body.products?.[0];
      if (!product?.item_ids?.length || product.item_type !== "PSScene")
        return json(res, 400, {
          field: { products: [{ message: "invalid products" }] },
          general: [{ message: "Unable to accept order" }],
        });
      const id = `0000000${orders.size + 1}-aaaa-4bbb-8ccc-dddddddddddd`.slice(-36);
      orders.set(id, { items: product.item_ids, polls: 0, name: body.name });
      return json(res, 202, {
        _links: { _self: `${base}/compute/ops/orders/v2/${id}` },
        id,
        name: body.name,
        state: "queued",
        products: body.products,
      });
    }
    if (req.method === "GET" && (m = /^\/compute\/ops\/orders\/v2\/([^/]+)$/.exec(url.pathname))) {
      const o = orders.get(m[1]);
      if (!o) return json(res, 404, { message: "Order not found" });
      o.polls += 1;
      const state = o.polls < 2 ? "running" : o.items.some((i) => i.endsWith("_bad")) ? "failed" : "success";
      const results =
        state === "success"
          ? o.items.flatMap((i) => [
              {
                delivery: "success",
                name: `${m[1]}/PSScene/${i}_3B_AnalyticMS_SR_clip.tif`,
                location: `${base}/download/${m[1]}/${i}_3B_AnalyticMS_SR_clip.tif`,
              },
            ])
          : [];
      return json(res, 200, {
        _links: { _self: `${base}/compute/ops/orders/v2/${m[1]}`, results },
        id: m[1],
        name: o.name,
        state,
        ...(state === "failed" ? { error_hints: ["Item could not be delivered"] } : {}),
      });
    }
    json(res, 404, { message: "Not Found" });
  });
  return new Promise((done) =>
    server.listen(0, "127.0.0.1", () => {
      base = `http://127.0.0.1:${server.address().port}`;
      server.unref();
      done(base);
    }),
  );
}

/**
 * BYOC collection routes (interface spec 4.6; OpenAPI tag byoc_collection) under `/api/v1/byoc/collections` and
 * `/byoc/v1/collections`: create (201), query (count 1..100, viewtoken, search with | and &), get, update (204),
 * delete (204), copyTiles. Every collection belongs to the token's account; another account gets 404.
 */
import type { Env } from "../env";
import { json } from "../http/base";
import { pagedList, parsePageRequest, parseSearch } from "../http/paging";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { newCollection, updatedCollection } from "./collections";
import { collectionStore, MAX_PAGE, ownCollection } from "./access";
import { collectionJson, type ByocCollection } from "../storage/byoc/model";
import { collectionBody, readBody } from "./schema";
import { deleteCollection, insertCollection, listCollections, saveCollection } from "../storage/byoc/store";
import { collectionSummary } from "./summary";
import { copyTiles, registerTileRoutes } from "./tileRoutes";
import { rewriteItems, tileCount } from "../storage/byoc/tiles";

export const PREFIXES = ["/api/v1/byoc/collections", "/byoc/v1/collections"];
async function render(env: Env, c: ByocCollection): Promise<Record<string, unknown>> {
  return collectionJson(c, await collectionSummary(env, c.id));
}

/**
 * POST: 201 with the collection; 403 when its bucket is another account's (src/buckets/owners.ts). Whichever
 * location the request is sent to, the collection is hosted by its bucket's region (src/locations/regions.ts).
 */
async function create(request: AuthedRequest, env: Env): Promise<Response> {
  const c = newCollection(accountOf(request), await readBody(request, collectionBody));
  await collectionStore(env, c);
  await insertCollection(env, c);
  return json({ data: await render(env, c) }, 201);
}

async function list(request: AuthedRequest, env: Env): Promise<Response> {
  const url = new URL(request.url);
  const page = parsePageRequest(url, MAX_PAGE, 2);
  const rows = await listCollections(env, accountOf(request), parseSearch(url), page);
  const paged = pagedList(url, page, rows, (c) => [c.created, c.id]);
  return json({ data: await Promise.all(paged.data.map((c) => render(env, c))), links: paged.links });
}

async function get(request: AuthedRequest, env: Env): Promise<Response> {
  return json({ data: await render(env, await ownCollection(request, env)) });
}

/** PUT: 204; 403 when the (new) bucket is another account's. */
async function update(request: AuthedRequest, env: Env): Promise<Response> {
  const c = await ownCollection(request, env);
  const next = updatedCollection(c, await readBody(request, collectionBody), await tileCount(env, c.id));
  await collectionStore(env, next);
  await saveCollection(env, next, await rewriteItems(env, next));
  return new Response(null, { status: 204 });
}

async function remove(request: AuthedRequest, env: Env): Promise<Response> {
  await deleteCollection(env, (await ownCollection(request, env)).id);
  return new Response(null, { status: 204 });
}

/** OpenAPI metadata shared by the BYOC routes (src/openapi). */
const BYOC = { tags: ["BYOC"] };

/** Registers the BYOC collection and tile routes under both prefixes. */
export function registerByoc(api: Api): void {
  for (const p of PREFIXES) {
    api
      .on("POST", p, create, { ...BYOC, summary: "Create a BYOC collection", body: collectionBody })
      .on("GET", p, list, { ...BYOC, summary: "List the account's BYOC collections (count, viewtoken, search)" })
      .on("GET", `${p}/:collectionId`, get, { ...BYOC, summary: "Get a BYOC collection" })
      .on("PUT", `${p}/:collectionId`, update, { ...BYOC, summary: "Update a BYOC collection", body: collectionBody })
      .on("DELETE", `${p}/:collectionId`, remove, { ...BYOC, summary: "Delete a BYOC collection" })
      .on("POST", `${p}/:collectionId/copyTiles`, copyTiles, {
        ...BYOC,
        summary: "Copy ingested tiles to another collection (toCollection)",
      });
    registerTileRoutes(api, p);
  }
}

/**
 * BYOC tile routes (interface spec 4.7; OpenAPI tag byoc_tile) under a collection prefix: create (201, the tile
 * WAITING, queued for ingestion right after the response), query (count, viewtoken, sort created:asc|desc, exact path, status), get, update
 * (coverGeometry, sensingTime; 204), reingest (204), delete (204), files list and file get (Range); and the
 * collection's copyTiles. HEAD of a file is not routed (the router has no HEAD method).
 */
import type { Env } from "../env";
import { json } from "../http/base";
import { ApiError, badRequest, notFound } from "../http/errors";
import { pagedList, parsePageRequest } from "../http/paging";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { duplicatePath } from "./collections";
import { crsMember, givenTileGeometry, reproject } from "./geometry";
import { crsFromEpsg } from "../raster/crs";
import { getFile, listFiles } from "./files";
import { enqueueIngestion, leaseIngestion, queueIngestion } from "../ingestion/queue";
import { byocType, type ByocCollection, type ByocTile } from "../storage/byoc/model";
import { isUuid } from "../http/ids";
import { collectionStore, MAX_PAGE, ownCollection } from "./access";
import { parseStatus, readBody, tileBody, tileUpdateBody } from "./schema";
import { getCollection } from "../storage/byoc/store";
import { deleteTile, getTile, insertTile, listTiles, tilesToCopy, updateTile } from "../storage/byoc/tiles";

/**
 * OpenAPI BYOCTile JSON; tileGeometry in the tile's CRS (named in its `crs` member): the one given at creation
 * (in CRS84 until ingestion learns the tile's CRS), else the files' extent once ingested.
 */
export function tileJson(t: ByocTile): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: t.id,
    path: t.path,
    status: t.status,
    sensingTime: t.sensingTime,
    created: t.created,
  };
  if (t.tileGeometryGiven && t.tileGeometry) {
    const epsg = t.tileEpsg ?? 4326;
    out.tileGeometry = { crs: crsMember(epsg), ...reproject(t.tileGeometry, crsFromEpsg(4326), crsFromEpsg(epsg)) };
  } else if (t.nativeBbox && t.tileEpsg) {
    const [w, s, e, n] = t.nativeBbox;
    out.tileGeometry = {
      type: "Polygon",
      crs: crsMember(t.tileEpsg),
      coordinates: [
        [
          [w, s],
          [e, s],
          [e, n],
          [w, n],
          [w, s],
        ],
      ],
    };
  }
  if (t.coverGeometry !== null) out.coverGeometry = t.coverGeometry;
  out.additionalData = { failedIngestionCause: t.failedCause, warnings: t.warnings };
  return out;
}

/**
 * Inserts a tile WAITING (409 for a path the collection has) and leases its ingestion, which is queued (QUEUED and
 * its message sent) after the response; 403 when the collection's bucket is not its account's (a collection made
 * before buckets had owners). Returns the tile as created.
 */
async function addTile(
  env: Env,
  ctx: ExecutionContext,
  c: ByocCollection,
  fields: Pick<ByocTile, "path" | "sensingTime" | "coverGeometry"> &
    Partial<Pick<ByocTile, "tileGeometry" | "tileGeometryGiven">>,
): Promise<ByocTile> {
  await collectionStore(env, c);
  const t: ByocTile = {
    id: crypto.randomUUID(),
    collection: c.id,
    account: c.accountId,
    status: "WAITING",
    tileGeometry: null,
    tileEpsg: null,
    nativeBbox: null,
    metersPerPixel: null,
    failedCause: null,
    warnings: null,
    created: new Date().toISOString(),
    ...fields,
  };
  await insertTile(env, t).catch((e: unknown) => {
    throw String(e).includes("UNIQUE") ? duplicatePath(t.path) : e;
  });
  await leaseIngestion(env, t.id, c);
  ctx.waitUntil(queueIngestion(env, t.id, c, "WAITING"));
  return t;
}

async function create(request: AuthedRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
  const c = await ownCollection(request, env);
  const body = await readBody(request, tileBody);
  const sensingTime = body.sensingTime ? new Date(body.sensingTime).toISOString() : null;
  const tileGeometry = body.tileGeometry ? givenTileGeometry(body.tileGeometry) : null;
  const t = await addTile(env, ctx, c, {
    path: body.path,
    sensingTime,
    coverGeometry: body.coverGeometry ?? null,
    tileGeometry,
    tileGeometryGiven: tileGeometry !== null,
  });
  return json({ data: tileJson(t) }, 201);
}

async function list(request: AuthedRequest, env: Env): Promise<Response> {
  const c = await ownCollection(request, env);
  const url = new URL(request.url);
  const sort = url.searchParams.get("sort") ?? "created:asc";
  if (sort !== "created:asc" && sort !== "created:desc")
    throw badRequest(`Invalid sort '${sort.slice(0, 40)}': created:asc or created:desc.`);
  const page = parsePageRequest(url, MAX_PAGE, 2);
  const q = {
    descending: sort === "created:desc",
    path: url.searchParams.get("path"),
    status: parseStatus(url.searchParams.get("status")),
  };
  const paged = pagedList(url, page, await listTiles(env, c.id, q, page), (t) => [t.created, t.id]);
  return json({ data: paged.data.map(tileJson), links: paged.links });
}

/** The caller's tile `:tileId` of its collection. @throws ApiError 404. */
async function ownTile(request: AuthedRequest, env: Env): Promise<{ c: ByocCollection; t: ByocTile }> {
  const c = await ownCollection(request, env);
  const id = String(request.params.tileId ?? "").toLowerCase();
  const t = await getTile(env, c.id, id);
  if (!t) throw notFound(`Tile ${id.slice(0, 64)} not found in BYOC collection ${c.id}.`);
  return { c, t };
}

async function get(request: AuthedRequest, env: Env): Promise<Response> {
  return json({ data: tileJson((await ownTile(request, env)).t) });
}

async function update(request: AuthedRequest, env: Env): Promise<Response> {
  const { c, t } = await ownTile(request, env);
  const body = await readBody(request, tileUpdateBody);
  const next: ByocTile = {
    ...t,
    sensingTime:
      body.sensingTime === undefined ? t.sensingTime : body.sensingTime && new Date(body.sensingTime).toISOString(),
    coverGeometry: body.coverGeometry === undefined ? t.coverGeometry : body.coverGeometry,
  };
  await updateTile(env, c, next);
  return new Response(null, { status: 204 });
}

/**
 * Reingest from any state unless an ingestion of the tile is under way (400): so also a tile QUEUED or INGESTING
 * whose Worker was killed or whose message was lost, once its lease expired.
 */
async function reingest(request: AuthedRequest, env: Env): Promise<Response> {
  const { c, t } = await ownTile(request, env);
  if (!(await enqueueIngestion(env, t.id, c, t.status)))
    throw badRequest(
      `Tile ${t.id} is ${t.status} and its ingestion is under way; reingest it once it is INGESTED or FAILED.`,
    );
  return new Response(null, { status: 204 });
}

async function remove(request: AuthedRequest, env: Env): Promise<Response> {
  const { c, t } = await ownTile(request, env);
  await deleteTile(env, c, t.id);
  return new Response(null, { status: 204 });
}

const sameBands = (a: ByocCollection, b: ByocCollection): boolean =>
  JSON.stringify(a.bands) === JSON.stringify(b.bands);

/**
 * POST copyTiles?toCollection=<uuid>: the source's INGESTED tiles whose path the target lacks become new tiles of
 * the target (queued for ingestion from the target's bucket). 400 without `toCollection` (the spec: a required
 * uuid) or with one that is not a uuid, 404 for a target the caller does not have, 400 unless the target has the
 * same bands or none.
 */
export async function copyTiles(request: AuthedRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
  const from = await ownCollection(request, env);
  const toId = (new URL(request.url).searchParams.get("toCollection") ?? "").trim().toLowerCase();
  if (!isUuid(toId))
    throw badRequest(
      toId
        ? `toCollection '${toId.slice(0, 64)}' is not a collection id (a uuid).`
        : "The query parameter toCollection (the target collection's id) is required.",
      { toCollection: "a uuid is required" },
    );
  const to = await getCollection(env, accountOf(request), toId);
  if (!to) throw notFound(`Target BYOC collection ${toId} not found.`);
  if (to.bands.length && !sameBands(from, to))
    throw new ApiError(400, `Collection ${to.id} has other bands than ${from.id}; copy needs the same bands or none.`);
  for (const t of await tilesToCopy(env, from.id, to.id)) await addTile(env, ctx, to, t);
  return new Response(null, { status: 204 });
}

/** OpenAPI metadata shared by the BYOC tile routes (src/openapi). */
const TILES = { tags: ["BYOC"] };

/** Registers the tile routes under collection prefix `p`. */
export function registerTileRoutes(api: Api, p: string): void {
  const t = `${p}/:collectionId/tiles`;
  api
    .on("POST", t, create, { ...TILES, summary: "Create a tile (its files are ingested on the queue)", body: tileBody })
    .on("GET", t, list, { ...TILES, summary: "List a collection's tiles (count, viewtoken, sort, path, status)" })
    .on("GET", `${t}/:tileId`, get, { ...TILES, summary: "Get a tile" })
    .on("PUT", `${t}/:tileId`, update, { ...TILES, summary: "Update a tile", body: tileUpdateBody })
    .on("DELETE", `${t}/:tileId`, remove, { ...TILES, summary: "Delete a tile" })
    .on("POST", `${t}/:tileId/reingest`, reingest, { ...TILES, summary: "Ingest a tile again" })
    .on(
      "GET",
      `${t}/:tileId/files`,
      async (request, env) => {
        const { c, t } = await ownTile(request, env);
        return listFiles(env, c, t);
      },
      { ...TILES, summary: "List a tile's files" },
    )
    .on(
      "GET",
      `${t}/:tileId/files/:file+`,
      async (request, env) => {
        const { c, t } = await ownTile(request, env);
        return getFile(request, env, c, t);
      },
      {
        ...TILES,
        summary: "A tile file's bytes (Range supported; HEAD gives its size)",
        responseType: "application/octet-stream",
      },
    );
}

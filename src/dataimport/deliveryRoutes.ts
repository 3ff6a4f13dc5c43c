/**
 * Delivery routes of an order (`/orders/:orderId/deliveries`) or a subscription (`/subscriptions/:subscriptionId/
 * deliveries`), interface spec 4.12: list (status, count, viewtoken), get, files (list; get with Range; HEAD gives
 * the size), archive (create, status, download with Range: only DONE), tiles (the BYOC tiles made at ingestion,
 * last 3 months). Files and archives need a DONE delivery (409 otherwise, as the OpenAPI says). Reads answer the
 * D1 rows as the record's engine task (./plugin.ts) left them: no provider call; creating an archive is the one write.
 */
import type { Env } from "../env";
import { json } from "../http/base";
import { ApiError, badRequest, notFound } from "../http/errors";
import { isUuid } from "../http/ids";
import { pagedList, parsePageRequest } from "../http/paging";
import { rangedResponse } from "../http/range";
import type { AuthedRequest } from "../http/router";
import type { ObjectStore } from "../buckets";
import { getCollection } from "../storage/byoc/store";
import { tileStatusSince } from "../storage/byoc/tiles";
import { ARCHIVE_FORMATS, archiveJson, getArchive, requestArchive } from "./archives";
import { collectionBucket } from "./collections";
import { getDelivery, listDeliveries } from "./deliveries";
import { DELIVERY_STATUSES, deliveryJson, type Delivery, type ImportRecord, type RecordKind } from "./model";
import { ownRecord } from "./records";

/** Most deliveries per page (the default too). */
const MAX_DELIVERIES = 100;
/** Delivery tiles older than this are not shown (spec: "only tiles from the last 3 months"), ms. */
const TILE_WINDOW_MS = 92 * 24 * 3600 * 1000;

/** The caller's delivery `:deliveryId` of its record. @throws ApiError 404. */
async function ownDelivery(
  request: AuthedRequest,
  env: Env,
  kind: RecordKind,
): Promise<{ r: ImportRecord; d: Delivery }> {
  const r = await ownRecord(request, env, kind);
  const id = String(request.params.deliveryId ?? "");
  const d = isUuid(id) ? await getDelivery(env, r.id, id.toLowerCase()) : null;
  if (!d) throw notFound(`Delivery ${id.slice(0, 64)} not found in ${kind} ${r.id}.`);
  return { r, d };
}

/** The caller's DONE delivery and the store of its files. @throws ApiError 404, 409 (not DONE). */
async function doneDelivery(
  request: AuthedRequest,
  env: Env,
  kind: RecordKind,
): Promise<{ r: ImportRecord; d: Delivery; store: ObjectStore }> {
  const { r, d } = await ownDelivery(request, env, kind);
  if (d.status !== "DONE")
    throw new ApiError(409, `Delivery ${d.id} is ${d.status}; its files are available once it is DONE.`);
  const c = await getCollection(env, r.account, r.collectionId!);
  if (!c) throw notFound(`The collection of delivery ${d.id} was deleted.`);
  return { r, d, store: await collectionBucket(env, c) };
}

/** Streams `key` of `store` (single Range honoured: 206, 416; HEAD: its size). */
async function objectResponse(request: Request, store: ObjectStore, key: string, type: string): Promise<Response> {
  const gone = () => notFound("File not found.");
  const head = await store.head(key);
  if (!head) throw gone();
  return rangedResponse(
    request,
    head.size,
    { "content-type": type, etag: `"${head.etag}"` },
    async (range) => (await store.get(key, range))?.body ?? null,
    gone,
  );
}

/** The `format` query of the archive routes (default zip). @throws ApiError 400. */
function formatOf(request: Request): string {
  const f = new URL(request.url).searchParams.get("format") ?? "zip";
  if (!(ARCHIVE_FORMATS as readonly string[]).includes(f))
    throw badRequest(`Invalid format '${f.slice(0, 20)}': only zip is supported.`, { format: "zip" });
  return f;
}

/** OpenAPI DeliveryTile rows of a delivery (its BYOC tile, when made within TILE_WINDOW_MS). */
async function deliveryTiles(env: Env, d: Delivery): Promise<{ id: string; deliveryId: string; status: string }[]> {
  if (!d.tileId) return [];
  const since = new Date(Date.now() - TILE_WINDOW_MS).toISOString();
  const t = await tileStatusSince(env, d.tileId, since);
  return t ? [{ id: t.id, deliveryId: d.id, status: t.status }] : [];
}

/** The handlers of one parent kind, for ./routes.ts. */
export const deliveryHandlers = (kind: RecordKind) => ({
  async list(request: AuthedRequest, env: Env): Promise<Response> {
    const r = await ownRecord(request, env, kind);
    const url = new URL(request.url);
    const status = url.searchParams.get("status") || null;
    if (status !== null && !(DELIVERY_STATUSES as readonly string[]).includes(status))
      throw badRequest(`Invalid status '${status.slice(0, 40)}': one of ${DELIVERY_STATUSES.join(", ")}.`, {
        status: "unknown status",
      });
    const page = parsePageRequest(url, MAX_DELIVERIES, 2);
    const paged = pagedList(url, page, await listDeliveries(env, r.id, status, page), (d) => [d.created, d.id]);
    return json({ data: paged.data.map((d) => deliveryJson(d, kind)), links: paged.links });
  },
  async get(request: AuthedRequest, env: Env): Promise<Response> {
    return json(deliveryJson((await ownDelivery(request, env, kind)).d, kind));
  },
  async files(request: AuthedRequest, env: Env): Promise<Response> {
    return json((await doneDelivery(request, env, kind)).d.files);
  },
  async file(request: AuthedRequest, env: Env): Promise<Response> {
    const { d, store } = await doneDelivery(request, env, kind);
    const name = decodeURIComponent(String(request.params.file ?? ""));
    if (!d.files.includes(name)) throw notFound(`Delivery ${d.id} has no file '${name.slice(0, 200)}'.`);
    return objectResponse(request, store, d.prefix + name, "application/octet-stream");
  },
  async createArchive(request: AuthedRequest, env: Env): Promise<Response> {
    const format = formatOf(request);
    const { r, d } = await doneDelivery(request, env, kind);
    const a = {
      delivery: d.id,
      format,
      account: r.account,
      requested: new Date().toISOString(),
      status: "WAITING" as const,
      size: null,
      key: null,
    };
    if (!(await requestArchive(env, a)))
      throw new ApiError(409, `An archive of delivery ${d.id} in format ${format} was already requested.`);
    return json(archiveJson(a));
  },
  async archiveStatus(request: AuthedRequest, env: Env): Promise<Response> {
    const format = formatOf(request);
    const { d } = await ownDelivery(request, env, kind);
    const a = await getArchive(env, d.id, format);
    if (!a) throw notFound(`No ${format} archive of delivery ${d.id} was requested.`);
    return json(archiveJson(a));
  },
  async archive(request: AuthedRequest, env: Env): Promise<Response> {
    const format = formatOf(request);
    const { d, store } = await doneDelivery(request, env, kind);
    const a = await getArchive(env, d.id, format);
    if (!a) throw notFound(`No ${format} archive of delivery ${d.id} was requested.`);
    if (a.status !== "DONE" || !a.key)
      throw new ApiError(409, `The archive of delivery ${d.id} is ${a.status}; only a DONE archive can be downloaded.`);
    return objectResponse(request, store, a.key, "application/zip");
  },
  async tiles(request: AuthedRequest, env: Env): Promise<Response> {
    return json({ data: await deliveryTiles(env, (await ownDelivery(request, env, kind)).d) });
  },
  async tile(request: AuthedRequest, env: Env): Promise<Response> {
    const { d } = await ownDelivery(request, env, kind);
    const id = String(request.params.tileId ?? "").toLowerCase();
    const t = (await deliveryTiles(env, d)).find((x) => x.id === id);
    if (!t)
      throw notFound(
        `Tile ${id.slice(0, 64)} not found in delivery ${d.id} (tiles older than 3 months are not shown).`,
      );
    return json(t);
  },
});

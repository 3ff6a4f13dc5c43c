/**
 * Order and subscription routes (interface spec 4.10, 4.11 and their state tables; OpenAPI dataimport_order,
 * dataimport_subscription): create (a quote: CREATED with its sqkm), query (status, collectionId, count,
 * viewtoken, search, deleted), get, delete, confirm, and for subscriptions cancel. Every rejection of the state
 * tables is a 409 naming the state; insufficient quota on confirm is 403 with {availableQuota, requiredQuota}.
 * Get and query answer the D1 rows as they are (no provider call, no write): the engine task (./plugin.ts) keeps
 * them current.
 */
import type { Env } from "../env";
import { json } from "../http/base";
import { ApiError, badRequest, notFound } from "../http/errors";
import { isUuid } from "../http/ids";
import { pagedList, parsePageRequest, parseSearch } from "../http/paging";
import { accountOf, type AuthedRequest } from "../http/router";
import { boundsSqkm } from "./area";
import { checkTarget, ensureCollection } from "./collections";
import { checkSunset, providerHeaders } from "./deprecation";
import { startImport } from "./plugin";
import { body, contextOf } from "./http";
import {
  FINISHED,
  ORDER_STATUSES,
  recordJson,
  SUBSCRIPTION_STATUSES,
  UNDELETABLE,
  type ImportRecord,
  type RecordKind,
} from "./model";
import { providerOf } from "./providers";
import { confirmCharge, notCreated } from "./quotas";
import { recordBody } from "./schema";
import { dropCreated, getRecord, hideFinished, insertRecord, listRecords, endRecord } from "./store";
import { failCancelledDeliveries } from "./deliveries";

/** Most records per page (the default too). */
export const MAX_RECORDS = 100;
/** Most items one order may hold (OpenAPI PlanetOrderRequest: "at most 500 items can be ordered at once"). */
export const MAX_ORDER_ITEMS = 500;

const STATUSES: Record<RecordKind, readonly string[]> = { order: ORDER_STATUSES, subscription: SUBSCRIPTION_STATUSES };

const answer = (r: ImportRecord, status = 200): Response => json(recordJson(r), status, providerHeaders(r.provider));

/** The caller's record `:orderId` / `:subscriptionId`. @throws ApiError 404. */
export async function ownRecord(request: AuthedRequest, env: Env, kind: RecordKind): Promise<ImportRecord> {
  const id = String((kind === "order" ? request.params.orderId : request.params.subscriptionId) ?? "");
  const r = isUuid(id) ? await getRecord(env, accountOf(request), kind, id.toLowerCase()) : null;
  if (!r) throw notFound(`${kind === "order" ? "Order" : "Subscription"} ${id.slice(0, 64)} not found.`);
  return r;
}

/** POST: a new CREATED record (the quote), its sqkm = max(geodesic area of input.bounds, the provider's minimum) for orders. */
async function create(request: AuthedRequest, env: Env, kind: RecordKind): Promise<Response> {
  const b = await body(request, recordBody);
  const p = providerOf(b.input.provider);
  checkSunset(env, p.name);
  const { quotaCollection } = p.check(b.input, kind);
  const account = accountOf(request);
  if (kind === "subscription" && !b.input.data[0]!.dataFilter?.timeRange?.from)
    throw badRequest("A subscription needs input.data[0].dataFilter.timeRange.from (its start).", {
      "input.data.0.dataFilter.timeRange.from": "required",
    });
  if (b.collectionId) await checkTarget(env, account, b.collectionId, p.bands(b.input));
  const area = boundsSqkm(b.input.bounds);
  const items = kind === "order" ? await p.orderItems(contextOf(request, env, b.input.planetApiKey), b.input) : [];
  if (kind === "order" && items.length === 0)
    throw badRequest("The order's query matches no products: nothing to order.", { input: "matches no products" });
  if (items.length > MAX_ORDER_ITEMS)
    throw badRequest(
      `The order holds ${items.length} products; at most ${MAX_ORDER_ITEMS} can be ordered at once (use a subscription).`,
    );
  const { planetApiKey, ...input } = b.input;
  const created = new Date().toISOString();
  const r: ImportRecord = {
    id: crypto.randomUUID(),
    account,
    kind,
    name: b.name ?? `${kind} ${created}`,
    collectionId: b.collectionId ?? null,
    provider: p.name,
    quotaCollection,
    status: "CREATED",
    sqkm: kind === "order" ? Math.max(area, p.minimumSqkm) : area,
    input,
    apiKey: planetApiKey ?? null,
    items,
    charged: false,
    deleted: false,
    created,
  };
  await insertRecord(env, r);
  return answer(r);
}

/** The list's `status` and `deleted` queries. @throws ApiError 400 for other values. */
function listQuery(url: URL, kind: RecordKind) {
  const status = url.searchParams.get("status") || null;
  if (status !== null && !STATUSES[kind].includes(status))
    throw badRequest(`Invalid status '${status.slice(0, 40)}': one of ${STATUSES[kind].join(", ")}.`, {
      status: "unknown status",
    });
  const deleted = url.searchParams.get("deleted") ?? "false";
  if (deleted !== "true" && deleted !== "false")
    throw badRequest(`Invalid deleted '${deleted.slice(0, 20)}': true or false.`, { deleted: "a boolean" });
  const collectionId = url.searchParams.get("collectionId") || null;
  if (collectionId !== null && !isUuid(collectionId))
    throw badRequest(`Invalid collectionId '${collectionId.slice(0, 64)}': a uuid.`, { collectionId: "a uuid" });
  return {
    status,
    collectionId: collectionId?.toLowerCase() ?? null,
    deleted: deleted === "true",
    search: parseSearch(url),
  };
}

async function list(request: AuthedRequest, env: Env, kind: RecordKind): Promise<Response> {
  const url = new URL(request.url);
  const q = listQuery(url, kind);
  const page = parsePageRequest(url, MAX_RECORDS, 2);
  const paged = pagedList(url, page, await listRecords(env, accountOf(request), kind, q, page), (r) => [
    r.created,
    r.id,
  ]);
  return json({ data: paged.data.map(recordJson), links: paged.links });
}

/**
 * DELETE: CREATED -> gone for good; finished (orders CANCELLED/DONE/FAILED, subscriptions CANCELLED/COMPLETED/FAILED)
 * -> hidden (deleted=true lists it); orders PARTIAL/RUNNING and subscriptions RUNNING -> 409.
 */
async function remove(request: AuthedRequest, env: Env, kind: RecordKind): Promise<Response> {
  const r = await ownRecord(request, env, kind);
  if (UNDELETABLE[kind].includes(r.status))
    throw new ApiError(
      409,
      `The ${kind} ${r.id} is ${r.status} and cannot be deleted${kind === "subscription" ? "; cancel it first" : " until it ends"}.`,
    );
  const done = r.status === "CREATED" ? await dropCreated(env, r.id) : await hideFinished(env, r.id, FINISHED[kind]);
  if (!done) throw new ApiError(409, `The ${kind} ${r.id} changed state meanwhile; query it and try again.`);
  return new Response(null, { status: 204, headers: providerHeaders(r.provider) });
}

/**
 * POST .../confirm: CREATED -> RUNNING, charged to the quota once, the target collection made when none was given
 * (its id in the answer's collectionId), its engine task started (./plugin.ts). 409 unless CREATED; 403 for
 * insufficient quota.
 */
async function confirm(request: AuthedRequest, env: Env, kind: RecordKind): Promise<Response> {
  const r = await ownRecord(request, env, kind);
  if (r.status !== "CREATED") throw notCreated(r, "confirmed", r.status);
  const p = providerOf(r.provider);
  checkSunset(env, p.name);
  await confirmCharge(env, r, crypto.randomUUID());
  const running = (await getRecord(env, r.account, kind, r.id))!;
  await ensureCollection(env, running as ImportRecord & { collectionId: string }, p.bands(running.input as never));
  await startImport(env, running);
  return answer(running);
}

/**
 * POST .../cancel (subscriptions): RUNNING -> CANCELLED (imported data kept; its WAITING deliveries end
 * DELIVERY_FAILED, deliveries.ts failCancelledDeliveries); 409 otherwise.
 */
async function cancel(request: AuthedRequest, env: Env): Promise<Response> {
  const r = await ownRecord(request, env, "subscription");
  if (r.status !== "RUNNING" || !(await endRecord(env, r.id, ["RUNNING"], "CANCELLED")))
    throw new ApiError(409, `The subscription ${r.id} is ${r.status}; only a RUNNING subscription can be cancelled.`);
  await failCancelledDeliveries(env, r.id);
  return answer({ ...r, status: "CANCELLED" });
}

/** The handlers of one kind, for ./routes.ts. */
export const recordHandlers = (kind: RecordKind) => ({
  create: (request: AuthedRequest, env: Env) => create(request, env, kind),
  list: (request: AuthedRequest, env: Env) => list(request, env, kind),
  get: async (request: AuthedRequest, env: Env) => answer(await ownRecord(request, env, kind)),
  remove: (request: AuthedRequest, env: Env) => remove(request, env, kind),
  confirm: (request: AuthedRequest, env: Env) => confirm(request, env, kind),
  cancel,
});

/**
 * The operators' admin API (EO Edge's own; `Authorization: Bearer <ADMIN_TOKEN>`, see ./guard.ts; 404 everywhere
 * while ADMIN_TOKEN is unset). `npm run admin` and `npm run deploy` call it, against a local or a remote deployment
 * alike:
 *   GET    /api/v1/admin/accounts                               accounts, paged (`count`, `viewtoken`, `search`)
 *   POST   /api/v1/admin/accounts                               create (201): name, id?, plan?, policies?, tokenPolicies?, puQuota?
 *   GET    /api/v1/admin/accounts/{accountId}                   one account: plan, limits in force, overrides, PU usage
 *   PATCH  /api/v1/admin/accounts/{accountId}                   set name, plan, policies, tokenPolicies, puQuota (null: the plan's)
 *   GET    /api/v1/admin/accounts/{accountId}/clients           its OAuth clients `{data: {active, inactive}}`
 *   POST   /api/v1/admin/accounts/{accountId}/clients           create a client (201, the secret shown once)
 *   DELETE /api/v1/admin/accounts/{accountId}/clients/{clientId}
 *   POST   /api/v1/admin/accounts/{accountId}/s3keys            create an S3 key (201, the secret shown once)
 *   PUT    /api/v1/admin/accounts/{accountId}/importquotas/{collectionId}  set a third-party import quota {quotaSqkm}
 *   GET    /api/v1/admin/plans                                  the plans
 *   GET    /api/v1/admin/keys                                   the token signing keys (active first)
 *   POST   /api/v1/admin/keys/rotate                            rotate the signing key (old tokens stay valid)
 *   GET    /api/v1/admin/data?prefix=&cursor=                   objects of the DATA bucket (scene files)
 *   PUT    /api/v1/admin/data/{key}                             store a scene file (at most MAX_OBJECT_BYTES)
 *   POST   /api/v1/admin/items                                  upsert STAC items `{items: [...]}` (at most MAX_ITEMS)
 */
import { z } from "zod";
import type { Env } from "../env";
import { json } from "../http/base";
import { badRequest } from "../http/errors";
import { readBytes } from "../http/limits";
import { pagedList, parsePageRequest, parseSearch } from "../http/paging";
import { readJson, validate } from "../http/parse";
import type { Api, AuthedRequest, Handler, RouteMeta } from "../http/router";
import {
  createAccount,
  createAccountSchema,
  getAccount,
  listAccounts,
  listPlans,
  updateAccount,
  updateAccountSchema,
} from "../accounts/manage";
import { createAccountClient, deleteClient, listClients } from "../accounts/clients";
import { createClientSchema } from "../accounts/clientschema";
import { unitsUsage } from "../accounts/units";
import { QUOTA_COLLECTIONS, setImportQuota } from "../accounts/importquotas";
import { createS3Key, MAX_S3_KEYS } from "../buckets/keys";
import { listSigningKeys, rotateSigningKey } from "../auth/rotate";
import { adminOnly } from "./guard";
import { MAX_ITEMS, MAX_OBJECT_BYTES, itemsBodySchema, listData, putData, upsertItems } from "./samples";

/** Most accounts per page. */
const MAX_PAGE = 100;

/** A path parameter, percent-decoded. @throws ApiError 400 for a malformed percent-encoding. */
function param(request: AuthedRequest, name: string): string {
  const raw = String(request.params[name] ?? "");
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest(`Malformed percent-encoding in '${raw.slice(0, 100)}'.`);
  }
}

async function accounts(request: AuthedRequest, env: Env): Promise<Response> {
  const url = new URL(request.url);
  const page = parsePageRequest(url, MAX_PAGE, 2);
  const rows = await listAccounts(env, page, parseSearch(url));
  return json(pagedList(url, page, rows, (a) => [a.created, a.id]));
}

async function postAccount(request: AuthedRequest, env: Env): Promise<Response> {
  return json(await createAccount(env, validate(createAccountSchema, await readJson(request), "account")), 201);
}

async function account(request: AuthedRequest, env: Env): Promise<Response> {
  const a = await getAccount(env, param(request, "accountId"));
  return json({ ...a, processingUnits: await unitsUsage(env, a.id) });
}

async function patchAccount(request: AuthedRequest, env: Env): Promise<Response> {
  const id = param(request, "accountId");
  return json(await updateAccount(env, id, validate(updateAccountSchema, await readJson(request), "account change")));
}

/** The account of the path, which must exist (404 otherwise). */
const existing = async (request: AuthedRequest, env: Env): Promise<string> =>
  (await getAccount(env, param(request, "accountId"))).id;

async function clients(request: AuthedRequest, env: Env): Promise<Response> {
  return json({ data: await listClients(env, await existing(request, env)) });
}

async function postClient(request: AuthedRequest, env: Env): Promise<Response> {
  const id = await existing(request, env);
  return json(
    await createAccountClient(env, id, validate(createClientSchema, await readJson(request), "OAuth client")),
    201,
  );
}

async function removeClient(request: AuthedRequest, env: Env): Promise<Response> {
  await deleteClient(env, await existing(request, env), param(request, "clientId"));
  return new Response(null, { status: 204 });
}

async function postS3Key(request: AuthedRequest, env: Env): Promise<Response> {
  const key = await createS3Key(env, await existing(request, env));
  if (!key)
    throw badRequest(`This account has ${MAX_S3_KEYS} S3 keys, the most it may have: delete one first.`, {
      maxS3Keys: MAX_S3_KEYS,
    });
  return json({ accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey, created: key.created }, 201);
}

const plans = async (_request: AuthedRequest, env: Env): Promise<Response> => json({ data: await listPlans(env) });
const keys = async (_request: AuthedRequest, env: Env): Promise<Response> => json({ data: await listSigningKeys(env) });
const rotate = async (_request: AuthedRequest, env: Env): Promise<Response> => json(await rotateSigningKey(env));

async function data(request: AuthedRequest, env: Env): Promise<Response> {
  const url = new URL(request.url);
  return json(await listData(env, url.searchParams.get("prefix") ?? "", url.searchParams.get("cursor") || undefined));
}

async function putObject(request: AuthedRequest, env: Env): Promise<Response> {
  const bytes = await readBytes(request, MAX_OBJECT_BYTES);
  return json(await putData(env, param(request, "key"), bytes, request.headers.get("content-type") ?? undefined), 201);
}

async function postItems(request: AuthedRequest, env: Env): Promise<Response> {
  const body = validate(itemsBodySchema, await readJson(request), "items");
  return json({ upserted: await upsertItems(env, body.items) });
}

const importQuotaSchema = z.object({ quotaSqkm: z.number().finite().min(0) });

/** PUT .../importquotas/:collectionId: the account's quota (km2) there; 404 for an unknown account, 400 for an unknown collection. */
async function putImportQuota(request: AuthedRequest, env: Env): Promise<Response> {
  const id = await existing(request, env);
  const collection = param(request, "collectionId");
  if (!(QUOTA_COLLECTIONS as readonly string[]).includes(collection))
    throw badRequest(`Unknown quota collection '${collection.slice(0, 40)}': one of ${QUOTA_COLLECTIONS.join(", ")}.`);
  const body = validate(importQuotaSchema, await readJson(request), "import quota");
  return json(await setImportQuota(env, id, collection, body.quotaSqkm));
}

const ADMIN_DOC =
  "EO Edge's admin API for operators: send `Authorization: Bearer <ADMIN_TOKEN>` (the deployment's `ADMIN_TOKEN` " +
  "secret, not an OAuth access token). Without that secret set, every admin path answers 404.";

/** Registers the admin API (paths above): every route public to the bearer-token middleware, guarded by ./guard.ts. */
export function registerAdmin(api: Api): void {
  const base = "/api/v1/admin";
  const on = (method: Parameters<Api["on"]>[0], path: string, handler: Handler, meta: RouteMeta): void =>
    void api.on(method, `${base}${path}`, adminOnly(handler), {
      public: true,
      securityScheme: "AdminToken",
      tags: ["Admin"],
      description: ADMIN_DOC,
      ...meta,
    });
  on("GET", "/accounts", accounts, { summary: "List accounts (paged; search by name or id)" });
  on("POST", "/accounts", postAccount, { summary: "Create an account", body: createAccountSchema, status: 201 });
  on("GET", "/accounts/:accountId", account, {
    summary: "One account: plan, limits in force, overrides, processing units",
  });
  on("PATCH", "/accounts/:accountId", patchAccount, {
    summary: "Set an account's name, plan, rate-limit policies or PU quota (applies within 60 s)",
    body: updateAccountSchema,
  });
  on("GET", "/accounts/:accountId/clients", clients, { summary: "An account's OAuth clients, active and inactive" });
  on("POST", "/accounts/:accountId/clients", postClient, {
    summary: "Create an OAuth client of an account (the secret is shown once)",
    body: createClientSchema,
    status: 201,
  });
  on("DELETE", "/accounts/:accountId/clients/:clientId", removeClient, {
    summary: "Delete an OAuth client of an account",
    status: 204,
  });
  on("POST", "/accounts/:accountId/s3keys", postS3Key, {
    summary: "Create an S3 endpoint key of an account (the secret is shown once)",
    status: 201,
  });
  on("PUT", "/accounts/:accountId/importquotas/:collectionId", putImportQuota, {
    summary: "Set an account's third-party import quota (km2) in one collection",
    body: importQuotaSchema,
  });
  on("GET", "/plans", plans, { summary: "The plans" });
  on("GET", "/keys", keys, {
    summary: "The token signing keys: the active one, and retired ones until their tokens expire",
  });
  on("POST", "/keys/rotate", rotate, {
    summary: "Rotate the token signing key (tokens of the old key stay valid until they expire)",
  });
  on("GET", "/data", data, {
    summary: "Objects of the DATA bucket (scene files) under `prefix`, 1000 per page (`cursor`)",
  });
  on("PUT", "/data/:key+", putObject, {
    summary: `Store a scene file in the DATA bucket (at most ${MAX_OBJECT_BYTES / 1024 / 1024} MiB)`,
    status: 201,
    maxBody: MAX_OBJECT_BYTES,
    bodyTypes: ["application/octet-stream"],
  });
  on("POST", "/items", postItems, {
    summary: `Upsert STAC items into the catalog (at most ${MAX_ITEMS} per call)`,
    body: itemsBodySchema,
  });
}

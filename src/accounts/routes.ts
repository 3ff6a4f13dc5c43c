/**
 * The accounts API (EO Edge's; Sentinel Hub's dashboard does this in its web UI, no public API is documented):
 *   GET    /api/v1/accounts/:accountId                          the account, its plan, limits and PU usage
 *   GET    /api/v1/accounts/:accountId/clients                  active OAuth clients  `{data: [client]}`
 *   GET    /api/v1/accounts/:accountId/clients/inactive         expired and deleted clients `{data: [client]}`
 *   POST   /api/v1/accounts/:accountId/clients                  create (201, with `clientSecret` shown once)
 *   GET    /api/v1/accounts/:accountId/clients/:clientId        one client
 *   DELETE /api/v1/accounts/:accountId/clients/:clientId        delete (204): it moves to the inactive list
 *   GET    /api/v1/accounts/:accountId/s3keys                   the account's S3 endpoint keys `{data: [{accessKeyId, created}]}`
 *   POST   /api/v1/accounts/:accountId/s3keys                   a new key (201, with `secretAccessKey` shown once)
 *   DELETE /api/v1/accounts/:accountId/s3keys/:accessKeyId      delete (204): requests signed with it fail from then on
 * `:accountId` is `me` or the caller's own account id; any other id answers 404.
 */
import type { Env } from "../env";
import { createS3Key, deleteS3Key, listS3Keys, MAX_S3_KEYS } from "../buckets/keys";
import { json } from "../http/base";
import { badRequest, notFound } from "../http/errors";
import { readJson, validate } from "../http/parse";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { unitsUsage } from "./units";
import { accountLimits } from "../ratelimit/plans";
import { createAccountClient, deleteClient, getClient, listClients } from "./clients";
import { createClientSchema } from "./clientschema";

/** The caller's account when the path names it (`me` or its id); 404 for another account. */
function ownAccount(request: AuthedRequest): string {
  const account = accountOf(request);
  const named = String(request.params.accountId);
  if (named !== "me" && named !== account) throw notFound(`No account '${named.slice(0, 100)}' visible to this token.`);
  return account;
}

async function getAccount(request: AuthedRequest, env: Env): Promise<Response> {
  const account = ownAccount(request);
  const [limits, processingUnits] = await Promise.all([accountLimits(env, account), unitsUsage(env, account)]);
  return json({ id: account, ...limits, processingUnits });
}

const activeClients = async (request: AuthedRequest, env: Env): Promise<Response> =>
  json({ data: (await listClients(env, ownAccount(request))).active });

const inactiveClients = async (request: AuthedRequest, env: Env): Promise<Response> =>
  json({ data: (await listClients(env, ownAccount(request))).inactive });

async function postClient(request: AuthedRequest, env: Env): Promise<Response> {
  const account = ownAccount(request);
  const body = validate(createClientSchema, await readJson(request), "OAuth client");
  return json(await createAccountClient(env, account, body), 201, { "cache-control": "no-store" });
}

const oneClient = async (request: AuthedRequest, env: Env): Promise<Response> =>
  json(await getClient(env, ownAccount(request), String(request.params.clientId)));

async function removeClient(request: AuthedRequest, env: Env): Promise<Response> {
  await deleteClient(env, ownAccount(request), String(request.params.clientId));
  return new Response(null, { status: 204 });
}

const s3Keys = async (request: AuthedRequest, env: Env): Promise<Response> =>
  json({ data: await listS3Keys(env, ownAccount(request)) });

/** POST .../s3keys: a new key of the account; its secret is in this answer only. 400 at MAX_S3_KEYS keys. */
async function postS3Key(request: AuthedRequest, env: Env): Promise<Response> {
  const key = await createS3Key(env, ownAccount(request));
  if (!key)
    throw badRequest(`This account has ${MAX_S3_KEYS} S3 keys, the most it may have: delete one first.`, {
      maxS3Keys: MAX_S3_KEYS,
    });
  return json({ accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey, created: key.created }, 201, {
    "cache-control": "no-store",
  });
}

async function removeS3Key(request: AuthedRequest, env: Env): Promise<Response> {
  const id = String(request.params.accessKeyId);
  if (!(await deleteS3Key(env, ownAccount(request), id)))
    throw notFound(`No S3 key '${id.slice(0, 100)}' in this account.`);
  return new Response(null, { status: 204 });
}

/** Registers the accounts API (paths above). */
export function registerAccounts(api: Api): void {
  const base = "/api/v1/accounts/:accountId";
  const tag = { tags: ["Accounts"] };
  api
    .on("GET", base, getAccount, { ...tag, summary: "The account: plan, rate-limit policies, processing units" })
    .on("GET", `${base}/clients`, activeClients, { ...tag, summary: "Active OAuth clients" })
    .on("GET", `${base}/clients/inactive`, inactiveClients, { ...tag, summary: "Expired and deleted OAuth clients" })
    .on("POST", `${base}/clients`, postClient, {
      ...tag,
      summary: "Create an OAuth client (the secret is shown once)",
      body: createClientSchema,
      status: 201,
    })
    .on("GET", `${base}/clients/:clientId`, oneClient, { ...tag, summary: "One OAuth client" })
    .on("DELETE", `${base}/clients/:clientId`, removeClient, { ...tag, summary: "Delete an OAuth client", status: 204 })
    .on("GET", `${base}/s3keys`, s3Keys, { ...tag, summary: "The account's S3 endpoint keys (without secrets)" })
    .on("POST", `${base}/s3keys`, postS3Key, {
      ...tag,
      summary: "Create an S3 endpoint key (the secret is shown once)",
      status: 201,
    })
    .on("DELETE", `${base}/s3keys/:accessKeyId`, removeS3Key, {
      ...tag,
      summary: "Delete an S3 endpoint key",
      status: 204,
    });
}

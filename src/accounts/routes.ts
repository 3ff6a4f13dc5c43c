/**
 * The accounts API (EO Edge's; Sentinel Hub's dashboard does this in its web UI, no public API is documented):
 *   GET    /api/v1/accounts/:accountId                          the account, its plan, limits and PU usage
 *   GET    /api/v1/accounts/:accountId/clients                  active OAuth clients  `{data: [client]}`
 *   GET    /api/v1/accounts/:accountId/clients/inactive         expired and deleted clients `{data: [client]}`
 *   POST   /api/v1/accounts/:accountId/clients                  create (201, with `clientSecret` shown once)
 *   GET    /api/v1/accounts/:accountId/clients/:clientId        one client
 *   DELETE /api/v1/accounts/:accountId/clients/:clientId        delete (204): it moves to the inactive list
 * `:accountId` is `me` or the caller's own account id; any other id answers 404.
 */
import type { Env } from "../env";
import { json } from "../http/base";
import { notFound } from "../http/errors";
import { readJson, validate } from "../http/parse";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { unitsUsage } from "./units";
import { accountLimits } from "./plans";
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

/** Registers the accounts API (paths above). */
export function registerAccounts(api: Api): void {
  const base = "/api/v1/accounts/:accountId";
  const tag = { tags: ["Accounts"] };
  api
    .on("GET", base, getAccount, { ...tag, summary: "The account: plan, rate-limit policies, processing units" })
    .on("GET", `${base}/clients`, activeClients, { ...tag, summary: "Active OAuth clients" })
    .on("GET", `${base}/clients/inactive`, inactiveClients, { ...tag, summary: "Expired and deleted OAuth clients" })
    .on("POST", `${base}/clients`, postClient, { ...tag, summary: "Create an OAuth client (the secret is shown once)", body: createClientSchema, status: 201 })
    .on("GET", `${base}/clients/:clientId`, oneClient, { ...tag, summary: "One OAuth client" })
    .on("DELETE", `${base}/clients/:clientId`, removeClient, { ...tag, summary: "Delete an OAuth client", status: 204 });
}

/** Import quota routes (interface spec 4.13; OpenAPI dataImport_getQuotas, dataImport_getQuota). */
import type { Env } from "../env";
import { json } from "../http/base";
import { notFound } from "../http/errors";
import { accountOf, type AuthedRequest } from "../http/router";
import { QUOTA_COLLECTIONS, quotasOf } from "../accounts/importquotas";

/** GET /accountquotas: `{data: [quota]}` for every collection. */
export async function listQuotas(request: AuthedRequest, env: Env): Promise<Response> {
  return json({ data: await quotasOf(env, accountOf(request)) });
}

/** GET /accountquotas/:collectionId. @throws ApiError 404 for an unknown collection. */
export async function getQuota(request: AuthedRequest, env: Env): Promise<Response> {
  const id = String(request.params.collectionId ?? "");
  const q = (await quotasOf(env, accountOf(request))).find((x) => x.collectionId === id);
  if (!q) throw notFound(`Unknown quota collection '${id.slice(0, 40)}': one of ${QUOTA_COLLECTIONS.join(", ")}.`);
  return json(q);
}

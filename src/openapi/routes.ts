/**
 * Serves the OpenAPI 3.1 document of every route of `api` (generated from its route table, ./document.ts) at
 * OPENAPI_PATH and at the alias paths the registration point gives (`<catalog root>/api`: the STAC landing page's
 * former service-desc, kept for clients that remember it). Public: it describes the service and holds no data.
 */
import { json, publicBaseUrl } from "../http/base";
import type { Env } from "../env";
import type { Api, AuthedRequest } from "../http/router";
import { openApiDocument } from "./document";
import { OPENAPI_PATH, OPENAPI_TYPE } from "./paths";

/**
 * Registers the document's routes at OPENAPI_PATH and at each of `aliases` (paths); call after every other route so
 * the table is complete when it is served.
 */
export function registerOpenApi(api: Api, aliases: readonly string[] = []): void {
  const meta = { public: true, summary: "This OpenAPI 3.1 description", tags: ["openapi"], responseType: OPENAPI_TYPE };
  const serve = (_r: AuthedRequest, env: Env): Response =>
    json(openApiDocument(api.routes(), publicBaseUrl(env)), 200, { "content-type": OPENAPI_TYPE });
  api.on("GET", OPENAPI_PATH, serve, meta);
  for (const path of aliases)
    api.on("GET", path, serve, { ...meta, summary: "This OpenAPI 3.1 description (STAC service-desc alias)" });
}

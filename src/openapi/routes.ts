/**
 * Serves the OpenAPI 3.1 document of every route of `api` (generated from its route table, ./document.ts) at
 * OPENAPI_PATH and at `<catalog root>/api` (the STAC landing page's former service-desc, kept for clients that
 * remember it). Public: it describes the service and holds no data.
 */
import { json, publicBaseUrl } from "../http/base";
import type { Env } from "../env";
import type { Api, AuthedRequest } from "../http/router";
import { CATALOG_ROOTS } from "../catalog/routes";
import { openApiDocument } from "./document";
import { OPENAPI_PATH, OPENAPI_TYPE } from "./paths";

/** Registers the document's routes; call after every other route so the table is complete when it is served. */
export function registerOpenApi(api: Api): void {
  const meta = { public: true, summary: "This OpenAPI 3.1 description", tags: ["openapi"], responseType: OPENAPI_TYPE };
  const serve = (_r: AuthedRequest, env: Env): Response =>
    json(openApiDocument(api.routes(), publicBaseUrl(env)), 200, { "content-type": OPENAPI_TYPE });
  api.on("GET", OPENAPI_PATH, serve, meta);
  for (const root of CATALOG_ROOTS) api.on("GET", `${root}/api`, serve, { ...meta, summary: "This OpenAPI 3.1 description (STAC service-desc alias)" });
}

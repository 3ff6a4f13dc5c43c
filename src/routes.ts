/** Every route EO Edge serves, by API area, and the middleware around them (outermost first). */
import { Api } from "./http/router";
import { bearerAuth } from "./auth/middleware";
import { rateLimit } from "./ratelimit/middleware";
import { CERTS_PATH, OIDC_PATH, TOKEN_PATH, certs, openidConfiguration, tokenEndpoint } from "./auth/routes";
import { TOKEN_BODY_BYTES, tokenErrors } from "./auth/oauth";
import { getLocation, listLocations } from "./locations/routes";
import { registerStatistics } from "./statistics/routes";
import { CATALOG_ROOTS, registerCatalog } from "./catalog/routes";
import { registerProcess } from "./process/routes";
import { registerBatch } from "./batch/routes";
import { registerStatisticalBatch } from "./statbatch/routes";
import { registerAsync } from "./async/routes";
import { registerTilingGrids } from "./batch/grids/routes";
import { registerAccounts } from "./accounts/routes";
import { registerAdmin } from "./admin/routes";
import { registerConfiguration } from "./wms/configuration/routes";
import { registerWms } from "./wms/routes";
import { registerZarr } from "./zarr/routes";
import { registerByoc } from "./byoc/routes";
import { registerCollectionMetadata } from "./metadata/routes";
import { registerDataImport } from "./dataimport/routes";
import { registerOpenApi } from "./openapi/routes";
import { tokenFormSchema } from "./openapi/meta";

export function buildApi(): Api {
  const api = new Api();
  // middleware, outermost first: who is calling, then (next) how much that account may call
  api.use(bearerAuth);
  api.use(rateLimit);
  api
    .on("POST", TOKEN_PATH, tokenEndpoint, {
      public: true,
      tags: ["OAuth"],
      summary: "Access token (client credentials grant)",
      body: tokenFormSchema,
      bodyTypes: ["application/x-www-form-urlencoded"],
      maxBody: TOKEN_BODY_BYTES,
      errors: tokenErrors,
    })
    .on("GET", CERTS_PATH, certs, {
      public: true,
      tags: ["OAuth"],
      summary: "JSON Web Key Set of the token signing key",
    })
    .on("GET", OIDC_PATH, openidConfiguration, {
      public: true,
      tags: ["OAuth"],
      summary: "OpenID Provider configuration",
    })
    .on("GET", "/api/v1/metadata/location", listLocations, {
      tags: ["Locations"],
      summary: "List the locations",
      speculative: true,
    })
    .on("GET", "/api/v1/metadata/location/:locationId", getLocation, {
      tags: ["Locations"],
      summary: "One location",
      speculative: true,
    });
  registerProcess(api);
  registerCatalog(api);
  registerStatistics(api);
  registerBatch(api);
  registerStatisticalBatch(api);
  registerAsync(api);
  registerTilingGrids(api);
  registerAccounts(api);
  registerAdmin(api);
  registerConfiguration(api);
  registerWms(api);
  registerZarr(api);
  registerByoc(api);
  registerCollectionMetadata(api);
  registerDataImport(api);
  registerOpenApi(
    api,
    CATALOG_ROOTS.map((root) => `${root}/api`),
  ); // last: it documents the table built above
  return api;
}

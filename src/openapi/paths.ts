/** Where the OpenAPI description and its HTML rendering are served (the landing page's service-desc/service-doc). */

/** The OpenAPI 3.1 document (JSON). */
export const OPENAPI_PATH = "/api/v1/openapi.json";
/** The HTML page rendering it (web/docs.html, a static asset). */
export const DOCS_PATH = "/docs.html";
/** Media type of the document (the landing page's service-desc link type). */
export const OPENAPI_TYPE = "application/vnd.oai.openapi+json;version=3.1";

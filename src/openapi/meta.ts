/** Shared pieces of route metadata (src/http/router.ts RouteMeta) the areas attach to their routes. */
import { z } from "zod";

/**
 * Media types of a request with an evalscript (src/http/body.ts readScriptRequest): the JSON request, or
 * multipart/form-data with a `request` part (that JSON) and an optional `evalscript` part.
 */
export const SCRIPT_BODY = ["application/json", "multipart/form-data"];

/**
 * The token request's form (RFC 6749 section 4.4.2, client authentication 2.3.1: the credentials go in the form or in
 * HTTP Basic). src/auth/routes.ts reads the form field by field with OAuth2 errors, not with this schema.
 */
export const tokenFormSchema = z.object({
  grant_type: z.literal("client_credentials"),
  client_id: z.string().optional().describe("OAuth client id (or HTTP Basic user)"),
  client_secret: z.string().optional().describe("OAuth client secret (or HTTP Basic password)"),
});

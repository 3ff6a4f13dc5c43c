/**
 * OAuth2 client-credentials token endpoint, JWKS and OpenID configuration
 * (paths of Sentinel Hub's Keycloak realm `main`).
 */
import type { Env } from "../env";
import { json, publicBaseUrl } from "../http/base";
import { verifyClient } from "./clients";
import { limitHeaders, refusal, takeToken } from "../ratelimit/limiter";
import { OAuthError, basicCredentials, invalidBasicClient, readTokenForm } from "./oauth";
import { ALG, keySet, signingKey } from "./keys";
import { TOKEN_LIFETIME_S, issueToken, issuer } from "./tokens";

export const TOKEN_PATH = "/auth/realms/main/protocol/openid-connect/token";
export const CERTS_PATH = "/auth/realms/main/protocol/openid-connect/certs";
export const OIDC_PATH = "/auth/realms/main/.well-known/openid-configuration";

/**
 * POST token: form `grant_type=client_credentials` with client_id/client_secret in the body or HTTP Basic.
 * Every failure is an OAuth error `{error, error_description}` (RFC 6749 5.2; registered with RouteMeta `errors`:
 * tokenErrors and `maxBody`: TOKEN_BODY_BYTES, in src/routes.ts); limits in ./oauth.ts. Token requests
 * of a verified client are rate limited by its account's token policies (per client): past them, a 429 OAuth error
 * `too_many_requests` with the rate-limit headers (spec, Errors 2), which every token response carries.
 */
export async function tokenEndpoint(request: Request, env: Env): Promise<Response> {
  // the signing key (a D1 read and key imports in a cold isolate) loads while the client is checked
  signingKey(env).catch(() => undefined);
  const form = await readTokenForm(request);
  const grant = form.get("grant_type");
  if (!grant) throw new OAuthError(400, "invalid_request", "Missing form parameter grant_type.");
  if (grant !== "client_credentials")
    throw new OAuthError(
      400,
      "unsupported_grant_type",
      `Unsupported grant_type '${grant}': only client_credentials is supported.`,
    );
  const basic = basicCredentials(request);
  const clientId = basic?.[0] ?? form.get("client_id");
  const secret = basic?.[1] ?? form.get("client_secret");
  if (!clientId || !secret) throw new OAuthError(400, "invalid_request", "Missing client_id or client_secret.");
  const client = await verifyClient(env, clientId, secret);
  const failed = "Invalid client or Invalid client credentials";
  if (!client) throw basic ? invalidBasicClient(failed) : new OAuthError(401, "invalid_client", failed);
  const verdict = await takeToken(env, { kind: "client", client: client.clientId, account: client.accountId });
  if (!verdict.allowed) throw refusal(verdict, "token requests for this client");
  const token = await issueToken(env, client);
  return json(
    {
      access_token: token,
      expires_in: TOKEN_LIFETIME_S,
      refresh_expires_in: 0,
      token_type: "Bearer",
      "not-before-policy": 0,
      scope: "",
    },
    200,
    { "cache-control": "no-store", pragma: "no-cache", ...limitHeaders(verdict) },
  );
}

/**
 * GET JWKS: the public keys that verify this deployment's tokens, the active signing key first, then keys retired
 * less than RETIRED_KEY_TTL_MS ago (their last tokens are still valid; see ./keys.ts).
 */
export async function certs(_request: Request, env: Env): Promise<Response> {
  return json({ keys: (await keySet(env)).keys.map((k) => k.publicJwk) });
}

/** GET OpenID Provider configuration (issuer and URLs from PUBLIC_BASE_URL, never from the Host header). */
export function openidConfiguration(_request: Request, env: Env): Response {
  const base = publicBaseUrl(env);
  return json({
    issuer: issuer(env),
    token_endpoint: base + TOKEN_PATH,
    jwks_uri: base + CERTS_PATH,
    grant_types_supported: ["client_credentials"],
    token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
    id_token_signing_alg_values_supported: [ALG],
    response_types_supported: ["token"],
    subject_types_supported: ["public"],
  });
}

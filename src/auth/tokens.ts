/**
 * Access tokens: EdDSA (Ed25519) signed JWTs valid for one hour (Sentinel Hub / Keycloak style claims).
 * Issuer: `<PUBLIC_BASE_URL>/auth/realms/main`, from configuration only, and checked on every token.
 */
import { SignJWT, decodeProtectedHeader, jwtVerify, errors as joseErrors } from "jose";
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { publicBaseUrl } from "../http/base";
import { ALG, TOKEN_LIFETIME_S, signingKey, verifyingKey, type VerifyingKey } from "./keys";
import type { ClientInfo } from "./clients";
import { cachedClaims, clientUsable, rememberClaims } from "./verified";
import type { TokenClaims } from "../http/claims";

export { TOKEN_LIFETIME_S };

/** The token issuer of this deployment: `<PUBLIC_BASE_URL>/auth/realms/main`. Throws when PUBLIC_BASE_URL is unset. */
export const issuer = (env: Pick<Env, "PUBLIC_BASE_URL">): string => `${publicBaseUrl(env)}/auth/realms/main`;

/** Signs an access token for a verified client (iss from configuration, exp = now + TOKEN_LIFETIME_S). */
export async function issueToken(env: Env, client: ClientInfo): Promise<string> {
  const key = await signingKey(env);
  const origins = client.spaOrigins ? { "allowed-origins": client.spaOrigins } : {};
  return new SignJWT({
    azp: client.clientId,
    account: client.accountId,
    aid: client.accountId,
    typ: "Bearer",
    ...origins,
  })
    .setProtectedHeader({ alg: ALG, kid: key.kid, typ: "JWT" })
    .setSubject(client.accountId)
    .setIssuer(issuer(env))
    .setIssuedAt()
    .setJti(crypto.randomUUID())
    .setExpirationTime(`${TOKEN_LIFETIME_S}s`)
    .sign(key.privateKey);
}

const unauthorized = (message: string): ApiError =>
  new ApiError(401, message, undefined, "COMMON_UNAUTHORIZED", { "www-authenticate": 'Bearer realm="main"' });

/**
 * The `kid` of a token's protected header, or undefined when the token is not a JWS with a string kid. A
 * deployment's tokens share a handful of headers (one per signing key): their kids are kept by header text
 * (KIDS_KEPT headers of at most 512 characters), so a request decodes none.
 */
function kidOf(token: string): string | undefined {
  const dot = token.indexOf(".");
  if (dot < 0) return undefined;
  const header = token.slice(0, dot);
  if (kids.has(header)) return kids.get(header);
  const kid = decodeKid(token);
  if (header.length <= 512) {
    if (kids.size >= KIDS_KEPT) kids.clear();
    kids.set(header, kid);
  }
  return kid;
}
const kids = new Map<string, string | undefined>();
const KIDS_KEPT = 64;

/** {@link kidOf}, decoded. */
function decodeKid(token: string): string | undefined {
  try {
    const { kid } = decodeProtectedHeader(token);
    return typeof kid === "string" ? kid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies `Authorization: Bearer <jwt>`: signature (EdDSA with the key of this deployment's key set that the
 * token's `kid` names: the active key, or a retired one until its last tokens expired, see ./keys.ts), `exp`, and
 * `iss` equal to {@link issuer}, then that the token's client (`azp`) is still active (see ./verified.ts: a token
 * this isolate verified before is not verified again until its `exp`; a deleted or expired client's tokens stop
 * within CLIENT_RECHECK_MS). Throws a 401 ApiError when the header is missing or malformed, or the token is
 * expired, wrongly signed or signed by an unknown key, from another issuer, lacks the account claims or belongs to
 * a deleted or expired client.
 */
export async function authenticate(request: Request, env: Env): Promise<TokenClaims> {
  const header = request.headers.get("authorization");
  if (!header) throw unauthorized("Missing Authorization header: send 'Authorization: Bearer <access token>'.");
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (!m) throw unauthorized("Malformed Authorization header: expected 'Bearer <access token>'.");
  const token = m[1]!;
  const key = await verifyingKey(env, kidOf(token));
  if (!key) throw unauthorized("Invalid access token: signature or format not accepted.");
  // cached verifications are scoped to the key (its kid and public value) and the issuer
  const scope = `${key.kid} ${key.publicJwk.x} ${issuer(env)}`;
  const cached = cachedClaims(scope, token); // a hit is also moved to the most recent end of the cache
  const claims = cached ?? (await verify(env, key, token));
  if (claims.azp !== undefined && !(await clientUsable(env, claims.azp)))
    throw unauthorized("Access token of a deleted or expired OAuth client: create a client and request a new token.");
  if (!cached) rememberClaims(scope, token, claims);
  return claims;
}

/** Verifies the JWT `token` with `key` (see {@link authenticate}); its claims, or a 401 ApiError. */
async function verify(env: Env, key: VerifyingKey, token: string): Promise<TokenClaims> {
  const iss = issuer(env);
  try {
    const { payload } = await jwtVerify(token, key.publicKey, {
      algorithms: [ALG],
      issuer: iss,
      requiredClaims: ["exp"],
    });
    if (typeof payload.account !== "string" || typeof payload.sub !== "string")
      throw unauthorized("Access token lacks account claims.");
    if (payload.azp !== undefined && typeof payload.azp !== "string")
      throw unauthorized("Access token has a malformed client (azp) claim.");
    return payload as unknown as TokenClaims;
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e instanceof joseErrors.JWTExpired)
      throw unauthorized("Access token expired: request a new one from the token endpoint.");
    if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === "iss")
      throw unauthorized(`Access token from another issuer: this service accepts tokens issued by ${iss}.`);
    throw unauthorized("Invalid access token: signature or format not accepted.");
  }
}

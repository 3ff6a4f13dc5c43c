/**
 * Reading an OAuth 2.0 token request (RFC 6749 sections 2.3.1, 4.4.2) within documented limits, and OAuth's error
 * format (RFC 6749 section 5.2): `{error, error_description}`, never the API envelope.
 */
import { json } from "../http/base";
import { ApiError, renderError } from "../http/errors";
import { readText } from "../http/limits";
import { mediaType } from "../http/parse";

/** Largest token request body: 8 KiB (a client_credentials form is under 200 bytes). */
export const TOKEN_BODY_BYTES = 8 * 1024;
/** Longest value of any token request field (grant_type, client_id, client_secret, scope...), in characters. */
export const TOKEN_FIELD_CHARS = 256;

/** An OAuth error response (RFC 6749 5.2), `cache-control: no-store`. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The `{error, error_description}` JSON response. */
  response(): Response {
    return json({ error: this.error, error_description: this.message }, this.status, {
      "cache-control": "no-store",
      ...this.headers,
    });
  }
}

/** RFC 6749 5.2: failed client authentication through the Authorization header is a 401 with WWW-Authenticate. */
export const invalidBasicClient = (message: string): OAuthError =>
  new OAuthError(401, "invalid_client", message, { "www-authenticate": 'Basic realm="main"' });

/**
 * The token endpoint's errors (its RouteMeta `errors`): OAuthError as itself; the HTTP layer's body-size refusal
 * (ApiError 413: the router's Content-Length check, or readText while reading) as `invalid_request` with that
 * status; the token policies' 429 as `too_many_requests` with its status and rate-limit headers (so every error of
 * the endpoint is OAuth's format, the one requests-oauthlib parses: the API's envelope puts an object in `error`);
 * anything else (a 500) as the API renders it.
 */
export function tokenErrors(err: unknown): Response {
  if (err instanceof OAuthError) return err.response();
  if (err instanceof ApiError && err.status === 413)
    return new OAuthError(413, "invalid_request", err.message).response();
  // the rate limit's refusal keeps its status and headers (Retry-After, X-RateLimit-*, RateLimit-*)
  if (err instanceof ApiError && err.status === 429)
    return new OAuthError(429, "too_many_requests", err.message, err.headers).response();
  return renderError(err);
}

/**
 * Reads the `application/x-www-form-urlencoded` body. Throws OAuthError `invalid_request` 400 for another
 * Content-Type or a field over TOKEN_FIELD_CHARS; ApiError 413 for a body over TOKEN_BODY_BYTES (checked while
 * reading; {@link tokenErrors} answers it as an OAuth error).
 */
export async function readTokenForm(request: Request): Promise<URLSearchParams> {
  if (mediaType(request) !== "application/x-www-form-urlencoded")
    throw new OAuthError(400, "invalid_request", "Send the token request as application/x-www-form-urlencoded.");
  const form = new URLSearchParams(await readText(request, TOKEN_BODY_BYTES));
  for (const [name, value] of form) {
    if (name.length > TOKEN_FIELD_CHARS || value.length > TOKEN_FIELD_CHARS)
      throw new OAuthError(
        400,
        "invalid_request",
        `Form field '${name.slice(0, 32)}' is too long: at most ${TOKEN_FIELD_CHARS} characters.`,
      );
  }
  return form;
}

/**
 * Client credentials from `Authorization: Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 2.3.1);
 * null when the request has no Authorization header. Throws {@link invalidBasicClient} for any other scheme, bad
 * base64, no colon, bad percent-encoding or a part over TOKEN_FIELD_CHARS.
 */
export function basicCredentials(request: Request): [string, string] | null {
  const h = request.headers.get("authorization");
  if (h === null) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(h.trim());
  let decoded: string;
  try {
    decoded = m ? atob(m[1]!) : "";
  } catch {
    decoded = "";
  }
  const i = decoded.indexOf(":");
  if (i < 0)
    throw invalidBasicClient("Malformed Authorization header: expected 'Basic base64(client_id:client_secret)'.");
  const [id, secret] = [decoded.slice(0, i), decoded.slice(i + 1)].map(formDecode);
  if (id === undefined || secret === undefined || id.length > TOKEN_FIELD_CHARS || secret.length > TOKEN_FIELD_CHARS)
    throw invalidBasicClient(
      `Malformed Basic credentials: percent-encoded client_id and client_secret of at most ${TOKEN_FIELD_CHARS} characters each.`,
    );
  return [id, secret];
}

/** application/x-www-form-urlencoded decoding of one value; undefined for a malformed percent-escape. */
function formDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}

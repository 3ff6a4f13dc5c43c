/**
 * The admin API's guard: its calls send `Authorization: Bearer <ADMIN_TOKEN>`, a secret of the deployment
 * (`wrangler secret put ADMIN_TOKEN`, set by `npm run deploy`), never an OAuth access token. Without the secret (or
 * with one shorter than ADMIN_TOKEN_MIN_CHARS) the admin API is off: every admin path answers 404 whatever is sent
 * (the operations are documented in the OpenAPI description anyway; the message tells the operator what is missing). The comparison costs the same whatever the token sent: both are hashed (SHA-256) and the
 * digests compared in constant time (src/http/compare.ts), so neither the content nor the length of the secret leaks.
 */
import type { Env } from "../env";
import { constantTimeEqual } from "../http/compare";
import { ApiError } from "../http/errors";
import type { Handler } from "../http/router";

/** Shortest ADMIN_TOKEN accepted (`npm run deploy` makes 43 characters: 256 random bits, base64url). */
export const ADMIN_TOKEN_MIN_CHARS = 32;

const hex = (b: ArrayBuffer): string => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const sha256 = async (s: string): Promise<string> =>
  hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)));

const unauthorized = (message: string): ApiError =>
  new ApiError(401, message, undefined, "COMMON_UNAUTHORIZED", { "www-authenticate": 'Bearer realm="admin"' });

/**
 * Resolves when `request` carries the admin token. Throws a 404 ApiError when ADMIN_TOKEN is unset or too short,
 * a 401 when the Authorization header is missing or malformed or the token wrong.
 */
export async function requireAdmin(request: Request, env: Pick<Env, "ADMIN_TOKEN">): Promise<void> {
  const expected = env.ADMIN_TOKEN ?? "";
  if (expected.length < ADMIN_TOKEN_MIN_CHARS)
    throw new ApiError(
      404,
      `The admin API is off on this deployment: its ADMIN_TOKEN secret is not set (or shorter than ${ADMIN_TOKEN_MIN_CHARS} characters).`,
    );
  const m = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "");
  if (!m)
    throw unauthorized(
      "The admin API needs 'Authorization: Bearer <ADMIN_TOKEN>' (the deployment's admin secret, not an access token).",
    );
  if (!constantTimeEqual(await sha256(expected), await sha256(m[1]!))) throw unauthorized("Wrong admin token.");
}

/** `handler` behind {@link requireAdmin}; its answers are never cached (they may hold secrets shown once). */
export const adminOnly =
  (handler: Handler): Handler =>
  async (request, env, ctx) => {
    await requireAdmin(request, env);
    const response = await handler(request, env, ctx);
    response.headers.set("cache-control", "no-store");
    return response;
  };

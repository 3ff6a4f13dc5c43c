/** Test helpers: a real OAuth client in D1 and a real token from the token endpoint. */
import { env, exports } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { SignJWT, type JWTPayload } from "jose";
import { createClient } from "../../src/auth/clients";
import { ALG, signingKey } from "../../src/auth/keys";
import worker from "../../src/index";
import type { Env } from "../../src/env";

/** The origin tests send requests to; equal to PUBLIC_BASE_URL in vitest.config.ts. */
export const BASE = "http://localhost";
export const TOKEN_PATH = "/auth/realms/main/protocol/openid-connect/token";
/** The issuer of this deployment's tokens (PUBLIC_BASE_URL + realm). */
export const ISSUER = `${BASE}/auth/realms/main`;

/** The worker under test (its default export's fetch). `path` may be a full URL (another host). */
export const call = (path: string, init?: RequestInit): Promise<Response> =>
  (exports as unknown as { default: Fetcher }).default.fetch(
    new Request(/^https?:/.test(path) ? path : BASE + path, init),
  );

/** The worker's fetch with some bindings replaced (e.g. a production JWT_PRIVATE_JWK). */
export async function callWithEnv(over: Partial<Env>, path: string, init?: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const r = await worker.fetch(new Request(BASE + path, init), { ...(env as unknown as Env), ...over }, ctx);
  await waitOnExecutionContext(ctx);
  return r;
}

/** A POST of an application/x-www-form-urlencoded body (token requests). */
export const form = (o: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(o).toString(),
});

/** Creates a client (of a new account unless `accountId` is given) and returns its credentials. */
export async function testClient(
  expires?: string,
  accountId: string = crypto.randomUUID(),
): Promise<{ client_id: string; client_secret: string }> {
  return createClient(env, { accountId, name: "test", expires });
}

/** Gets a bearer token through the token endpoint (for a new account unless `accountId` is given). */
export async function token(accountId?: string): Promise<string> {
  const c = await testClient(undefined, accountId);
  const r = await call(TOKEN_PATH, form({ grant_type: "client_credentials", ...c }));
  if (r.status !== 200) throw new Error(`token endpoint answered ${r.status}: ${await r.text()}`);
  return ((await r.json()) as { access_token: string }).access_token;
}

/**
 * A JWT signed with the service's own signing key (the one in test D1), with exactly `claims`: the way to make
 * tokens the token endpoint never issues (expired, no account, another issuer) with a valid signature.
 */
export async function signedToken(claims: JWTPayload): Promise<string> {
  const key = await signingKey(env as unknown as Env);
  return new SignJWT(claims).setProtectedHeader({ alg: ALG, kid: key.kid, typ: "JWT" }).sign(key.privateKey);
}

/** fetch with a bearer token. */
export async function authed(path: string, init: RequestInit = {}, bearer?: string): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${bearer ?? (await token())}`);
  return call(path, { ...init, headers });
}

/** The error envelope of a response (`{error:{status,reason,message,code,errors}}`). */
export async function envelope(
  r: Response,
): Promise<{ status: number; reason: string; message: string; code: string; errors: unknown }> {
  return (
    (await r.json()) as { error: { status: number; reason: string; message: string; code: string; errors: unknown } }
  ).error;
}

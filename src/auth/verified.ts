/**
 * Verified access tokens, cached per isolate, and the state of the OAuth client each was issued to.
 *
 * A request with a token this isolate has verified before skips the EdDSA verification: the cached claims are used
 * until the token's own `exp`. A token names its client (`azp`); the client's row (deleted? expires?) is read from D1
 * on first use and again once it is older than CLIENT_RECHECK_MS, so a client deleted or expired elsewhere stops
 * working within CLIENT_RECHECK_MS (30 s) in every isolate, at once in the isolate that deleted it
 * ({@link forgetClient}), and at its `expires` instant exactly (the cached expiry is compared on every request).
 * Tokens without `azp` are never issued by the token endpoint; they are valid until `exp` (only the holder of the
 * signing key can make one). Sizes are bounded: MAX_TOKENS tokens and MAX_CLIENTS clients, least recently used evicted
 * first (the engine's per-isolate Lru).
 */
import { eq } from "drizzle-orm";
import type { Env } from "../env";
import { db } from "../storage/db";
import { oauthClients } from "../storage/schema";
import { approxBytes, Lru } from "../raster/lru";
import type { TokenClaims } from "../http/claims";
import { REQUEST_CACHE_BYTES } from "../raster/memory";

/** How long a client's state read from D1 is trusted, in ms (the delay after which a deletion elsewhere applies). */
export const CLIENT_RECHECK_MS = 30_000;
/** Most tokens and clients kept per isolate. */
export const MAX_TOKENS = 2048;
export const MAX_CLIENTS = 1024;

/** A client's state: `usable` false once deleted (or unknown); `expires` in ms since epoch (null: never). */
interface ClientState {
  usable: boolean;
  expires: number | null;
  /** When it was read from D1, ms since epoch (by {@link authCache}'s clock). */
  at: number;
}

/** The per-isolate caches and their clock (tests replace `clock` to move time, as RateLimiter.clock). */
export const authCache = {
  clock: (): number => Date.now(),
  // sized in bytes (keys too: a token is its key), within the request path's share of the isolate's memory
  tokens: new Lru<TokenClaims>(MAX_TOKENS, (REQUEST_CACHE_BYTES * 2) / 5, approxBytes, true),
  clients: new Lru<ClientState>(MAX_CLIENTS, REQUEST_CACHE_BYTES / 5, approxBytes, true),
};

/**
 * The cached claims of `token` verified under `scope` (the verifying key's id and public value, and the issuer:
 * another key or issuer never hits), or undefined when absent or past `exp`.
 */
export function cachedClaims(scope: string, token: string): TokenClaims | undefined {
  const claims = authCache.tokens.get(`${scope} ${token}`);
  if (claims && claims.exp * 1000 > authCache.clock()) return claims;
  if (claims) authCache.tokens.delete(`${scope} ${token}`);
  return undefined;
}

/** Caches the verified claims of `token` under `scope` (see {@link cachedClaims}) until its `exp`. */
export function rememberClaims(scope: string, token: string, claims: TokenClaims): void {
  authCache.tokens.set(`${scope} ${token}`, claims);
}

async function readClient(env: Pick<Env, "DB">, clientId: string, at: number): Promise<ClientState> {
  const row = await db(env)
    .select({ deleted: oauthClients.deleted, expires: oauthClients.expires })
    .from(oauthClients)
    .where(eq(oauthClients.clientId, clientId))
    .get();
  return { usable: !!row && row.deleted === null, expires: row?.expires ? Date.parse(row.expires) : null, at };
}

/**
 * True while client `clientId` may use its tokens: it exists, is not deleted (as of at most CLIENT_RECHECK_MS ago)
 * and its expiry (if any) is in the future. One D1 read per client per CLIENT_RECHECK_MS per isolate (concurrent
 * first readers each read: only resolved states are cached, never a promise another request's I/O settles).
 * A failed read rejects (the request gets a logged 500) and caches nothing.
 */
export async function clientUsable(env: Pick<Env, "DB">, clientId: string): Promise<boolean> {
  const now = authCache.clock();
  let state = authCache.clients.get(clientId);
  if (!state || now - state.at >= CLIENT_RECHECK_MS || now < state.at) {
    state = await readClient(env, clientId, now);
    authCache.clients.set(clientId, state);
  }
  return state.usable && (state.expires === null || state.expires > now);
}

/** Drops what this isolate knows of client `clientId` (called when it is deleted), so its tokens stop at once here. */
export function forgetClient(clientId: string): void {
  authCache.clients.delete(clientId);
}

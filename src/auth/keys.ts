/**
 * Token signing keys: Ed25519 (JWS alg `EdDSA`, RFC 8037). Ed25519 signatures are not malleable: verification
 * (RFC 8032 section 5.1.7) rejects S >= L, so there is no second valid signature for a token, unlike ECDSA's (r, n-s).
 * Production: the private JWK comes from the `JWT_PRIVATE_JWK` secret (`{"kty":"OKP","crv":"Ed25519","x","d","kid"}`).
 * Local development: a key pair is generated on first use and kept in D1 (`signing_keys`).
 * Keys are cached per isolate, per key source.
 */
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey as JoseKey } from "jose";
import { asc, eq } from "drizzle-orm";
import type { Env } from "../env";
import { db } from "../storage/db";
import { signingKeys } from "../storage/schema";

export const ALG = "EdDSA";

export interface SigningKey {
  kid: string;
  privateKey: JoseKey;
  publicKey: JoseKey;
  publicJwk: JWK;
}

const cache = new Map<string, Promise<SigningKey>>();

/**
 * The active signing key: from `JWT_PRIVATE_JWK` when set, else the D1 key (cached for the isolate's lifetime,
 * keyed by the configured JWK so a changed secret is never served from the cache). Throws when JWT_PRIVATE_JWK is
 * not an Ed25519 private JWK (a deployment error: a logged 500).
 */
export function signingKey(env: Env): Promise<SigningKey> {
  const source = env.JWT_PRIVATE_JWK ?? "";
  let key = cache.get(source);
  if (!key) {
    key = (source ? fromSecret(source) : fromD1(env)).catch((e: unknown) => {
      cache.delete(source);
      throw e;
    });
    cache.set(source, key);
  }
  return key;
}

async function fromJwk(kid: string, priv: JWK): Promise<SigningKey> {
  const { d: _d, ...pub } = priv;
  const publicJwk: JWK = { kty: pub.kty, crv: pub.crv, x: pub.x, kid, alg: ALG, use: "sig" };
  return {
    kid,
    privateKey: (await importJWK({ ...priv, alg: ALG }, ALG)) as JoseKey,
    publicKey: (await importJWK(publicJwk, ALG)) as JoseKey,
    publicJwk,
  };
}

async function fromSecret(secret: string): Promise<SigningKey> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(secret) as JWK;
  } catch {
    throw new Error("JWT_PRIVATE_JWK is not valid JSON: set an Ed25519 private JWK.");
  }
  if (jwk?.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.d !== "string" || typeof jwk.x !== "string")
    throw new Error("JWT_PRIVATE_JWK must be an Ed25519 private JWK: {kty:'OKP', crv:'Ed25519', x, d, kid}.");
  return fromJwk(jwk.kid ?? "prod", jwk);
}

/**
 * The oldest stored key of ALG (ties broken by kid): the one key every isolate agrees on, even when two isolates
 * inserted a key each at first start (kids are random, so the insert's conflict clause cannot stop the second).
 */
function oldestKey(d: ReturnType<typeof db>) {
  return d.select().from(signingKeys).where(eq(signingKeys.alg, ALG)).orderBy(asc(signingKeys.created), asc(signingKeys.kid)).limit(1).get();
}

async function fromD1(env: Env): Promise<SigningKey> {
  const d = db(env);
  const row = await oldestKey(d);
  if (row) return fromJwk(row.kid, JSON.parse(row.privateJwk) as JWK);
  const pair = await generateKeyPair(ALG, { extractable: true });
  const priv = await exportJWK(pair.privateKey);
  const kid = crypto.randomUUID();
  const key = await fromJwk(kid, priv);
  await d
    .insert(signingKeys)
    .values({ kid, alg: ALG, privateJwk: JSON.stringify(priv), publicJwk: JSON.stringify(key.publicJwk), created: new Date().toISOString() })
    .onConflictDoNothing();
  // Another isolate may have inserted its own key at the same time: every isolate uses the oldest (then lowest kid).
  const stored = await oldestKey(d);
  return stored && stored.kid !== kid ? fromJwk(stored.kid, JSON.parse(stored.privateJwk) as JWK) : key;
}

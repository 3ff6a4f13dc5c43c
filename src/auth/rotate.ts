/**
 * Signing-key rotation, for operators (the admin API, src/admin): a new key starts signing and the previous ones
 * retire, verifying the tokens they signed until those expire (RETIRED_KEY_TTL_MS, ./keys.ts), so nobody is logged
 * out. In production the new private key is sealed under the JWT_PRIVATE_JWK secret (./sealed.ts) and the secret's
 * own key is retired by a row that holds only its kid and public key; locally (no secret) it is kept in clear.
 */
import { and, isNull, lt, ne } from "drizzle-orm";
import { exportJWK, generateKeyPair } from "jose";
import type { Env } from "../env";
import { db } from "../storage/db";
import { signingKeys } from "../storage/schema";
import { ALG, RETIRED_KEY_TTL_MS, forgetKeys, keySet, publicJwkOf, secretKey, type VerifyingKey } from "./keys";
import { seal } from "./sealed";

/** A key as the admin API lists it. */
export interface KeyRecord {
  kid: string;
  source: VerifyingKey["source"];
  created: string | null;
  retired: string | null;
  /** True for the key that signs new tokens. */
  active: boolean;
  /** Until when it verifies tokens (ISO 8601): null while it signs. */
  verifiesUntil: string | null;
}

/** The keys that verify this deployment's tokens (read afresh), the active one first. */
export async function listSigningKeys(env: Env): Promise<KeyRecord[]> {
  forgetKeys();
  const set = await keySet(env);
  return set.keys.map((k) => ({
    kid: k.kid,
    source: k.source,
    created: k.created,
    retired: k.retired,
    active: k.kid === set.active.kid,
    verifiesUntil: k.retired === null ? null : new Date(Date.parse(k.retired) + RETIRED_KEY_TTL_MS).toISOString(),
  }));
}

/**
 * Adds a new signing key and retires every other key, in one D1 batch (two concurrent rotations leave exactly one
 * key signing: the later one retires the earlier). Rows of keys retired longer than RETIRED_KEY_TTL_MS ago are
 * deleted then (except the secret's retirement row, without which the secret's key would sign again). This
 * isolate uses the new key at once; the others within KEYSET_TTL_MS (until then they sign with a retired key,
 * whose tokens stay valid). Returns the new key's kid and the kids it retired.
 * @throws Error when JWT_PRIVATE_JWK is malformed (a deployment error).
 */
export async function rotateSigningKey(env: Env): Promise<{ kid: string; retired: string[] }> {
  const secret = env.JWT_PRIVATE_JWK ? await secretKey(env.JWT_PRIVATE_JWK) : undefined;
  const now = new Date();
  const priv = await exportJWK((await generateKeyPair(ALG, { extractable: true })).privateKey);
  const kid = crypto.randomUUID();
  const d = db(env);
  const row = (k: string, privateJwk: string, jwk: typeof priv) =>
    d
      .insert(signingKeys)
      .values({
        kid: k,
        alg: ALG,
        privateJwk,
        publicJwk: JSON.stringify(publicJwkOf(k, jwk)),
        created: now.toISOString(),
      })
      .onConflictDoNothing();
  // the secret's key gets its row (no private key) so that the update below can retire it
  if (secret) await row(secret.kid, "", secret.jwk);
  const [, retired] = await d.batch([
    row(kid, secret ? await seal(secret.kek, kid, priv) : JSON.stringify(priv), priv),
    d
      .update(signingKeys)
      .set({ retired: now.toISOString() })
      .where(and(isNull(signingKeys.retired), ne(signingKeys.kid, kid)))
      .returning({ kid: signingKeys.kid }),
    d
      .delete(signingKeys)
      .where(
        and(
          lt(signingKeys.retired, new Date(now.getTime() - RETIRED_KEY_TTL_MS).toISOString()),
          ne(signingKeys.privateJwk, ""),
        ),
      ),
  ] as const);
  forgetKeys();
  return { kid, retired: retired.map((r) => r.kid) };
}

/**
 * Token signing keys: Ed25519 (JWS alg `EdDSA`, RFC 8037). Ed25519 signatures are not malleable: verification
 * (RFC 8032 section 5.1.7) rejects S >= L, so there is no second valid signature for a token, unlike ECDSA's (r, n-s).
 *
 * The key set: the keys that verify tokens (published in the JWKS, each token names its key by `kid`) and the one
 * of them that signs new tokens (the active key).
 * - Production: the `JWT_PRIVATE_JWK` secret (`{"kty":"OKP","crv":"Ed25519","x","d","kid"}`) is the first signing
 *   key. A rotation (./rotate.ts, `POST /api/v1/admin/keys/rotate`) adds a new key to D1 `signing_keys`, sealed under
 *   that secret (./sealed.ts), and retires the others; the secret's own key is retired by a row with its kid and no
 *   private key. Only rows that unseal under the secret are trusted (clear-text rows are ignored).
 * - Local development (no secret): keys are kept in D1 in clear; the first one is generated on first use.
 * The active key is the oldest key not retired (the secret's counts as the oldest; ties by kid): every isolate
 * agrees on it, even when two isolates inserted a first key each (kids are random, so the insert's conflict clause
 * cannot stop the second). A retired key stops signing and keeps verifying (and stays in the JWKS) for
 * RETIRED_KEY_TTL_MS, so that no token it signed is refused before it expires: nobody is logged out by a rotation.
 *
 * The set is cached per isolate and per secret; after KEYSET_TTL_MS it is read again in the background (the cached
 * set answers meanwhile), and a token naming a kid the set lacks makes it read again at once (at most every
 * KID_RELOAD_MS), so a key rotated in by another isolate signs here within KEYSET_TTL_MS and verifies at once.
 */
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey as JoseKey } from "jose";
import { asc, eq } from "drizzle-orm";
import type { Env } from "../env";
import { db } from "../storage/db";
import { signingKeys } from "../storage/schema";
import { sealingKey, unseal } from "./sealed";

export const ALG = "EdDSA";
/** Lifetime of an access token, in seconds. */
export const TOKEN_LIFETIME_S = 3600;
/** How long an isolate uses a key set before reading it again (in the background), in ms. */
export const KEYSET_TTL_MS = 60_000;
/**
 * How long a retired key keeps verifying, in ms: the lifetime of the last token it signed, plus KEYSET_TTL_MS (an
 * isolate may sign with it that long after its retirement) and 5 minutes of clock skew between isolates.
 */
export const RETIRED_KEY_TTL_MS = TOKEN_LIFETIME_S * 1000 + KEYSET_TTL_MS + 5 * 60_000;
/** Least time between two reads of the key set caused by tokens naming an unknown kid, in ms. */
const KID_RELOAD_MS = 1000;

export interface SigningKey {
  kid: string;
  privateKey: JoseKey;
  publicKey: JoseKey;
  publicJwk: JWK;
}

/** A key of the set as verification and the JWKS see it. */
export interface VerifyingKey {
  kid: string;
  publicKey: JoseKey;
  publicJwk: JWK;
  /** Where its private half is: the `JWT_PRIVATE_JWK` secret, or D1 (sealed in production, clear locally). */
  source: "secret" | "d1";
  /** When it was added (ISO 8601); null for the secret's key. */
  created: string | null;
  /** When it stopped signing (ISO 8601); null while it may sign. */
  retired: string | null;
}

/** The keys that verify (the active one first) and the one that signs. */
export interface KeySet {
  active: SigningKey;
  keys: VerifyingKey[];
}

/** The production key of a `JWT_PRIVATE_JWK` value and the key sealing rotated keys under it. */
export interface SecretKey {
  kid: string;
  jwk: JWK;
  kek: CryptoKey;
}

/**
 * The key of a `JWT_PRIVATE_JWK` value (its `kid`, default "prod") and the sealing key derived from it.
 * @throws Error when it is not an Ed25519 private JWK (a deployment error: a logged 500).
 */
export async function secretKey(secret: string): Promise<SecretKey> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(secret) as JWK;
  } catch {
    throw new Error("JWT_PRIVATE_JWK is not valid JSON: set an Ed25519 private JWK.");
  }
  if (jwk?.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.d !== "string" || typeof jwk.x !== "string")
    throw new Error("JWT_PRIVATE_JWK must be an Ed25519 private JWK: {kty:'OKP', crv:'Ed25519', x, d, kid}.");
  return { kid: jwk.kid ?? "prod", jwk, kek: await sealingKey(jwk.d) };
}

/** The public JWK of private JWK `priv` under `kid`, as the JWKS publishes it. */
export const publicJwkOf = (kid: string, priv: JWK): JWK => ({
  kty: priv.kty,
  crv: priv.crv,
  x: priv.x,
  kid,
  alg: ALG,
  use: "sig",
});

/** One trusted key before import: its private JWK, origin and dates. */
interface Entry {
  kid: string;
  priv: JWK;
  source: "secret" | "d1";
  created: string | null;
  retired: string | null;
}

type Row = typeof signingKeys.$inferSelect;

/** The private JWK of a stored row when this deployment trusts it (see the module comment), else undefined. */
async function trustedJwk(row: Row, secret: SecretKey | undefined): Promise<JWK | undefined> {
  if (secret) return unseal(secret.kek, row.kid, row.privateJwk);
  if (!row.privateJwk.startsWith("{")) return undefined;
  const jwk = JSON.parse(row.privateJwk) as JWK;
  return jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.d === "string" ? jwk : undefined;
}

/** The trusted keys of `rows` (oldest first) and of the secret, in the order that picks the active key. */
async function entries(rows: Row[], secret: SecretKey | undefined): Promise<Entry[]> {
  const out: Entry[] = [];
  if (secret)
    out.push({
      kid: secret.kid,
      priv: secret.jwk,
      source: "secret",
      created: null,
      retired: rows.find((r) => r.kid === secret.kid)?.retired ?? null,
    });
  for (const row of rows) {
    if (row.kid === secret?.kid) continue;
    const priv = await trustedJwk(row, secret);
    if (priv) out.push({ kid: row.kid, priv, source: "d1", created: row.created, retired: row.retired });
  }
  return out;
}

/** The stored keys of ALG, oldest first (ties by kid). */
function storedKeys(env: Pick<Env, "DB">): Promise<Row[]> {
  return db(env)
    .select()
    .from(signingKeys)
    .where(eq(signingKeys.alg, ALG))
    .orderBy(asc(signingKeys.created), asc(signingKeys.kid))
    .all();
}

/** Stores a new clear-text key (local development's first key). */
async function insertFirstKey(env: Pick<Env, "DB">): Promise<void> {
  const pair = await generateKeyPair(ALG, { extractable: true });
  const priv = await exportJWK(pair.privateKey);
  const kid = crypto.randomUUID();
  await db(env)
    .insert(signingKeys)
    .values({
      kid,
      alg: ALG,
      privateJwk: JSON.stringify(priv),
      publicJwk: JSON.stringify(publicJwkOf(kid, priv)),
      created: new Date().toISOString(),
    })
    .onConflictDoNothing();
}

/** True while key `e` verifies at time `now` (ms): not retired, or retired less than RETIRED_KEY_TTL_MS ago. */
const verifies = (e: Entry, now: number): boolean =>
  e.retired === null || Date.parse(e.retired) + RETIRED_KEY_TTL_MS > now;

async function verifying(e: Entry): Promise<VerifyingKey> {
  const publicJwk = publicJwkOf(e.kid, e.priv);
  return {
    kid: e.kid,
    publicKey: (await importJWK(publicJwk, ALG)) as JoseKey,
    publicJwk,
    source: e.source,
    created: e.created,
    retired: e.retired,
  };
}

/** Reads and imports the key set (see the module comment). Throws on a malformed secret or a failed D1 read. */
async function loadKeySet(env: Env, now: number): Promise<KeySet> {
  const secret = env.JWT_PRIVATE_JWK ? await secretKey(env.JWT_PRIVATE_JWK) : undefined;
  let all = await entries(await storedKeys(env), secret);
  if (!secret && !all.some((e) => e.retired === null)) {
    await insertFirstKey(env);
    all = await entries(await storedKeys(env), secret);
  }
  // the secret's key signs when every key is retired (a tampered D1 must not stop the service)
  const chosen = all.find((e) => e.retired === null) ?? all.find((e) => e.source === "secret");
  if (!chosen) throw new Error("No signing key: D1 holds no usable key.");
  const keys = await Promise.all(all.filter((e) => e === chosen || verifies(e, now)).map(verifying));
  keys.sort((a, b) => Number(b.kid === chosen.kid) - Number(a.kid === chosen.kid));
  const active = keys[0]!;
  const privateKey = (await importJWK({ ...chosen.priv, alg: ALG }, ALG)) as JoseKey;
  return { active: { kid: active.kid, privateKey, publicKey: active.publicKey, publicJwk: active.publicJwk }, keys };
}

/** A cached key set: when it was read, and the background read under way (if any). */
interface Cached {
  set: Promise<KeySet>;
  at: number;
  refreshing?: Promise<KeySet>;
}

const cache = new Map<string, Cached>();

/** Reads the set again for `source`; replaces the cached one once read (a failure is logged, the old set kept). */
function refresh(env: Env, source: string, cached: Cached, now: number): Promise<KeySet> {
  const next = loadKeySet(env, now).then((set) => {
    cache.set(source, { set: Promise.resolve(set), at: now });
    return set;
  });
  cached.refreshing = next.finally(() => (cached.refreshing = undefined));
  cached.refreshing.catch(() => undefined);
  next.catch((e: unknown) =>
    console.error("signing keys: reading the key set again failed; the previous set stays in use:", e),
  );
  return next;
}

/**
 * The key set of this deployment (cached, see the module comment). Throws when JWT_PRIVATE_JWK is malformed or the
 * first read fails (a logged 500; nothing is cached, the next request tries again).
 */
export function keySet(env: Env): Promise<KeySet> {
  const source = env.JWT_PRIVATE_JWK ?? "";
  const now = Date.now();
  const cached = cache.get(source);
  if (!cached) {
    const set = loadKeySet(env, now).catch((e: unknown) => {
      cache.delete(source);
      throw e;
    });
    cache.set(source, { set, at: now });
    return set;
  }
  if (!cached.refreshing && (now - cached.at >= KEYSET_TTL_MS || now < cached.at))
    void refresh(env, source, cached, now).catch(() => undefined);
  return cached.set;
}

/** The active signing key (see {@link keySet}). */
export async function signingKey(env: Env): Promise<SigningKey> {
  return (await keySet(env)).active;
}

/**
 * The key that verifies tokens naming `kid`, or undefined when the set has none: the set is then read again first
 * when the cached one is older than KID_RELOAD_MS (a key rotated in by another isolate).
 */
export async function verifyingKey(env: Env, kid: string | undefined): Promise<VerifyingKey | undefined> {
  if (kid === undefined) return undefined;
  const set = await keySet(env);
  const found = set.keys.find((k) => k.kid === kid);
  const source = env.JWT_PRIVATE_JWK ?? "";
  const cached = cache.get(source);
  const now = Date.now();
  if (found || !cached || now - cached.at < KID_RELOAD_MS) return found;
  const fresh = await (cached.refreshing ?? refresh(env, source, cached, now)).catch(() => set);
  return fresh.keys.find((k) => k.kid === kid);
}

/** Forgets this isolate's key sets (after a rotation here, and in tests). */
export function forgetKeys(): void {
  cache.clear();
}

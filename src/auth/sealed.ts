/**
 * Signing keys sealed at rest: a rotated key's private JWK is stored in D1 encrypted under a key derived from the
 * `JWT_PRIVATE_JWK` secret, so that reading D1 (a backup, `wrangler d1 execute`) does not give the power to sign
 * tokens, and writing D1 does not either: AES-GCM authenticates every sealed key, bound to its kid (additional
 * data), so a row the secret's holder did not seal is never trusted.
 *
 * Key derivation: HKDF-SHA-256 (RFC 5869) over the Ed25519 private scalar `d` of the secret (32 random bytes), no
 * salt, info "eo-edge signing-key seal v1", to an AES-256-GCM key (NIST SP 800-38D, 96-bit random IV per seal).
 * Runs on WebCrypto (workerd and Node alike).
 */
import { base64url, type JWK } from "jose";

const INFO = new TextEncoder().encode("eo-edge signing-key seal v1");
/** Prefix of a sealed private JWK in `signing_keys.private_jwk`: `v1.<iv>.<ciphertext>` (both base64url). */
export const SEALED_PREFIX = "v1.";

/**
 * The AES-GCM key sealing rotated signing keys, derived from the secret's private scalar `d` (base64url).
 * @throws Error when `d` is not base64url.
 */
export async function sealingKey(d: string): Promise<CryptoKey> {
  const ikm = await crypto.subtle.importKey("raw", base64url.decode(d), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: INFO },
    ikm,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** `jwk` sealed for key id `kid`: the text stored in `signing_keys.private_jwk`. */
export async function seal(kek: CryptoKey, kid: string, jwk: JWK): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = new TextEncoder().encode(JSON.stringify(jwk));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(kid) },
    kek,
    data,
  );
  return `${SEALED_PREFIX}${base64url.encode(iv)}.${base64url.encode(new Uint8Array(sealed))}`;
}

/**
 * The JWK sealed in `text` for `kid`, or undefined when `text` is not sealed, was sealed under another secret or
 * for another kid, or was altered (AES-GCM's tag does not verify).
 */
export async function unseal(kek: CryptoKey, kid: string, text: string): Promise<JWK | undefined> {
  if (!text.startsWith(SEALED_PREFIX)) return undefined;
  const [iv, body] = text.slice(SEALED_PREFIX.length).split(".");
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: base64url.decode(iv ?? ""), additionalData: new TextEncoder().encode(kid) },
      kek,
      base64url.decode(body ?? ""),
    );
    return JSON.parse(new TextDecoder().decode(plain)) as JWK;
  } catch {
    return undefined;
  }
}

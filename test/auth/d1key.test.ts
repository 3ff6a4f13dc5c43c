/**
 * The local signing key kept in D1: when two isolates each inserted a key at first start (random kids, so the
 * insert's conflict clause cannot stop the second), every isolate must sign with the same one: the oldest.
 * Rows are inserted newest first, so a read without an order (rowid order) would pick the wrong one.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair } from "jose";
import { signingKey } from "../../src/auth/keys";

async function insertKey(kid: string, created: string): Promise<void> {
  const pair = await generateKeyPair("EdDSA", { extractable: true });
  const priv = await exportJWK(pair.privateKey);
  const pub = { kty: priv.kty, crv: priv.crv, x: priv.x, kid, alg: "EdDSA", use: "sig" };
  await env.DB.prepare(
    "INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created) VALUES (?, 'EdDSA', ?, ?, ?)",
  )
    .bind(kid, JSON.stringify(priv), JSON.stringify(pub), created)
    .run();
}

describe("signing key from D1", () => {
  it("is the oldest stored key when a race left two", async () => {
    await env.DB.prepare("DELETE FROM signing_keys").run();
    await insertKey("a-newer", "2026-11-23T10:00:00.001Z");
    await insertKey("z-older", "2026-11-23T10:00:00.000Z");
    const key = await signingKey({ ...env, JWT_PRIVATE_JWK: undefined } as typeof env);
    expect(key.kid).toBe("z-older");
  });
});

/**
 * Signing-key rotation (src/auth/rotate.ts, keys.ts): a rotation starts signing with a new key while the retired
 * one keeps verifying its tokens until they expire (nobody is logged out), and the JWKS lists both; past
 * RETIRED_KEY_TTL_MS the old key verifies nothing. In production (JWT_PRIVATE_JWK set) rotated keys are sealed in
 * D1 and a key that D1 holds in clear, or sealed under another secret, is never trusted.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { SignJWT, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK } from "jose";
import { ISSUER, TOKEN_PATH, callWithEnv, form, testClient } from "../helpers/auth";
import { RETIRED_KEY_TTL_MS, forgetKeys } from "../../src/auth/keys";
import { rotateSigningKey } from "../../src/auth/rotate";
import { seal, sealingKey } from "../../src/auth/sealed";
import type { Env } from "../../src/env";

const CERTS = "/auth/realms/main/protocol/openid-connect/certs";
const LOCATIONS = "/api/v1/metadata/location";
type Over = { JWT_PRIVATE_JWK?: string };

// every test starts without keys (D1 is shared by the tests of a file) and without this isolate's cached key set
beforeEach(async () => {
  await env.DB.prepare("DELETE FROM signing_keys").run();
  forgetKeys();
});

async function tokenFrom(over: Over): Promise<string> {
  const r = await callWithEnv(over, TOKEN_PATH, form({ grant_type: "client_credentials", ...(await testClient()) }));
  expect(r.status).toBe(200);
  return ((await r.json()) as { access_token: string }).access_token;
}

const kidOf = (t: string): string | undefined => decodeProtectedHeader(t).kid;
const statusWith = async (over: Over, t: string): Promise<number> =>
  (await callWithEnv(over, LOCATIONS, { headers: { authorization: `Bearer ${t}` } })).status;
const jwksKids = async (over: Over): Promise<string[]> =>
  ((await (await callWithEnv(over, CERTS)).json()) as { keys: JWK[] }).keys.map((k) => k.kid!);

/** A token as the token endpoint makes it (fresh, never verified by this isolate) signed with private JWK `priv`. */
async function tokenSignedWith(priv: JWK, kid: string): Promise<string> {
  const key = await importJWK({ ...priv, alg: "EdDSA" }, "EdDSA");
  return new SignJWT({ account: crypto.randomUUID(), typ: "Bearer" })
    .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
    .setSubject("someone")
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(key);
}

async function storedRow(kid: string): Promise<{ private_jwk: string; retired: string | null } | null> {
  return env.DB.prepare("SELECT private_jwk, retired FROM signing_keys WHERE kid = ?").bind(kid).first();
}

/** Sets key `kid`'s retirement `msAgo` milliseconds in the past (as if it had been retired then). */
async function retireAgo(kid: string, msAgo: number): Promise<void> {
  await env.DB.prepare("UPDATE signing_keys SET retired = ? WHERE kid = ?")
    .bind(new Date(Date.now() - msAgo).toISOString(), kid)
    .run();
  forgetKeys();
}

async function newJwk(kid: string): Promise<JWK> {
  return { ...(await exportJWK((await generateKeyPair("EdDSA", { extractable: true })).privateKey)), kid };
}

describe("rotation without a secret (local development, keys in D1 in clear)", () => {
  it("new tokens use the new key, old tokens keep working, the JWKS serves both until the old key's tokens expired", async () => {
    const before = await tokenFrom({});
    const oldKid = kidOf(before)!;
    const { kid, retired } = await rotateSigningKey(env as unknown as Env);
    expect(retired).toEqual([oldKid]);
    const after = await tokenFrom({});
    expect(kidOf(after)).toBe(kid);
    expect(kid).not.toBe(oldKid);
    expect([await statusWith({}, before), await statusWith({}, after)]).toEqual([200, 200]);
    expect(await jwksKids({})).toEqual([kid, oldKid]);
    // a token of the old key never seen by this isolate (no cached verification) still verifies
    const oldPriv = JSON.parse((await storedRow(oldKid))!.private_jwk) as JWK;
    expect(await statusWith({}, await tokenSignedWith(oldPriv, oldKid))).toBe(200);
    // retired just over RETIRED_KEY_TTL_MS ago: the old key is gone from the JWKS and verifies nothing
    await retireAgo(oldKid, RETIRED_KEY_TTL_MS + 1000);
    expect(await jwksKids({})).toEqual([kid]);
    expect(await statusWith({}, await tokenSignedWith(oldPriv, oldKid))).toBe(401);
    expect(await statusWith({}, after)).toBe(200);
  });

  it("a second rotation retires the first rotated key; the newest signs, all three verify", async () => {
    const k0 = kidOf(await tokenFrom({}))!;
    const r1 = await rotateSigningKey(env as unknown as Env);
    const r2 = await rotateSigningKey(env as unknown as Env);
    expect(r2.retired).toEqual([r1.kid]);
    expect(kidOf(await tokenFrom({}))).toBe(r2.kid);
    expect(await jwksKids({})).toEqual([r2.kid, k0, r1.kid]);
  });

  it("a key rotated in by another isolate verifies at once here (unknown kid: the set is read again)", async () => {
    const k0 = kidOf(await tokenFrom({}))!; // this isolate has cached a set holding only k0
    const priv = await newJwk("other-isolate");
    const pub = { kty: "OKP", crv: "Ed25519", x: priv.x, kid: "other-isolate", alg: "EdDSA", use: "sig" };
    const now = new Date().toISOString();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created) VALUES (?, 'EdDSA', ?, ?, ?)",
      ).bind("other-isolate", JSON.stringify(priv), JSON.stringify(pub), now),
      env.DB.prepare("UPDATE signing_keys SET retired = ? WHERE kid = ?").bind(now, k0),
    ]);
    await new Promise((r) => setTimeout(r, 1100)); // unknown kids read the set at most once a second
    expect(await statusWith({}, await tokenSignedWith(priv, "other-isolate"))).toBe(200);
  });
});

describe("rotation with JWT_PRIVATE_JWK (production)", () => {
  it("seals the new key under the secret, retires the secret's key, and keeps its tokens valid", async () => {
    const secretJwk = await newJwk("prod-2026-11");
    const over = { JWT_PRIVATE_JWK: JSON.stringify(secretJwk) };
    const before = await tokenFrom(over);
    expect(kidOf(before)).toBe("prod-2026-11");
    const { kid, retired } = await rotateSigningKey({ ...(env as unknown as Env), ...over });
    expect(retired).toEqual(["prod-2026-11"]);
    const row = (await storedRow(kid))!;
    expect(row.private_jwk.startsWith("v1.")).toBe(true);
    expect(row.private_jwk).not.toContain('"d"');
    expect(await storedRow("prod-2026-11")).toMatchObject({ private_jwk: "" }); // the retirement row, no private key
    const after = await tokenFrom(over);
    expect(kidOf(after)).toBe(kid);
    expect([await statusWith(over, before), await statusWith(over, after)]).toEqual([200, 200]);
    const jwks = ((await (await callWithEnv(over, CERTS)).json()) as { keys: JWK[] }).keys;
    expect(jwks.map((k) => k.kid)).toEqual([kid, "prod-2026-11"]);
    expect(jwks.every((k) => k.d === undefined)).toBe(true);
    await jwtVerify(after, await importJWK(jwks[0]!, "EdDSA"), { issuer: ISSUER });
  });

  it("never trusts a key D1 holds in clear or sealed under another secret (a D1 writer cannot mint tokens)", async () => {
    const over = { JWT_PRIVATE_JWK: JSON.stringify(await newJwk("prod-a")) };
    const clear = await newJwk("planted-clear");
    const sealedElsewhere = await newJwk("planted-sealed");
    const otherKek = await sealingKey((await newJwk("other")).d!);
    const pub = (j: JWK) =>
      JSON.stringify({ kty: "OKP", crv: "Ed25519", x: j.x, kid: j.kid, alg: "EdDSA", use: "sig" });
    const insert =
      "INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created) VALUES (?, 'EdDSA', ?, ?, '2000-01-01T00:00:00.000Z')";
    await env.DB.batch([
      env.DB.prepare(insert).bind("planted-clear", JSON.stringify(clear), pub(clear)),
      env.DB.prepare(insert).bind(
        "planted-sealed",
        await seal(otherKek, "planted-sealed", sealedElsewhere),
        pub(sealedElsewhere),
      ),
    ]);
    expect(kidOf(await tokenFrom(over))).toBe("prod-a");
    expect(await jwksKids(over)).toEqual(["prod-a"]);
    expect(await statusWith(over, await tokenSignedWith(clear, "planted-clear"))).toBe(401);
    expect(await statusWith(over, await tokenSignedWith(sealedElsewhere, "planted-sealed"))).toBe(401);
  });

  it("a sealed row moved to another kid does not unseal (the kid is bound to the ciphertext)", async () => {
    const secretJwk = await newJwk("prod-b");
    const over = { JWT_PRIVATE_JWK: JSON.stringify(secretJwk) };
    const { kid } = await rotateSigningKey({ ...(env as unknown as Env), ...over });
    const sealed = (await storedRow(kid))!.private_jwk;
    await env.DB.prepare(
      "INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created) VALUES ('moved', 'EdDSA', ?, '{}', '2000-01-01T00:00:00.000Z')",
    )
      .bind(sealed)
      .run();
    forgetKeys();
    expect(await jwksKids(over)).toEqual([kid, "prod-b"]);
  });
});

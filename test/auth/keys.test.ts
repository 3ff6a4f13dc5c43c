/**
 * The production key path: JWT_PRIVATE_JWK configured as in production (an Ed25519 private JWK secret) signs the
 * tokens, the JWKS publishes its public half, and tokens of one key are refused under the other.
 * Misconfiguration is a 500 envelope that shows no internals.
 */
import { describe, expect, it } from "vitest";
import { decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK } from "jose";
import { ISSUER, TOKEN_PATH, callWithEnv, envelope, form, testClient, token } from "../helpers/auth";

const CERTS = "/auth/realms/main/protocol/openid-connect/certs";
const LOCATIONS = "/api/v1/metadata/location";

/** A fresh Ed25519 private JWK as `wrangler secret put JWT_PRIVATE_JWK` would hold it, and its public key. */
async function productionKey(kid: string): Promise<{ secret: string; publicKey: CryptoKey; jwk: JWK }> {
  const pair = await generateKeyPair("EdDSA", { extractable: true });
  const jwk = { ...(await exportJWK(pair.privateKey)), kid };
  return { secret: JSON.stringify(jwk), publicKey: pair.publicKey as CryptoKey, jwk };
}

async function tokenWith(over: { JWT_PRIVATE_JWK?: string }): Promise<string> {
  const r = await callWithEnv(over, TOKEN_PATH, form({ grant_type: "client_credentials", ...(await testClient()) }));
  expect(r.status).toBe(200);
  return ((await r.json()) as { access_token: string }).access_token;
}

const bearer = (t: string): RequestInit => ({ headers: { authorization: `Bearer ${t}` } });

describe("JWT_PRIVATE_JWK (production signing key)", () => {
  it("signs tokens with the configured key, published in the JWKS, verified by the service", async () => {
    const prod = await productionKey("prod-2026-11");
    const over = { JWT_PRIVATE_JWK: prod.secret };
    const t = await tokenWith(over);
    expect(decodeProtectedHeader(t)).toMatchObject({ alg: "EdDSA", kid: "prod-2026-11" });
    const { payload } = await jwtVerify(t, prod.publicKey, { issuer: ISSUER });
    expect(typeof payload.account).toBe("string");
    const jwks = (await (await callWithEnv(over, CERTS)).json()) as { keys: JWK[] };
    expect(jwks.keys).toEqual([
      { kty: "OKP", crv: "Ed25519", x: prod.jwk.x, kid: "prod-2026-11", alg: "EdDSA", use: "sig" },
    ]);
    await jwtVerify(t, await importJWK(jwks.keys[0]!, "EdDSA"));
    expect((await callWithEnv(over, LOCATIONS, bearer(t))).status).toBe(200);
  });

  it("a token of the local (D1) key is refused under the production key, and the reverse", async () => {
    const over = { JWT_PRIVATE_JWK: (await productionKey("prod-b")).secret };
    const local = await token();
    expect((await callWithEnv({}, LOCATIONS, bearer(local))).status).toBe(200);
    expect((await callWithEnv(over, LOCATIONS, bearer(local))).status).toBe(401);
    expect((await callWithEnv({}, LOCATIONS, bearer(await tokenWith(over)))).status).toBe(401);
  });
});

describe("misconfiguration is a 500 envelope without internals", () => {
  it("JWT_PRIVATE_JWK not JSON, an ES256 key, or PUBLIC_BASE_URL unset", async () => {
    const es = JSON.stringify(await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey));
    for (const over of [{ JWT_PRIVATE_JWK: "{not json" }, { JWT_PRIVATE_JWK: es }, { PUBLIC_BASE_URL: "" }]) {
      const r = await callWithEnv(
        over,
        TOKEN_PATH,
        form({ grant_type: "client_credentials", ...(await testClient()) }),
      );
      const text = await r.clone().text();
      expect(r.status).toBe(500);
      expect(await envelope(r)).toEqual({
        status: 500,
        reason: "Internal Server Error",
        message: "Internal error while processing the request.",
        code: "COMMON_EXCEPTION",
        errors: {},
      });
      expect(text).not.toMatch(/JWT_PRIVATE_JWK|PUBLIC_BASE_URL|\bat \S+ \(|\.ts:\d+/);
    }
  });
});

/** The OAuth token endpoint, JWKS and OpenID configuration: OAuth's formats (RFC 6749), limits, issuer. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { decodeJwt, decodeProtectedHeader, jwtVerify, importJWK, type JWK } from "jose";
import { ISSUER, TOKEN_PATH, call, callWithEnv, form, testClient } from "../helpers/auth";
import { renderError } from "../../src/http/errors";

const CERTS = "/auth/realms/main/protocol/openid-connect/certs";
const basic = (id: string, secret: string) =>
  "Basic " + btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`);

/** An OAuth error response: status, `{error, error_description}` and no API envelope. */
async function oauthError(r: Response, status: number, error: string): Promise<string> {
  const body = (await r.json()) as Record<string, unknown>;
  expect([r.status, body.error, Object.keys(body).sort()]).toEqual([status, error, ["error", "error_description"]]);
  expect(r.headers.get("cache-control")).toBe("no-store");
  return body.error_description as string;
}

describe("token endpoint", () => {
  it("issues an EdDSA JWT valid for one hour, verifiable with the JWKS, issuer from configuration", async () => {
    const c = await testClient();
    const r = await call(TOKEN_PATH, form({ grant_type: "client_credentials", ...c }));
    expect(r.status).toBe(200);
    const body = (await r.json()) as { access_token: string; expires_in: number; token_type: string };
    expect([body.token_type, body.expires_in]).toEqual(["Bearer", 3600]);
    const claims = decodeJwt(body.access_token);
    expect(claims.azp).toBe(c.client_id);
    expect(typeof claims.account).toBe("string");
    expect(claims.sub).toBe(claims.account);
    expect(claims.exp! - claims.iat!).toBe(3600);
    const jwks = (await (await call(CERTS)).json()) as { keys: JWK[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({
      kty: "OKP",
      crv: "Ed25519",
      alg: "EdDSA",
      use: "sig",
      kid: decodeProtectedHeader(body.access_token).kid,
    });
    expect(jwks.keys[0]!.d).toBeUndefined();
    const { payload, protectedHeader } = await jwtVerify(body.access_token, await importJWK(jwks.keys[0]!, "EdDSA"));
    expect(protectedHeader.alg).toBe("EdDSA");
    expect(payload.iss).toBe(ISSUER);
  });

  it("accepts HTTP Basic client credentials (form-urlencoded inside, RFC 6749 2.3.1)", async () => {
    const c = await testClient();
    const r = await call(
      TOKEN_PATH,
      form({ grant_type: "client_credentials" }, { authorization: basic(c.client_id, c.client_secret) }),
    );
    expect(r.status).toBe(200);
  });

  it("a Host header of another origin changes neither the issuer nor the OpenID URLs", async () => {
    const c = await testClient();
    const r = await call("http://evil.example" + TOKEN_PATH, form({ grant_type: "client_credentials", ...c }));
    expect(decodeJwt(((await r.json()) as { access_token: string }).access_token).iss).toBe(ISSUER);
    const doc = (await (
      await call("http://evil.example/auth/realms/main/.well-known/openid-configuration")
    ).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: ISSUER,
      token_endpoint: "http://localhost" + TOKEN_PATH,
      jwks_uri: "http://localhost" + CERTS,
    });
    expect(doc.id_token_signing_alg_values_supported).toEqual(["EdDSA"]);
  });

  it("wrong secret, unknown client and expired client: the same 401 invalid_client", async () => {
    const c = await testClient();
    const expired = await testClient(new Date(Date.now() - 60_000).toISOString());
    const tries = [
      { client_id: c.client_id, client_secret: "wrong" },
      { client_id: crypto.randomUUID(), client_secret: c.client_secret },
      expired,
    ];
    const descriptions = new Set<string>();
    for (const t of tries) {
      const r = await call(TOKEN_PATH, form({ grant_type: "client_credentials", ...t }));
      descriptions.add(await oauthError(r, 401, "invalid_client"));
      expect(r.headers.get("www-authenticate")).toBeNull();
    }
    expect(descriptions.size).toBe(1);
    const future = await testClient(new Date(Date.now() + 3_600_000).toISOString());
    expect((await call(TOKEN_PATH, form({ grant_type: "client_credentials", ...future }))).status).toBe(200);
  });

  it("failed or malformed Basic authentication: 401 invalid_client with WWW-Authenticate: Basic", async () => {
    const c = await testClient();
    for (const authorization of [
      basic(c.client_id, "wrong"),
      "Basic %%%",
      "Basic " + btoa("no-colon"),
      "Basic " + btoa("%ZZ:x"),
      "Bearer abc",
    ]) {
      const r = await call(TOKEN_PATH, form({ grant_type: "client_credentials" }, { authorization }));
      await oauthError(r, 401, "invalid_client");
      expect(r.headers.get("www-authenticate"), authorization).toMatch(/^Basic /);
    }
  });

  it("unsupported_grant_type and invalid_request for bad forms", async () => {
    const c = await testClient();
    await oauthError(await call(TOKEN_PATH, form({ grant_type: "password", ...c })), 400, "unsupported_grant_type");
    await oauthError(await call(TOKEN_PATH, form({ grant_type: "client_credentials" })), 400, "invalid_request");
    await oauthError(await call(TOKEN_PATH, form({ client_id: c.client_id })), 400, "invalid_request");
    await oauthError(
      await call(TOKEN_PATH, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
      400,
      "invalid_request",
    );
  });

  it("field sizes are capped (256 characters) and a 10 MB client_id is a 413, both OAuth errors", async () => {
    const c = await testClient();
    const long = "a".repeat(257);
    for (const f of [{ client_id: long }, { client_secret: long }, { grant_type: long }, { [long]: "x" }]) {
      const d = await oauthError(
        await call(TOKEN_PATH, form({ grant_type: "client_credentials", ...c, ...f })),
        400,
        "invalid_request",
      );
      expect(d).toMatch(/at most 256 characters/);
    }
    expect(
      (await call(TOKEN_PATH, form({ grant_type: "client_credentials", ...c, scope: "a".repeat(256) }))).status,
    ).toBe(200);
    const huge = form({
      grant_type: "client_credentials",
      client_id: "x".repeat(10 * 1024 * 1024),
      client_secret: "s",
    });
    expect(await oauthError(await call(TOKEN_PATH, huge), 413, "invalid_request")).toMatch(/8192 bytes/);
    const basicLong = form({ grant_type: "client_credentials" }, { authorization: basic(long, "x") });
    await oauthError(await call(TOKEN_PATH, basicLong), 401, "invalid_client");
  });

  describe("logging", () => {
    afterEach(() => void vi.restoreAllMocks());

    it("oversized token requests log nothing; an unexpected error logs at most 2000 characters of itself", async () => {
      const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
      const c = await testClient();
      for (const client_id of ["x".repeat(10 * 1024 * 1024), "x".repeat(300)])
        expect(
          (
            await callWithEnv(
              {},
              TOKEN_PATH,
              form({ grant_type: "client_credentials", client_id, client_secret: c.client_secret }),
            )
          ).status,
        ).toBeGreaterThanOrEqual(400);
      expect(logged).not.toHaveBeenCalled();
      const r = renderError(new Error("y".repeat(1_000_000)));
      expect(r.status).toBe(500);
      expect(logged).toHaveBeenCalledTimes(1);
      expect(String(logged.mock.calls[0]!.slice(1).join(" ")).length).toBeLessThanOrEqual(2000);
      expect(await r.text()).not.toMatch(/yyy/);
    });
  });
});

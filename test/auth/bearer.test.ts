/** Bearer authentication: every way a token can be wrong is a 401 envelope; links come from PUBLIC_BASE_URL. */
import { describe, expect, it } from "vitest";
import { SignJWT, base64url, generateKeyPair } from "jose";
import { ISSUER, authed, call, envelope, signedToken, token } from "../helpers/auth";

const LOCATIONS = "/api/v1/metadata/location";
const now = () => Math.floor(Date.now() / 1000);
const claims = (over: Record<string, unknown> = {}) => ({
  sub: "acc",
  account: "acc",
  aid: "acc",
  iss: ISSUER,
  iat: now(),
  exp: now() + 600,
  ...over,
});

/** Expects a 401 COMMON_UNAUTHORIZED envelope with WWW-Authenticate: Bearer; returns the message. */
async function expect401(r: Response): Promise<string> {
  expect(r.status).toBe(401);
  expect(r.headers.get("www-authenticate")).toMatch(/^Bearer /);
  const e = await envelope(r);
  expect([e.status, e.reason, e.code]).toEqual([401, "Unauthorized", "COMMON_UNAUTHORIZED"]);
  return e.message;
}

const withBearer = (t: string) => call(LOCATIONS, { headers: { authorization: `Bearer ${t}` } });

/** Ed25519 group order L (RFC 8032 section 5.1). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** The same token with S replaced by S + L: the (r, n-s) trick of ECDSA, transposed to Ed25519. */
function malleated(jwt: string): string {
  const [h, p, s] = jwt.split(".");
  const sig = base64url.decode(s!);
  let S = 0n;
  for (let i = 63; i >= 32; i--) S = (S << 8n) | BigInt(sig[i]!);
  S += L;
  for (let i = 32; i < 64; i++, S >>= 8n) sig[i] = Number(S & 0xffn);
  return `${h}.${p}.${base64url.encode(sig)}`;
}

describe("bearer authentication", () => {
  it("401 without an Authorization header (none sent)", async () => {
    expect(await expect401(await call(LOCATIONS))).toMatch(/Missing Authorization header/);
  });

  it("401 for a malformed header or a non-JWT", async () => {
    expect(await expect401(await call(LOCATIONS, { headers: { authorization: "Token abc" } }))).toMatch(
      /Malformed Authorization/,
    );
    expect(await expect401(await withBearer("not.a.jwt"))).toMatch(/Invalid access token/);
  });

  it("401 for tokens signed with another key or another algorithm", async () => {
    for (const alg of ["EdDSA", "ES256"]) {
      const { privateKey } = await generateKeyPair(alg);
      const forged = await new SignJWT(claims()).setProtectedHeader({ alg }).sign(privateKey);
      expect(await expect401(await withBearer(forged))).toMatch(/Invalid access token/);
    }
  });

  it("401 for a real expired token (service key, exp in the past)", async () => {
    const expired = await signedToken(claims({ iat: now() - 7200, exp: now() - 3600 }));
    expect(await expect401(await withBearer(expired))).toMatch(/expired/);
    expect((await withBearer(await signedToken(claims()))).status).toBe(200);
  });

  it("401 for a token without account claims or without exp", async () => {
    expect(await expect401(await withBearer(await signedToken(claims({ account: undefined }))))).toMatch(
      /lacks account claims/,
    );
    expect(await expect401(await withBearer(await signedToken(claims({ exp: undefined }))))).toMatch(
      /Invalid access token/,
    );
  });

  it("401 for a token of another issuer, or none, even signed with the service key", async () => {
    expect(
      await expect401(await withBearer(await signedToken(claims({ iss: "http://evil.example/auth/realms/main" })))),
    ).toMatch(/another issuer/);
    expect(await expect401(await withBearer(await signedToken(claims({ iss: undefined }))))).toMatch(/another issuer/);
  });

  it("401 for a malleated signature (S + L) of a valid token", async () => {
    const t = await token();
    expect((await withBearer(t)).status).toBe(200);
    expect(await expect401(await withBearer(malleated(t)))).toMatch(/Invalid access token/);
  });

  it("200 with a valid token; 404, 405 and bad percent-encoding in the envelope", async () => {
    const t = await token();
    expect((await authed(LOCATIONS, {}, t)).status).toBe(200);
    let r = await authed("/api/v1/nothing-here", {}, t);
    expect([r.status, (await envelope(r)).reason]).toEqual([404, "Not Found"]);
    r = await authed(`${LOCATIONS}/%ZZ`, {}, t);
    expect([r.status, (await envelope(r)).message]).toEqual([400, expect.stringMatching(/percent-encoding/)]);
    expect((await authed("/api/v1/catalog/1.0.0/collections/%E0%A4%A", {}, t)).status).toBe(400);
    r = await authed(LOCATIONS, { method: "DELETE" }, t);
    expect([r.status, r.headers.get("allow"), (await envelope(r)).status]).toEqual([405, "GET", 405]);
  });
});

describe("locations", () => {
  it("lists this deployment with URLs from PUBLIC_BASE_URL, whatever the Host header", async () => {
    const t = await token();
    const list = (await (
      await call("http://evil.example" + LOCATIONS, { headers: { authorization: `Bearer ${t}` } })
    ).json()) as Record<string, string>[];
    expect(list[0]).toEqual({
      "@id": "http://localhost/api/v1/metadata/location/local",
      id: "local",
      url: "http://localhost",
      processUrl: "http://localhost/api/v1/process",
      catalogUrl: "http://localhost/api/v1/catalog/1.0.0",
      wmsUrl: "http://localhost/ogc/wms",
    });
    const one = await authed(`${LOCATIONS}/local`, {}, t);
    expect(((await one.json()) as { id: string }).id).toBe("local");
    expect((await authed(`${LOCATIONS}/mars`, {}, t)).status).toBe(404);
  });
});

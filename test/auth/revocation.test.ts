/**
 * Verified tokens cached per isolate (src/auth/verified.ts) and the client behind them: a deleted client's tokens
 * stop at once in the isolate that deleted it and within CLIENT_RECHECK_MS elsewhere (simulated by writing D1
 * directly, as another isolate would), an expired client's at its expiry; time moves through authCache.clock.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { authed, envelope } from "../helpers/auth";
import { newAccount, tokenOf } from "../helpers/accounts";
import { CLIENT_RECHECK_MS, authCache } from "../../src/auth/verified";

const LOCATIONS = "/api/v1/metadata/location";
const CLIENTS = "/api/v1/accounts/me/clients";
const realClock = authCache.clock;
afterEach(() => {
  authCache.clock = realClock;
});

/** Fixes the auth cache clock `ms` after now. */
const later = (ms: number): void => {
  const at = Date.now() + ms;
  authCache.clock = () => at;
};

async function status401(r: Response): Promise<string> {
  expect(r.status).toBe(401);
  return (await envelope(r)).message;
}

describe("tokens of a deleted or expired client", () => {
  it("stop at once when the client is deleted through the API (same isolate)", async () => {
    const a = await newAccount();
    const owner = await tokenOf(a.client);
    const created = await authed(
      CLIENTS,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "doomed", neverExpire: true, confirmNeverExpireRisk: true }),
      },
      owner,
    );
    expect(created.status).toBe(201);
    const c = (await created.json()) as { clientId: string; clientSecret: string };
    const bearer = await tokenOf({ client_id: c.clientId, client_secret: c.clientSecret });
    expect((await authed(LOCATIONS, {}, bearer)).status).toBe(200);
    expect((await authed(LOCATIONS, {}, bearer)).status).toBe(200); // cached
    expect((await authed(`${CLIENTS}/${c.clientId}`, { method: "DELETE" }, owner)).status).toBe(204);
    expect(await status401(await authed(LOCATIONS, {}, bearer))).toMatch(/deleted or expired OAuth client/);
    expect((await authed(LOCATIONS, {}, owner)).status).toBe(200); // the account's other client is untouched
  });

  it("stop within CLIENT_RECHECK_MS when another isolate deleted the client", async () => {
    const a = await newAccount();
    const bearer = await tokenOf(a.client);
    expect((await authed(LOCATIONS, {}, bearer)).status).toBe(200);
    await env.DB.prepare("UPDATE oauth_clients SET deleted = ? WHERE client_id = ?")
      .bind(new Date().toISOString(), a.client.client_id)
      .run();
    later(CLIENT_RECHECK_MS - 1000);
    expect((await authed(LOCATIONS, {}, bearer)).status).toBe(200); // still trusted from the last read
    later(CLIENT_RECHECK_MS);
    expect(await status401(await authed(LOCATIONS, {}, bearer))).toMatch(/deleted or expired OAuth client/);
  });

  it("stop at the client's expiry, without waiting for a new read", async () => {
    const a = await newAccount();
    // the clock is fixed from the first request on (its read of the client is the cached one), so a loaded machine's
    // slow requests cannot pass the expiry early; 20 s leave the token request time, within CLIENT_RECHECK_MS of it
    const t0 = Date.now();
    const expires = t0 + 20_000;
    await env.DB.prepare("UPDATE oauth_clients SET expires = ? WHERE client_id = ?")
      .bind(new Date(expires).toISOString(), a.client.client_id)
      .run();
    const bearer = await tokenOf(a.client);
    authCache.clock = () => t0;
    expect((await authed(LOCATIONS, {}, bearer)).status).toBe(200);
    authCache.clock = () => expires - 1000;
    expect((await authed(LOCATIONS, {}, bearer)).status).toBe(200);
    authCache.clock = () => expires + 1000;
    expect(await status401(await authed(LOCATIONS, {}, bearer))).toMatch(/deleted or expired OAuth client/);
  });
});

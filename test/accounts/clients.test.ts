/**
 * The OAuth clients API (spec, Authentication 5-8) with two real accounts in D1: creation (secret once, stored
 * hashed), expiry and deletion to the inactive list (no more tokens), the plan's client limit, bad input 400s,
 * isolation between accounts and per-client-origin CORS for single-page-app clients.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { authed, envelope } from "../helpers/auth";
import { newAccount, requestToken, tokenOf, type TestAccount } from "../helpers/accounts";

const CLIENTS = "/api/v1/accounts/me/clients";
const inAYear = (): string => new Date(Date.now() + 365 * 86_400_000).toISOString();
interface Created {
  clientId: string;
  clientSecret: string;
  name: string;
  expires: string | null;
  status: string;
  singlePageApp: { allowedOrigins: "ALL" | string[] } | null;
}

const post = (bearer: string, body: unknown, path = CLIENTS): Promise<Response> =>
  authed(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, bearer);

async function create(bearer: string, body: unknown): Promise<Created> {
  const r = await post(bearer, body);
  if (r.status !== 201) throw new Error(`create answered ${r.status}: ${await r.text()}`);
  return (await r.json()) as Created;
}
const ids = async (r: Response): Promise<string[]> =>
  ((await r.json()) as { data: { clientId: string }[] }).data.map((c) => c.clientId);

let a: TestAccount, b: TestAccount, tokA: string, tokB: string;
beforeAll(async () => {
  [a, b] = [await newAccount(), await newAccount()];
  [tokA, tokB] = [await tokenOf(a.client), await tokenOf(b.client)];
});

describe("creating a client", () => {
  it("returns the secret once; it is stored hashed and the new client gets tokens of its account", async () => {
    const c = await create(tokA, { name: "pipeline", neverExpire: true, confirmNeverExpireRisk: true });
    expect([c.name, c.expires, c.status, c.singlePageApp]).toEqual(["pipeline", null, "ACTIVE", null]);
    expect(c.clientSecret).toMatch(/^[0-9a-f]{48}$/);
    const row = await env.DB.prepare("SELECT secret_hash FROM oauth_clients WHERE client_id = ?")
      .bind(c.clientId)
      .first<{ secret_hash: string }>();
    expect(row!.secret_hash).not.toContain(c.clientSecret);
    const shown = await (await authed(`${CLIENTS}/${c.clientId}`, {}, tokA)).json();
    expect(shown).not.toHaveProperty("clientSecret");
    const t = await tokenOf({ client_id: c.clientId, client_secret: c.clientSecret });
    const me = (await (await authed("/api/v1/accounts/me", {}, t)).json()) as {
      id: string;
      plan: { id: string };
      maxClients: number;
    };
    expect([me.id, me.plan.id, me.maxClients]).toEqual([a.account, "enterprise", 100]);
  });

  it("with an expiry date", async () => {
    const when = inAYear();
    const c = await create(tokA, { name: "yearly", expires: when });
    expect(c.expires).toBe(when);
  });

  it.each([
    ["no expiry choice", { name: "x" }, /expires/],
    ["never expire without confirming the risk", { name: "x", neverExpire: true }, /confirmNeverExpireRisk/],
    [
      "never expire, risk not confirmed",
      { name: "x", neverExpire: true, confirmNeverExpireRisk: false },
      /confirmNeverExpireRisk/,
    ],
    [
      "both an expiry and never expire",
      { name: "x", expires: "2099-01-01T00:00:00Z", neverExpire: true, confirmNeverExpireRisk: true },
      /either/,
    ],
    ["an expiry in the past", { name: "x", expires: "2001-01-01T00:00:00Z" }, /future/],
    ["an expiry that is no date-time", { name: "x", expires: "tomorrow" }, /expires/],
    ["no name", { expires: "2099-01-01T00:00:00Z" }, /name/],
    ["an unknown field", { name: "x", expires: "2099-01-01T00:00:00Z", scope: "all" }, /scope/],
    [
      "a single-page app without confirming the exposure",
      { name: "x", expires: "2099-01-01T00:00:00Z", singlePageApp: { allowedOrigins: "ALL" } },
      /confirmExposureRisk/,
    ],
    [
      "an origin with a path",
      {
        name: "x",
        expires: "2099-01-01T00:00:00Z",
        singlePageApp: { allowedOrigins: ["https://app.example/map"], confirmExposureRisk: true },
      },
      /web origin/,
    ],
    [
      "an origin with a trailing slash",
      {
        name: "x",
        expires: "2099-01-01T00:00:00Z",
        singlePageApp: { allowedOrigins: ["https://app.example/"], confirmExposureRisk: true },
      },
      /web origin/,
    ],
    [
      "a non-web origin",
      {
        name: "x",
        expires: "2099-01-01T00:00:00Z",
        singlePageApp: { allowedOrigins: ["ftp://files.example"], confirmExposureRisk: true },
      },
      /web origin/,
    ],
    [
      "an empty origin list",
      { name: "x", expires: "2099-01-01T00:00:00Z", singlePageApp: { allowedOrigins: [], confirmExposureRisk: true } },
      /allowedOrigins/,
    ],
  ])("400 for %s", async (_what, body, pattern) => {
    const r = await post(tokA, body);
    const e = await envelope(r);
    expect([r.status, e.code]).toEqual([400, "COMMON_BAD_PAYLOAD"]);
    expect(JSON.stringify(e)).toMatch(pattern);
  });

  it("400 for a body that is not JSON", async () => {
    const r = await authed(CLIENTS, { method: "POST", body: "name=x" }, tokA);
    expect(r.status).toBe(400);
  });
});

describe("the plan's client limit", () => {
  it("trial allows 2 active clients; deleting one frees a place", async () => {
    const t = await newAccount({ plan: "trial" });
    const bearer = await tokenOf(t.client);
    const second = await create(bearer, { name: "second", expires: inAYear() });
    const r = await post(bearer, { name: "third", expires: inAYear() });
    const e = await envelope(r);
    expect(r.status).toBe(400);
    expect(e.message).toMatch(/2 active OAuth clients.*'Trial' allows \(2\).*delete a client or upgrade/);
    expect((await authed(`${CLIENTS}/${second.clientId}`, { method: "DELETE" }, bearer)).status).toBe(204);
    expect((await post(bearer, { name: "third", expires: inAYear() })).status).toBe(201);
  });
});

describe("inactive clients", () => {
  it("a deleted client moves to the inactive list and gets no more tokens", async () => {
    const c = await create(tokA, { name: "to delete", expires: inAYear() });
    const creds = { client_id: c.clientId, client_secret: c.clientSecret };
    expect((await requestToken(creds)).status).toBe(200);
    expect((await authed(`${CLIENTS}/${c.clientId}`, { method: "DELETE" }, tokA)).status).toBe(204);
    expect(await ids(await authed(CLIENTS, {}, tokA))).not.toContain(c.clientId);
    const inactive = (
      (await (await authed(`${CLIENTS}/inactive`, {}, tokA)).json()) as {
        data: { clientId: string; status: string; deleted: string }[];
      }
    ).data;
    const mine = inactive.find((x) => x.clientId === c.clientId);
    expect(mine?.status).toBe("DELETED");
    expect(Date.parse(mine!.deleted)).toBeGreaterThan(0);
    expect((await requestToken(creds)).status).toBe(401);
    expect((await authed(`${CLIENTS}/${c.clientId}`, { method: "DELETE" }, tokA)).status).toBe(404);
  });

  it("an expired client is inactive (EXPIRED) and gets no more tokens", async () => {
    const c = await create(tokA, { name: "short-lived", expires: inAYear() });
    const creds = { client_id: c.clientId, client_secret: c.clientSecret };
    expect((await requestToken(creds)).status).toBe(200);
    await env.DB.prepare("UPDATE oauth_clients SET expires = ? WHERE client_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), c.clientId)
      .run();
    expect(await ids(await authed(CLIENTS, {}, tokA))).not.toContain(c.clientId);
    const inactive = (
      (await (await authed(`${CLIENTS}/inactive`, {}, tokA)).json()) as { data: { clientId: string; status: string }[] }
    ).data;
    expect(inactive.find((x) => x.clientId === c.clientId)?.status).toBe("EXPIRED");
    expect((await requestToken(creds)).status).toBe(401);
  });
});

describe("two accounts", () => {
  it("neither sees nor deletes the other's clients", async () => {
    const ca = await create(tokA, { name: "A's", expires: inAYear() });
    const cb = await create(tokB, { name: "B's", expires: inAYear() });
    const listA = await ids(await authed(CLIENTS, {}, tokA));
    const listB = await ids(await authed(CLIENTS, {}, tokB));
    expect(listA).toContain(ca.clientId);
    expect(listA).toContain(a.client.client_id);
    expect(listA).not.toContain(cb.clientId);
    expect(listB.sort()).toEqual([cb.clientId, b.client.client_id].sort());
    expect((await authed(`${CLIENTS}/${ca.clientId}`, {}, tokB)).status).toBe(404);
    expect((await authed(`${CLIENTS}/${ca.clientId}`, { method: "DELETE" }, tokB)).status).toBe(404);
    expect((await authed(`/api/v1/accounts/${a.account}/clients`, {}, tokB)).status).toBe(404);
    expect((await authed(`/api/v1/accounts/${a.account}`, {}, tokB)).status).toBe(404);
    expect((await authed(`/api/v1/accounts/${a.account}/clients`, {}, tokA)).status).toBe(200);
    // A's client survived B's attempt
    expect(await ids(await authed(CLIENTS, {}, tokA))).toContain(ca.clientId);
    expect((await requestToken({ client_id: ca.clientId, client_secret: ca.clientSecret })).status).toBe(200);
  });
});

describe("single-page-app clients: CORS for their origins only", () => {
  const origin = (r: Response): string | null => r.headers.get("access-control-allow-origin");
  const fromOrigin = (bearer: string, o: string): Promise<Response> =>
    authed("/api/v1/metadata/location", { headers: { origin: o } }, bearer);

  it("a listed origin is echoed, another gets no Access-Control-Allow-Origin", async () => {
    const c = await create(tokA, {
      name: "map app",
      expires: inAYear(),
      singlePageApp: { allowedOrigins: ["https://app.example", "http://localhost:5173"], confirmExposureRisk: true },
    });
    expect(c.singlePageApp).toEqual({ allowedOrigins: ["https://app.example", "http://localhost:5173"] });
    const t = await tokenOf({ client_id: c.clientId, client_secret: c.clientSecret });
    const ok = await fromOrigin(t, "https://app.example");
    expect([ok.status, origin(ok)]).toEqual([200, "https://app.example"]);
    expect(ok.headers.get("vary")).toMatch(/Origin/);
    const local = await fromOrigin(t, "http://localhost:5173");
    expect(origin(local)).toBe("http://localhost:5173");
    const evil = await fromOrigin(t, "https://evil.example");
    expect([evil.status, origin(evil)]).toEqual([200, null]);
  });

  it("all domains: any origin; a confidential client's token keeps '*'", async () => {
    const c = await create(tokA, {
      name: "open app",
      expires: inAYear(),
      singlePageApp: { allowedOrigins: "ALL", confirmExposureRisk: true },
    });
    expect(c.singlePageApp).toEqual({ allowedOrigins: "ALL" });
    const t = await tokenOf({ client_id: c.clientId, client_secret: c.clientSecret });
    expect(origin(await fromOrigin(t, "https://anywhere.example"))).toBe("*");
    expect(origin(await fromOrigin(tokA, "https://anywhere.example"))).toBe("*");
  });
});

describe("concurrent creations", () => {
  it("never leave more active clients than the plan allows", async () => {
    const t = await newAccount({ plan: "trial" }); // 2 clients, one used already
    const bearer = await tokenOf(t.client);
    const rs = await Promise.all([...Array(4)].map((_, i) => post(bearer, { name: `c${i}`, expires: inAYear() })));
    expect(rs.filter((r) => r.status === 201).length).toBeLessThanOrEqual(1);
    expect(rs.every((r) => r.status === 201 || r.status === 400)).toBe(true);
    expect((await ids(await authed(CLIENTS, {}, bearer))).length).toBeLessThanOrEqual(2);
  });
});

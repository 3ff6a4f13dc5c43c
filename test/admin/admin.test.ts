/**
 * The operators' admin API (src/admin): absent (404) without ADMIN_TOKEN, 401 without the right bearer secret
 * (an OAuth access token is not one); accounts created, listed and changed (plan, policies, PU quota), with the
 * change in force for the account's real calls; OAuth clients and S3 keys made for an account; the signing key
 * rotated with the old tokens still valid.
 */
import { describe, expect, it } from "vitest";
import { decodeProtectedHeader } from "jose";
import { TOKEN_PATH, callWithEnv, envelope, form, token } from "../helpers/auth";

const ADMIN_TOKEN = "test-admin-secret-0123456789abcdefghijklmnop";
const over = { ADMIN_TOKEN };
const admin = (path: string, init: RequestInit = {}): Promise<Response> => {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${ADMIN_TOKEN}`);
  if (init.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  return callWithEnv(over, `/api/v1/admin${path}`, { ...init, headers });
};
const body = (method: string, value: unknown): RequestInit => ({ method, body: JSON.stringify(value) });
const bearerWith = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });

interface Account {
  id: string;
  name: string;
  plan: { id: string; name: string };
  maxClients: number;
  policies: { samplingPeriod: string; limit: number }[];
  tokenPolicies: unknown[];
  puQuota: number | null;
  overrides: { policies: unknown; tokenPolicies: unknown; puQuota: number | null };
}

async function newAccount(fields: Record<string, unknown> = {}): Promise<Account> {
  const r = await admin("/accounts", body("POST", { name: "test account", ...fields }));
  expect(r.status).toBe(201);
  return (await r.json()) as Account;
}

/** A client of `account` made through the admin API and a token of it from the token endpoint. */
async function clientToken(account: string): Promise<{ clientId: string; token: string }> {
  const r = await admin(
    `/accounts/${account}/clients`,
    body("POST", { name: "ops", neverExpire: true, confirmNeverExpireRisk: true }),
  );
  expect(r.status).toBe(201);
  const c = (await r.json()) as { clientId: string; clientSecret: string };
  const t = await callWithEnv(
    over,
    TOKEN_PATH,
    form({ grant_type: "client_credentials", client_id: c.clientId, client_secret: c.clientSecret }),
  );
  expect(t.status).toBe(200);
  return { clientId: c.clientId, token: ((await t.json()) as { access_token: string }).access_token };
}

describe("the guard", () => {
  it("answers 404 everywhere while ADMIN_TOKEN is unset or shorter than 32 characters, whatever is sent", async () => {
    for (const e of [{}, { ADMIN_TOKEN: "" }, { ADMIN_TOKEN: "x".repeat(31) }]) {
      for (const [method, path] of [
        ["GET", "/api/v1/admin/accounts"],
        ["POST", "/api/v1/admin/keys/rotate"],
      ] as const) {
        const r = await callWithEnv(e, path, {
          method,
          headers: { authorization: `Bearer ${e.ADMIN_TOKEN ?? ADMIN_TOKEN}` },
        });
        expect(r.status).toBe(404);
        expect(await envelope(r)).toMatchObject({
          code: "COMMON_NOT_FOUND",
          message: expect.stringContaining("The admin API is off"),
        });
      }
    }
  });

  it("401 with WWW-Authenticate without a bearer, with a wrong secret, and with a valid OAuth access token", async () => {
    const userToken = await token();
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Basic ${btoa("a:b")}` },
      { authorization: `Bearer ${ADMIN_TOKEN}x` },
      { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
      { authorization: `Bearer ${userToken}` },
    ]) {
      const r = await callWithEnv(over, "/api/v1/admin/accounts", { headers });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe('Bearer realm="admin"');
      expect((await envelope(r)).code).toBe("COMMON_UNAUTHORIZED");
    }
    const ok = await admin("/plans");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toBe("no-store");
  });
});

describe("the OpenAPI description", () => {
  it("documents every admin operation under the tag Admin with the AdminToken bearer scheme", async () => {
    const doc = (await (await callWithEnv({}, "/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, { tags: string[]; security: unknown }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    const admin = Object.entries(doc.paths).filter(([p]) => p.startsWith("/api/v1/admin/"));
    expect(admin.map(([p]) => p)).toEqual(
      expect.arrayContaining([
        "/api/v1/admin/accounts",
        "/api/v1/admin/accounts/{accountId}",
        "/api/v1/admin/keys/rotate",
        "/api/v1/admin/data/{key}",
      ]),
    );
    for (const [, ops] of admin)
      for (const op of Object.values(ops)) expect([op.tags, op.security]).toEqual([["Admin"], [{ AdminToken: [] }]]);
    expect(doc.components.securitySchemes.AdminToken).toMatchObject({ type: "http", scheme: "bearer" });
  });
});

describe("accounts", () => {
  it("creates an account on a plan, with an id of the operator's choice; the same id again is a 409", async () => {
    const a = await newAccount({ id: "acme-ops", name: "ACME", plan: "trial" });
    expect(a).toMatchObject({
      id: "acme-ops",
      name: "ACME",
      plan: { id: "trial", name: "Trial" },
      maxClients: 2,
      puQuota: 30000,
      overrides: { policies: null, tokenPolicies: null, puQuota: null },
    });
    const again = await admin("/accounts", body("POST", { id: "acme-ops", name: "again" }));
    expect([again.status, (await envelope(again)).code]).toEqual([409, "COMMON_CONFLICT"]);
    const got = (await (await admin("/accounts/acme-ops")).json()) as Account & {
      processingUnits: { used: number; quota: number };
    };
    expect(got.processingUnits).toMatchObject({ used: 0, quota: 30000 });
  });

  it("refuses bad input with 400 naming the field, and nothing is created", async () => {
    const cases: [unknown, string][] = [
      [{ name: "x", plan: "gold" }, "Unknown plan 'gold'"],
      [{ name: "x", policies: [{ samplingPeriod: "P1M", limit: 5 }] }, "policies"],
      [{ name: "x", policies: [] }, "policies"],
      [{ name: "x", puQuota: -1 }, "puQuota"],
      [{ name: "x", id: "../etc" }, "id"],
      [{ name: "" }, "name"],
      [{ name: "x", admin: true }, "admin"],
    ];
    for (const [b, mention] of cases) {
      const r = await admin("/accounts", body("POST", b));
      expect(r.status).toBe(400);
      expect(JSON.stringify(await envelope(r))).toContain(mention);
    }
    const notJson = await admin("/accounts", { method: "POST", body: "{name" });
    expect(notJson.status).toBe(400);
  });

  it("PATCH sets the plan, policies and quota in force for the account's calls; null goes back to the plan's", async () => {
    const a = await newAccount();
    // before the account's first call: the limiter reads the new limits at once
    const changed = await admin(
      `/accounts/${a.id}`,
      body("PATCH", { plan: "basic", policies: [{ samplingPeriod: "PT1H", limit: 2 }] }),
    );
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      name: "test account",
      plan: { id: "basic" },
      maxClients: 10,
      policies: [{ samplingPeriod: "PT1H", limit: 2 }],
      overrides: { policies: [{ samplingPeriod: "PT1H", limit: 2 }] },
    });
    const { token: t } = await clientToken(a.id);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await callWithEnv(over, "/api/v1/metadata/location", bearerWith(t))).status);
    expect(statuses).toEqual([200, 200, 429]);
    const back = (await (await admin(`/accounts/${a.id}`, body("PATCH", { policies: null }))).json()) as Account;
    expect(back.policies).toEqual([
      { samplingPeriod: "PT1S", limit: 20 },
      { samplingPeriod: "P1D", limit: 10000 },
    ]);
    expect(back.overrides.policies).toBeNull();
  });

  it("a PU quota of 0 refuses the account's metered calls with 403 OUT_OF_PU", async () => {
    const a = await newAccount({ puQuota: 0 });
    const { token: t } = await clientToken(a.id);
    const r = await callWithEnv(over, "/api/v1/process", {
      method: "POST",
      headers: { authorization: `Bearer ${t}`, "content-type": "application/json" },
      body: "{}",
    });
    expect([r.status, (await envelope(r)).code]).toEqual([403, "OUT_OF_PU"]);
  });

  it("PATCH of an unknown account is a 404, an empty change a 400", async () => {
    expect((await admin("/accounts/nobody", body("PATCH", { name: "x" }))).status).toBe(404);
    const a = await newAccount();
    expect((await admin(`/accounts/${a.id}`, body("PATCH", {}))).status).toBe(400);
    expect((await admin("/accounts/%E0%A4%A", {})).status).toBe(400);
  });

  it("lists accounts by creation, paged, filtered by search", async () => {
    const made = [];
    for (const n of ["zebra-1", "zebra-2", "zebra-3"]) made.push((await newAccount({ name: n })).id);
    const first = (await (await admin("/accounts?search=zebra&count=2")).json()) as {
      data: { id: string }[];
      links: { next?: string };
    };
    expect(first.data.map((a) => a.id)).toEqual(made.slice(0, 2));
    const next = new URL(first.links.next!);
    const second = (await (await admin(`/accounts${next.search}`)).json()) as {
      data: { id: string }[];
      links: { next?: string };
    };
    expect(second.data.map((a) => a.id)).toEqual(made.slice(2));
    expect(second.links.next).toBeUndefined();
    expect((await admin("/accounts?count=0")).status).toBe(400);
  });
});

describe("clients, S3 keys, plans", () => {
  it("creates clients within the plan's limit, lists and deletes them; unknown accounts are 404", async () => {
    const a = await newAccount({ plan: "trial" });
    const c1 = await clientToken(a.id);
    await clientToken(a.id);
    const third = await admin(
      `/accounts/${a.id}/clients`,
      body("POST", { name: "third", neverExpire: true, confirmNeverExpireRisk: true }),
    );
    expect(third.status).toBe(400);
    expect((await envelope(third)).message).toContain("'Trial' allows (2)");
    expect((await admin(`/accounts/${a.id}/clients/${c1.clientId}`, { method: "DELETE" })).status).toBe(204);
    const list = (await (await admin(`/accounts/${a.id}/clients`)).json()) as {
      data: { active: unknown[]; inactive: { clientId: string; status: string }[] };
    };
    expect([list.data.active.length, list.data.inactive.map((c) => [c.clientId, c.status])]).toEqual([
      1,
      [[c1.clientId, "DELETED"]],
    ]);
    expect((await callWithEnv(over, "/api/v1/metadata/location", bearerWith(c1.token))).status).toBe(401);
    expect(
      (
        await admin(
          "/accounts/nobody/clients",
          body("POST", { name: "x", neverExpire: true, confirmNeverExpireRisk: true }),
        )
      ).status,
    ).toBe(404);
    expect((await admin(`/accounts/${a.id}/clients`, body("POST", { name: "x" }))).status).toBe(400);
  });

  it("creates an S3 key whose secret is shown once", async () => {
    const a = await newAccount();
    const r = await admin(`/accounts/${a.id}/s3keys`, { method: "POST" });
    expect(r.status).toBe(201);
    const k = (await r.json()) as { accessKeyId: string; secretAccessKey: string };
    expect(k.accessKeyId).toMatch(/^[A-Z0-9]{16,}$/);
    expect(k.secretAccessKey.length).toBeGreaterThanOrEqual(30);
  });

  it("lists the plans", async () => {
    const plans = (await (await admin("/plans")).json()) as { data: { id: string; maxClients: number }[] };
    expect(plans.data.map((p) => [p.id, p.maxClients])).toEqual([
      ["basic", 10],
      ["enterprise", 100],
      ["trial", 2],
    ]);
  });
});

describe("signing keys", () => {
  it("rotates: new tokens carry the new kid, the old token still works, both keys are listed", async () => {
    const old = await token();
    const oldKid = decodeProtectedHeader(old).kid;
    const r = await admin("/keys/rotate", { method: "POST" });
    expect(r.status).toBe(200);
    const { kid, retired } = (await r.json()) as { kid: string; retired: string[] };
    expect(retired).toContain(oldKid);
    const keys = (await (await admin("/keys")).json()) as {
      data: { kid: string; active: boolean; verifiesUntil: string | null; source: string }[];
    };
    expect(keys.data[0]).toMatchObject({ kid, active: true, verifiesUntil: null, source: "d1" });
    const previous = keys.data.find((k) => k.kid === oldKid)!;
    expect(previous.active).toBe(false);
    expect(Date.parse(previous.verifiesUntil!) - Date.now()).toBeGreaterThan(3600_000);
    expect((await callWithEnv(over, "/api/v1/metadata/location", bearerWith(old))).status).toBe(200);
    expect(decodeProtectedHeader(await token()).kid).toBe(kid);
  });
});

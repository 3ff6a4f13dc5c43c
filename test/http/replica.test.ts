/**
 * D1 read replication on the catalog: its routes read through a D1 session (src/http/replica.ts), answer
 * with the session's `x-d1-bookmark`, and continue a client's bookmark; a malformed one is ignored, never a 500.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, call, token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";

const SEARCH =
  "/api/v1/catalog/1.0.0/search?collections=sentinel-2-l2a&bbox=-12,24.3,-10.8,25.3&datetime=2020-02-01T00:00:00Z/2020-03-01T00:00:00Z&limit=5";
let bearer: string;

beforeAll(async () => {
  await seedSamples((i) => i.id === "S2A_29RKH_20200219_0_L2A");
  bearer = await token();
});

/** The ids of a search answer. */
const ids = async (r: Response): Promise<string[]> =>
  ((await r.json()) as { features: { id: string }[] }).features.map((f) => f.id);

describe("catalog reads through a D1 session", () => {
  it("a search answers with a bookmark; sent back, the next search reads at least that recent a database", async () => {
    const first = await authed(SEARCH, {}, bearer);
    expect(first.status, await first.clone().text()).toBe(200);
    const bookmark = first.headers.get("x-d1-bookmark");
    expect(bookmark).toMatch(/^[0-9a-f]+(-[0-9a-f]+)*$/);
    expect(first.headers.get("access-control-expose-headers")).toContain("x-d1-bookmark");
    const found = await ids(first);
    expect(found).toContain("S2A_29RKH_20200219_0_L2A");
    const next = await authed(SEARCH, { headers: { "x-d1-bookmark": bookmark! } }, bearer);
    expect(next.status).toBe(200);
    expect(await ids(next)).toEqual(found);
    // bookmarks only move forward
    expect(next.headers.get("x-d1-bookmark")! >= bookmark!).toBe(true);
  });

  it("a malformed bookmark is ignored (an unconstrained session), on the public landing page too", async () => {
    for (const bad of ["'; DROP TABLE items; --", "x".repeat(5000), "zz-zz"]) {
      const r = await authed(SEARCH, { headers: { "x-d1-bookmark": bad } }, bearer);
      expect(r.status).toBe(200);
      expect(await ids(r)).toContain("S2A_29RKH_20200219_0_L2A");
    }
    const landing = await call("/api/v1/catalog/1.0.0/", { headers: { "x-d1-bookmark": "not a bookmark" } });
    expect(landing.status).toBe(200);
    expect(landing.headers.get("x-d1-bookmark")).toBeTruthy();
  });

  it("other routes use the database itself (no session): no bookmark on an account answer", async () => {
    const r = await authed("/api/v1/accounts/me", {}, bearer);
    expect(r.status).toBe(200);
    expect(r.headers.has("x-d1-bookmark")).toBe(false);
  });
});

/**
 * Anonymous discovery: the catalog landing page, conformance and the OpenAPI description (`api`) answer without a token
 * on every catalog root (sentinelhub-py's SentinelHubCatalog.get_info() / get_conformance() send none); every other catalog route
 * still answers 401 in the error envelope without one.
 */
import { describe, expect, it } from "vitest";
import { CATALOG_ROOTS } from "../../src/catalog/routes";
import { call } from "../helpers/auth";
import { api } from "./helpers";

const STAC_CORE = "https://api.stacspec.org/v1.0.0/core";

describe.each(CATALOG_ROOTS)("catalog root %s", (root) => {
  it.each([root, `${root}/`])(
    "landing page %s answers 200 without a token, the same document as with one",
    async (path) => {
      const r = await call(path);
      expect(r.status).toBe(200);
      const body = (await r.json()) as { type: string; conformsTo: string[]; links: { rel: string; href: string }[] };
      expect(body.type).toBe("Catalog");
      expect(body.conformsTo).toContain(STAC_CORE);
      expect(body.links.find((l) => l.rel === "search")?.href).toBe(`http://localhost${root}/search`);
      expect((await api(path)).json).toEqual(body);
    },
  );

  it.each(["conformance", "conformances"])("%s answers 200 without a token", async (name) => {
    const r = await call(`${root}/${name}`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as { conformsTo: string[] }).conformsTo).toContain(STAC_CORE);
  });

  it("api (the OpenAPI description, like service-desc) answers 200 without a token", async () => {
    const r = await call(`${root}/api`);
    expect([r.status, ((await r.json()) as { openapi: string }).openapi]).toEqual([200, "3.1.0"]);
  });

  it.each([
    ["GET", "collections"],
    ["GET", "collections/sentinel-2-l2a"],
    ["GET", "collections/sentinel-2-l2a/items"],
    ["GET", "search?collections=sentinel-2-l2a&datetime=2020-01-01T00:00:00Z/.."],
    ["POST", "search"],
    ["GET", "queryables"],
  ])("%s %s still needs a token: 401 in the error envelope", async (method, rest) => {
    const init: RequestInit =
      method === "POST" ? { method, body: "{}", headers: { "content-type": "application/json" } } : {};
    const r = await call(`${root}/${rest}`, init);
    expect(r.status).toBe(401);
    const body = (await r.json()) as { error: { status: number; message: string } };
    expect(body.error.status).toBe(401);
    const bad = await call(`${root}/${rest}`, {
      ...init,
      headers: { ...init.headers, authorization: "Bearer not-a-token" },
    });
    expect(bad.status).toBe(401);
  });
});

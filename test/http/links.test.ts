/** Every link is built on PUBLIC_BASE_URL (http://localhost in tests), whatever Host the client sends. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, token } from "../helpers/auth";
import { seedSamples } from "../helpers/seed";

const EVIL = "http://evil.example";
let bearer: string;
beforeAll(async () => {
  await seedSamples((i) => i.id.startsWith("S2_L2A_31UDS_"));
  bearer = await token();
});

/** Every `href` anywhere in a JSON document. */
function hrefs(doc: unknown): string[] {
  if (Array.isArray(doc)) return doc.flatMap(hrefs);
  if (doc === null || typeof doc !== "object") return [];
  return Object.entries(doc).flatMap(([k, v]) => (k === "href" && typeof v === "string" ? [v] : hrefs(v)));
}

const get = async (path: string): Promise<unknown> => {
  const r = await call(EVIL + path, { headers: { authorization: `Bearer ${bearer}` } });
  expect(r.status, path).toBe(200);
  return r.json();
};

describe("links with Host: evil.example", () => {
  it("catalog landing page, collections, GET search (self and next) and items point to PUBLIC_BASE_URL", async () => {
    const root = "/api/v1/catalog/1.0.0";
    const search = (await get(
      `${root}/search?collections=sentinel-2-l2a&datetime=2018-01-01T00:00:00Z/2019-01-01T00:00:00Z&limit=1`,
    )) as {
      links: { rel: string; href: string }[];
      features: unknown[];
    };
    expect(search.features).toHaveLength(1);
    expect(search.links.find((l) => l.rel === "self")!.href).toMatch(
      /^http:\/\/localhost\/api\/v1\/catalog\/1\.0\.0\/search\?collections=sentinel-2-l2a/,
    );
    expect(search.links.find((l) => l.rel === "next")!.href).toMatch(/^http:\/\/localhost\//);
    const docs = [
      search,
      await get(root),
      await get(`${root}/collections`),
      await get(`${root}/collections/sentinel-2-l2a/items?limit=1`),
    ];
    const all = docs.flatMap(hrefs);
    expect(all.length).toBeGreaterThan(10);
    for (const h of all) expect(h).not.toMatch(/evil\.example/);
    expect(all.filter((h) => h.startsWith("http://localhost/")).length).toBeGreaterThan(10);
  });
});

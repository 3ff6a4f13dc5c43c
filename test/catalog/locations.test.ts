/**
 * The catalog of each location (src/locations): links point at the address of the location that answered, so a
 * STAC client opened on a location's catalog (pystac-client follows links) searches that location's collections;
 * a search without collections covers exactly the collections the location hosts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { token } from "../helpers/auth";
import { fetchAt } from "../helpers/locations";
import type { StacItem } from "../../src/storage/stac";
import { ROOT, seedCatalog } from "./helpers";

const EU = "http://localhost";
const CREO = "http://127.0.0.1:8788";
const TWO = {
  LOCATION_ID: "aws-eu-central-1",
  LOCATIONS: JSON.stringify([
    { id: "aws-eu-central-1", url: EU },
    { id: "creo", url: `${CREO}/` },
  ]),
};
let items: StacItem[];
let bearer: string;

/** GET (or POST `body`) at a location's address, with a token. */
async function at(base: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const init: RequestInit = { headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" } };
  const r = await fetchAt(
    TWO,
    base + path,
    body === undefined ? init : { ...init, method: "POST", body: JSON.stringify(body) },
  );
  return { status: r.status, json: await r.json() };
}

beforeAll(async () => {
  // before any registry lookup in this file's isolate (built-ins are cached per isolate)
  await env.DB.prepare("UPDATE data_collections SET location = 'creo' WHERE id = 'sentinel-1-grd'").run();
  items = await seedCatalog();
  bearer = await token();
});

describe("each location's catalog", () => {
  it("links at the answering location's address; a search without collections covers its collections only", async () => {
    for (const [base, hosted] of [
      [CREO, ["sentinel-1-grd"]],
      [EU, ["sentinel-2-l1c", "sentinel-2-l2a", "dem", "landsat-ot-l2"]],
    ] as const) {
      const landing = await at(base, `${ROOT}/`);
      const own = landing.json.links.filter((l: any) => !["service-desc", "service-doc"].includes(l.rel));
      for (const l of own) expect(l.href.startsWith(`${base}${ROOT}`), `${base}: ${l.rel} ${l.href}`).toBe(true);
      expect(landing.json.links.filter((l: any) => l.rel === "child").map((l: any) => l.href.split("/").pop())).toEqual(
        hosted,
      );
      const want = items
        .filter((i) => (hosted as readonly string[]).includes(i.collection))
        .map((i) => `${i.collection}/${i.id}`)
        .sort();
      const seen: string[] = [];
      let page = await at(base, `${ROOT}/search?limit=1`);
      for (let n = 0; n < 30; n++) {
        expect(page.status).toBe(200);
        expect(page.json.numberMatched).toBe(n === 0 ? want.length : undefined);
        expect(page.json.links.find((l: any) => l.rel === "self").href.startsWith(base)).toBe(true);
        seen.push(...page.json.features.map((f: any) => `${f.collection}/${f.id}`));
        const next = page.json.links.find((l: any) => l.rel === "next");
        if (!next) break;
        expect(next.href.startsWith(base)).toBe(true);
        page = await at(base, new URL(next.href).pathname + new URL(next.href).search);
      }
      expect(seen.sort()).toEqual(want);
    }
  });

  it("a filter without collections accepts every queryable of the item search; a named collection's are its own", async () => {
    const all = await at(CREO, `${ROOT}/search?filter=eo:cloud_cover < 10`); // Sentinel-1 has no cloud cover
    expect([all.status, all.json.features.length, all.json.numberMatched]).toEqual([200, 0, 0]);
    const named = await at(CREO, `${ROOT}/search?collections=sentinel-1-grd&filter=eo:cloud_cover < 10`);
    expect([named.status, named.json.error?.message]).toEqual([
      400,
      expect.stringMatching(/Unknown property 'eo:cloud_cover'/),
    ]);
  });

  it("naming a collection of the other location is a 404 naming it, also among several", async () => {
    const r = await at(EU, `${ROOT}/search`, { collections: ["sentinel-2-l2a", "sentinel-1-grd"] });
    expect(r.status).toBe(404);
    expect(r.json.error.message).toContain(`hosted in location 'creo': send the request to ${CREO}`);
  });
});

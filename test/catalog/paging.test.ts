/**
 * Paging through every page with each client's method: sentinelhub-py (POST the body again with context.next),
 * pystac-client (follow rel=next: POST body merge, or the GET href), sentinelhub-js findTiles (its own offsets).
 * Ties on datetime are covered by derived copies of a real item (same datetime, new ids, marked derived).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import { api, ROOT, seedCatalog } from "./helpers";

const L2A = "sentinel-2-l2a";
const BASE = { collections: [L2A], datetime: "2000-01-01T00:00:00Z/2030-01-01T00:00:00Z" };
let order: string[]; // all L2A ids in the catalog's (datetime, id) order

beforeAll(async () => {
  const items = await seedCatalog();
  const src = items.find((i) => i.id === "S2A_29RKH_20200219_0_L2A")!;
  for (const n of [3, 1, 4, 2, 5]) {
    const copy: StacItem = {
      ...src,
      id: `${src.id}_tie${n}`,
      properties: { ...src.properties, "eoedge:derived": true },
    };
    await upsertItem(env, copy);
    items.push(copy);
  }
  order = items
    .filter((i) => i.collection === L2A)
    .sort(
      (a, b) =>
        Date.parse(a.properties.datetime) - Date.parse(b.properties.datetime) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    .map((i) => i.id);
});

type Page = { status: number; json: any };

async function collect(first: Page, follow: (page: Page) => Promise<Page | null>): Promise<string[]> {
  const seen: string[] = [];
  let page: Page | null = first;
  for (let guard = 0; page && guard < 200; guard++) {
    expect(page.status, JSON.stringify(page.json?.error)).toBe(200);
    seen.push(...page.json.features.map((f: any) => f.id));
    page = await follow(page);
  }
  return seen;
}

const nextLink = (p: Page): any => p.json.links.find((l: any) => l.rel === "next");

describe("every page, no item lost or repeated", () => {
  for (const limit of [1, 4, 7, 100]) {
    it(`sentinelhub-py: POST with context.next (limit ${limit})`, async () => {
      const body = { ...BASE, limit };
      const ids = await collect(await api(`${ROOT}/search`, body), async (p) =>
        p.json.context.next === undefined ? null : api(`${ROOT}/search`, { ...body, next: p.json.context.next }),
      );
      expect(ids).toEqual(order);
    });
  }

  it("pystac-client: follows the POST next link, merging its body", async () => {
    const body = { ...BASE, limit: 3 };
    const ids = await collect(await api(`${ROOT}/search`, body), async (p) => {
      const link = nextLink(p);
      if (!link) return null;
      expect(link).toMatchObject({ method: "POST", merge: true, href: `http://localhost${ROOT}/search` });
      return api(new URL(link.href).pathname, { ...body, ...link.body });
    });
    expect(ids).toEqual(order);
  });

  it("GET search and GET items: follow the next href", async () => {
    const first = `${ROOT}/search?collections=${L2A}&datetime=${BASE.datetime}&limit=4`;
    const follow = async (p: Page) => {
      const link = nextLink(p);
      return link ? api(new URL(link.href).pathname + new URL(link.href).search) : null;
    };
    expect(await collect(await api(first), follow)).toEqual(order);
    expect(await collect(await api(`${ROOT}/collections/${L2A}/items?limit=6`), follow)).toEqual(order);
  });

  it("a spatial condition (decided per candidate) pages the same way", async () => {
    const body = {
      ...BASE,
      limit: 2,
      intersects: {
        type: "Polygon",
        coordinates: [
          [
            [-20, 20],
            [10, 20],
            [10, 60],
            [-20, 60],
            [-20, 20],
          ],
        ],
      },
    };
    const want = order.filter((id) => id.includes("29RKH") || id.includes("31UDS") || id.startsWith("openEO"));
    const ids = await collect(await api(`${ROOT}/search`, body), async (p) =>
      p.json.context.next === undefined ? null : api(`${ROOT}/search`, { ...body, next: p.json.context.next }),
    );
    expect(ids).toEqual(want);
  });

  it("sentinelhub-js findTiles: caller-computed offsets", async () => {
    const seen: string[] = [];
    for (let offset = 0, more = true; more; offset += 5) {
      const r = await api(`${ROOT}/search`, { ...BASE, limit: 5, ...(offset > 0 ? { next: offset } : {}) });
      seen.push(...r.json.features.map((f: any) => f.id));
      more = Boolean(r.json.context.next);
      if (more && offset > 0) expect(r.json.context.next).toBe(offset + 5);
    }
    expect(seen).toEqual(order);
  });

  it("the last page has no next link and no context.next", async () => {
    const r = await api(`${ROOT}/search`, { ...BASE, limit: 100 });
    expect(r.json.context).toEqual({ limit: 100, returned: order.length, matched: order.length });
    expect(r.json.numberMatched).toBe(order.length);
    expect(nextLink(r)).toBeUndefined();
  });
});

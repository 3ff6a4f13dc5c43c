/**
 * The items SQL of src/storage/search.ts on real D1: one collection (one statement), a few collections (one index
 * walk each, merged), many collections (one statement over an IN list) all read the same rows in the same total
 * order from any position; counts stop at their limits. Items are copies of a real one in synthetic collections
 * with datetimes, cloud covers and ids chosen here to tie in every key.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import { compileCondition } from "../../src/storage/condition";
import { countMatches, fetchRows, type ItemQuery, type SortTerm } from "../../src/storage/search";
import { sampleItems } from "../helpers/seed";

const COLLECTIONS = Array.from({ length: 45 }, (_, k) => `synthetic-${String(k).padStart(2, "0")}`);
const T0 = Date.parse("2021-03-01T00:00:00Z");
let stored: { collection: string; id: string; t: number; cc: number | null }[] = [];

beforeAll(async () => {
  const src = (await sampleItems()).find((i) => i.collection === "sentinel-2-l2a")!;
  // 3 items in each of the first 6 collections, 1 in the others: datetimes repeat (k % 4 days), ids repeat across
  // collections, cloud cover repeats and is missing for every fifth.
  for (const [n, collection] of COLLECTIONS.entries()) {
    for (let k = 0; k < (n < 6 ? 3 : 1); k++) {
      const t = T0 + ((n + k) % 4) * 86_400_000;
      const cc = (n + k) % 5 === 0 ? null : ((n * 7 + k) % 3) * 10;
      const id = `item-${(n + 2 * k) % 7}`;
      const props: Record<string, unknown> = { ...src.properties, datetime: new Date(t).toISOString() };
      if (cc === null) delete props["eo:cloud_cover"];
      else props["eo:cloud_cover"] = cc;
      await upsertItem(env, { ...src, collection, id, properties: props } as StacItem);
      stored.push({ collection, id, t, cc });
    }
  }
});

const cmp = (a: string | number | null, b: string | number | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;
const EXACT = compileCondition([]);
const query = (collections: string[], sort: SortTerm[]): ItemQuery => ({
  collections,
  time: {},
  condition: EXACT,
  sort,
});

/** The expected order: the terms, then datetime, id, collection in the first term's direction. */
function expected(collections: string[], sort: SortTerm[]): string[] {
  const d = sort[0]?.descending ? -1 : 1;
  const value = {
    datetime: (r: (typeof stored)[0]) => r.t,
    "eo:cloud_cover": (r: (typeof stored)[0]) => r.cc,
    id: (r: (typeof stored)[0]) => r.id,
    collection: (r: (typeof stored)[0]) => r.collection,
  };
  return stored
    .filter((r) => collections.includes(r.collection))
    .sort((a, b) => {
      for (const t of sort) {
        const c = cmp(value[t.field](a), value[t.field](b));
        if (c) return t.descending ? -c : c;
      }
      return d * (cmp(a.t, b.t) || cmp(a.id, b.id) || cmp(a.collection, b.collection));
    })
    .map((r) => `${r.collection}/${r.id}`);
}

const keyOf = (row: { doc: string }): string => {
  const item = JSON.parse(row.doc) as StacItem;
  return `${item.collection}/${item.id}`;
};

describe("rows of one, a few and many collections", () => {
  const sorts: SortTerm[][] = [
    [],
    [{ field: "datetime", descending: true }],
    [{ field: "eo:cloud_cover", descending: false }],
    [
      { field: "eo:cloud_cover", descending: true },
      { field: "id", descending: false },
    ],
    [{ field: "id", descending: true }],
    [
      { field: "collection", descending: false },
      { field: "datetime", descending: true },
    ],
  ];
  const scopes = { one: COLLECTIONS.slice(0, 1), few: COLLECTIONS.slice(0, 6), many: COLLECTIONS };

  for (const [name, collections] of Object.entries(scopes)) {
    it(`${name} (${collections.length}): every order, every offset window`, async () => {
      for (const sort of sorts) {
        const want = expected(collections, sort);
        const whole = await fetchRows(env, query(collections, sort), undefined, 0, 1000);
        expect(whole.map(keyOf), JSON.stringify(sort)).toEqual(want);
        for (const [skip, take] of [
          [0, 1],
          [2, 3],
          [want.length - 2, 5],
          [want.length, 4],
        ] as const) {
          const page = await fetchRows(env, query(collections, sort), undefined, skip, take);
          expect(page.map(keyOf), `${JSON.stringify(sort)} ${skip}+${take}`).toEqual(want.slice(skip, skip + take));
        }
      }
    });
  }

  it("a datetime position resumes ascending and descending orders (keyset)", async () => {
    const collections = COLLECTIONS.slice(0, 6);
    const t = T0 + 86_400_000;
    for (const descending of [false, true]) {
      const sort = [{ field: "datetime" as const, descending }];
      const want = expected(collections, sort).filter((k) => {
        const r = stored.find((s) => `${s.collection}/${s.id}` === k)!;
        return descending ? r.t <= t : r.t >= t;
      });
      const rows = await fetchRows(env, query(collections, sort), t, 1, 100);
      expect(rows.map(keyOf)).toEqual(want.slice(1));
    }
  });
});

describe("counts", () => {
  it("exact counts, and undefined past the row limit", async () => {
    const q = query(COLLECTIONS.slice(0, 6), []);
    const n = stored.filter((r) => q.collections.includes(r.collection)).length;
    expect(await countMatches(env, q, { rows: 1000, tests: 10 })).toBe(n);
    expect(await countMatches(env, q, { rows: n, tests: 10 })).toBe(n);
    expect(await countMatches(env, q, { rows: n - 1, tests: 10 })).toBeUndefined();
    expect(await countMatches(env, query([], []), { rows: 10, tests: 10 })).toBe(0);
  });

  it("spatial counts: boxes holding the bboxes need no test; others stop at the test limit", async () => {
    const src = (await sampleItems()).find((i) => i.collection === "sentinel-2-l2a")!;
    const [w, s, e, n] = src.bbox as [number, number, number, number];
    const all = stored.length;
    const around = compileCondition([
      { kind: "spatial", geometry: box([w - 1, s - 1, e + 1, n + 1]), bbox: [w - 1, s - 1, e + 1, n + 1], rect: true },
    ]);
    expect(await countMatches(env, { ...query(COLLECTIONS, []), condition: around }, { rows: 1000, tests: 0 })).toBe(
      all,
    );
    const inside = [(w + e) / 2, (s + n) / 2, (w + e) / 2 + 1e-6, (s + n) / 2 + 1e-6] as [
      number,
      number,
      number,
      number,
    ];
    const small = compileCondition([{ kind: "spatial", geometry: box(inside), bbox: inside, rect: true }]);
    expect(await countMatches(env, { ...query(COLLECTIONS, []), condition: small }, { rows: 1000, tests: all })).toBe(
      all,
    );
    expect(
      await countMatches(env, { ...query(COLLECTIONS, []), condition: small }, { rows: 1000, tests: all - 1 }),
    ).toBeUndefined();
  });
});

function box([w, s, e, n]: [number, number, number, number]) {
  return {
    type: "Polygon" as const,
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
}

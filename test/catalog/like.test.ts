/**
 * CQL2 LIKE and IN semantics (OGC 21-065): `%` any run, `_` one character, `\` escapes the next character, and
 * GLOB's own wildcards `*`, `?`, `[` are plain characters. The items are derived copies of a real item whose ids
 * hold those characters (marked "eoedge:derived"); the expected ids are written out by hand from the rules above.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { upsertItem } from "../../src/storage/items";
import type { StacItem } from "../../src/storage/stac";
import { api, ROOT, seedCatalog } from "./helpers";

const L2A = "sentinel-2-l2a";
const SUFFIXES = ["a*b", "a?b", "a[b", "a]b", "a%b", "a_b", "a\\b", "axb", "ab", "aXYb"];
const id = (s: string): string => `LT-${s}`;

beforeAll(async () => {
  const items = await seedCatalog();
  const src = items.find((i) => i.id === "S2A_29RKH_20200219_0_L2A")!;
  for (const s of SUFFIXES) {
    const copy: StacItem = {
      ...src,
      id: id(s),
      properties: { ...src.properties, "eoedge:derived": true, "eoedge:derived_from": src.id },
    };
    await upsertItem(env, copy);
  }
});

async function matching(filter: unknown, lang: "cql2-text" | "cql2-json"): Promise<string[]> {
  const r = await api(`${ROOT}/search`, {
    collections: [L2A],
    datetime: "2000-01-01T00:00:00Z/..",
    limit: 100,
    filter,
    "filter-lang": lang,
  });
  expect(r.status, JSON.stringify(r.json?.error)).toBe(200);
  return r.json.features
    .map((f: any) => f.id)
    .filter((i: string) => i.startsWith("LT-"))
    .sort();
}

/** CQL2 text string literal of a pattern ('' for a quote; backslashes are plain characters of the literal). */
const quote = (p: string): string => `'${p.replaceAll("'", "''")}'`;

describe("LIKE", () => {
  const cases: [string, string[]][] = [
    ["LT-a_b", ["a*b", "a?b", "a[b", "a]b", "a%b", "a_b", "a\\b", "axb"]], // _ is exactly one character
    ["LT-a%b", SUFFIXES], // % is any run, also empty
    ["LT-a__b", ["aXYb"]],
    ["LT-a\\%b", ["a%b"]], // escaped wildcards are literal
    ["LT-a\\_b", ["a_b"]],
    ["LT-a\\\\b", ["a\\b"]], // an escaped backslash
    ["LT-a*b", ["a*b"]], // GLOB wildcards are literal in LIKE
    ["LT-a?b", ["a?b"]],
    ["LT-a[b", ["a[b"]],
    ["LT-a]b", ["a]b"]],
    ["LT-a[?]b", []], // not a GLOB character set
    ["LT-a[*]%", []],
    ["LT-%\\\\b", ["a\\b"]],
    ["LT-a%\\b", SUFFIXES], // \ before an ordinary character: that character
    ["lt-%", []], // case-sensitive
  ];
  for (const [pattern, want] of cases) {
    it(`id LIKE '${pattern}' (text and JSON)`, async () => {
      const expected = want.map(id).sort();
      expect(await matching(`id LIKE ${quote(pattern)}`, "cql2-text")).toEqual(expected);
      expect(await matching({ op: "like", args: [{ property: "id" }, pattern] }, "cql2-json")).toEqual(expected);
    });
  }

  it("NOT LIKE is the complement within the derived items", async () => {
    const got = await matching(
      { op: "not", args: [{ op: "like", args: [{ property: "id" }, "LT-a_b"] }] },
      "cql2-json",
    );
    expect(got).toEqual(["ab", "aXYb"].map(id).sort());
  });
});

describe("IN", () => {
  it("an empty list (allowed by the CQL2 JSON schema) matches nothing; its negation matches everything", async () => {
    expect(await matching({ op: "in", args: [{ property: "id" }, []] }, "cql2-json")).toEqual([]);
    const all = await matching({ op: "not", args: [{ op: "in", args: [{ property: "id" }, []] }] }, "cql2-json");
    expect(all).toEqual(SUFFIXES.map(id).sort());
  });

  it("an empty list in CQL2 text is a syntax error (the BNF needs one item): 400", async () => {
    const r = await api(`${ROOT}/search`, {
      collections: [L2A],
      datetime: "2000-01-01T00:00:00Z/..",
      filter: "id IN ()",
      "filter-lang": "cql2-text",
    });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toMatch(/Invalid CQL2 text filter/);
  });

  it("a list of ids with GLOB characters matches them exactly", async () => {
    const want = ["a*b", "a[b", "a\\b"].map(id);
    expect(await matching({ op: "in", args: [{ property: "id" }, want] }, "cql2-json")).toEqual(want.sort());
  });
});

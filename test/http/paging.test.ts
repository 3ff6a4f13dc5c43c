/** Sentinel Hub paged list: viewtoken round trip, walking pages both ways through the links, count bounds, bad input. */
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  decodeViewtoken,
  encodeViewtoken,
  pagedList,
  parsePageRequest,
  seekArray,
  type SortKey,
} from "../../src/http/paging";
import { Api } from "../../src/http/router";
import { ApiError } from "../../src/http/errors";
import type { Env } from "../../src/env";

interface Row {
  created: string;
  id: number;
}
// 23 rows, several sharing a `created` value, listed shuffled: the key [created, id] is unique
const ROWS: Row[] = Array.from({ length: 23 }, (_, i) => ({
  created: `2026-01-0${1 + ((i * 7) % 5)}`,
  id: (i * 11) % 23,
}));
const keyOf = (r: Row): SortKey => [r.created, r.id];
// the oracle: JavaScript's sort on the two fields, independent of compareKeys
const SORTED = [...ROWS].sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.id - b.id));

const list = (href: string, max = 10) => {
  const url = new URL(href);
  const page = parsePageRequest(url, max);
  return pagedList(url, page, seekArray(SORTED, page, keyOf), keyOf);
};

describe("viewtoken", () => {
  it("round-trips cursors with unicode strings and numbers as base64url without padding", () => {
    for (const cursor of [{}, { after: ["2026-01-01T00:00:00Z", 3] }, { before: ["é€𝄞 a/b+c", -1.5, 0] }]) {
      const t = encodeViewtoken(cursor);
      expect(t).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeViewtoken(t)).toEqual(cursor);
    }
  });

  it.each([
    "!!!",
    "abc",
    "bm90IGpzb24",
    btoa('{"k":[1],"d":"up"}'),
    btoa('{"k":{"a":1},"d":"next"}'),
    btoa('{"k":[],"d":"prev"}'),
    btoa('{"k":[null],"d":"next"}'),
  ])("rejects %s with a 400 ApiError", (t) => {
    const err = (() => {
      try {
        decodeViewtoken(t.replace(/=+$/, ""));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
  });
});

describe("pagedList", () => {
  it("the next URLs walk every row once in order; previous URLs walk back", async () => {
    const seen: Row[] = [];
    const tokens: string[] = [];
    let href: string | undefined = "http://localhost/api/v2/batch/process?count=5&sort=created";
    let last;
    while (href) {
      last = list(href);
      expect(last.links["@id"]).toBe(href);
      expect(new URL(last.links["@id"]).searchParams.get("viewtoken") ?? encodeViewtoken({})).toBe(
        last.links.currentToken,
      );
      seen.push(...last.data);
      tokens.push(last.links.currentToken);
      if (last.links.next) expect(new URL(last.links.next).searchParams.get("viewtoken")).toBe(last.links.nextToken);
      href = last.links.next;
    }
    expect(seen).toEqual(SORTED);
    expect(tokens).toHaveLength(5);
    expect(last!.data).toHaveLength(3);
    expect(new URL(last!.links.previous!).searchParams.get("sort")).toBe("created");
    const back: Row[][] = [];
    for (let h: string | undefined = last!.links.previous; h; h = list(h).links.previous) back.push(list(h).data);
    expect(back.map((d) => d.length)).toEqual([5, 5, 5, 5]);
    expect(back.reverse().flat()).toEqual(SORTED.slice(0, 20));
  });

  it("first page has no previous, count defaults to the maximum, an exact fit has no next", () => {
    const first = list("http://localhost/l");
    expect(first.data).toEqual(SORTED.slice(0, 10));
    expect(first.links.previousToken).toBeUndefined();
    const all = list("http://localhost/l?count=23", 100);
    expect(all.data).toEqual(SORTED);
    expect([all.links.next, all.links.nextToken, all.links.previous]).toEqual([undefined, undefined, undefined]);
  });
});

describe("count and viewtoken through the router", () => {
  const api = new Api().on("GET", "/l", (request) => Response.json(list(request.url, 100)), true);
  const get = (q: string) =>
    api.fetch(new Request("http://localhost/l" + q), env as unknown as Env, createExecutionContext());

  it.each([
    "?count=0",
    "?count=101",
    "?count=1.5",
    "?count=-1",
    "?count=abc",
    "?count=1e1",
    "?viewtoken=%25%25",
    "?viewtoken=e30",
  ])("%s -> 400 envelope", async (q) => {
    const r = await get(q);
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("COMMON_BAD_PAYLOAD");
    expect(body.error.message).toMatch(/count|viewtoken/);
  });

  it("count=1 and count=100 are accepted", async () => {
    expect(((await (await get("?count=1")).json()) as { data: Row[] }).data).toEqual(SORTED.slice(0, 1));
    expect(((await (await get("?count=100")).json()) as { data: Row[] }).data).toHaveLength(23);
  });
});

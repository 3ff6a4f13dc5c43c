/**
 * The `search` query of the paged lists (BYOC collections, batch tasks, Zarr collections), parsed in one place
 * (src/http/paging.ts parseSearch): words joined by `|` (or), `&` or spaces (and), case-insensitive substrings.
 * Its size is bounded: a search of 100 words was a 500 (`D1_ERROR: Expression tree is too large`); over the
 * limit it is a 400 naming the limit, at the limit the list answers.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { authed, envelope, token } from "../helpers/auth";
import { MAX_SEARCH_CHARS, MAX_SEARCH_WORDS } from "../../src/http/paging";

const LISTS = [
  "/api/v1/byoc/collections",
  "/byoc/v1/collections",
  "/api/v2/batch/process",
  "/batch/v2/process",
  "/api/v1/zarr/collections",
];

let bearer: string;
beforeAll(async () => {
  bearer = await token();
  for (const title of ["Red fields", "Blue lakes", "red lakes"]) {
    const r = await authed(
      "/api/v1/byoc/collections",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: title, s3Bucket: "search-test" }),
      },
      bearer,
    );
    expect(r.status, await r.clone().text()).toBe(201);
  }
});

const list = (path: string, search: string) => authed(`${path}?search=${encodeURIComponent(search)}`, {}, bearer);

describe.each(LISTS)("%s search bounds", (path) => {
  it.each([
    ["100 words joined by |", Array(100).fill("a").join("|")],
    ["100 words joined by &", Array(100).fill("a").join("&")],
    ["100 words joined by spaces", Array(100).fill("a").join(" ")],
  ])("%s: 400 naming the limit", async (_what, search) => {
    const r = await list(path, search);
    expect(r.status).toBe(400);
    const e = await envelope(r);
    expect([e.status, e.code]).toEqual([400, "COMMON_BAD_PAYLOAD"]);
    expect(e.message).toContain(`at most ${MAX_SEARCH_WORDS} words`);
  });

  it(`${MAX_SEARCH_WORDS} words (the limit) answer 200`, async () => {
    const or = await list(path, Array(MAX_SEARCH_WORDS).fill("zz").join("|"));
    expect(or.status, await or.clone().text()).toBe(200);
    const and = await list(path, Array(MAX_SEARCH_WORDS).fill("zz").join("&"));
    expect(and.status, await and.clone().text()).toBe(200);
  });

  it(`a search over ${MAX_SEARCH_CHARS} characters is a 400 naming the limit`, async () => {
    const r = await list(path, "x".repeat(MAX_SEARCH_CHARS + 1));
    expect(r.status).toBe(400);
    expect((await envelope(r)).message).toContain(`at most ${MAX_SEARCH_CHARS} characters`);
    expect((await list(path, "x".repeat(MAX_SEARCH_CHARS))).status).toBe(200);
  });
});

describe("search semantics (BYOC collections)", () => {
  const titles = async (search: string) => {
    const r = await list("/api/v1/byoc/collections", search);
    expect(r.status).toBe(200);
    return ((await r.json()) as { data: { name: string }[] }).data.map((c) => c.name).sort();
  };
  it("| is or, & and spaces are and, case-insensitive", async () => {
    expect(await titles("fields|blue")).toEqual(["Blue lakes", "Red fields"]);
    expect(await titles("RED&lakes")).toEqual(["red lakes"]);
    expect(await titles("red lakes")).toEqual(["red lakes"]);
    expect(await titles("red")).toEqual(["Red fields", "red lakes"]);
    expect(await titles("")).toEqual(["Blue lakes", "Red fields", "red lakes"]);
  });
});

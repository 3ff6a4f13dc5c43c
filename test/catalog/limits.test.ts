/**
 * Limits of CQL2 filters (src/catalog/cql2/limits.ts): each one answers a 400 naming it, and inputs at the limit
 * still answer 200 (with a probe's reproductions: `not` x100, LIKE with 30 wildcards, a huge filter).
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  MAX_FILTER_CHARS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_NODES,
  MAX_LIKE_PATTERN_BYTES,
  MAX_LIKE_WILDCARDS,
} from "../../src/catalog/cql2/limits";
import { MAX_GEOMETRY_VERTICES } from "../../src/raster/grid/vertices";
import { authed, token } from "../helpers/auth";
import { api, ROOT, seedCatalog } from "./helpers";

const BASE = { collections: ["sentinel-2-l2a"], datetime: "2000-01-01T00:00:00Z/..", limit: 100 };
const search = (filter: unknown, lang: "cql2-text" | "cql2-json") =>
  api(`${ROOT}/search`, { ...BASE, filter, "filter-lang": lang });
const ids = (r: { json: any }): string[] => r.json.features.map((f: any) => f.id).sort();
const EQ = { op: "=", args: [{ property: "id" }, "S2A_29RKH_20200219_0_L2A"] };

async function rejected(filter: unknown, lang: "cql2-text" | "cql2-json", message: RegExp): Promise<void> {
  const r = await search(filter, lang);
  expect(r.status, JSON.stringify(r.json)).toBe(400);
  expect(r.json.error.message).toMatch(message);
}

/** `n` nested nots around `inner` (an even n keeps its meaning). */
function nots(n: number, inner: unknown): unknown {
  let node = inner;
  for (let i = 0; i < n; i++) node = { op: "not", args: [node] };
  return node;
}

beforeAll(async () => {
  await seedCatalog();
});

describe("depth", () => {
  it(`not x100 is a 400 naming ${MAX_FILTER_DEPTH} levels, in JSON and in text`, async () => {
    await rejected(nots(100, EQ), "cql2-json", new RegExp(`deeper than ${MAX_FILTER_DEPTH} levels`));
    await rejected(`${"NOT ".repeat(100)}id = 'x'`, "cql2-text", new RegExp(`deeper than ${MAX_FILTER_DEPTH} levels`));
    await rejected(nots(MAX_FILTER_DEPTH, EQ), "cql2-json", /deeper than/); // depth 21 with the comparison
  });

  it("the deepest allowed filter runs in D1 and selects what it says", async () => {
    const five = { op: "+", args: [{ op: "+", args: [3, 1] }, 1] };
    const deepest = nots(MAX_FILTER_DEPTH - 4, {
      op: "and",
      args: [EQ, { op: "<", args: [{ property: "eo:cloud_cover" }, five] }],
    });
    const r = await search(deepest, "cql2-json");
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(ids(r)).toEqual(["S2A_29RKH_20200219_0_L2A"]); // cloud cover 4.05 < 5
  });

  it("a long flat OR (as deep as D1 allows in a flat SQL chain) runs: SQL joins are balanced", async () => {
    const terms = Math.floor((MAX_FILTER_NODES - 1) / 2); // isNull + its property per term
    const or = {
      op: "or",
      args: [...Array.from({ length: terms - 1 }, () => ({ op: "isNull", args: [{ property: "platform" }] })), EQ],
    };
    const r = await search(or, "cql2-json");
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(ids(r)).toEqual(["S2A_29RKH_20200219_0_L2A"]);
  });
});

describe("node count and size", () => {
  it(`more than ${MAX_FILTER_NODES} nodes is a 400`, async () => {
    const list = Array.from({ length: MAX_FILTER_NODES }, (_, i) => `id-${i}`);
    await rejected(
      { op: "in", args: [{ property: "id" }, list] },
      "cql2-json",
      new RegExp(`more than ${MAX_FILTER_NODES} operators`),
    );
    const ok = await search(
      { op: "in", args: [{ property: "id" }, [...list.slice(0, MAX_FILTER_NODES - 3), EQ.args[1]]] },
      "cql2-json",
    );
    expect(ids(ok)).toEqual(["S2A_29RKH_20200219_0_L2A"]);
  });

  it(`text and JSON over ${MAX_FILTER_CHARS} characters are a 400; a long text under it parses`, async () => {
    const text = (n: number) => `id = '${"x".repeat(n - 7)}'`;
    await rejected(
      text(MAX_FILTER_CHARS + 1),
      "cql2-text",
      new RegExp(`${MAX_FILTER_CHARS + 1} characters; the limit is ${MAX_FILTER_CHARS}`),
    );
    const at = await search(text(MAX_FILTER_CHARS), "cql2-text");
    expect(at.status, JSON.stringify(at.json)).toBe(200);
    await rejected(
      { op: "=", args: [{ property: "id" }, "x".repeat(MAX_FILTER_CHARS)] },
      "cql2-json",
      new RegExp(`the limit is ${MAX_FILTER_CHARS}`),
    );
    const ors = [...Array.from({ length: 160 }, () => "platform IS NULL"), "id = 'S2A_29RKH_20200219_0_L2A'"].join(
      " OR ",
    ); // or(or(...))
    expect(ors.length).toBeLessThan(MAX_FILTER_CHARS);
    const many = await search(ors, "cql2-text");
    expect(many.status, JSON.stringify(many.json)).toBe(200);
    expect(ids(many)).toEqual(["S2A_29RKH_20200219_0_L2A"]);
  });
});

describe("nesting inside literals", () => {
  it("arrays nested a million deep inside a timestamp literal are a 400, not a stack overflow", async () => {
    const deep = `${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`;
    const text =
      `{"collections":["sentinel-2-l2a"],"datetime":"2000-01-01T00:00:00Z/..","filter-lang":"cql2-json",` +
      `"filter":{"op":"t_after","args":[{"property":"datetime"},{"timestamp":${deep}}]}}`;
    const r = await authed(
      `${ROOT}/search`,
      { method: "POST", body: text, headers: { "content-type": "application/json" } },
      await token(),
    );
    expect(r.status).toBe(400);
    const message = ((await r.json()) as any).error.message;
    expect(message).toMatch(/nested too deeply|characters; the limit is|timestamp/);
  });
});

describe("LIKE", () => {
  it(`30 wildcards and more than ${MAX_LIKE_WILDCARDS} are a 400; ${MAX_LIKE_WILDCARDS} run`, async () => {
    await rejected(
      `id LIKE '${"%_".repeat(15)}'`,
      "cql2-text",
      new RegExp(`30 wildcards .*limit is ${MAX_LIKE_WILDCARDS}`),
    );
    await rejected(
      { op: "like", args: [{ property: "id" }, "S%".repeat(MAX_LIKE_WILDCARDS + 1)] },
      "cql2-json",
      /wildcards/,
    );
    const r = await search({ op: "like", args: [{ property: "id" }, "S2A%29RKH%2020%02%19%0%L%A%"] }, "cql2-json"); // 8 %
    expect(ids(r)).toEqual(["S2A_29RKH_20200219_0_L2A"]);
    const escaped = await search({ op: "like", args: [{ property: "id" }, `S2A${"\\%".repeat(12)}`] }, "cql2-json"); // escaped: literal
    expect(escaped.status).toBe(200);
  });

  it(`a pattern over ${MAX_LIKE_PATTERN_BYTES} bytes as matched is a 400 (D1's GLOB limit), at the limit it runs`, async () => {
    const exact = "S2A_29RKH_20200219_0_L2A";
    const at = `${exact}${"x".repeat(MAX_LIKE_PATTERN_BYTES - exact.length - 1)}%`;
    expect((await search({ op: "like", args: [{ property: "id" }, at] }, "cql2-json")).status).toBe(200);
    await rejected(
      { op: "like", args: [{ property: "id" }, `${at}y`] },
      "cql2-json",
      new RegExp(`the limit is ${MAX_LIKE_PATTERN_BYTES}`),
    );
    await rejected({ op: "like", args: [{ property: "id" }, "*".repeat(17)] }, "cql2-json", /51 bytes/); // literal * is [*]
  });
});

describe(`intersects: at most ${MAX_GEOMETRY_VERTICES} vertices`, () => {
  /** A circle of `n` distinct vertices (and the closing one) around the West Flanders items' point (3.024, 50.816). */
  const circle = (n: number) => ({
    type: "Polygon",
    coordinates: [
      Array.from({ length: n + 1 }, (_, i) => [
        3.024 + 0.003 * Math.cos((2 * Math.PI * (i % n)) / n),
        50.816 + 0.002 * Math.sin((2 * Math.PI * (i % n)) / n),
      ]),
    ],
  });

  it("one vertex over is a 400 naming the limit in a POST body; as a GET parameter the URL is a 414 first", async () => {
    const r = await api(`${ROOT}/search`, { ...BASE, intersects: circle(MAX_GEOMETRY_VERTICES) });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain(
      `${MAX_GEOMETRY_VERTICES + 1} vertices; at most ${MAX_GEOMETRY_VERTICES} are allowed`,
    );
    // 50,001 vertices make a URL of about 2 MB, past the 16 KiB Cloudflare's edge accepts: refused before the search.
    const get = await api(
      `${ROOT}/search?collections=sentinel-2-l2a&datetime=2000-01-01T00:00:00Z/..&intersects=${encodeURIComponent(JSON.stringify(circle(MAX_GEOMETRY_VERTICES)))}`,
    );
    expect(get.status).toBe(414);
    expect(get.json.error).toMatchObject({ status: 414, code: "COMMON_URI_TOO_LONG" });
  });

  it("at the limit the search runs and tests the real footprints (time printed, not asserted)", async () => {
    const t0 = performance.now();
    const r = await api(`${ROOT}/search`, { ...BASE, intersects: circle(MAX_GEOMETRY_VERTICES - 1) });
    console.log(
      `catalog search, intersects with ${MAX_GEOMETRY_VERTICES} vertices: ${(performance.now() - t0).toFixed(0)} ms`,
    );
    expect(r.status).toBe(200);
    const centre = await api(`${ROOT}/search`, {
      ...BASE,
      intersects: { type: "Point", coordinates: [3.024, 50.816] },
    });
    expect(ids(centre).length).toBeGreaterThan(0);
    expect(ids(r)).toEqual(ids(centre)); // the items under the circle's centre (it lies inside their footprints)
  });
});

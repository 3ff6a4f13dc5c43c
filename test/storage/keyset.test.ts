/** Keyset SQL on real D1 with the paged-list helper: both sort directions, both ways through the links, a key of another length. */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { pagedList, parsePageRequest, type SortKey } from "../../src/http/paging";
import { ApiError } from "../../src/http/errors";
import { keysetSql } from "../../src/storage/keyset";
import type { Env } from "../../src/env";

const DB = (env as unknown as Env).DB;
interface Task {
  status: string;
  id: string;
}
const STATUSES = ["CREATED", "DONE", "FAILED", "PROCESSING"];
// 30 tasks, statuses repeating, ids not in insertion order
const TASKS: Task[] = Array.from({ length: 30 }, (_, i) => ({
  status: STATUSES[(i * 3) % 4]!,
  id: `t${String((i * 17) % 30).padStart(2, "0")}`,
}));
const keyOf = (t: Task): SortKey => [t.status, t.id];
// oracle: JavaScript sorts (ASCII strings: code units = UTF-8 bytes)
const ASC = [...TASKS].sort((a, b) => (a.status === b.status ? (a.id < b.id ? -1 : 1) : a.status < b.status ? -1 : 1));

beforeAll(async () => {
  await DB.exec("CREATE TABLE IF NOT EXISTS keyset_tasks (id TEXT PRIMARY KEY, status TEXT NOT NULL, note TEXT)");
  await DB.batch(
    TASKS.map((t) =>
      DB.prepare("INSERT OR REPLACE INTO keyset_tasks (id, status, note) VALUES (?, ?, 'x')").bind(t.id, t.status),
    ),
  );
});

/** One page of `GET href` (sort=status or status:desc) read from D1. */
async function list(href: string) {
  const url = new URL(href);
  const page = parsePageRequest(url, 100, 2);
  const q = keysetSql(["status", "id"], page, url.searchParams.get("sort") === "status:desc");
  const sql = `SELECT status, id FROM keyset_tasks WHERE note = 'x' AND ${q.where} ORDER BY ${q.orderBy} LIMIT ${q.limit}`;
  const rows = (
    await DB.prepare(sql)
      .bind(...q.params)
      .all<Task>()
  ).results;
  return pagedList(url, page, rows, keyOf);
}

async function walk(start: string, link: "next" | "previous"): Promise<{ pages: Task[][]; last: string }> {
  const pages: Task[][] = [];
  let href = start,
    at: string | undefined = start;
  while (at) {
    href = at;
    const p = await list(href);
    pages.push(p.data);
    at = p.links[link];
  }
  return { pages, last: href };
}

describe("keysetSql with pagedList on D1", () => {
  it.each([
    ["status", ASC],
    ["status:desc", [...ASC].reverse()],
  ] as const)("sort=%s: next links read every row once in order, previous links back", async (sort, expected) => {
    const fwd = await walk(`http://localhost/tasks?count=7&sort=${sort}`, "next");
    expect(fwd.pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 2]);
    expect(fwd.pages.flat()).toEqual(expected);
    const back = await walk(fwd.last, "previous");
    expect(back.pages.reverse().flat()).toEqual(expected);
  });

  it("a viewtoken of another key length is a 400", () => {
    const token = parsePageRequest(new URL("http://localhost/x"), 10).token; // first page: fine for any length
    expect(parsePageRequest(new URL(`http://localhost/x?viewtoken=${token}`), 10, 2).cursor).toEqual({});
    const one = pagedList(
      new URL("http://localhost/x?count=1"),
      parsePageRequest(new URL("http://localhost/x?count=1"), 10),
      [{ k: 1 }, { k: 2 }],
      (r) => [r.k],
    );
    const err = (() => {
      try {
        parsePageRequest(new URL(one.links.next!), 10, 2);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
  });

  it("keysetSql rejects column names that are not identifiers", () => {
    expect(() => keysetSql(["id; DROP TABLE x"], { count: 1, cursor: {} })).toThrow("bad column list");
  });
});

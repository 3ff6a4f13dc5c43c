// Catalog benchmark (part of `npm run bench`: sections `catalog`, and `catalog1m` with BENCH_ITEMS=1000000; alone:
// `npx node bench/bench-catalog.mjs`). Builds a scratch state (.wrangler/state-bench-catalog-<items>) seeded like
// `npm start`, adds a catalog of BENCH_ITEMS (default 100,000) items DERIVED from the real sentinel-2-l2a items in
// data/items (same documents, dates spread over 2016-2024, footprints moved to pseudo-random places; each marked
// "eoedge:derived": true and "eoedge:derived_from": <real id>), starts `wrangler dev` on it and times real HTTP
// requests with a real token. Reports p50/p95 of: bbox+datetime search, CQL2 `eo:cloud_cover < 10`, bbox + datetime
// + CQL2 together (a 20 x 20 degree box, and a 2 x 2 one that matches few items of the year), ids lookup, and page 1 vs page 50; and the catalog's size in D1: bytes per item (its row and
// index entries) and items per GB, the figures that decide when one D1 database (10 GB) is not enough.
// The items are written straight into the local D1 database file (node:sqlite, one transaction: a million items
// in minutes; the same columns as src/storage/items.ts upsertItem, the schema's triggers and indexes apply).
// CATALOG_RATE_LIMITS=off serves without the rate limiter (`--var RATE_LIMITS:off`), to tell its cost from the catalog's.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fmt, getToken, pct, prepareState, startServer, summaryRow } from "../scripts/lib/bench.mjs";

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100_000);
const N = Number(process.env.BENCH_N ?? 50);
const PORT = process.env.BENCH_CATALOG_PORT ?? "8799";
const STATE = resolve(`.wrangler/state-bench-catalog-${ITEMS}`);
const CATALOG = "/api/v1/catalog/1.0.0";
const COLLECTION = "sentinel-2-l2a";
const T0 = Date.parse("2016-01-01T00:00:00Z");
const SPAN = Date.parse("2025-01-01T00:00:00Z") - T0;
/** Derived item whose position the deep-paging queries start after: 49,990, or near the end of a smaller catalog. */
const DEEP = Math.min(49_990, ITEMS - 20);
const DEEP_LABEL = `~${(Math.round(DEEP / 1000) * 1000).toLocaleString("en-US")} items deep`;

/** Deterministic PRNG (mulberry32), so every run builds the same catalog and asks the same queries. */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms) => new Date(ms).toISOString().replace(".000Z", "Z");

function realItems() {
  const dir = join("data", "items", COLLECTION);
  return readdirSync(dir)
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));
}

function shift(coords, dx, dy) {
  return typeof coords[0] === "number"
    ? [coords[0] + dx, coords[1] + dy, ...coords.slice(2)]
    : coords.map((c) => shift(c, dx, dy));
}

/** The n-th derived item: a real item moved in time and space. */
function derive(src, n, rnd) {
  const [w, s, e, nn] = src.bbox;
  const lon = -170 + rnd() * (340 - (e - w));
  const lat = -60 + rnd() * (130 - (nn - s));
  const [dx, dy] = [lon - w, lat - s];
  const t = T0 + Math.floor((n * SPAN) / ITEMS);
  return {
    ...src,
    id: `D${String(n).padStart(6, "0")}_${src.id}`,
    geometry: { ...src.geometry, coordinates: shift(src.geometry.coordinates, dx, dy) },
    bbox: [w + dx, s + dy, e + dx, nn + dy],
    properties: { ...src.properties, datetime: iso(t), "eoedge:derived": true, "eoedge:derived_from": src.id },
  };
}

/** The local D1 database file of the state (miniflare's D1 object storage; the only .sqlite besides its metadata). */
function d1File() {
  const dir = join(STATE, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (files.length !== 1) throw new Error(`expected one D1 database in ${dir}, found ${files.join(", ") || "none"}`);
  return join(dir, files[0]);
}

/** Bytes the database file holds (pages in use, after a WAL checkpoint). */
const usedBytes = (db) => {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const page = db.prepare("PRAGMA page_size").get().page_size;
  const pages =
    db.prepare("PRAGMA page_count").get().page_count - db.prepare("PRAGMA freelist_count").get().freelist_count;
  return page * pages;
};

/**
 * Writes the derived catalog into the local D1 database file in one transaction (no server may run on the state):
 * { itemBytes (average doc JSON), rowBytes (database bytes per item: row, indexes and all), fileBytes }. Reuses a
 * catalog of the right size from an earlier run (its bytes per item kept in the table _eoedge_bench).
 */
function loadCatalog() {
  const db = new DatabaseSync(d1File());
  try {
    db.exec("CREATE TABLE IF NOT EXISTS _eoedge_bench (key TEXT PRIMARY KEY, value)");
    const have = db.prepare("SELECT count(*) AS n FROM items WHERE id LIKE 'D%'").get().n;
    const t0 = performance.now();
    if (have !== ITEMS) {
      db.exec("DELETE FROM items WHERE id LIKE 'D%'");
      db.exec("VACUUM");
      const before = usedBytes(db);
      const sources = realItems();
      const rnd = prng(42);
      const insert = db.prepare(
        "INSERT INTO items (collection, id, datetime, cloud_cover, min_lon, min_lat, max_lon, max_lat, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      );
      db.exec("BEGIN");
      for (let n = 0; n < ITEMS; n++) {
        const it = derive(sources[n % sources.length], n, rnd);
        const cc = it.properties["eo:cloud_cover"];
        insert.run(
          COLLECTION,
          it.id,
          Date.parse(it.properties.datetime),
          typeof cc === "number" ? cc : null,
          ...it.bbox,
          JSON.stringify(it),
        );
      }
      db.exec("COMMIT");
      db.prepare("INSERT OR REPLACE INTO _eoedge_bench VALUES ('bytes', ?)").run(usedBytes(db) - before);
      console.log(`loaded ${ITEMS} derived items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    const added = Number(db.prepare("SELECT value FROM _eoedge_bench WHERE key = 'bytes'").get().value);
    const itemBytes = db.prepare("SELECT avg(length(doc)) AS b FROM items WHERE id LIKE 'D%'").get().b;
    return { itemBytes, rowBytes: added / ITEMS, fileBytes: statSync(d1File()).size };
  } finally {
    db.close();
  }
}

/** POSTs a search with api = { root: catalog root URL, token }; returns wall time (ms) and the parsed body. */
async function search(api, body) {
  const t = performance.now();
  const r = await fetch(`${api.root}/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${api.token}`, "content-type": "application/json" },
    body: JSON.stringify({ collections: [COLLECTION], ...body }),
  });
  const json = await r.json();
  const ms = performance.now() - t;
  if (r.status !== 200) throw new Error(`search ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(json)}`);
  return { ms, json };
}

async function timeQueries(api, name, bodies) {
  await search(api, bodies[0]); // warm-up
  const ms = [];
  let returned = 0;
  for (const b of bodies) {
    const r = await search(api, b);
    ms.push(r.ms);
    returned += r.json.features.length;
  }
  return { name, p50: pct(ms, 50), p95: pct(ms, 95), n: ms.length, avgReturned: returned / ms.length };
}

function queries() {
  const rnd = prng(7);
  const window = (days) => {
    const start = T0 + Math.floor(rnd() * (SPAN - days * 86400e3));
    return `${iso(start)}/${iso(start + days * 86400e3)}`;
  };
  const box = (size) => {
    const w = -170 + rnd() * (340 - size);
    const s = -60 + rnd() * (130 - size);
    return [w, s, w + size, s + size].map((x) => Number(x.toFixed(3)));
  };
  const ids = () => Array.from({ length: 10 }, () => Math.floor(rnd() * ITEMS));
  const sources = realItems();
  const idOf = (n) => `D${String(n).padStart(6, "0")}_${sources[n % sources.length].id}`;
  return {
    bbox: Array.from({ length: N }, () => ({ bbox: box(20), datetime: window(90) })),
    cql2: Array.from({ length: N }, () => ({
      datetime: window(365),
      filter: "eo:cloud_cover < 10",
      "filter-lang": "cql2-text",
    })),
    all: Array.from({ length: N }, () => ({
      bbox: box(20),
      datetime: window(365),
      filter: "eo:cloud_cover < 30",
      "filter-lang": "cql2-text",
    })),
    narrow: Array.from({ length: N }, () => ({
      bbox: box(2),
      datetime: window(365),
      filter: "eo:cloud_cover < 30",
      "filter-lang": "cql2-text",
    })),
    ids: Array.from({ length: N }, () => ({ datetime: "2015-01-01T00:00:00Z/..", ids: ids().map(idOf) })),
  };
}

async function paging(api) {
  const body = { datetime: "2015-01-01T00:00:00Z/..", limit: 10 };
  let next;
  for (let page = 1; page < 50; page++)
    next = (await search(api, { ...body, ...(next ? { next } : {}) })).json.context.next;
  // A position DEEP items deep: the keyset value "after derived item DEEP" (datetime_ms * 2048 + 1; derived
  // datetimes are distinct), against the offset form at the same depth.
  const deepKeyset = (T0 + Math.floor((DEEP * SPAN) / ITEMS)) * 2048 + 1;
  const deepOffset = DEEP;
  const [first, fiftieth, offset50, deepK, deepO] = [[], [], [], [], []];
  for (let i = 0; i < N; i++) {
    first.push((await search(api, body)).ms);
    fiftieth.push((await search(api, { ...body, next })).ms);
    offset50.push((await search(api, { ...body, next: 490 })).ms);
    deepK.push((await search(api, { ...body, next: deepKeyset })).ms);
    deepO.push((await search(api, { ...body, next: deepOffset })).ms);
  }
  return { first, fiftieth, offset50, deepK, deepO };
}

async function main() {
  prepareState(STATE);
  const size = loadCatalog();
  const args = process.env.CATALOG_RATE_LIMITS === "off" ? ["--var", "RATE_LIMITS:off"] : [];
  if (args.length) console.log("notice: rate limiter off (CATALOG_RATE_LIMITS=off)");
  const server = await startServer({ stateDir: STATE, port: PORT, args });
  try {
    const api = {
      root: `${server.base}${CATALOG}`,
      token: await getToken(server.base, join(STATE, "demo-client.json")),
    };
    const q = queries();
    const rows = [
      await timeQueries(api, "bbox 20x20 deg + 90-day datetime", q.bbox),
      await timeQueries(api, "CQL2 eo:cloud_cover < 10 + 1-year datetime", q.cql2),
      await timeQueries(api, "bbox 20x20 deg + 1-year datetime + CQL2 eo:cloud_cover < 30", q.all),
      await timeQueries(api, "bbox 2x2 deg + 1-year datetime + CQL2 eo:cloud_cover < 30 (few matches)", q.narrow),
      await timeQueries(api, "ids lookup (10 ids)", q.ids),
    ];
    const p = await paging(api);
    const lines = [
      `\nEO Edge catalog bench: ${ITEMS} derived sentinel-2-l2a items, N=${N} requests per query, HTTP wall time on 127.0.0.1`,
      "query | p50 ms | p95 ms | avg items returned",
      ...rows.map((r) => `${r.name} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${r.avgReturned.toFixed(1)}`),
      `paging (limit 10) page 1 | ${fmt(pct(p.first, 50))} | ${fmt(pct(p.first, 95))} | 10`,
      `paging (limit 10) page 50 via context.next (keyset) | ${fmt(pct(p.fiftieth, 50))} | ${fmt(pct(p.fiftieth, 95))} | 10`,
      `paging (limit 10) page 50 via next=490 (offset form) | ${fmt(pct(p.offset50, 50))} | ${fmt(pct(p.offset50, 95))} | 10`,
      `paging (limit 10) ${DEEP_LABEL}, keyset next | ${fmt(pct(p.deepK, 50))} | ${fmt(pct(p.deepK, 95))} | 10`,
      `paging (limit 10) ${DEEP_LABEL}, offset next | ${fmt(pct(p.deepO, 50))} | ${fmt(pct(p.deepO, 95))} | 10`,
      `page 50 / page 1 (keyset, p50): ${(pct(p.fiftieth, 50) / pct(p.first, 50)).toFixed(2)}`,
      `size in D1: item JSON ${fmt(size.itemBytes, 0)} bytes on average; ${fmt(size.rowBytes, 0)} bytes of database per item (row, indexes, pages); ` +
        `${fmt(1e9 / size.rowBytes / 1e6, 2)} M items per GB, ${fmt(10e9 / size.rowBytes / 1e6, 1)} M in one 10 GB database; file ${fmt(size.fileBytes / 1e9, 2)} GB`,
    ];
    const all = rows[2];
    summaryRow(
      `catalog search at ${ITEMS.toLocaleString("en-US")} items: bbox + datetime + CQL2, one collection`,
      `p50 ${fmt(all.p50)} ms, p95 ${fmt(all.p95)} ms; ${fmt(size.rowBytes, 0)} bytes/item in D1 (${fmt(10e9 / size.rowBytes / 1e6, 1)} M items per 10 GB database)`,
      "measured",
      null,
    );
    console.log(lines.join("\n"));
    if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, lines.join("\n") + "\n");
  } finally {
    await server.stop();
  }
}

if (!existsSync("wrangler.toml")) throw new Error("run from the project root");
await main();
process.exit(0);

// Catalog benchmark (part of `npm run bench`; alone: `npx node scripts/bench-catalog.mjs`).
// Builds a scratch state (.wrangler/state-bench-catalog) seeded like `npm start`, adds a catalog of
// BENCH_ITEMS (default 100,000) items DERIVED from the real sentinel-2-l2a items in data/items (same documents,
// dates spread over 2016-2024, footprints moved to pseudo-random places; each marked "eoedge:derived": true and
// "eoedge:derived_from": <real id>), starts `wrangler dev` on it and times real HTTP requests with a real token.
// Reports p50/p95 of: bbox+datetime search, CQL2 `eo:cloud_cover < 10`, ids lookup, and page 1 vs page 50.
// CATALOG_RATE_LIMITS=off serves without the rate limiter (`--var RATE_LIMITS:off`), to tell its cost from the catalog's.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { getPlatformProxy } from "wrangler";
import { fmt, getToken, pct, prepareState, startServer } from "./lib/bench.mjs";

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100_000);
const N = Number(process.env.BENCH_N ?? 50);
const PORT = process.env.BENCH_CATALOG_PORT ?? "8799";
const STATE = resolve(".wrangler/state-bench-catalog");
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
  return readdirSync(dir).sort().map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));
}

function shift(coords, dx, dy) {
  return typeof coords[0] === "number" ? [coords[0] + dx, coords[1] + dy, ...coords.slice(2)] : coords.map((c) => shift(c, dx, dy));
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

/** Inserts the derived catalog with multi-row INSERTs (the same columns upsertItem in src/storage/items.ts writes). */
async function loadCatalog() {
  const { env: bindings, dispose } = await getPlatformProxy({ persist: { path: join(STATE, "v3") } });
  try {
    const have = await bindings.DB.prepare("SELECT count(*) AS n FROM items WHERE id LIKE 'D%'").first();
    if (have.n === ITEMS) return;
    await bindings.DB.prepare("DELETE FROM items WHERE id LIKE 'D%'").run();
    const sources = realItems();
    const rnd = prng(42);
    const sql =
      "INSERT OR REPLACE INTO items (collection, id, datetime, cloud_cover, min_lon, min_lat, max_lon, max_lat, doc) " +
      "SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8 FROM json_each(?)";
    const BATCH = 250;
    const t0 = performance.now();
    for (let start = 0; start < ITEMS; start += BATCH) {
      const rows = [];
      for (let n = start; n < Math.min(ITEMS, start + BATCH); n++) {
        const it = derive(sources[n % sources.length], n, rnd);
        const cc = it.properties["eo:cloud_cover"];
        rows.push([COLLECTION, it.id, Date.parse(it.properties.datetime), typeof cc === "number" ? cc : null, ...it.bbox, JSON.stringify(it)]);
      }
      await bindings.DB.prepare(sql).bind(JSON.stringify(rows)).run();
    }
    console.log(`loaded ${ITEMS} derived items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await dispose();
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
    cql2: Array.from({ length: N }, () => ({ datetime: window(365), filter: "eo:cloud_cover < 10", "filter-lang": "cql2-text" })),
    ids: Array.from({ length: N }, () => ({ datetime: "2015-01-01T00:00:00Z/..", ids: ids().map(idOf) })),
  };
}

async function paging(api) {
  const body = { datetime: "2015-01-01T00:00:00Z/..", limit: 10 };
  let next;
  for (let page = 1; page < 50; page++) next = (await search(api, { ...body, ...(next ? { next } : {}) })).json.context.next;
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
  await loadCatalog();
  const args = process.env.CATALOG_RATE_LIMITS === "off" ? ["--var", "RATE_LIMITS:off"] : [];
  if (args.length) console.log("notice: rate limiter off (CATALOG_RATE_LIMITS=off)");
  const server = await startServer({ stateDir: STATE, port: PORT, args });
  try {
    const api = { root: `${server.base}${CATALOG}`, token: await getToken(server.base, join(STATE, "demo-client.json")) };
    const q = queries();
    const rows = [
      await timeQueries(api, "bbox 20x20 deg + 90-day datetime", q.bbox),
      await timeQueries(api, "CQL2 eo:cloud_cover < 10 + 1-year datetime", q.cql2),
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
    ];
    console.log(lines.join("\n"));
    if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, lines.join("\n") + "\n");
  } finally {
    await server.stop();
  }
}

if (!existsSync("wrangler.toml")) throw new Error("run from the project root");
await main();
process.exit(0);

// `npm run bench` section `byoc` (BENCH_ONLY=byoc): BYOC ingestion time and Process latency on a BYOC collection
// against the built-in collection. On the seeded scratch state (.state-bench: the seed copies the 19 West
// Flanders dates, 64x64 px COGs of B02 B03 B04 B08 SCL, into the local bucket eo-edge-byoc-sample under
// westflanders/<date>/) it starts wrangler dev (port BENCH_BYOC_PORT, default 8795) and
//  1. creates a new BYOC collection on that bucket, posts one tile per date (path westflanders/<date>/(BAND), sensing
//     time from the STAC item), and polls the tile list until every tile is INGESTED (the queue consumer runs the
//     ingestion): seconds per tile, and seconds per GB of headers read. Header bytes are what the COG reader fetches
//     per band file: its first min(16 KiB, file size) bytes (HEADER_PREFETCH, src/raster/cog/header.ts), the whole
//     file for these samples, which are smaller than that;
//  2. the same Process request (B04+B08 DN as UINT16 GeoTIFF, 64x64 px in EPSG:32631, one date) on byoc-<id> and on
//     sentinel-2-l2a (the same COGs as the built-in collection): 1 cold + N warm runs each (interleaved), p50 ratio
//     BYOC/built-in.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { call, fmt, getToken, interleaved, prepareState, sleep, startServer } from "../scripts/lib/bench.mjs";

const N = Number(process.env.BENCH_N ?? 30);
const PORT = process.env.BENCH_BYOC_PORT ?? "8795";
const STATE = resolve(".state-bench");
const BUCKET = "eo-edge-byoc-sample";
const SERIES = "data/sentinel-2-l2a/westflanders";
const ITEMS = "data/items/sentinel-2-l2a";
const HEADER_PREFETCH = 16 * 1024; // src/raster/cog/header.ts
const TIMEOUT_MS = 10 * 60_000;
const BBOX = [501360, 5629040, 502000, 5629680];
const DATE = "2017-09-26";

const SCRIPT = `//VERSION=3
function setup(){return {input:[{bands:["B04","B08"],units:"DN"}],output:{bands:2,sampleType:"UINT16"}}}
function evaluatePixel(s){return [s.B04,s.B08]}`;

/** The Process body over BBOX on collection `type` for DATE. */
const processRequest = (type) => ({
  input: {
    bounds: { bbox: BBOX, properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/32631" } },
    data: [{ type, dataFilter: { timeRange: { from: `${DATE}T00:00:00Z`, to: `${DATE}T23:59:59Z` } } }],
  },
  output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: SCRIPT,
});

/** The dates of the series with their sensing time (the STAC item's datetime) and header bytes (sum over band files). */
function series() {
  const items = readdirSync(ITEMS).filter((f) => f.includes("_31UDS_"));
  return readdirSync(SERIES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((date) => {
      const item = items.find((f) => f.includes(`_${date.replaceAll("-", "")}T`));
      if (!item) throw new Error(`no STAC item for ${date} in ${ITEMS}`);
      const headerBytes = readdirSync(join(SERIES, date)).reduce(
        (sum, f) => sum + Math.min(HEADER_PREFETCH, statSync(join(SERIES, date, f)).size),
        0,
      );
      return {
        date,
        sensingTime: JSON.parse(readFileSync(join(ITEMS, item), "utf8")).properties.datetime,
        headerBytes,
      };
    });
}

/** Creates a collection, posts a tile per date and waits until all are ingested: { id, s, tiles, headerBytes }. */
async function ingest(base, token) {
  const dates = series();
  const id = (
    await call(base, token, "POST", "/api/v1/byoc/collections", { name: `bench ${Date.now()}`, s3Bucket: BUCKET }, 201)
  ).json.data.id;
  const t0 = performance.now();
  for (const d of dates)
    await call(
      base,
      token,
      "POST",
      `/api/v1/byoc/collections/${id}/tiles`,
      { path: `westflanders/${d.date}/(BAND)`, sensingTime: d.sensingTime },
      201,
    );
  for (;;) {
    const tiles = (await call(base, token, "GET", `/api/v1/byoc/collections/${id}/tiles?count=100`, undefined, 200))
      .json.data;
    const failed = tiles.filter((t) => t.status === "FAILED");
    if (failed.length) throw new Error(`BYOC ingestion failed: ${JSON.stringify(failed[0].additionalData)}`);
    if (tiles.length === dates.length && tiles.every((t) => t.status === "INGESTED")) break;
    if (performance.now() - t0 > TIMEOUT_MS) throw new Error("BYOC ingestion did not finish");
    await sleep(100);
  }
  return {
    id,
    s: (performance.now() - t0) / 1000,
    tiles: dates.length,
    headerBytes: dates.reduce((sum, d) => sum + d.headerBytes, 0),
  };
}

prepareState(STATE);
const server = await startServer({ stateDir: STATE, port: PORT });
try {
  const token = await getToken(server.base, join(STATE, "demo-client.json"));
  const ing = await ingest(server.base, token);
  const [byoc, builtin] = await interleaved(
    [`byoc-${ing.id}`, "sentinel-2-l2a"].map((type) => ({
      name: type,
      base: server.base,
      token,
      body: processRequest(type),
    })),
    N,
  );
  console.log(
    `\nBYOC ingestion (${ing.tiles} tiles of 5 band COGs, West Flanders 64x64 px, through the queue; wall time from the first tile POST to all INGESTED)`,
  );
  console.log("tiles | total s | s/tile | header KiB/tile | s/GB of headers");
  console.log(
    `${ing.tiles} | ${fmt(ing.s, 2)} | ${fmt(ing.s / ing.tiles, 3)} | ${fmt(ing.headerBytes / ing.tiles / 1024)} | ${fmt(ing.s / (ing.headerBytes / 1e9), 0)}`,
  );
  console.log(
    `\nProcess on BYOC vs the built-in collection (same COGs, B04+B08 UINT16 GeoTIFF 64x64, ${DATE}; 1 cold + ${N} warm runs each, interleaved)`,
  );
  console.log("collection | first ms | p50 ms | p95 ms | bytes");
  for (const r of [byoc, builtin])
    console.log(`${r.name} | ${fmt(r.first)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${r.bytes}`);
  console.log(`ratio BYOC/built-in (p50): ${(byoc.p50 / builtin.p50).toFixed(2)}`);
} finally {
  await server.stop();
}

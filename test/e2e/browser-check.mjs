// Browser check of web/map.html (`npm run test:browser`): starts `npm start` on a spare port (or uses $CONSOLE_BASE),
// creates a WMS instance with the Sentinel Hub true-colour layer over the 29RKH sample scene, opens the map page in
// Debian's Chromium (playwright-core, headless) once with XYZ tiles (WMTS GetTile) and once with WMS GetMap tiles,
// takes a screenshot and compares the pixels of a tile fully inside the map with the Processing API's PNG over that
// tile's EPSG:3857 bounds (decoded with fast-png; opaque pixels must be equal, the tile must not be uniform).
// Prints the figures and the elapsed time; exits 1 on any failure.
import { decode } from "fast-png";
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { checkServer, createInstance, processBytes } from "../../scripts/lib/serve.mjs";

const HALF = 20037508.342789244;
const TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
const VIEW = { lat: 24.8, lon: -11.43, zoom: 10 };

/** EPSG:3857 bounds of a tile image: from BBOX (WMS) or TILEMATRIX/TILECOL/TILEROW (WMTS GetTile). */
function tileBounds(src) {
  const q = new URL(src).searchParams;
  const get = (k) => q.get(k) ?? q.get(k.toLowerCase());
  if (get("BBOX")) return get("BBOX").split(",").map(Number);
  const [z, x, y] = ["TILEMATRIX", "TILECOL", "TILEROW"].map((k) => Number(get(k)));
  const size = (2 * HALF) / 2 ** z;
  return [-HALF + x * size, HALF - (y + 1) * size, -HALF + (x + 1) * size, HALF - y * size];
}

/** Compares the screenshot `shot` (RGB or RGBA) at tile rect `r` with the Processing API tile `ref` (RGB or RGBA): opaque pixels only. */
function compareTile(shot, r, ref) {
  let opaque = 0,
    differing = 0,
    maxDiff = 0;
  const reds = new Set();
  for (let y = 0; y < ref.height; y++) {
    for (let x = 0; x < ref.width; x++) {
      const i = (y * ref.width + x) * ref.channels;
      if (ref.channels === 4 && ref.data[i + 3] !== 255) continue;
      opaque++;
      const j = ((r.y + y) * shot.width + (r.x + x)) * shot.channels;
      reds.add(shot.data[j]);
      const d = Math.max(...[0, 1, 2].map((b) => Math.abs(shot.data[j + b] - ref.data[i + b])));
      if (d > 0) differing++;
      maxDiff = Math.max(maxDiff, d);
    }
  }
  return { opaque, differing, maxDiff, distinct: reds.size };
}

async function checkMode(page, server, instance, mode) {
  const url = `${server.base}/map.html?instance=${instance}&layer=TRUE_COLOR&lat=${VIEW.lat}&lon=${VIEW.lon}&zoom=${VIEW.zoom}&mode=${mode}`;
  await page.goto(url);
  await page.waitForSelector("body[data-map-loaded]", { timeout: 180_000 });
  const state = await page.textContent("#mapState");
  const mapBox = await page.locator("#map").boundingBox();
  const tiles = await page.$$eval("img.leaflet-tile-loaded", (imgs) =>
    imgs.map((i) => ({ src: i.src, ...i.getBoundingClientRect().toJSON() })),
  );
  const inside = tiles.filter(
    (t) =>
      t.x >= mapBox.x &&
      t.y >= mapBox.y &&
      t.x + t.width <= mapBox.x + mapBox.width &&
      t.y + t.height <= mapBox.y + mapBox.height,
  );
  const cx = mapBox.x + mapBox.width / 2,
    cy = mapBox.y + mapBox.height / 2;
  inside.sort((a, b) => Math.hypot(a.x + 128 - cx, a.y + 128 - cy) - Math.hypot(b.x + 128 - cx, b.y + 128 - cy));
  const tile = inside[0];
  if (!tile) throw new Error(`${mode}: no tile fully inside the map (${state})`);
  if (!Number.isInteger(tile.x) || !Number.isInteger(tile.y))
    throw new Error(`${mode}: tile at fractional position ${tile.x},${tile.y}`);
  const shot = decode(await page.screenshot({ type: "png" }));
  const bbox = tileBounds(tile.src);
  // where the tile is drawn, in EPSG:3857 by Leaflet's own projection of its screen corners: must be the URL's bbox
  const drawn = await page.evaluate(
    ([x0, y0, x1, y1]) => {
      const p = (x, y) => L.CRS.EPSG3857.project(window.eoMap.containerPointToLatLng([x, y]));
      const [a, b] = [p(x0, y1), p(x1, y0)];
      return [a.x, a.y, b.x, b.y];
    },
    [tile.x - mapBox.x, tile.y - mapBox.y, tile.x - mapBox.x + tile.width, tile.y - mapBox.y + tile.height],
  );
  const offBy = Math.max(...drawn.map((v, i) => Math.abs(v - bbox[i])));
  const body = {
    input: {
      bounds: { bbox, properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/3857" } },
      data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: TIME, mosaickingOrder: "mostRecent" } }],
    },
    output: { width: 256, height: 256 },
    evalscript: readFileSync("data/evalscripts/sentinel-2__true_color__script.js", "utf8"),
  };
  const ref = decode(await processBytes(server.base, server.token, body));
  const c = compareTile(shot, tile, ref);
  const ok = offBy < 1 && c.opaque > 1000 && c.differing === 0 && c.distinct > 20 && !/[1-9]\d* failed/.test(state);
  console.log(
    `${ok ? "OK  " : "FAIL"} ${mode}: ${state}; tile at (${tile.x},${tile.y}) ${tile.src.split("?")[0]} bbox ${bbox.map((v) => v.toFixed(1)).join(",")} (drawn there within ${offBy.toFixed(3)} m): ` +
      `${c.opaque} opaque px compared, ${c.differing} differ (max ${c.maxDiff}), ${c.distinct} distinct red values on screen`,
  );
  return ok;
}

const t0 = Date.now();
const server = await checkServer();
const tStarted = Date.now();
let ok = false;
let browser;
try {
  const evalScript = readFileSync("data/evalscripts/sentinel-2__true_color__script.js", "utf8");
  const instance = await createInstance(server.base, server.token, "browser check", [
    {
      id: "TRUE_COLOR",
      styles: [{ name: "default", evalScript }],
      datasourceDefaults: { type: "sentinel-2-l2a", timeRange: TIME, mosaickingOrder: "mostRecent" },
    },
  ]);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 }, deviceScaleFactor: 1 });
  ok = (await checkMode(page, server, instance, "xyz")) & (await checkMode(page, server, instance, "wms"));
} finally {
  await browser?.close();
  await server.stop();
}
console.log(
  `browser check ${ok ? "passed" : "FAILED"} in ${((Date.now() - t0) / 1000).toFixed(1)} s (server start ${((tStarted - t0) / 1000).toFixed(1)} s)`,
);
process.exit(ok ? 0 : 1);

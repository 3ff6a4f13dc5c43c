// Browser check of the console's request builder and shell (`npm run test:browser`): starts
// `npm start` on a spare port (or uses $CONSOLE_BASE), drives Debian's Chromium (playwright-core, headless) at
// 1280x720 and at 390x844 (a phone), and checks the page against the API called from Node and GDAL (the oracles):
//  defaults   the first Run with the shipped defaults answers 200 and draws the result, at both locations; at
//             1280x720 the Run button is on screen without scrolling, at 390 px nothing is wider than the screen;
//  presets    every preset either runs (200) with the collection it switches to, or says why it cannot run; FLOAT32
//             scripts switch the format to GeoTIFF and the FLOAT32 NDVI's result is drawn (its stretch = GDAL's
//             percentiles of the same TIFF); Sentinel-1 GRD, L1C and BYOC presets exist and run; legends: the SCL
//             classes, EO Browser's NDVI and NDMI ramps, the console's NDVI colorBlend ramp, none for true colour;
//  time       the date buttons are the acquisition days the catalog lists over the AOI, the cloud filter disables
//             the cloudier ones, a date sets the range, a range without scenes says so and sends no request;
//  map        country basemap, scale bar, cursor coordinates, place and coordinate search, typed AOI coordinates
//             moving the map, #request?collection=<id> (the collections page's "open in the builder"), zoom to
//             data (the catalog's newest scene), result opacity and toggle, polygon drawing (pixels outside it
//             transparent), GeoJSON upload, UTM output (bbox checked with gdaltransform) and resolution sizing;
//             the curl, sentinelhub-py and sentinelhub-js snippets of the polygon and the UTM requests, run
//             verbatim, write Run's bytes;
//  requests   the curl and sentinelhub-py snippets carry exactly the body Run sends, copy buttons copy them, the
//             request JSON edited or imported from a file changes the form and the request, Run is disabled with a
//             progress bar while running and can be cancelled, and a failed run leaves no old result or download
//             (its error marked in the editor's gutter);
//  state      a permalink opened in a new tab (after logging in there) restores AOI, dates, collection, script and
//             output; a pin survives a reload and restores its request; a refused or expired token brings the
//             log-in page with a notice; log out from the header;
//  links      #builder?request=<base64url JSON> (the exploration page's and "Share request"'s link) of a
//             Sentinel-1 request with every Sentinel-1 option fills each field and the request is the link's body
//             byte for byte; it runs, and its curl, sentinelhub-py and sentinelhub-js snippets, run verbatim, write
//             the console's download (SKIP for a client this machine lacks); "Share request" copies a link that
//             opens the same request; bad links (not base64url, not JSON, unknown collection) say why on a
//             working page;
//  firstRender  a first visit renders by itself after log-in (Render on change on by default); the time is
//             reported (INFO), not asserted;
//  catalog    the Catalog page (lib/catalog-steps.mjs): search with a CQL2 cloud filter paged with Next = the API's
//             items, footprints, fields, a drawn box; its curl, sentinelhub-py and pystac-client snippets run.
// No console errors (HTTP errors a step provokes on purpose excepted). Screenshots: test-artifacts/builder/.
// Prints each check and the elapsed time; exits 1 on any failure.
import { decode } from "fast-png";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { isFloat32 } from "../../web/src/presets.js";
import { checkServer } from "../../scripts/lib/serve.mjs";
import { runSnippets } from "./lib/snippet-run.mjs";
import { catalogSteps } from "./lib/catalog-steps.mjs";

const SHOTS = join("test-artifacts", "builder");
const failures = [];
const consoleErrors = [];
let expectHttpErrors = false;
const check = (ok, text) => (console.log(`${ok ? "OK  " : "FAIL"} ${text}`), ok || failures.push(text));
const shot = (page, name, fullPage = false) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
let base, token, client;

async function api(path, body) {
  const r = await fetch(base + path, {
    method: body ? "POST" : "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** GDAL's transform of lon/lat points into EPSG `epsg` (gdaltransform, traditional lon/lat order). */
function gdalTransform(epsg, points) {
  const r = spawnSync("gdaltransform", ["-s_srs", "EPSG:4326", "-t_srs", `EPSG:${epsg}`, "-output_xy"], {
    input: points.map((p) => p.join(" ")).join("\n"),
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`gdaltransform: ${r.stderr}`);
  return r.stdout
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number));
}

/** A new page (own tab: own sessionStorage) logged in with the demo client; console errors collected. */
async function openPage(context, hash = "#request") {
  const page = await context.newPage();
  page.on("pageerror", (e) => consoleErrors.push(`page error: ${e.message}`));
  page.on(
    "console",
    (m) =>
      m.type() === "error" &&
      !(expectHttpErrors && /status of 4\d\d/.test(m.text())) &&
      consoleErrors.push(`${m.text()}${m.location()?.url ? ` (${m.location().url})` : ""}`),
  );
  await page.goto(`${base}/${hash}`);
  await logIn(page);
  return page;
}

async function logIn(page) {
  await page.waitForSelector("#page-login:not([hidden])");
  await page.fill("#clientId", client.client_id);
  await page.fill("#clientSecret", client.client_secret);
  await page.click("#loginForm button[type=submit]");
  await page.waitForSelector("#page-login", { state: "hidden", timeout: 30_000 });
  await page.waitForSelector("body[data-request-ready]", { timeout: 120_000 });
  await page.waitForSelector("body[data-dates-ready]", { timeout: 30_000 });
}

/** Clicks Run and waits for its end; resolves to {ok, state, body (the request sent or null)}. */
async function run(page) {
  let body = null;
  const onRequest = (r) => r.url().endsWith("/api/v1/process") && r.method() === "POST" && (body = r.postDataJSON());
  page.on("request", onRequest);
  const before = await page.getAttribute("body", "data-run-ended");
  await page.click("#run");
  await page.waitForFunction((b) => document.body.dataset.runEnded && document.body.dataset.runEnded !== b, before, {
    timeout: 120_000,
  });
  page.off("request", onRequest);
  const state = await page.textContent("#runState");
  return { ok: state.startsWith("200:"), state, body };
}

/**
 * run(page) for a request expected to fail with a 4xx. Chromium reports the failed load on the console ("Failed to
 * load resource: ... status of 4xx") on its own schedule, at times after the page marked the run's end, so a failed
 * run waits for that report (up to 10 s) before 4xx reports count as console errors again.
 */
async function runExpectingError(page) {
  expectHttpErrors = true;
  const reported = page
    .waitForEvent("console", { predicate: (m) => /status of 4\d\d/.test(m.text()), timeout: 10_000 })
    .catch(() => null);
  const r = await run(page);
  if (!r.ok) await reported;
  expectHttpErrors = false;
  return r;
}

/**
 * A preset that cannot run on the samples is not run by itself (Render on change): no request in the 800 ms after
 * it was applied (an automatic run starts 500 ms after; its certain 400 once reached the console before Run did).
 */
async function noAutoRun(page, value) {
  let sent = 0;
  const onRequest = (r) => r.url().endsWith("/api/v1/process") && sent++;
  page.on("request", onRequest);
  await page.waitForTimeout(800);
  page.off("request", onRequest);
  if (sent) check(false, `preset ${value} (cannot run) was run by itself: ${sent} request(s)`);
}

/** Runs `action` and waits until the page marks the end of its asynchronous step `name` (<body data-name>). */
async function settled(page, name, action) {
  const before = await page.evaluate((n) => document.body.dataset[n], name);
  await action();
  await page.waitForFunction(([n, b]) => document.body.dataset[n] !== b, [name, before], { timeout: 30_000 });
}

/** Selects preset `value` and waits until it is applied (script in the editor, collection, AOI, format switched). */
const choosePreset = (page, value) => settled(page, "presetApplied", () => page.selectOption("#preset", value));

/** Selects collection `id` and waits until it is applied (a preset that fits it chosen). */
const chooseCollection = (page, id) => settled(page, "collectionApplied", () => page.selectOption("#collection", id));

async function defaults(page) {
  const r = await run(page);
  const curl = JSON.parse(/<<'JSON'.*\n([\s\S]*)\nJSON$/.exec(await page.textContent("#snippetCurl"))[1]);
  check(
    JSON.stringify(curl) === JSON.stringify(r.body) && r.body.input.data[0].type === "sentinel-2-l2a",
    `defaults: the curl snippet carries the body of the first Run, nothing changed before (type "${curl.input.data[0].type}")`,
  );
  const overlay = await page.locator("canvas.result-overlay").count();
  const link = await page.isVisible("#download");
  const runBox = await page.locator("#run").boundingBox();
  check(
    r.ok && overlay === 1 && link && r.body.input.data[0].type === "sentinel-2-l2a",
    `defaults: ${r.state}; overlay drawn, download offered`,
  );
  check(
    runBox.y + runBox.height <= 720,
    `1280x720: Run on screen without scrolling (bottom at ${Math.round(runBox.y + runBox.height)} px)`,
  );
  await shot(page, "builder-defaults-1280x720");
}

async function presets(page) {
  const values = await page.$$eval("#preset optgroup", (gs) =>
    gs.map((g) => [g.label, [...g.querySelectorAll("option")].map((o) => o.value)]),
  );
  check(
    ["Sentinel-2 L2A", "Sentinel-2 L1C", "Sentinel-1 GRD"].every((l) =>
      values.some(([g, v]) => g === l && v.length > 0),
    ),
    `presets grouped by collection: ${values.map(([g, v]) => `${g} (${v.length})`).join(", ")}`,
  );
  const results = [],
    legends = {};
  for (const [group, list] of values) {
    for (const value of list) {
      await choosePreset(page, value);
      const note = await page.textContent("#presetNote");
      const [collection, format] = [await page.inputValue("#collection"), await page.inputValue("#format")];
      // FLOAT32 in the requested (default) output; EO Browser's scripts write FLOAT32 only beside a visual default
      const float = isFloat32(await page.evaluate(() => window.eoConsole.editor.state.doc.toString()));
      legends[value] = await legendShown(page);
      if (value === "sentinel-2__scene-classification__script.js")
        await page.locator("#legend").screenshot({ path: join(SHOTS, "builder-legend-scl.png") });
      if (/Cannot run/.test(note)) await noAutoRun(page, value);
      const r = /Cannot run/.test(note) ? await runExpectingError(page) : await run(page);
      const says = /Cannot run/.test(note) && !r.ok;
      const ok = (r.ok || says) && (!float || format === "image/tiff");
      results.push({ group, value, collection, format, ok, state: r.state.slice(0, 90), note });
      if (!ok) check(false, `preset ${group} / ${value} with ${collection}, ${format}: ${r.state} (note: ${note})`);
      if (value === "s1/vv-vh") await shot(page, "builder-preset-s1");
      if (value === "l1c/ndvi-raw" && r.ok) await checkTiffDrawn(page, r);
    }
  }
  const ran = results.filter((r) => r.state.startsWith("200")).length;
  const why = results.filter((r) => !r.state.startsWith("200")).map((r) => r.value);
  const groups = [
    ...new Set(
      results.filter((r) => r.state.startsWith("200")).map((r) => r.collection.replace(/-[0-9a-f-]{36}$/, "")),
    ),
  ];
  check(
    results.every((r) => r.ok),
    `presets: ${ran} of ${results.length} ran (collections ${groups.join(", ")}); ${why.length} say why they cannot run: ${why.join(", ")}; FLOAT32 ones switched to GeoTIFF`,
  );
  checkLegends(legends);
  await choosePreset(page, "sentinel-2__true_color__script.js");
}

/** GDAL (Debian's python3-gdal) 2nd and 98th percentiles (numpy, linear) and size of the finite, non-nodata values of a 1-band GeoTIFF. */
function gdalStretch(bytes) {
  const py = `import sys, numpy as np
from osgeo import gdal
gdal.FileFromMemBuffer("/vsimem/r.tif", sys.stdin.buffer.read())
d = gdal.Open("/vsimem/r.tif"); b = d.GetRasterBand(1); a = b.ReadAsArray().astype("float64")
ok = np.isfinite(a) & (a != b.GetNoDataValue() if b.GetNoDataValue() is not None else True)
print(*np.percentile(a[ok], [2, 98]), d.RasterXSize, d.RasterYSize)`;
  const r = spawnSync("/usr/bin/python3", ["-c", py], { input: Buffer.from(bytes) });
  if (r.status !== 0) throw new Error(`gdal: ${r.stderr}`);
  const [lo, hi, w, h] = r.stdout.toString().trim().split(" ").map(Number);
  return { lo, hi, w, h };
}

/**
 * A single-band FLOAT32 GeoTIFF result is drawn: one overlay of the TIFF's size, not uniform, and the result
 * legend's stretch = GDAL's 2-98 % percentiles of the same request's TIFF (within 2 % of the range).
 */
async function checkTiffDrawn(page, r) {
  const res = await fetch(`${base}/api/v1/process`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(r.body),
  });
  const g = gdalStretch(new Uint8Array(await res.arrayBuffer()));
  const shown = await page.evaluate(() => {
    const overlay = document.querySelector("canvas.result-overlay");
    const stops = JSON.parse(document.querySelector("#resultLegend .ramp")?.dataset.stops ?? "[]");
    if (!overlay) return { stops };
    const c = Object.assign(document.createElement("canvas"), { width: overlay.width, height: overlay.height });
    const ctx = c.getContext("2d");
    ctx.drawImage(overlay, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    for (let i = 0; i < d.length; i += 4) if (d[i + 3]) colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return { w: overlay.width, h: overlay.height, colours: colours.size, stops };
  });
  const [lo, hi] = [shown.stops[0]?.value, shown.stops.at(-1)?.value];
  const tol = 0.02 * (g.hi - g.lo);
  check(
    shown.w === g.w &&
      shown.h === g.h &&
      shown.colours > 20 &&
      Math.abs(lo - g.lo) <= tol &&
      Math.abs(hi - g.hi) <= tol &&
      !/not drawn/.test(r.state),
    `FLOAT32 GeoTIFF drawn: overlay ${shown.w} x ${shown.h} px (GDAL ${g.w} x ${g.h}), ${shown.colours} colours; stretch ${lo?.toFixed(4)}..${hi?.toFixed(4)} (GDAL 2-98 %: ${g.lo.toFixed(4)}..${g.hi.toFixed(4)}); "${r.state.slice(0, 80)}"`,
  );
  await shot(page, "builder-float32-tiff");
}

/** The legend the builder shows: its kind, class rows [value, label, css colour] or ramps' stops and css gradient. */
const legendShown = (page) =>
  page.$eval("#legend", (el) => ({
    kind: el.dataset.kind,
    classes: [...el.querySelectorAll("li")].map((li) => [
      li.dataset.value,
      li.textContent,
      getComputedStyle(li.firstChild).backgroundColor,
    ]),
    ramps: [...el.querySelectorAll(".ramp")].map((r) => ({
      stops: JSON.parse(r.dataset.stops),
      css: getComputedStyle(r).backgroundImage,
    })),
  }));

/**
 * Legends against the scripts' published colour maps: SCL classes (Sentinel Hub's scene-classification script, ESA
 * Sen2Cor class names), EO Browser's NDVI ramp (-0.5 #0c0c0c .. 1 #004400, 21 stops), NDMI's 6 stops, the
 * console's NDVI colorBlend ramp (6 stops -0.2..0.8); true colour declares none.
 */
function checkLegends(legends) {
  const scl = legends["sentinel-2__scene-classification__script.js"];
  const ndvi = legends["sentinel-2__ndvi__eob.js"]?.ramps[0];
  const ndmi = legends["sentinel-2__ndmi__eob.js"]?.ramps[0];
  const own = legends["l1c/ndvi"]?.ramps[0];
  const kinds = Object.values(legends).reduce((a, l) => ((a[l.kind] = (a[l.kind] ?? 0) + 1), a), {});
  check(
    scl?.classes.length === 12 &&
      scl.classes[4].join("|") === "4|4 Vegetation|rgb(0, 160, 0)" &&
      scl.classes[6].join("|") === "6|6 Water|rgb(0, 0, 255)" &&
      scl.classes[9][2] === "rgb(255, 255, 255)",
    `legend of scene classification: ${scl?.classes.length} classes, ${scl?.classes
      .slice(3, 7)
      .map((c) => `${c[1]} ${c[2]}`)
      .join("; ")}`,
  );
  check(
    ndvi?.stops.length === 21 &&
      ndvi.stops[0].value === -0.5 &&
      /rgb\(12, 12, 12\) 0%/.test(ndvi.css) &&
      /rgb\(0, 68, 0\) 100%/.test(ndvi.css) &&
      ndmi?.stops.length === 6 &&
      own?.stops.map((s) => s.value).join() === "-0.2,0,0.2,0.4,0.6,0.8" &&
      legends["sentinel-2__true_color__script.js"]?.kind === "none",
    `legends: NDVI (EO Browser) ${ndvi?.stops.length} stops ${ndvi?.css.slice(0, 60)}...; NDMI ${ndmi?.stops.length} stops; L1C NDVI stops ${own?.stops.map((s) => s.value)}; true colour ${legends["sentinel-2__true_color__script.js"]?.kind}; kinds ${JSON.stringify(kinds)}`,
  );
}

/** Runs `action` and waits until the dates with scenes were searched again after it. */
async function newDates(page, action) {
  const before = await page.getAttribute("body", "data-dates-ready");
  await action();
  await page.waitForFunction((b) => document.body.dataset.datesReady !== b, before, { timeout: 30_000 });
}

async function time(page) {
  await page.fill("#placeSearch", "West Flanders");
  await newDates(page, () => page.click("#placeForm button[type=submit]"));
  const bbox = await page.$$eval("#west,#south,#east,#north", (els) => els.map((e) => Number(e.value)));
  const items = (
    await api("/api/v1/catalog/1.0.0/search", {
      collections: ["sentinel-2-l2a"],
      bbox,
      datetime: "2014-01-01T00:00:00Z/2100-01-01T00:00:00Z",
      limit: 100,
    })
  ).features;
  const days = [...new Set(items.map((f) => f.properties.datetime.slice(0, 10)))].sort();
  const shown = await page.$$eval("#dateList button", (bs) => bs.map((b) => b.dataset.date));
  check(
    JSON.stringify(shown) === JSON.stringify(days),
    `time slider: ${shown.length} dates shown over West Flanders, catalog lists ${days.length} (${days[0]} .. ${days.at(-1)})`,
  );
  await page.$eval("#maxcc", (e) => ((e.value = "10"), e.dispatchEvent(new Event("input"))));
  const disabled = await page.$$eval("#dateList button[disabled]", (bs) => bs.map((b) => b.dataset.date));
  const cloudy = [
    ...new Set(items.filter((f) => f.properties["eo:cloud_cover"] > 10).map((f) => f.properties.datetime.slice(0, 10))),
  ].sort();
  check(
    JSON.stringify(disabled) === JSON.stringify(cloudy) && cloudy.length > 0,
    `cloud filter 10 %: disabled dates [${disabled.join(", ")}], catalog's cloudier than 10 %: [${cloudy.join(", ")}]`,
  );
  const pick = days.find((d) => !cloudy.includes(d) && d > "2018-05-01");
  await page.click(`#dateList button[data-date="${pick}"]`);
  const range = [await page.inputValue("#from"), await page.inputValue("#to")];
  const r = await run(page);
  check(
    range.join() === `${pick},${pick}` && r.ok && r.body.input.data[0].dataFilter.maxCloudCoverage === 10,
    `date ${pick} picked: range ${range.join(" .. ")}, ${r.state}; request maxCloudCoverage ${r.body?.input.data[0].dataFilter.maxCloudCoverage}`,
  );
  await shot(page, "builder-time-1280x720");
  await page.fill("#from", "2019-01-01");
  await page.fill("#to", "2019-03-01");
  await page.dispatchEvent("#to", "change");
  const empty = await run(page);
  const stale = (await page.isVisible("#download")) || (await page.locator("canvas.result-overlay").count()) > 0;
  await page.locator("#runState").scrollIntoViewIfNeeded();
  await shot(page, "builder-no-scenes-1280x720");
  check(
    !empty.ok && empty.body === null && /No sentinel-2-l2a scenes/.test(empty.state) && !stale,
    `range without scenes: "${empty.state.slice(0, 120)}..."; request sent: ${empty.body !== null}; old result left: ${stale}`,
  );
  await page.$eval("#maxcc", (e) => ((e.value = "100"), e.dispatchEvent(new Event("input"))));
  await page.click(`#dateList button[data-date="${pick}"]`);
}

async function mapTools(page) {
  const paths = await page.$$eval(".leaflet-basemap-pane path", (ps) => ps.length);
  const scale = await page.textContent(".leaflet-control-scale-line");
  const box = await mapOrigin(page);
  const [mx, my] = [Math.round(box.x + 200), Math.round(box.y + 150)];
  await page.mouse.move(mx, my);
  const shown = (await page.textContent("#cursorCoords")).split(",").map(Number);
  const at = await page.evaluate((p) => window.eoConsole.map.map.containerPointToLatLng(p), [mx - box.x, my - box.y]);
  check(
    paths > 100 && /\d+ (k?m)/.test(scale) && Math.abs(shown[0] - at.lat) < 1e-4 && Math.abs(shown[1] - at.lng) < 1e-4,
    `basemap: ${paths} country outlines; scale bar "${scale}"; cursor ${shown.join(", ")} (map: ${at.lat.toFixed(5)}, ${at.lng.toFixed(5)})`,
  );
  await page.fill("#placeSearch", "24.8, -11.43");
  await page.click("#placeForm button[type=submit]");
  const c = await page.evaluate(() => window.eoConsole.map.map.getCenter());
  check(
    Math.abs(c.lat - 24.8) < 1e-4 && Math.abs(c.lng + 11.43) < 1e-4,
    `coordinate search "24.8, -11.43": map centred on ${c.lat}, ${c.lng}`,
  );
  // typed AOI coordinates move the map to the AOI: its map-pixel size is a usable output size
  for (const [k, v] of Object.entries({ west: 5.069685, south: 51.214818, east: 5.080365, north: 51.220215 }))
    await page.fill(`#${k}`, String(v)), await page.dispatchEvent(`#${k}`, "change");
  const typed = await page.evaluate(() => ({
    shown: window.eoConsole.map.map.getBounds().contains([
      [51.214818, 5.069685],
      [51.220215, 5.080365],
    ]),
    size: window.eoConsole.request().body.output,
  }));
  check(
    typed.shown && typed.size.width >= 200,
    `typed AOI (Mol): the map shows it, output ${typed.size.width} x ${typed.size.height} px`,
  );
  // "open in the builder" (#request?collection=<id>): the L1C collection on its scene
  await settled(page, "collectionOpened", () => page.goto(`${base}/#request?collection=sentinel-2-l1c`));
  const l1c = [await page.inputValue("#collection"), await page.inputValue("#preset"), await page.inputValue("#from")];
  // the permalink replaces the URL after a debounce (web/src/request.js): wait for it, up to 5 s
  await page.waitForFunction(() => /#request\?s=/.test(location.href), null, { timeout: 5000 }).catch(() => {});
  check(
    l1c.join() === "sentinel-2-l1c,l1c/true-colour,2017-07-29" && /#request\?s=/.test(page.url()),
    `#request?collection=sentinel-2-l1c opens [${l1c.join(", ")}]; then the URL is the permalink`,
  );
  // zoom to the data of Sentinel-1 GRD: the catalog's newest scene
  await chooseCollection(page, "sentinel-1-grd");
  await settled(page, "zoomed", () => page.click("#zoomData"));
  const s1 = (await api("/api/v1/catalog/1.0.0/search", { collections: ["sentinel-1-grd"], limit: 100 })).features.sort(
    (a, b) => b.properties.datetime.localeCompare(a.properties.datetime),
  )[0];
  const aoi = await page.$$eval("#west,#south,#east,#north", (els) => els.map((e) => Number(e.value)));
  check(
    aoi.every((v, i) => Math.abs(v - s1.bbox[i]) < 1e-6) &&
      (await page.inputValue("#from")) === s1.properties.datetime.slice(0, 10),
    `zoom to data (sentinel-1-grd): AOI [${aoi}] and date of ${s1.id}`,
  );
  const r = await run(page);
  await page.$eval("#opacity", (e) => ((e.value = "40"), e.dispatchEvent(new Event("input"))));
  const opacity = await page.$eval("canvas.result-overlay", (i) => getComputedStyle(i).opacity);
  await shot(page, "builder-s1-opacity-1280x720");
  await page.uncheck("#showResult");
  const hidden = await page.locator("canvas.result-overlay").count();
  await page.check("#showResult");
  check(
    r.ok && opacity === "0.4" && hidden === 0 && (await page.locator("canvas.result-overlay").count()) === 1,
    `Sentinel-1 GRD run: ${r.state}; result opacity ${opacity}; toggled off: ${hidden} overlays`,
  );
  await page.$eval("#opacity", (e) => ((e.value = "100"), e.dispatchEvent(new Event("input"))));
  await chooseCollection(page, "sentinel-2-l2a");
  check(
    (await page.inputValue("#preset")) === "sentinel-2__true_color__script.js",
    `back to sentinel-2-l2a: its true-colour preset is chosen again`,
  );
  await page.fill("#placeSearch", "Western Sahara");
  await page.click("#placeForm button[type=submit]");
  await page.fill("#from", "2020-02-01");
  await page.fill("#to", "2020-03-01");
  await page.dispatchEvent("#to", "change");
  await polygon(page);
  await upload(page);
  await utm(page);
}

/** Scrolls the map tools and the map into view; resolves to the viewport position of the map's point (0, 0). */
const mapOrigin = (page) =>
  page.locator("#map").evaluate((m) => {
    document.querySelector("#page-request .tools").scrollIntoView();
    const r = m.getBoundingClientRect();
    return { x: r.x + m.clientLeft, y: r.y + m.clientTop };
  });

/** A triangle clicked on the map: the request carries it as a geometry; the result is transparent outside it. */
async function polygon(page) {
  await page.click("#drawPolygon");
  const box = await mapOrigin(page);
  const pts = [
    [250, 120],
    [560, 160],
    [320, 380],
  ].map(([x, y]) => [Math.round(box.x + x), Math.round(box.y + y)]);
  for (const [x, y] of pts.slice(0, 2)) await page.mouse.click(x, y);
  await page.mouse.dblclick(...pts[2]);
  await page.click("#drawPolygon");
  const kind = await page.textContent("#aoiKind");
  const r = await run(page);
  const g = r.body?.input.bounds.geometry;
  const ll = await page.evaluate(
    (ps) => ps.map(([x, y]) => window.eoConsole.map.map.containerPointToLatLng([x, y])),
    pts.map(([x, y]) => [x - box.x, y - box.y]),
  );
  const merc = gdalTransform(
    3857,
    ll.map((p) => [Number(p.lng.toFixed(6)), Number(p.lat.toFixed(6))]),
  );
  const off = g
    ? Math.max(...merc.map((m, i) => Math.hypot(m[0] - g.coordinates[0][i][0], m[1] - g.coordinates[0][i][1])))
    : Infinity;

  const png = decode(
    Buffer.from(
      await page.evaluate(async () => {
        const b = new Uint8Array(await (await fetch(document.querySelector("#download").href)).arrayBuffer());
        let text = ""; // in slices: a spread of a large file exceeds the call stack
        for (let i = 0; i < b.length; i += 0x8000) text += String.fromCharCode(...b.subarray(i, i + 0x8000));
        return btoa(text);
      }),
      "base64",
    ),
  );
  const alpha = (x, y) => png.data[(y * png.width + x) * png.channels + 3];
  await shot(page, "builder-polygon-1280x720");
  await snippetsSame(page, "polygon");
  check(
    r.ok &&
      g?.type === "Polygon" &&
      g.coordinates[0].length === 4 &&
      off < 0.01 &&
      alpha(png.width - 2, png.height - 2) === 0 &&
      alpha(Math.round(png.width * 0.4), Math.round(png.height * 0.3)) === 255,
    `polygon AOI (${kind}): ${r.state}; geometry vertices within ${off.toFixed(4)} m of GDAL's EPSG:3857; result transparent outside, opaque inside`,
  );
}

async function upload(page) {
  const geometry = {
    type: "Polygon",
    coordinates: [
      [
        [-11.5, 24.75],
        [-11.35, 24.75],
        [-11.35, 24.85],
        [-11.5, 24.75],
      ],
    ],
  };
  const file = resolve(SHOTS, "aoi.geojson");
  writeFileSync(
    file,
    JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry }] }),
  );
  await page.setInputFiles("#aoiFile", file);
  await page.waitForFunction(() => /aoi.geojson/.test(document.querySelector("#mapState").textContent));
  const sent = JSON.parse(await page.inputValue("#requestJson")).input.bounds.geometry;
  const merc = gdalTransform(3857, geometry.coordinates[0]);
  const off = Math.max(
    ...merc.map((m, i) => Math.hypot(m[0] - sent.coordinates[0][i][0], m[1] - sent.coordinates[0][i][1])),
  );
  const bad = resolve(SHOTS, "bad.geojson");
  writeFileSync(bad, JSON.stringify({ type: "Point", coordinates: [1, 2] }));
  await page.setInputFiles("#aoiFile", bad);
  await page.waitForFunction(() => /bad.geojson/.test(document.querySelector("#mapState").textContent));
  const says = await page.textContent("#mapState");
  check(
    off < 0.01 && /no Polygon or MultiPolygon/.test(says),
    `GeoJSON upload: geometry in the request within ${off.toFixed(4)} m of GDAL's EPSG:3857; a Point file: "${says}"`,
  );
}

/** UTM output at 200 m: bbox = GDAL's transform of the AOI outline; size = extent / 200 m. */
async function utm(page) {
  await page.fill("#placeSearch", "-11.55, 24.72, -11.3, 24.88");
  await page.click("#placeForm button[type=submit]");
  await page.selectOption("#crs", "utm");
  await page.selectOption("#sizeMode", "res");
  await page.fill("#res", "200");
  await page.dispatchEvent("#res", "change");
  const r = await run(page);
  const b = r.body?.input.bounds;
  const [w, s, e, n] = [-11.55, 24.72, -11.3, 24.88];
  const edge = [];
  for (let i = 0; i <= 100; i++)
    edge.push(
      [w + ((e - w) * i) / 100, s],
      [w + ((e - w) * i) / 100, n],
      [w, s + ((n - s) * i) / 100],
      [e, s + ((n - s) * i) / 100],
    );
  const xy = gdalTransform(32629, edge);
  const ref = [
    Math.min(...xy.map((p) => p[0])),
    Math.min(...xy.map((p) => p[1])),
    Math.max(...xy.map((p) => p[0])),
    Math.max(...xy.map((p) => p[1])),
  ];
  const off = b?.bbox ? Math.max(...ref.map((v, i) => Math.abs(v - b.bbox[i]))) : Infinity;
  const size = [Math.round((ref[2] - ref[0]) / 200), Math.round((ref[3] - ref[1]) / 200)];
  await shot(page, "builder-utm-1280x720");
  check(
    r.ok &&
      b.properties.crs.endsWith("/32629") &&
      off < 1 &&
      r.body.output.width === size[0] &&
      r.body.output.height === size[1],
    `UTM output: ${b?.properties.crs}, bbox within ${off.toFixed(3)} m of GDAL's outline of the AOI, ${r.body?.output.width} x ${r.body?.output.height} px at 200 m (expected ${size.join(" x ")}); ${r.state}`,
  );
  await snippetsSame(page, "UTM");
  await page.selectOption("#crs", "3857");
  await page.selectOption("#sizeMode", "map");
}

/**
 * Runs the page's curl, sentinelhub-py and sentinelhub-js snippets (lib/snippet-run.mjs; SKIP for a client this
 * machine lacks): each must write the same bytes as the result Run downloaded.
 */
const snippetsSame = (page, what) => runSnippets(page, { what, out: "result.png", client, check });

/** A Sentinel-1 GRD request over the sample scene with every option of the builder (Sentinel Hub's names). */
const S1_BODY = {
  input: {
    bounds: { bbox: [76.5, 10, 76.7, 10.2], properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/4326" } },
    data: [
      {
        type: "sentinel-1-grd",
        dataFilter: {
          timeRange: { from: "2018-07-16T00:00:00Z", to: "2018-07-16T23:59:59Z" },
          mosaickingOrder: "mostRecent",
          acquisitionMode: "IW",
          polarization: "DV",
          resolution: "HIGH",
          orbitDirection: "DESCENDING",
        },
        processing: {
          upsampling: "BILINEAR",
          backCoeff: "SIGMA0_ELLIPSOID",
          orthorectify: false,
          speckleFilter: { type: "LEE", windowSizeX: 5, windowSizeY: 5 },
        },
      },
    ],
  },
  output: { width: 200, height: 200, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript:
    '//VERSION=3\nfunction setup() {\n  return { input: ["VV", "dataMask"], output: { bands: 1, sampleType: "FLOAT32" } };\n}\nfunction evaluatePixel(s) {\n  return [s.VV];\n}\n',
};
const b64url = (text) => Buffer.from(text).toString("base64url");
/** JSON text with sorted object keys (requests compared regardless of member order). */
const canon = (v) =>
  JSON.stringify(v, (_, x) =>
    x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x,
  );

async function links(page, context) {
  const p = await openPage(context, `#builder?request=${b64url(JSON.stringify(S1_BODY))}`);
  const ids = ["collection", "from", "to", "crs", "sizeMode", "width", "height", "format", "mosaicking", "upsampling"];
  const s1 = [
    "AcquisitionMode",
    "Polarization",
    "Resolution",
    "OrbitDirection",
    "BackCoeff",
    "Orthorectify",
    "Speckle",
  ];
  const v = await p.evaluate(
    (list) => Object.fromEntries(list.map((id) => [id, document.getElementById(id).value])),
    [...ids, ...s1.map((k) => `s1${k}`), "s1WindowX", "s1WindowY", "west", "north"],
  );
  const want = {
    collection: "sentinel-1-grd",
    from: "2018-07-16",
    to: "2018-07-16",
    crs: "4326",
    sizeMode: "size",
    width: "200",
    height: "200",
    format: "image/tiff",
    mosaicking: "mostRecent",
    upsampling: "BILINEAR",
    s1AcquisitionMode: "IW",
    s1Polarization: "DV",
    s1Resolution: "HIGH",
    s1OrbitDirection: "DESCENDING",
    s1BackCoeff: "SIGMA0_ELLIPSOID",
    s1Orthorectify: "false",
    s1Speckle: "LEE",
    s1WindowX: "5",
    s1WindowY: "5",
    west: "76.5",
    north: "10.2",
  };
  const wrong = Object.keys(want).filter((k) => v[k] !== want[k]);
  const note = await p.textContent("#linkNote");
  const visible = await p.isVisible("#s1Options");
  check(
    wrong.length === 0 && visible && /opened/.test(note),
    `link: #builder?request= fills every field (${wrong.map((k) => `${k} ${v[k]} != ${want[k]}`).join(", ") || "all as in the link"}); Sentinel-1 options shown ${visible}; "${note}"`,
  );
  const built = await p.evaluate(() => window.eoConsole.request().body);
  const curl = JSON.parse(/<<'JSON'.*\n([\s\S]*)\nJSON$/.exec(await p.textContent("#snippetCurl"))[1]);
  check(
    canon(built) === canon(S1_BODY) && canon(curl) === canon(S1_BODY),
    `link: the builder's request and the curl snippet are the link's body (${canon(built).length} characters)`,
  );
  const r = await run(p);
  await shot(p, "builder-link-s1-options", true);
  check(
    canon(r.body) === canon(S1_BODY) && (r.ok || (await p.getAttribute("#runState", "class")).includes("error")),
    `link: Run sends the link's body with the Sentinel-1 options; ${r.state}`,
  );
  if (r.ok) await runSnippets(p, { what: "Sentinel-1 options", out: "result.tif", client, check });
  await share(p, context, built);
  await p.close();
  await polygonLink(context);
  await badLinks(context);
}

/** A link of a polygon request sized by resx/resy (PNG, Sentinel-2 L2A, leastCC, a cloud limit). */
async function polygonLink(context) {
  const ring = [
    [-11.5, 24.75],
    [-11.35, 24.76],
    [-11.4, 24.86],
    [-11.5, 24.75],
  ];
  const body = {
    input: {
      bounds: {
        geometry: { type: "Polygon", coordinates: [ring] },
        properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/4326" },
      },
      data: [
        {
          type: "sentinel-2-l2a",
          dataFilter: {
            timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-02-29T23:59:59Z" },
            mosaickingOrder: "leastCC",
            maxCloudCoverage: 40,
          },
        },
      ],
    },
    output: { resx: 0.001, resy: 0.001, responses: [{ identifier: "default", format: { type: "image/png" } }] },
    evalscript: S1_BODY.evalscript.replace(/VV/g, "B04").replace("FLOAT32", "UINT8"),
  };
  const p = await openPage(context, `#builder?request=${b64url(JSON.stringify(body))}`);
  const v = await p.evaluate(() =>
    Object.fromEntries(
      ["collection", "crs", "sizeMode", "res", "format", "mosaicking", "maxcc", "from", "to"].map((id) => [
        id,
        document.getElementById(id).value,
      ]),
    ),
  );
  const kind = await p.textContent("#aoiKind");
  const built = await p.evaluate(() => window.eoConsole.request().body);
  await p.close();
  check(
    canon(v) ===
      canon({
        collection: "sentinel-2-l2a",
        crs: "4326",
        sizeMode: "res",
        res: "0.001",
        format: "image/png",
        mosaicking: "leastCC",
        maxcc: "40",
        from: "2020-02-01",
        to: "2020-02-29",
      }) &&
      /polygon \(3 vertices/.test(kind) &&
      canon(built.input) === canon(body.input) &&
      built.output.width === 150 &&
      built.output.height === 110,
    `polygon link: fields ${JSON.stringify(v)}, AOI "${kind}"; the request's input is the link's, its ${built.output.width} x ${built.output.height} px are resx/resy's`,
  );
}

/** "Share request" copies a #builder?request= link; opened in a new tab it holds the same request. */
async function share(p, context, built) {
  await p.click("#shareRequest");
  const url = await p.evaluate(() => navigator.clipboard.readText());
  const m = /#builder\?request=([A-Za-z0-9_-]+)$/.exec(url);
  const decoded = m && JSON.parse(Buffer.from(m[1], "base64url").toString("utf8"));
  const q = await openPage(context, url.slice(url.indexOf("#")));
  const again = await q.evaluate(() => window.eoConsole.request().body);
  // a link followed from another page of the console (the exploration page's case): the builder already started
  await q.evaluate(() => (location.hash = "#statistics"));
  const other = { ...built, output: { ...built.output, width: 120, height: 90 } };
  await settled(q, "requestLinkOpened", () =>
    q.evaluate((h) => (location.hash = h), `#builder?request=${b64url(JSON.stringify(other))}`),
  );
  const followed = await q.evaluate(() => window.eoConsole.request().body);
  const shown = await q.isVisible("#page-request");
  await q.close();
  check(
    shown && canon(followed) === canon(other),
    `a request link followed from the Statistics page opens the builder with it (${followed.output.width} x ${followed.output.height} px)`,
  );
  check(
    m && canon(decoded) === canon(built) && canon(again) === canon(built),
    `share: "Share request" copies ${url.slice(0, 60)}... (${url.length} characters); it decodes to the request and opens it in a new tab`,
  );
}

/** Links that cannot be opened: the builder says why (#linkNote, an error) and keeps a working default form. */
async function badLinks(context) {
  const unknown = { ...S1_BODY, input: { ...S1_BODY.input, data: [{ ...S1_BODY.input.data[0], type: "landsat-9" }] } };
  for (const [what, param, why] of [
    ["not base64url", "%25%25not*base64", /not base64url/],
    ["not JSON", b64url("{not json"), /not JSON/],
    ["unknown collection", b64url(JSON.stringify(unknown)), /landsat-9.*not a collection/],
    [
      "unknown backCoeff",
      b64url(JSON.stringify(S1_BODY).replace("SIGMA0_ELLIPSOID", "SIGMA0")),
      /backCoeff "SIGMA0": one of BETA0/,
    ],
  ]) {
    const q = await openPage(context, `#builder?request=${param}`);
    const note = await q.textContent("#linkNote");
    const error = (await q.getAttribute("#linkNote", "class")).includes("error");
    const script = await q.evaluate(() => window.eoConsole.editor.state.doc.length);
    const shown = await q.isVisible("#run");
    if (what === "not JSON") await shot(q, "builder-link-bad");
    await q.close();
    check(
      why.test(note) && error && script > 0 && shown,
      `bad link (${what}): "${note}"; the builder stays usable (Run shown ${shown}, evalscript ${script} characters)`,
    );
  }
}

/** The Catalog page, in a tab of its own (the state step logs the first one out). */
async function catalog(_, context) {
  const page = await openPage(context);
  try {
    await catalogSteps({ page, base, token, client, check, shot });
  } finally {
    await page.close();
  }
}

async function requests(page) {
  await page.evaluate(
    () => ((document.querySelector("#snippets").open = true), (document.querySelector("#jsonView").open = true)),
  );
  const r = await run(page);
  const curl = JSON.parse(/<<'JSON'.*\n([\s\S]*)\nJSON$/.exec(await page.textContent("#snippetCurl"))[1]);
  const py = JSON.parse(/json\.loads\(r"""([\s\S]*)"""\)/.exec(await page.textContent("#snippetPy"))[1]);
  const view = JSON.parse(await page.inputValue("#requestJson"));
  const same = (a) => JSON.stringify(a) === JSON.stringify(r.body);
  check(
    r.ok && same(curl) && same(py) && same(view),
    `snippets: curl ${same(curl)}, sentinelhub-py ${same(py)} and the JSON view ${same(view)} carry exactly the body Run sent`,
  );
  await page.click('button[data-copy="snippetCurl"]');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  check(
    copied === (await page.textContent("#snippetCurl")),
    `copy button: the clipboard holds the curl snippet (${copied.length} characters)`,
  );
  // edit the JSON view: another size and mosaicking order, applied to the form
  await page.fill(
    "#requestJson",
    JSON.stringify({
      ...view,
      output: { ...view.output, width: 123, height: 77 },
      input: {
        ...view.input,
        data: [{ ...view.input.data[0], dataFilter: { ...view.input.data[0].dataFilter, mosaickingOrder: "leastCC" } }],
      },
    }),
  );
  await settled(page, "jsonImported", () => page.click("#applyJson"));
  const edited = await run(page);
  check(
    edited.ok &&
      edited.body.output.width === 123 &&
      edited.body.output.height === 77 &&
      edited.body.input.data[0].dataFilter.mosaickingOrder === "leastCC" &&
      (await page.inputValue("#sizeMode")) === "size",
    `request JSON edited and applied: Run sends ${edited.body?.output.width} x ${edited.body?.output.height}, ${edited.body?.input.data[0].dataFilter.mosaickingOrder}`,
  );
  // import a request file: West Flanders, EPSG:4326, 2018-06-25, JPEG
  const file = resolve(SHOTS, "request.json");
  const imported = {
    input: {
      bounds: {
        bbox: [3.0193, 50.8131, 3.0283, 50.8188],
        properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/4326" },
      },
      data: [
        {
          type: "sentinel-2-l2a",
          dataFilter: {
            timeRange: { from: "2018-06-25T00:00:00Z", to: "2018-06-25T23:59:59Z" },
            mosaickingOrder: "mostRecent",
          },
        },
      ],
    },
    output: { width: 64, height: 64, responses: [{ identifier: "default", format: { type: "image/jpeg" } }] },
    evalscript: await (await fetch(`${base}/vendor/evalscripts/sentinel-2__true_color__script.js`)).text(),
  };
  writeFileSync(file, JSON.stringify(imported));
  await settled(page, "jsonImported", () => page.setInputFiles("#jsonFile", file));
  const ir = await run(page);
  check(
    ir.ok && JSON.stringify(ir.body) === JSON.stringify(imported),
    `request imported from a file: Run sends the file's request unchanged: ${JSON.stringify(ir.body) === JSON.stringify(imported)}; ${ir.state}`,
  );
  await busyAndCancel(page);
  await staleAfterError(page);
}

/** Run disabled with a progress bar while the request runs (held 3 s here), Cancel ends it with no result. */
async function busyAndCancel(page) {
  await page.route(
    "**/api/v1/process",
    async (route) => (await new Promise((r) => setTimeout(r, 3000)), route.continue().catch(() => {})),
  );
  await page.click("#run");
  await page.waitForFunction(() => /running/.test(document.querySelector("#runState").textContent));
  const during = {
    disabled: await page.isDisabled("#run"),
    progress: await page.isVisible("#progress"),
    cancel: await page.isVisible("#cancel"),
  };
  await shot(page, "builder-running-1280x720");
  await page.click("#cancel");
  await page.waitForFunction(() => /cancelled/.test(document.querySelector("#runState").textContent));
  const after = { enabled: !(await page.isDisabled("#run")), download: await page.isVisible("#download") };
  await page.unroute("**/api/v1/process");
  check(
    during.disabled && during.progress && during.cancel && after.enabled && !after.download,
    `while running: Run disabled ${during.disabled}, progress ${during.progress}, Cancel ${during.cancel}; cancelled: Run enabled ${after.enabled}, download offered ${after.download}`,
  );
}

/** A good run, then a script error: the old result and download are gone, the error line is marked. */
async function staleAfterError(page) {
  await choosePreset(page, "sentinel-2__true_color__script.js");
  const good = await run(page);
  await page.evaluate(() => {
    const v = window.eoConsole.editor;
    v.dispatch({
      changes: {
        from: 0,
        to: v.state.doc.length,
        insert:
          '//VERSION=3\nfunction setup() { return { input: ["B04"], output: { bands: 1 } }; }\nfunction evaluatePixel(s) {\n  return [s.B04.nope.x];\n}\n',
      },
    });
  });
  const bad = await runExpectingError(page);
  const left = {
    download: await page.isVisible("#download"),
    overlay: await page.locator("canvas.result-overlay").count(),
  };
  const marked = await page.locator(".cm-gutter-lint .cm-lint-marker-error").count();
  await shot(page, "builder-error-1280x720");
  check(
    good.ok && !bad.ok && /400/.test(bad.state) && !left.download && left.overlay === 0 && marked === 1,
    `after a good run, a failing one (${bad.state.slice(0, 80)}): download offered ${left.download}, overlays ${left.overlay}, error marks in the gutter ${marked}`,
  );
  await choosePreset(page, "sentinel-2__true_color__script.js");
}

async function state(page, context) {
  await page.fill("#placeSearch", "West Flanders");
  await page.click("#placeForm button[type=submit]");
  await chooseCollection(page, "byoc-00000000-0000-4000-8000-00000000b70c");
  await choosePreset(page, "byoc/ndvi");
  await page.fill("#from", "2018-06-25");
  await page.fill("#to", "2018-07-15");
  await page.selectOption("#format", "image/jpeg");
  await page.selectOption("#crs", "4326");
  await page.dispatchEvent("#to", "change");
  const want = await page.evaluate(() => window.eoConsole.request().body);
  await page.click("#copyLink");
  const link = await page.evaluate(() => navigator.clipboard.readText());
  const tab = await context.newPage();
  tab.on("pageerror", (e) => consoleErrors.push(`page error: ${e.message}`));
  await tab.goto(link);
  await logIn(tab);
  const got = await tab.evaluate(() => window.eoConsole.request().body);
  const sameBut = (a, b) =>
    JSON.stringify({ ...a, output: { ...a.output, width: 0, height: 0 } }) ===
    JSON.stringify({ ...b, output: { ...b.output, width: 0, height: 0 } });
  check(
    sameBut(got, want) && /#request\?s=/.test(link),
    `permalink (${link.length} chars) opened in a new tab after logging in: same AOI, dates, collection, script, CRS and format: ${sameBut(got, want)}`,
  );
  await tab.close();
  // pins: saved, kept over a reload (localStorage), restored
  await page.evaluate(() => (document.querySelector("#pins").open = true));
  await page.fill("#pinName", "West Flanders NDVI");
  await page.click("#pin");
  await page.reload();
  await page.waitForSelector("body[data-request-ready]", { timeout: 60_000 });
  await page.fill("#placeSearch", "Mol");
  await page.click("#placeForm button[type=submit]");
  await page.evaluate(() => (document.querySelector("#pins").open = true));
  await page.click('button[aria-label="Open pin West Flanders NDVI"]');
  const pinned = await page.evaluate(() => window.eoConsole.request().body);
  await shot(page, "builder-pins-1280x720");
  check(
    sameBut(pinned, want),
    `pin "West Flanders NDVI" listed after a reload and restores the request: ${sameBut(pinned, want)}`,
  );
  // a token the API refuses: the log-in page with a notice; a token past its expiry: the same
  await page.evaluate(() => sessionStorage.setItem("eo-edge-token", "not-a-token"));
  expectHttpErrors = true;
  // Run, unless an automatic run (the pin's new state, Render on change) met the refused token first
  await page.evaluate(() => document.getElementById("page-login").hidden && document.getElementById("run").click());
  await page.waitForSelector("#page-login:not([hidden])", { timeout: 30_000 });
  expectHttpErrors = false;
  const notice = await page.textContent("#loginState");
  const who = await page.textContent("#who");
  await shot(page, "builder-session-ended-1280x720");
  check(
    /session has ended/.test(notice) && who === "not logged in",
    `refused token: log-in page, notice "${notice}", header "${who}"`,
  );
  await logIn(page);
  await page.evaluate(() => sessionStorage.setItem("eo-edge-token-expires", String(Date.now() - 1000)));
  await page.click('header nav a[href="#statistics"]');
  await page.waitForSelector("#page-login:not([hidden])", { timeout: 10_000 });
  const expired = await page.textContent("#loginState");
  await logIn(page);
  await page.click("#logoutHeader");
  await page.waitForSelector("#page-login:not([hidden])");
  const out = await page.textContent("#loginState");
  check(
    /expired/.test(expired) &&
      /logged out/.test(out) &&
      !(await page.evaluate(() => sessionStorage.getItem("eo-edge-token"))),
    `expired token: "${expired}"; header log-out: "${out}", token dropped`,
  );
}

/** The second location (another address, its own collections): its defaults run too, on its own sample. */
async function otherLocation(browser) {
  const base2 = base.replace(/:(\d+)$/, (_, p) => `:${process.env.PORT2 ?? Number(p) + 1}`);
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.on("pageerror", (e) => consoleErrors.push(`page error: ${e.message}`));
  await page.goto(`${base2}/#request`);
  await logIn(page);
  const r = await run(page);
  await shot(page, "builder-second-location-1280x720");
  check(
    r.ok,
    `defaults at the second location ${base2} (${r.body?.input.data[0].type}, preset ${await page.inputValue("#preset")}): ${r.state}`,
  );
  await context.close();
}

/**
 * A first visit (nothing kept in the browser): "Render on change" is on and the first view renders by itself after
 * log-in; the time from the log-in's submit to the run's end (the result drawn), timed in the page, is reported (a
 * figure, not asserted: the machine is shared).
 */
async function firstRender(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.on("pageerror", (e) => consoleErrors.push(`page error: ${e.message}`));
  await page.goto(`${base}/#request`);
  await page.fill("#clientId", client.client_id);
  await page.fill("#clientSecret", client.client_secret);
  await page.evaluate(() => {
    new MutationObserver((_, o) => {
      if (!document.body.dataset.autoRunEnded) return;
      window.firstRenderMs = Math.round(performance.now() - window.submitted);
      o.disconnect();
    }).observe(document.body, { attributes: true });
    document.getElementById("loginForm").addEventListener("submit", () => (window.submitted = performance.now()), {
      capture: true,
    });
  });
  await page.press("#clientSecret", "Enter");
  await page.waitForSelector("body[data-auto-run-ended]", { timeout: 120_000 });
  const ms = await page.evaluate(() => window.firstRenderMs);
  const [auto, state, overlay] = [
    await page.isChecked("#autoRender"),
    await page.textContent("#runState"),
    await page.locator("canvas.result-overlay").count(),
  ];
  console.log(`INFO first map render after log-in: ${ms} ms (submit to the result drawn, timed in the page)`);
  check(
    auto && /^200/.test(state) && overlay === 1,
    `first visit: Render on change ${auto ? "on" : "off"} by default; after log-in the map renders by itself: ${state}`,
  );
  await shot(page, "builder-first-render");
  await context.close();
}

/** At 390 x 844: the defaults run, nothing is wider than the screen, map and Run usable. */
async function phone(browser) {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
  });
  const page = await openPage(context);
  const r = await run(page);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  const map = await page.locator("#map").boundingBox();
  await shot(page, "builder-phone-390", true);
  check(
    r.ok && wide <= 390 && map.width >= 350 && map.height >= 250,
    `390 px phone: ${r.state}; page ${wide} px wide; map ${map.width}x${Math.round(map.height)}`,
  );
  await context.close();
}

const t0 = Date.now();
mkdirSync(SHOTS, { recursive: true });
const server = await checkServer();
[base, token] = [server.base, server.token];
client = JSON.parse(readFileSync(join(resolve(process.env.EO_EDGE_STATE ?? ".state"), "demo-client.json"), "utf8"));
let browser;
try {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const context = await browser.newContext({
    viewport: { width: 1280, height: 720 },
    deviceScaleFactor: 1,
    permissions: ["clipboard-read", "clipboard-write"],
  });
  const page = await openPage(context);
  const steps = [defaults, presets, time, mapTools, requests, state, links, catalog].filter(
    (f) => !process.env.STEPS || process.env.STEPS.split(",").includes(f.name),
  );
  for (const step of steps) {
    try {
      await step(page, context);
    } catch (e) {
      check(false, `${step.name}: ${e.message.split("\n")[0]}`);
      await shot(page, `builder-${step.name}-error`, true).catch(() => {});
    }
  }
  for (const step of [firstRender, otherLocation, phone].filter(
    (f) => !process.env.STEPS || process.env.STEPS.split(",").includes(f.name),
  )) {
    await step(browser).catch((e) => check(false, `${step.name}: ${e.message.split("\n")[0]}`));
  }
  check(
    consoleErrors.length === 0,
    `no console errors${consoleErrors.length ? `: ${consoleErrors.slice(0, 5).join(" | ")}` : ""}`,
  );
} finally {
  await browser?.close();
  await server.stop();
}
console.log(
  `request builder browser check ${failures.length ? `FAILED (${failures.length})` : "passed"} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);
process.exit(failures.length ? 1 : 0);

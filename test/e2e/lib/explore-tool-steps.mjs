// Steps of test/e2e/browser-check-explore.mjs on what the exploration view hands on: measures, statistics,
// compare, downloads, the share link, the request builder link, the time-lapse, the 390 px layout. Each gets
// { page, base, token, client, check } and checks against the API called from Node or independent libraries.
import area from "@turf/area";
import geographiclib from "geographiclib-geodesic";
import { readFileSync } from "node:fs";
import { api } from "./console-check.mjs";
import { differ, drawn, mainTiles, open, pixels, shot, WEST_FLANDERS } from "./explore-lib.mjs";

const { Geodesic } = geographiclib;

/** Geodesic distance and area of a drawn line and polygon against @turf/area and GeographicLib run here. */
export async function measure({ page, base, check }) {
  await open(page, base, `collection=sentinel-2-l2a&${WEST_FLANDERS}`);
  await page.click("#toolsBox summary");
  const box = await page.locator("#map").boundingBox();
  const pts = [
    [700, 200],
    [1000, 220],
    [950, 550],
    [650, 500],
  ].map(([x, y]) => [box.x + x, box.y + y]);
  const ll = await page.evaluate(
    (p) => p.map(([x, y]) => window.eoExplore.map.containerPointToLatLng([x, y])).map((l) => [l.lng, l.lat]),
    pts,
  );
  await page.click("#measureArea");
  for (const [x, y] of pts) await page.mouse.click(x, y), await page.waitForTimeout(150);
  await page.mouse.click(...pts[0]);
  await page.waitForFunction(() => document.getElementById("measureOut").dataset.m2);
  const m2 = Number(await page.getAttribute("#measureOut", "data-m2"));
  const polygon = { type: "Polygon", coordinates: [[...ll, ll[0]]] };
  const turf = area(polygon);
  const gp = Geodesic.WGS84.Polygon(false);
  for (const [lon, lat] of ll) gp.AddPoint(lat, lon);
  const geodesic = Math.abs(gp.Compute(false, true).area);
  check(
    Math.abs(m2 / turf - 1) < 0.005 && Math.abs(m2 / geodesic - 1) < 0.005,
    `area ${m2.toFixed(1)} m² within 0.5 % of @turf/area ${turf.toFixed(1)} and GeographicLib ${geodesic.toFixed(1)}`,
  );
  await shot(page, "measure-area");
  await page.click("#measureLine");
  await page.mouse.click(...pts[0]);
  await page.mouse.dblclick(...pts[2]);
  await page.waitForFunction(() => document.getElementById("measureOut").dataset.metres);
  const m = Number(await page.getAttribute("#measureOut", "data-metres"));
  const truth = Geodesic.WGS84.Inverse(ll[0][1], ll[0][0], ll[2][1], ll[2][0]).s12;
  check(
    Math.abs(m / truth - 1) < 0.005,
    `distance ${m.toFixed(2)} m within 0.5 % of GeographicLib ${truth.toFixed(2)} m`,
  );
  await shot(page, "measure-distance");
}

/**
 * Draws a triangle (map pixels `pts`) with the statistics tool on the view `query`; checks that the request is
 * sent on the polygon and that the table shows the API's answer to the same request (output `output`).
 */
async function statsOn({ page, base, token, check }, query, pts, output, name) {
  await open(page, base, query);
  await page.click("#toolsBox summary");
  const box = await page.locator("#map").boundingBox();
  await page.click("#statsPolygon");
  for (const [x, y] of pts) await page.mouse.click(box.x + x, box.y + y), await page.waitForTimeout(150);
  await page.mouse.click(box.x + pts[0][0], box.y + pts[0][1]);
  await page.waitForFunction(() => document.getElementById("measureOut").dataset.statsDays, null, { timeout: 180_000 });
  const { body, rows } = await page.evaluate(() => window.eoExplore.stats);
  check(
    body.input.bounds.geometry?.type === "Polygon" && !body.input.bounds.bbox,
    `${name}: the statistics request's bounds are the drawn polygon, not its bbox`,
  );
  const answer = await api(base, token, "/api/v1/statistics", { method: "POST", body });
  const truth = answer.data
    .map((d) => ({ date: d.interval.from.slice(0, 10), s: d.outputs[output]?.bands.B0.stats }))
    .filter((d) => d.s && d.s.sampleCount > d.s.noDataCount);
  const shown = await page.$$eval("#statsTable tr[data-date]", (r) =>
    r.map((tr) => [...tr.cells].map((c) => c.textContent)),
  );
  const near = (a, b) => Math.abs(a - b) <= 1e-5 * Math.abs(b);
  const same =
    shown.length === truth.length &&
    truth.every(
      (t, i) => shown[i][0] === t.date && near(Number(shown[i][1]), t.s.mean) && near(Number(shown[i][2]), t.s.stDev),
    );
  check(
    same && rows.length > 0,
    `${name}: statistics shown = the API's answer for the polygon (${shown.length} days; first mean ${shown[0]?.[1]})`,
  );
  check(await page.isVisible("#statsChart"), `${name}: the chart is drawn`);
  await page.locator("#statsChart").scrollIntoViewIfNeeded();
  await shot(page, `stats-${name}`);
}

/**
 * Statistics of a drawn polygon: Sentinel-2 NDVI over the days around the shown one. (The Statistical API answers
 * no intervals for the scenes read from the archive, the DEM, Landsat and Sentinel-2 29RKH: only the local samples.)
 */
export async function stats(ctx) {
  const triangle = [
    [500, 250],
    [800, 230],
    [750, 520],
  ];
  await statsOn(ctx, `collection=sentinel-2-l2a&date=2018-08-07&${WEST_FLANDERS}`, triangle, "ndvi", "ndvi");
}

/** Swipe compare of two days. */
export async function compare({ page, base, check }) {
  await open(page, base, `collection=sentinel-2-l2a&layer=TRUE_COLOR&date=2018-08-07&${WEST_FLANDERS}`);
  await page.click("#compareBox summary");
  await page.selectOption("#compareDate", "2018-04-19");
  await page.click("#compareToggle");
  await drawn(page, true);
  const left = await pixels(page, ".leaflet-compare-pane img.explore-tile");
  const right = await pixels(page, `${mainTiles}[data-date="2018-08-07"]`);
  const clip = await page.evaluate(() => document.querySelector(".leaflet-compare-pane").style.clip);
  check(left.opaque > 0 && differ(left, right), `compare: 2018-04-19 (${left.mean}) over 2018-08-07 (${right.mean})`);
  check(
    /rect\(/.test(clip) && (await page.isVisible(".swipe-divider")),
    `the second day is clipped at the divider (${clip})`,
  );
  check(
    (await page.textContent("#viewLabel")).includes("2018-04-19") && page.url().includes("compare=2018-04-19"),
    "label and URL name the second day",
  );
  await shot(page, "compare");
}

/** Downloads at a chosen resolution: PNG and GeoTIFF of the size that resolution gives. */
export async function download({ page, base, check }) {
  await open(page, base, `collection=sentinel-2-l2a&layer=NDVI&date=2018-08-07&${WEST_FLANDERS}`);
  await page.click("#downloadBox summary");
  const bbox = await page.evaluate(() => {
    const b = window.eoExplore.map.getBounds();
    return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];
  });
  const merc = ([lon, lat]) => [
    (lon * Math.PI * 6378137) / 180,
    6378137 * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)),
  ];
  const [x0, y0] = merc([bbox[0], bbox[1]]),
    [x1, y1] = merc([bbox[2], bbox[3]]);
  for (const [format, res, magic] of [
    ["image/png", "5", "89504e47"],
    ["image/tiff", "10", "49492a00"],
  ]) {
    await page.selectOption("#dlFormat", format);
    await page.fill("#dlRes", res);
    const [file] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
    const bytes = readFileSync(await file.path());
    const [w, h] = [Math.round((x1 - x0) / res), Math.round((y1 - y0) / res)];
    let size;
    if (format === "image/png") size = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
    else {
      const { fromArrayBuffer } = await import("geotiff");
      const img = await (
        await fromArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
      ).getImage();
      size = [img.getWidth(), img.getHeight()];
    }
    check(
      bytes.subarray(0, 4).toString("hex") === magic && Math.abs(size[0] - w) <= 1 && Math.abs(size[1] - h) <= 1,
      `${format} at ${res} m/px: ${file.suggestedFilename()} ${size.join(" x ")} px (view ${w} x ${h} at ${res} m)`,
    );
  }
  await page.selectOption("#dlFormat", "index");
  await page.fill("#dlRes", "10");
  const [file] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
  const bytes = readFileSync(await file.path());
  const { fromArrayBuffer } = await import("geotiff");
  const img = await (
    await fromArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
  ).getImage();
  const [ndvi] = await img.readRasters();
  const valid = [...ndvi].filter(Number.isFinite);
  check(
    img.getSampleFormat() === 3 &&
      valid.length > 0 &&
      valid.every((v) => v >= -1 && v <= 1) &&
      new Set(valid).size > 100,
    `NDVI index values: FLOAT32 GeoTIFF ${img.getWidth()} x ${img.getHeight()}, ${valid.length} values in [-1, 1] (${new Set(valid).size} distinct)`,
  );
  await page.selectOption("#dlFormat", "image/png");
  await page.fill("#dlRes", "0.01");
  await page.click("#download");
  await page.waitForFunction(() => document.getElementById("toolState").classList.contains("error"));
  check(
    (await page.textContent("#toolState")).includes("px a side"),
    "a resolution too fine for the view is refused with the reason",
  );
  await shot(page, "download");
}

/** The share link: no token; a new session opens the same view after its log-in. */
export async function share({ page, base, token, client, check }) {
  await open(page, base, `collection=sentinel-2-l2a&layer=FALSE_COLOR&date=2018-05-24&${WEST_FLANDERS}`);
  await page.click("#downloadBox summary");
  await page.click("#share");
  const url = await page.inputValue("#shareUrl");
  const key = await page.evaluate(() => document.body.dataset.renderKey);
  const label = await page.textContent("#viewLabel");
  check(!url.includes(token) && !/token|secret/i.test(url), `the share link carries no token: ${url}`);
  const context = await page
    .context()
    .browser()
    .newContext({ viewport: { width: 1280, height: 720 } });
  const p = await context.newPage();
  await p.goto(url);
  await p.fill("#clientId", client.client_id);
  await p.fill("#clientSecret", client.client_secret);
  await p.press("#clientSecret", "Enter");
  await p.waitForSelector("body[data-ready]", { state: "attached", timeout: 120_000 });
  await drawn(p);
  const [k2, l2] = [await p.evaluate(() => document.body.dataset.renderKey), await p.textContent("#viewLabel")];
  const [c1, c2] = await Promise.all([page, p].map((q) => q.evaluate(() => window.eoExplore.map.getCenter())));
  check(
    k2 === key && l2 === label && Math.abs(c1.lat - c2.lat) < 1e-4 && Math.abs(c1.lng - c2.lng) < 1e-4,
    `the link opens the same view in a new session: ${k2}, "${l2}"`,
  );
  const [a, b] = [await pixels(page, mainTiles), await pixels(p, mainTiles)];
  check(!differ(a, b), `and the same pixels (${a.mean} / ${b.mean})`);
  await shot(p, "share-opened");
  await p.goto(url.replace("collection=sentinel-2-l2a", "collection=byoc-00000000-0000-4000-8000-0000000000ff"));
  await p.waitForSelector("body[data-ready]", { state: "attached", timeout: 120_000 });
  const said = await p.textContent("#placeState");
  check(
    said.includes("not one this account can see"),
    `a link to a collection the account cannot see says so: "${said}"`,
  );
  await context.close();
}

/** "Open in request builder": /#builder?request=<base64url of the view's Process API body>. */
export async function builder({ page, base, check }) {
  await open(page, base, `collection=sentinel-2-l2a&layer=NDWI&date=2018-08-07&${WEST_FLANDERS}`);
  const script = await page.evaluate(() => window.eoExplore.script);
  await page.click("#downloadBox summary");
  await page.click("#toBuilder");
  await page.waitForURL(/#builder\?request=/);
  const text = new URL(page.url()).hash.split("request=")[1];
  const body = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  const d = body.input.data[0];
  check(
    d.type === "sentinel-2-l2a" &&
      d.dataFilter.timeRange.from === "2018-08-07T00:00:00Z" &&
      body.evalscript === script &&
      body.input.bounds.properties.crs.endsWith("3857") &&
      body.output.responses[0].identifier === "default",
    `builder link: the view's Process API request (${d.type}, ${d.dataFilter.timeRange.from}, ${body.output.width} x ${body.output.height})`,
  );
  await shot(page, "builder");
}

/** Time-lapse export through web/src/timelapse.js (its frames are checked with Pillow by browser-check-timelapse). */
export async function timelapse({ page, base, check }) {
  await open(page, base, `collection=sentinel-2-l2a&layer=TRUE_COLOR&date=2018-08-07&${WEST_FLANDERS}`);
  await page.click("#downloadBox summary");
  await page.selectOption("#tlFormat", "gif");
  const [file] = await Promise.all([page.waitForEvent("download", { timeout: 300_000 }), page.click("#timelapse")]);
  const bytes = readFileSync(await file.path());
  check(bytes.subarray(0, 6).toString("latin1") === "GIF89a", `time-lapse GIF: ${bytes.length} bytes`);
  await shot(page, "timelapse");
}

/** 390 px: no horizontal scroll; the panel folds; every action in it lies on screen. */
export async function w390({ page, base, check }) {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, base, `collection=sentinel-2-l2a&${WEST_FLANDERS}`);
  check(await page.isHidden("#panel"), "a phone shows the map first, the panel folded");
  await shot(page, "w390-map");
  await page.click("#panelToggle");
  for (const s of ["#compareBox", "#toolsBox", "#downloadBox"]) await page.click(`${s} summary`);
  const r = await page.evaluate(() => {
    const overflow = document.documentElement.scrollWidth - window.innerWidth;
    const off = [...document.querySelectorAll("#panel button, #panel input, #panel select, #panel a, #panelToggle")]
      .filter((e) => e.offsetParent && e.type !== "radio")
      .filter((e) => {
        e.scrollIntoView({ block: "nearest" });
        const b = e.getBoundingClientRect();
        return b.width > 0 && (b.left < -1 || b.right > window.innerWidth + 1 || b.bottom > window.innerHeight + 1);
      })
      .map((e) => e.id || e.textContent.trim().slice(0, 20) || e.tagName);
    return { overflow, off };
  });
  check(r.overflow <= 0 && r.off.length === 0, `390 px: overflow ${r.overflow} px; actions off screen: [${r.off}]`);
  await shot(page, "w390-panel");
  await page.click("#measureArea");
  check(await page.isHidden("#panel"), "390 px: a drawing tool folds the panel away from the map");
  for (const [x, y] of [
    [100, 300],
    [300, 320],
    [200, 600],
  ])
    await page.mouse.click(x, y), await page.waitForTimeout(150);
  await page.mouse.click(100, 300);
  await page.waitForSelector("#panel:not([hidden])");
  const out = await page.textContent("#measureOut");
  check(out.startsWith("Area:"), `390 px: the panel opens again with the result: "${out}"`);
  await shot(page, "w390-measured");
  await page.setViewportSize({ width: 1280, height: 720 });
}

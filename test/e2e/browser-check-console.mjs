// Browser check of the console (web/index.html, web/src; `npm run test:browser`): starts `npm start` on a spare
// port (or uses $CONSOLE_BASE), drives Debian's Chromium (playwright-core, headless) through the console and checks
// the results against the API called directly from Node (the oracle):
//  1. log in with the demo client using the keyboard (Enter submits); every form control has an accessible name;
//  2. draw an AOI by dragging on the map, run the true-colour preset, base layers off: the overlay sits where the
//     AOI was dragged and its on-screen pixels equal the Processing API PNG for the same EPSG:3857 bbox and size;
//  3. each location's request builder offers the collections its catalog lists (the primary: Sentinel-2 and
//     Sentinel-1 GRD, not the BYOC sample of the CREODIAS bucket; the second location: that sample), and the page
//     shows the base layer instance's WMS and WMTS GetCapabilities URLs, which answer WMS 1.3.0 / WMTS 1.0.0.
// The statistics, batch, collections, OAuth clients and WMS map pages: test/e2e/browser-check-pages.mjs.
// Screenshots go to test-artifacts/browser/ (git-ignored). Prints figures and the elapsed time; exits 1 on failure.
import { decode } from "fast-png";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { consoleServer, SHOTS } from "./lib/console-check.mjs";

const R = 6378137;
const failures = [];
let refPng = null; // the Processing API PNG of the true-colour step (oracle of the snippets step)
const check = (ok, text) => (console.log(`${ok ? "OK  " : "FAIL"} ${text}`), ok || failures.push(text));

/** EPSG:3857 metres of a WGS84 lon/lat (spherical Mercator, EPSG guidance note 7-2 §1.3.3.2). */
const merc = (lon, lat) => [(R * lon * Math.PI) / 180, R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))];

async function api(base, token, path, body) {
  const r = await fetch(base + path, {
    method: body ? "POST" : "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r;
}

/** Log in through the form with the keyboard; every input/select/textarea must have a label or aria name. */
async function logIn(page, base, client) {
  await page.goto(`${base}/#login`);
  await page.focus("#clientId");
  await page.keyboard.type(client.client_id);
  await page.keyboard.press("Tab");
  await page.keyboard.type(client.client_secret);
  await page.keyboard.press("Enter");
  await page.waitForSelector("body[data-request-ready]", { timeout: 120_000 });
  const unnamed = await page.$$eval("input, select, textarea", (els) =>
    els
      .filter((e) => !e.labels?.length && !e.getAttribute("aria-label") && !e.getAttribute("aria-labelledby"))
      .map((e) => e.id),
  );
  check(unnamed.length === 0, `log in by keyboard; form controls without a label: [${unnamed.join(", ")}]`);
}

/** Pixel comparison of screenshot region `r` with the reference PNG (opaque reference pixels only). */
function compare(shot, r, ref) {
  let n = 0,
    close = 0,
    sum = 0;
  const reds = new Set();
  for (let y = 1; y < ref.height - 1; y++) {
    for (let x = 1; x < ref.width - 1; x++) {
      const i = (y * ref.width + x) * ref.channels;
      if (ref.channels === 4 && ref.data[i + 3] !== 255) continue;
      const j = ((r.y + y) * shot.width + (r.x + x)) * shot.channels;
      const d = Math.max(...[0, 1, 2].map((b) => Math.abs(shot.data[j + b] - ref.data[i + b])));
      n++, (sum += d), d <= 8 && close++;
      reds.add(shot.data[j]);
    }
  }
  return { n, close: close / n, mean: sum / n, distinct: reds.size };
}

async function trueColour(page, base, token) {
  const map = await page.locator("#map").boundingBox();
  const [x0, y0, x1, y1] = [
    Math.round(map.x + 150),
    Math.round(map.y + 120),
    Math.round(map.x + 450),
    Math.round(map.y + 360),
  ];
  await page.click("#drawAoi");
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  await page.mouse.move(x1, y1, { steps: 5 });
  await page.mouse.up();
  await page.click("#drawAoi");
  await page.uncheck("#baseLayer");
  await page.uncheck("#basemap");
  await page.selectOption("#sizeMode", "map"); // one output pixel per screen pixel (the default sizes by resolution)
  await page.selectOption("#preset", "sentinel-2__true_color__script.js");
  await page.waitForFunction(() => window.eoConsole.editor.state.doc.toString().includes("VERSION=3"));
  await page.click("#run");
  await page.waitForSelector("body[data-run-done]", { timeout: 120_000 });
  await page.waitForTimeout(300);
  const box = await page.locator("canvas.result-overlay").boundingBox();
  const off = Math.max(
    Math.abs(box.x - x0),
    Math.abs(box.y - y0),
    Math.abs(box.x + box.width - x1),
    Math.abs(box.y + box.height - y1),
  );
  check(
    off <= 1.5,
    `result overlay at (${box.x.toFixed(1)},${box.y.toFixed(1)}) ${box.width.toFixed(1)}x${box.height.toFixed(1)}; AOI dragged (${x0},${y0})-(${x1},${y1}): off by ${off.toFixed(2)} px`,
  );
  const v = await page.$$eval("#west,#south,#east,#north,#width,#height", (els) => els.map((e) => Number(e.value)));
  const [w, s, e, n, width, height] = v;
  const body = {
    input: {
      bounds: {
        bbox: [...merc(w, s), ...merc(e, n)],
        properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/3857" },
      },
      data: [
        {
          type: "sentinel-2-l2a",
          dataFilter: {
            timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T23:59:59Z" },
            mosaickingOrder: "mostRecent",
          },
        },
      ],
    },
    output: { width, height },
    evalscript: readFileSync("data/evalscripts/sentinel-2__true_color__script.js", "utf8"),
  };
  refPng = new Uint8Array(await (await api(base, token, "/api/v1/process", body)).arrayBuffer());
  const ref = decode(refPng);
  const shot = decode(await page.screenshot({ type: "png", path: join(SHOTS, "console-true-colour.png") }));
  const c = compare(shot, { x: Math.round(box.x), y: Math.round(box.y) }, ref);
  check(
    ref.width === width && c.n > 10_000 && c.close >= 0.9 && c.mean < 4 && c.distinct > 20,
    `true colour on the map vs Processing API ${width}x${height} PNG: ${c.n} px, ${(100 * c.close).toFixed(1)} % within 8, mean diff ${c.mean.toFixed(2)}, ${c.distinct} distinct reds`,
  );
  const outside = shot.data.slice(
    (y1 + 40) * shot.width * shot.channels + (x1 + 40) * shot.channels,
    (y1 + 40) * shot.width * shot.channels + (x1 + 40) * shot.channels + 3,
  );
  const refAt = [...ref.data.slice(0, 3)];
  const bg = await page.$eval("#map", (m) => getComputedStyle(m).backgroundColor.match(/\d+/g).map(Number));
  check(
    bg.every((c, i) => c === outside[i]),
    `outside the AOI (base layers off) the map is its plain background: rgb(${[...outside]}), background rgb(${bg}) (scene corner rgb(${refAt}))`,
  );
}

/**
 * The request builder's curl and sentinelhub-js snippets, run here (bash + curl; the project's node with
 * sentinelhub-js from node_modules) with the demo client: both must write the same PNG as the true-colour step's
 * reference request. (sentinelhub-py is not installable offline: its snippet is not run.)
 */
async function snippets(page) {
  const dir = mkdtempSync(join(resolve("."), ".snippet-"));
  const env = { ...process.env, CLIENT_ID: snippetClient.client_id, CLIENT_SECRET: snippetClient.client_secret };
  try {
    for (const [id, file, cmd] of [
      ["#snippetCurl", "run.sh", ["bash", ["run.sh"]]],
      ["#snippetJs", "run.mjs", [process.execPath, ["run.mjs"]]],
    ]) {
      writeFileSync(join(dir, file), await page.textContent(id));
      const r = spawnSync(cmd[0], cmd[1], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
      const out = join(dir, "result.png");
      const same = existsSync(out) && Buffer.compare(readFileSync(out), Buffer.from(refPng)) === 0;
      check(
        r.status === 0 && same,
        `${id} snippet: exit ${r.status}, result.png ${existsSync(out) ? `${statSync(out).size} bytes` : "missing"}, identical to the reference PNG: ${same} ${r.stderr.slice(0, 300)}`,
      );
      rmSync(out, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Catalog footprints of the AOI and dates: one per item the API lists; clicking one shows that item's JSON. */
async function footprints(page, base, token) {
  await page.click("#footprints");
  await page.waitForSelector("#mapState:text-matches('[0-9]+ items|[0-9]{3}')", { timeout: 30_000 });
  const paths = await page.$$("#map .leaflet-overlay-pane path.leaflet-interactive");
  const v = await page.$$eval("#west,#south,#east,#north", (els) => els.map((e) => Number(e.value)));
  const search = {
    collections: ["sentinel-2-l2a"],
    bbox: v,
    datetime: "2020-02-01T00:00:00Z/2020-03-01T23:59:59Z",
    limit: 100,
  };
  const items = (await (await api(base, token, "/api/v1/catalog/1.0.0/search", search)).json()).features;
  const [p, m] = [await paths[0]?.boundingBox(), await page.locator("#map").boundingBox()];
  if (p)
    await page.mouse.click(
      (Math.max(p.x, m.x) + Math.min(p.x + p.width, m.x + m.width)) / 2,
      (Math.max(p.y, m.y) + Math.min(p.y + p.height, m.y + m.height)) / 2,
    );
  const shown = JSON.parse((await page.textContent("#itemJson")) || "{}");
  check(
    paths.length === items.length &&
      items.some((f) => f.id === shown.id && JSON.stringify(f) === JSON.stringify(shown)),
    `footprints: ${paths.length} drawn, catalog lists ${items.length}; clicked one shows item ${shown.id}`,
  );
}

/**
 * At each location the request builder offers what that location's catalog lists, and shows the GetCapabilities
 * URLs of the base layer's instance at the primary location (which hosts its Sentinel-2 L2A); they answer.
 */
async function locations(page, base, token) {
  const base2 = base.replace(/:(\d+)$/, (_, p) => `:${process.env.PORT2 ?? Number(p) + 1}`);
  for (const at of [base, base2]) {
    if (at === base) await page.goto(`${at}/#request`);
    else await logIn(page, at, client); // the token is kept per origin (sessionStorage)
    await page.waitForSelector("body[data-request-ready]", { timeout: 60_000 });
    const offered = await page.$$eval("#collection option", (os) => os.map((o) => o.value));
    const listed = (await (await api(at, token, "/api/v1/catalog/1.0.0/collections")).json()).collections.map(
      (c) => c.id,
    );
    check(
      offered.join() === listed.join() && offered.length > 0,
      `request builder at ${at} offers its catalog's collections: [${offered.join(", ")}]`,
    );
    await page.waitForSelector("#ogcUrls:not([hidden])", { timeout: 60_000 });
    for (const [id, root] of [
      ["#wmsCaps", "<WMS_Capabilities"],
      ["#wmtsCaps", "<Capabilities"],
    ]) {
      const url = await page.getAttribute(id, "href");
      const r = await fetch(url);
      check(
        url.startsWith(`${base}/ogc/`) && r.status === 200 && (await r.text()).includes(root),
        `at ${at}: ${id} ${url}: ${r.status}, ${root}`,
      );
    }
  }
}

const t0 = Date.now();
const { server, client, token } = await consoleServer();
const snippetClient = client;
let browser;
try {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  page.on("pageerror", (e) => check(false, `page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && console.log(`     console: ${m.text()}`));
  const steps = [logIn, trueColour, snippets, footprints, locations].filter(
    (f) => !process.env.STEPS || process.env.STEPS.split(",").includes(f.name) || f === logIn,
  );
  for (const step of steps) {
    try {
      await step(page, server.base, step === logIn ? client : token);
    } catch (e) {
      check(false, `${step.name}: ${e.message.split("\n")[0]}`);
      await page.screenshot({ path: join(SHOTS, `console-${step.name}-error.png`), fullPage: true }).catch(() => {});
    }
  }
} finally {
  await browser?.close();
  await server.stop();
}
console.log(
  `console browser check ${failures.length ? `FAILED (${failures.length})` : "passed"} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);
process.exit(failures.length ? 1 : 0);

// Steps of test/e2e/browser-check-pages.mjs, one per console page; each gets { page, base, token, client, check,
// shots } and checks what the page shows against the API called directly from Node (batch: ./pages-batch-steps.mjs).
import { api } from "./console-check.mjs";
import { batch, batchcollection, statbatch } from "./pages-batch-steps.mjs";

const WF = [3.019304, 50.813087, 3.028392, 50.818841];

/** The Statistical API request the page sends when its Compute button is clicked, and the page's result. */
async function computeStats(page) {
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.url().endsWith("/api/v1/statistics") && r.method() === "POST"),
    page.click("#statsRun"),
  ]);
  await page.waitForFunction(
    () => document.body.dataset.statsDone !== undefined && !document.getElementById("statsRun").disabled,
    null,
    { timeout: 180_000 },
  );
  return request.postDataJSON();
}

/** The chart's mean series as [{x, y}] and the pixel x of each point. */
const chartMeans = (page) =>
  page.evaluate(() => {
    const c = window.eoConsole.series;
    const ds = c.data.datasets.find((d) => d.label === "mean");
    return ds.data.map((p) => ({ ...p, px: c.scales.x.getPixelForValue(p.x) }));
  });

/**
 * Statistics: the defaults succeed on the first click (the sample area, dates around its scene), the chart's points
 * are the API's means at the interval dates; West Flanders with the SCL mask: points on a time axis (pixel spacing
 * proportional to time), CSV rows = the API's intervals; a bad interval shows the 400 message.
 */
export async function statistics({ page, base, token, check, shots }) {
  await page.goto(`${base}/#statistics`);
  await page.waitForSelector("body[data-stats-ready]", { timeout: 60_000 });
  await page.evaluate(() => delete document.body.dataset.statsDone);
  let body = await computeStats(page);
  let state = await page.textContent("#statsState");
  let direct = await api(base, token, "/api/v1/statistics", { method: "POST", body });
  let means = await chartMeans(page);
  const apiMeans = direct.data
    .filter((d) => Number.isFinite(d.outputs?.ndvi?.bands?.B0?.stats?.mean))
    .map((d) => ({ x: Date.parse(d.interval.from), y: d.outputs.ndvi.bands.B0.stats.mean }));
  check(
    !/error/.test(await page.getAttribute("#statsState", "class")) &&
      means.length >= 1 &&
      JSON.stringify(means.map(({ x, y }) => ({ x, y }))) === JSON.stringify(apiMeans),
    `statistics defaults, first click: "${state}"; ${body.aggregation.timeRange.from}..${body.aggregation.timeRange.to} at ${body.aggregation.resx} m; chart means ${JSON.stringify(means.map((m) => [new Date(m.x).toISOString().slice(0, 10), +m.y.toFixed(4)]))} = API`,
  );
  await shots(page, "statistics");

  for (const [i, k] of ["statsWest", "statsSouth", "statsEast", "statsNorth"].entries())
    await page.fill(`#${k}`, String(WF[i]));
  await page.dispatchEvent("#statsNorth", "change");
  await page.selectOption("#statsMask", "clouds");
  await page.click("#statsDates");
  await page.waitForFunction(() => /scenes in the catalog/.test(document.getElementById("statsState").textContent));
  await page.evaluate(() => delete document.body.dataset.statsDone);
  body = await computeStats(page);
  direct = await api(base, token, "/api/v1/statistics", { method: "POST", body });
  means = await chartMeans(page);
  const withData = direct.data.filter((d) => Number.isFinite(d.outputs?.ndvi?.bands?.B0?.stats?.mean));
  const spanT = means.at(-1).x - means[0].x,
    spanPx = means.at(-1).px - means[0].px;
  const worst = Math.max(...means.map((m) => Math.abs(m.px - means[0].px - ((m.x - means[0].x) / spanT) * spanPx)));
  check(
    body.aggregation.evalscript.includes("SCL") && means.length === withData.length && means.length >= 10 && worst < 1,
    `West Flanders, SCL mask: ${means.length} dated points (${withData.length} intervals with data of ${direct.data.length}); x pixel vs time off by ${worst.toFixed(2)} px (a real time axis)`,
  );
  const csv = await page.evaluate(async () => (await fetch(document.getElementById("statsCsv").href)).text());
  const lines = csv.trim().split("\n");
  const jsonExport = await page.evaluate(async () => (await fetch(document.getElementById("statsJson").href)).json());
  const csvMeans = lines.slice(1).map((l) => l.split(",")[6]);
  check(
    lines.length - 1 === direct.data.length &&
      JSON.stringify(csvMeans) === JSON.stringify(direct.data.map((d) => String(d.outputs.ndvi.bands.B0.stats.mean))) &&
      jsonExport.data.length === direct.data.length,
    `CSV export: ${lines.length - 1} rows, mean column = the API's (API: ${direct.data.length} intervals), means equal; JSON export: ${jsonExport.data.length} intervals`,
  );
  await page.screenshot({ path: "test-artifacts/browser/pages-statistics-timeaxis.png", fullPage: true });

  await page.fill("#statsInterval", "P1X");
  await page.evaluate(() => delete document.body.dataset.statsDone);
  await computeStats(page);
  state = await page.textContent("#statsState");
  check(/^400/.test(state.trim()) || /400/.test(state), `bad interval P1X: "${state.trim()}"`);
  await page.fill("#statsInterval", "P1D");
}

/**
 * OAuth clients: a past expiry is refused next to its field; a created client's shown secret gets a token; Delete
 * asks first (dismissed: the client stays), accepted: it moves to the inactive list; the session's own client
 * cannot be deleted (disabled button, marked).
 */
export async function clients({ page, base, client, check, shots }) {
  await page.goto(`${base}/#clients`);
  await page.waitForSelector(`#clientTable tr[data-id="${client.client_id}"]`, { timeout: 30_000 });
  await page.fill("#clientName", "pages check");
  await page.fill("#clientExpires", "2001-01-01");
  await page.click("#clientForm button[type=submit]");
  const note = await page
    .waitForSelector("#clientExpires + .field-error", { timeout: 10_000 })
    .then((e) => e.textContent());
  check(/future/.test(note), `past expiry: message next to the field: "${note}"`);
  await page.fill("#clientExpires", "");
  await page.click("#clientForm button[type=submit]");
  await page.waitForSelector("#newSecret:not([hidden])");
  const [, id, secret] = /Client (\S+) created\. Its secret, shown only now: (\S+)/.exec(
    await page.textContent("#newSecret"),
  );
  const t = await fetch(`${base}/auth/realms/main/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: id, client_secret: secret }),
  });
  check(t.status === 200, `created client ${id}: its shown secret gets a token (${t.status})`);
  const own = page.locator(`#clientTable tr[data-id="${client.client_id}"] button`);
  check(
    (await own.isDisabled()) &&
      /this session/.test(await page.textContent(`#clientTable tr[data-id="${client.client_id}"]`)),
    "the session's own client: Delete disabled, marked \"this session's client\"",
  );
  const dialogs = [];
  page.once("dialog", (d) => (dialogs.push(d.message()), d.dismiss()));
  await page.click(`#clientTable button[aria-label="Delete ${id}"]`);
  await page.waitForTimeout(500);
  const kept = await page.$(`#clientTable tr[data-id="${id}"]`);
  page.once("dialog", (d) => (dialogs.push(d.message()), d.accept()));
  await page.click(`#clientTable button[aria-label="Delete ${id}"]`);
  await page.waitForSelector(`#inactiveTable tr[data-id="${id}"]`, { timeout: 10_000 });
  const stillActive = await page.$(`#clientTable tr[data-id="${id}"]`);
  const t2 = await fetch(`${base}/auth/realms/main/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: id, client_secret: secret }),
  });
  check(
    dialogs.length === 2 && dialogs[0].includes(id) && kept && !stillActive && t2.status === 401,
    `delete asks first ("${dialogs[0]?.slice(0, 60)}..."): dismissed keeps it, accepted moves it to the inactive list; its secret now gets ${t2.status}`,
  );
  await shots(page, "clients");
}

/**
 * WMS map page: opened from the console's nav in the same tab, it uses the session (no credentials form): lists the
 * account's instances as the Configuration API does, creates a true-colour instance, shows its tiles, and copies
 * the WMS GetCapabilities URL (clipboard), which answers WMS 1.3.0 capabilities naming the layer.
 */
export async function wmsmap({ page, base, token, check, shots }) {
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  await page.goto(`${base}/#request`);
  // the map page (served as /map: assets drop .html) must be the one the predicate runs on, which still tolerates
  // a missing #session
  await Promise.all([
    page.waitForURL(/\/map(\.html)?([?#]|$)/, { waitUntil: "commit", timeout: 30_000 }),
    page.click("header nav a[href='/map.html']"),
  ]);
  await page.waitForFunction(
    () => /console's session/.test(document.getElementById("session")?.textContent ?? ""),
    null,
    { timeout: 30_000 },
  );
  const credentialInputs = await page.locator("input[type=password]").count();
  const before = (await api(base, token, "/configuration/v1/wms/instances")).map((i) => i.id);
  const offered = await page.$$eval("#instances option", (os) => os.map((o) => o.value).filter(Boolean));
  check(
    credentialInputs === 0 && JSON.stringify(offered) === JSON.stringify(before),
    `map page uses the console session: no password field, ${offered.length} instances listed as the API lists them`,
  );
  await page.click("#createTrueColour");
  await page.waitForSelector("body[data-map-loaded]", { timeout: 120_000 });
  const id = await page.inputValue("#instance");
  const after = (await api(base, token, "/configuration/v1/wms/instances")).map((i) => i.id);
  const state = await page.textContent("#mapState");
  check(
    after.includes(id) &&
      !before.includes(id) &&
      (await page.inputValue("#instances")) === id &&
      /[1-9]\d* tiles loaded, 0 failed/.test(state),
    `created instance ${id} from the map page, selected, tiles: ${state}`,
  );
  await page.click("#copyWms");
  await page.waitForFunction(() => document.getElementById("copyWms").textContent !== "Copy");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const caps = await (await fetch(copied)).text();
  check(
    copied === `${base}/ogc/wms/${id}?SERVICE=WMS&REQUEST=GetCapabilities` &&
      caps.includes("<WMS_Capabilities") &&
      caps.includes("<Name>TRUE_COLOR</Name>"),
    `Copy: ${copied} answers WMS 1.3.0 capabilities with layer TRUE_COLOR`,
  );
  await shots(page, "wmsmap");
}

/** Clicks Refresh on the collections page until `selector`'s text matches `re`; resolves to that text. */
async function waitText(page, selector, re, seconds = 60) {
  let text = "";
  for (let i = 0; i < seconds && !re.test(text); i++) {
    await page.click("#collRefresh");
    await page.waitForTimeout(1000);
    text = (await page.textContent(selector).catch(() => "")) ?? "";
  }
  return text;
}

/**
 * Collections: the table lists the catalog's collections with the kind, the bands the API gives (STAC eo:bands or
 * the collection metadata) and "open in the builder" links (#request?collection=<id>); a BYOC collection created
 * from the form with a tile of the sample bucket is ingested (the tile API says INGESTED) and appears with its
 * bands; a bad bucket name is refused at its field; a Zarr store registered from the form is INGESTED.
 */
export async function collections({ page, base, token, check, shots }) {
  await page.goto(`${base}/#collections`);
  await page.waitForSelector("#collState:text-matches('collections here|[0-9]{3}')", { timeout: 60_000 });
  const catalog = (await api(base, token, "/api/v1/catalog/1.0.0/collections")).collections;
  const rows = await page.$$eval("#catalogTable tbody tr", (trs) =>
    trs.map((tr) => [...tr.cells].map((td) => td.textContent)),
  );
  const l2a = rows.find((r) => r[0] === "sentinel-2-l2a");
  const l2aBands = catalog.find((c) => c.id === "sentinel-2-l2a").summaries["eo:bands"].map((b) => b.name);
  const sample = rows.find((r) => r[1] === "BYOC");
  const sampleMeta = await api(base, token, `/api/v1/metadata/collection/${sample[0]}`);
  const links = await page.$$eval("#catalogTable a", (as) => as.map((a) => a.getAttribute("href")));
  check(
    JSON.stringify(rows.map((r) => r[0])) === JSON.stringify(catalog.map((c) => c.id)) &&
      l2a[1] === "built-in" &&
      l2a[3] === `${l2aBands.length}: ${l2aBands.join(", ")}` &&
      sampleMeta.bands.every((b) => sample[3].includes(`${b.name} (${b.sampleType})`)) &&
      rows.some((r) => r[1] === "Zarr") &&
      links.length === catalog.length &&
      links.every((h, i) => h === `#request?collection=${catalog[i].id}`),
    `collections page: ${rows.length} collections as the catalog lists them, kinds [${[...new Set(rows.map((r) => r[1]))]}], S2 L2A bands ${l2a[3].slice(0, 30)}..., ${sample[0]} bands ${sample[3]}`,
  );
  await page.click(`#catalogTable button[aria-label="Map ${sample[0]}"]`);
  await shots(page, "collections");

  await page.fill("#byocName", "pages check");
  await page.fill("#byocBucket", "Bad_Bucket");
  await page.click("#byocForm button[type=submit]");
  const bad = await page
    .waitForSelector("#byocBucket + .field-error", { timeout: 10_000 })
    .then((e) => e.textContent());
  check(/bucket/i.test(bad), `bad bucket name: at the field: "${bad}"`);
  await page.fill("#byocBucket", "eo-edge-byoc-sample");
  await page.click("#byocForm button[type=submit]");
  await page.waitForSelector("#byocState:text-matches('created [0-9a-f-]{36}')", { timeout: 30_000 });
  const id = (await page.textContent("#byocState")).replace("created ", "").trim();
  await page.waitForSelector(`#byocTable tr[data-id="${id}"]`);
  await page.selectOption("#tileCollection", id);
  await page.fill("#tilePath", "westflanders/2017-08-24/(BAND)");
  await page.fill("#tileTime", "2017-08-24T10:52:40Z");
  await page.click("#tileForm button[type=submit]");
  await page.waitForSelector("#tileState:text-matches('created|[0-9]{3}')", { timeout: 30_000 });
  const states = await waitText(page, `#byocTable tr[data-id="${id}"] td:nth-child(4)`, /INGESTED|FAILED/);
  const tiles = (await api(base, token, `/api/v1/byoc/collections/${id}/tiles`)).data;
  const row = await waitText(page, `#catalogTable tr[data-id="byoc-${id}"]`, /B02/, 20);
  check(
    states === "1 INGESTED" && tiles.length === 1 && tiles[0].status === "INGESTED" && /B04 \(UINT16\)/.test(row),
    `BYOC ${id} created, tile added from the form: page "${states}", API ${tiles[0]?.status}; catalog row ${row.slice(0, 120)}`,
  );

  await page.fill("#zarrName", "pages check zarr");
  await page.fill("#zarrBucket", "eo-edge-samples");
  await page.fill("#zarrPath", "zarr/westflanders.zarr/");
  await page.click("#zarrForm button[type=submit]");
  await page.waitForSelector("#zarrState:text-matches('created|[0-9]{3}')", { timeout: 30_000 });
  const zstate = await page.textContent("#zarrState");
  const zid = zstate.replace("created ", "").trim();
  const zrow = await waitText(page, `#zarrTable tr[data-id="${zid}"] td:nth-child(4)`, /INGESTED|FAILED/, 30);
  const zapi = zid && (await api(base, token, `/api/v1/zarr/collections/${zid}`).catch((e) => ({ status: e.message })));
  const zstatus = zapi?.data?.status ?? zapi?.status;
  check(
    zrow === "INGESTED" && zstatus === "INGESTED",
    `Zarr store registered from the form: ${zstate}; page ${zrow}, API ${zstatus}`,
  );

  // "Open in the builder" of the sample BYOC collection: the builder selects it, with a preset of that collection
  // and an AOI on the collection's extent (the catalog's bbox)
  const before = await page.evaluate(() => document.body.dataset.collectionOpened);
  await page.click(`#catalogTable a[aria-label="Open ${sample[0]} in the request builder"]`);
  await page.waitForFunction(
    (b) => document.body.dataset.collectionOpened !== b && document.body.dataset.requestReady,
    before,
    { timeout: 120_000 },
  );
  const permalink = await page
    .waitForFunction(() => /^#request\?s=/.test(location.hash), null, { timeout: 10_000 })
    .then(
      () => true,
      () => false,
    );
  const opened = await page.evaluate(() => {
    const { body, bounds: b } = window.eoConsole.request(); // b: the request's Leaflet bounds (degrees, any output CRS)
    return {
      collection: document.getElementById("collection").value,
      preset: document.getElementById("preset").value,
      body,
      aoi: [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()],
    };
  });
  const [w, s, e, n] = catalog.find((c) => c.id === sample[0]).extent.spatial.bbox[0];
  const aoi = opened.aoi;
  const meets = aoi && aoi[0] < e && aoi[2] > w && aoi[1] < n && aoi[3] > s;
  check(
    opened.collection === sample[0] && opened.body.input.data[0].type === sample[0] && meets && permalink,
    `"Open in the builder" of ${sample[0]}: builder collection ${opened.collection}, preset ${opened.preset}, request type ${opened.body.input.data[0].type}, AOI [${aoi?.map((v) => +v.toFixed(4))}] on the extent [${[w, s, e, n].map((v) => +v.toFixed(4))}]; URL then the permalink: ${permalink}`,
  );
}

export const STEPS = { statistics, batch, statbatch, batchcollection, collections, clients, wmsmap };

// Steps of scripts/browser-check-pages.mjs, one per console page; each gets { page, base, token, client, check,
// shots } and checks what the page shows against the API called directly from Node.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** fetch of the API with the token; resolves to the parsed JSON (throws on a non-2xx). */
export async function api(base, token, path, { method = "GET", body } = {}) {
  const r = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body && JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

const WF = [3.019304, 50.813087, 3.028392, 50.818841];

/** The Statistical API request the page sends when its Compute button is clicked, and the page's result. */
async function computeStats(page) {
  const [request] = await Promise.all([page.waitForRequest((r) => r.url().endsWith("/api/v1/statistics") && r.method() === "POST"), page.click("#statsRun")]);
  await page.waitForFunction(() => document.body.dataset.statsDone !== undefined && !document.getElementById("statsRun").disabled, null, { timeout: 180_000 });
  return request.postDataJSON();
}

/** The chart's mean series as [{x, y}] and the pixel x of each point. */
const chartMeans = (page) => page.evaluate(() => {
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
  const apiMeans = direct.data.filter((d) => Number.isFinite(d.outputs?.ndvi?.bands?.B0?.stats?.mean)).map((d) => ({ x: Date.parse(d.interval.from), y: d.outputs.ndvi.bands.B0.stats.mean }));
  check(!/error/.test(await page.getAttribute("#statsState", "class")) && means.length >= 1 && JSON.stringify(means.map(({ x, y }) => ({ x, y }))) === JSON.stringify(apiMeans),
    `statistics defaults, first click: "${state}"; ${body.aggregation.timeRange.from}..${body.aggregation.timeRange.to} at ${body.aggregation.resx} m; chart means ${JSON.stringify(means.map((m) => [new Date(m.x).toISOString().slice(0, 10), +m.y.toFixed(4)]))} = API`);
  await shots(page, "statistics");

  for (const [i, k] of ["statsWest", "statsSouth", "statsEast", "statsNorth"].entries()) await page.fill(`#${k}`, String(WF[i]));
  await page.dispatchEvent("#statsNorth", "change");
  await page.selectOption("#statsMask", "clouds");
  await page.click("#statsDates");
  await page.waitForFunction(() => /scenes in the catalog/.test(document.getElementById("statsState").textContent));
  await page.evaluate(() => delete document.body.dataset.statsDone);
  body = await computeStats(page);
  direct = await api(base, token, "/api/v1/statistics", { method: "POST", body });
  means = await chartMeans(page);
  const withData = direct.data.filter((d) => Number.isFinite(d.outputs?.ndvi?.bands?.B0?.stats?.mean));
  const spanT = means.at(-1).x - means[0].x, spanPx = means.at(-1).px - means[0].px;
  const worst = Math.max(...means.map((m) => Math.abs((m.px - means[0].px) - ((m.x - means[0].x) / spanT) * spanPx)));
  check(body.aggregation.evalscript.includes("SCL") && means.length === withData.length && means.length >= 10 && worst < 1,
    `West Flanders, SCL mask: ${means.length} dated points (${withData.length} intervals with data of ${direct.data.length}); x pixel vs time off by ${worst.toFixed(2)} px (a real time axis)`);
  const csv = await page.evaluate(async () => (await fetch(document.getElementById("statsCsv").href)).text());
  const lines = csv.trim().split("\n");
  const jsonExport = await page.evaluate(async () => (await fetch(document.getElementById("statsJson").href)).json());
  const csvMeans = lines.slice(1).map((l) => l.split(",")[6]);
  check(lines.length - 1 === direct.data.length && JSON.stringify(csvMeans) === JSON.stringify(direct.data.map((d) => String(d.outputs.ndvi.bands.B0.stats.mean))) && jsonExport.data.length === direct.data.length,
    `CSV export: ${lines.length - 1} rows, mean column = the API's (API: ${direct.data.length} intervals), means equal; JSON export: ${jsonExport.data.length} intervals`);
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
  const note = await page.waitForSelector("#clientExpires + .field-error", { timeout: 10_000 }).then((e) => e.textContent());
  check(/future/.test(note), `past expiry: message next to the field: "${note}"`);
  await page.fill("#clientExpires", "");
  await page.click("#clientForm button[type=submit]");
  await page.waitForSelector("#newSecret:not([hidden])");
  const [, id, secret] = /Client (\S+) created\. Its secret, shown only now: (\S+)/.exec(await page.textContent("#newSecret"));
  const t = await fetch(`${base}/auth/realms/main/protocol/openid-connect/token`, { method: "POST", body: new URLSearchParams({ grant_type: "client_credentials", client_id: id, client_secret: secret }) });
  check(t.status === 200, `created client ${id}: its shown secret gets a token (${t.status})`);
  const own = page.locator(`#clientTable tr[data-id="${client.client_id}"] button`);
  check(await own.isDisabled() && /this session/.test(await page.textContent(`#clientTable tr[data-id="${client.client_id}"]`)), "the session's own client: Delete disabled, marked \"this session's client\"");
  const dialogs = [];
  page.once("dialog", (d) => (dialogs.push(d.message()), d.dismiss()));
  await page.click(`#clientTable button[aria-label="Delete ${id}"]`);
  await page.waitForTimeout(500);
  const kept = await page.$(`#clientTable tr[data-id="${id}"]`);
  page.once("dialog", (d) => (dialogs.push(d.message()), d.accept()));
  await page.click(`#clientTable button[aria-label="Delete ${id}"]`);
  await page.waitForSelector(`#inactiveTable tr[data-id="${id}"]`, { timeout: 10_000 });
  const stillActive = await page.$(`#clientTable tr[data-id="${id}"]`);
  const t2 = await fetch(`${base}/auth/realms/main/protocol/openid-connect/token`, { method: "POST", body: new URLSearchParams({ grant_type: "client_credentials", client_id: id, client_secret: secret }) });
  check(dialogs.length === 2 && dialogs[0].includes(id) && kept && !stillActive && t2.status === 401,
    `delete asks first ("${dialogs[0]?.slice(0, 60)}..."): dismissed keeps it, accepted moves it to the inactive list; its secret now gets ${t2.status}`);
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
  await page.click("header nav a[href='/map.html']");
  await page.waitForFunction(() => /console's session/.test(document.getElementById("session").textContent), null, { timeout: 30_000 });
  const credentialInputs = await page.locator("input[type=password]").count();
  const before = (await api(base, token, "/configuration/v1/wms/instances")).map((i) => i.id);
  const offered = await page.$$eval("#instances option", (os) => os.map((o) => o.value).filter(Boolean));
  check(credentialInputs === 0 && JSON.stringify(offered) === JSON.stringify(before), `map page uses the console session: no password field, ${offered.length} instances listed as the API lists them`);
  await page.click("#createTrueColour");
  await page.waitForSelector("body[data-map-loaded]", { timeout: 120_000 });
  const id = await page.inputValue("#instance");
  const after = (await api(base, token, "/configuration/v1/wms/instances")).map((i) => i.id);
  const state = await page.textContent("#mapState");
  check(after.includes(id) && !before.includes(id) && (await page.inputValue("#instances")) === id && /[1-9]\d* tiles loaded, 0 failed/.test(state), `created instance ${id} from the map page, selected, tiles: ${state}`);
  await page.click("#copyWms");
  await page.waitForFunction(() => document.getElementById("copyWms").textContent !== "Copy");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const caps = await (await fetch(copied)).text();
  check(copied === `${base}/ogc/wms/${id}?SERVICE=WMS&REQUEST=GetCapabilities` && caps.includes("<WMS_Capabilities") && caps.includes("<Name>TRUE_COLOR</Name>"), `Copy: ${copied} answers WMS 1.3.0 capabilities with layer TRUE_COLOR`);
  await shots(page, "wmsmap");
}

/** The enabled action buttons of task `id`'s row in `table`, e.g. ["analyse", "start"]. */
const enabledActions = (page, table, id) => page.$$eval(`#${table} tr[data-id="${id}"] button[data-action]`, (bs) => bs.filter((b) => !b.disabled).map((b) => b.dataset.action));

/** Clicks Refresh until task `id`'s status cell in `table` matches `re` (at most `seconds`). */
async function waitStatus(page, table, id, re, seconds = 180) {
  let status = "";
  for (let i = 0; i < seconds && !re.test(status); i++) {
    await page.waitForTimeout(1000);
    await page.click("#batchRefresh");
    await page.waitForTimeout(100);
    status = (await page.textContent(`#${table} tr[data-id="${id}"] td:nth-child(3)`).catch(() => "")) ?? "";
  }
  return status;
}

/** An S3 client of the endpoint (the AWS SDK, not the page's aws4fetch) with the demo account's key. */
async function s3Oracle(base) {
  const { S3Client, ListObjectsV2Command, GetObjectCommand, PutObjectCommand } = await import("@aws-sdk/client-s3");
  const keys = JSON.parse(readFileSync(join(resolve(process.env.EO_EDGE_STATE ?? ".state"), "demo-s3-keys.json"), "utf8"));
  const client = new S3Client({ endpoint: `${base}/s3`, region: "us-east-1", forcePathStyle: true, credentials: keys });
  return {
    list: async (Bucket, Prefix) => ((await client.send(new ListObjectsV2Command({ Bucket, Prefix }))).Contents ?? []).map((c) => c.Key),
    get: async (Bucket, Key) => Buffer.from(await (await client.send(new GetObjectCommand({ Bucket, Key }))).Body.transformToByteArray()),
    put: (Bucket, Key, Body) => client.send(new PutObjectCommand({ Bucket, Key, Body })),
  };
}

/** Expected enabled actions per status (Sentinel Hub's batch lifecycle, written out here as the oracle). */
const ACTIONS = { CREATED: ["analyse", "start"], ANALYSIS_DONE: ["start", "stop"], DONE: [], PARTIAL: [], FAILED: [] };

/**
 * Batch: a form with a URL that names no tile and west > east is refused in the page (nothing sent, messages at
 * both fields); the grid preview's tile count equals the service's analysis; actions follow the status (CREATED,
 * ANALYSIS_DONE, DONE); the progress bar reaches 100; the outputs listed through the S3 endpoint equal the AWS SDK's
 * listing and a downloaded file equals its GetObject bytes.
 */
export async function batch({ page, base, check, shots }) {
  await page.goto(`${base}/#batch`);
  await page.waitForSelector("body[data-batch-ready]", { timeout: 60_000 });
  const posts = [];
  const onRequest = (r) => r.method() === "POST" && r.url().endsWith("/api/v2/batch/process") && posts.push(r.url());
  page.on("request", onRequest);
  const goodUrl = await page.inputValue("#batchOutput");
  await page.fill("#batchOutput", "s3://console-batch/out.tif");
  await page.fill("#batchWest", "-11.2");
  await page.click("#batchCreate");
  await page.waitForTimeout(300);
  const notes = await page.$$eval("#batchForm .field-error", (es) => es.map((e) => `${e.previousElementSibling?.id}: ${e.textContent}`));
  check(posts.length === 0 && notes.some((n) => n.startsWith("batchOutput:") && /tileName/.test(n)) && notes.some((n) => n.startsWith("batchWest:")),
    `invalid form not sent (${posts.length} POSTs); messages: ${notes.join(" | ")}`);
  await page.fill("#batchOutput", goodUrl);
  await page.fill("#batchWest", "-11.55");
  await page.click("#gridPreview");
  await page.waitForSelector("body[data-grid-tiles]");
  const preview = (await page.getAttribute("body", "data-grid-tiles")).split(" ");
  const drawn = await page.locator("#batchMap path.grid-tile").count();
  await page.click("#batchCreate");
  await page.waitForSelector("#batchState:text-matches('created |[0-9]{3}')", { timeout: 30_000 });
  const id = (await page.textContent("#batchState")).replace("created ", "").trim();
  page.off("request", onRequest);
  await page.waitForSelector(`#batchTable tr[data-id="${id}"]`);
  const created = await enabledActions(page, "batchTable", id);
  await page.click(`#batchTable button[aria-label="Analyse ${id}"]`);
  const analysed = await waitStatus(page, "batchTable", id, /ANALYSIS_DONE|FAILED/);
  const afterAnalysis = await enabledActions(page, "batchTable", id);
  check(JSON.stringify(created) === JSON.stringify(ACTIONS.CREATED) && analysed === "ANALYSIS_DONE" && JSON.stringify(afterAnalysis) === JSON.stringify(ACTIONS.ANALYSIS_DONE),
    `task ${id}: actions CREATED [${created}], ${analysed} [${afterAnalysis}]`);
  await page.click(`#batchTable button[aria-label="Start ${id}"]`);
  const done = await waitStatus(page, "batchTable", id, /^(DONE|FAILED)$/);
  const bar = await page.$eval(`#batchTable tr[data-id="${id}"] progress`, (p) => p.value);
  const afterDone = await enabledActions(page, "batchTable", id);
  check(done === "DONE" && bar === 100 && afterDone.length === 0, `task ${id} ${done}, progress bar ${bar}, actions [${afterDone}]`);
  await page.click(`#batchTable button[aria-label="Outputs ${id}"]`);
  await page.waitForSelector("#outputTable:not([hidden]) tbody tr", { timeout: 30_000 });
  const shown = await page.$$eval("#outputTable tbody tr", (rows) => rows.map((r) => r.dataset.id));
  const s3 = await s3Oracle(base);
  const listed = await s3.list("console-batch", `${id}/`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click(`#outputTable button[aria-label="Download ${shown[0]}"]`)]);
  const bytes = readFileSync(await download.path());
  const ref = await s3.get("console-batch", shown[0]);
  const written = [...new Set(listed.map((k) => k.split("/")[1]))].sort();
  check(preview.length > 0 && drawn === preview.length && JSON.stringify([...preview].sort()) === JSON.stringify(written), `grid preview: ${preview.length} tiles [${preview}] (${drawn} drawn); the task wrote tiles [${written}]`);
  check(shown.length > 0 && JSON.stringify(shown) === JSON.stringify(listed) && Buffer.compare(bytes, ref) === 0,
    `outputs through the S3 endpoint: ${shown.length} objects = the AWS SDK's listing; ${shown[0]} downloaded, ${bytes.length} bytes equal to GetObject`);
  await page.click("#gridPreview");
  await shots(page, "batch");
}

/**
 * Statistical batch: created from the form (the West Flanders fields GeoPackage put into a bucket here), analysed
 * and started with the buttons, it finishes (DONE or PARTIAL); its outputs listed through the S3 endpoint equal the
 * AWS SDK's listing.
 */
export async function statbatch({ page, base, token, check, shots }) {
  const s3 = await s3Oracle(base);
  await s3.put("console-batch", "pages-check/fields.gpkg", readFileSync("test/fixtures/vector/westflanders_fields.gpkg"));
  await page.goto(`${base}/#batch`);
  await page.waitForSelector("body[data-batch-ready]", { timeout: 60_000 });
  await page.selectOption("#taskKind", "statbatch");
  await page.fill("#sbFeatures", "s3://console-batch/pages-check/fields.gpkg");
  await page.fill("#batchFrom", "2018-04-01");
  await page.fill("#batchTo", "2018-05-01");
  await page.fill("#batchOutput", "s3://console-batch/pages-check/stats/");
  const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/api/v1/statistics/batch")), page.click("#batchCreate")]);
  if (response.status() !== 201) throw new Error(`create: ${response.status()} ${await response.text()}`);
  const { id } = await response.json();
  await page.waitForSelector(`#statBatchTable tr[data-id="${id}"]`);
  const created = await enabledActions(page, "statBatchTable", id);
  await page.click(`#statBatchTable button[aria-label="Start ${id}"]`);
  const done = await waitStatus(page, "statBatchTable", id, /^(DONE|PARTIAL|FAILED)$/);
  const task = await api(base, token, `/api/v1/statistics/batch/${id}`);
  check(JSON.stringify(created) === JSON.stringify(ACTIONS.CREATED) && /DONE|PARTIAL/.test(done) && task.status === done, `statistical batch ${id} from the form: actions CREATED [${created}], ${done} (API: ${task.status})`);
  await page.click(`#statBatchTable button[aria-label="Details ${id}"]`);
  await page.waitForSelector("#taskDetails:not([hidden])");
  const details = JSON.parse(await page.textContent("#taskJson"));
  check(details.id === id && details.status === task.status && details.request.input.features.s3.url === "s3://console-batch/pages-check/fields.gpkg", `Details of ${id}: the task JSON the API gives (status ${details.status}, features ${details.request.input.features.s3.url})`);
  await page.click(`#statBatchTable button[aria-label="Outputs ${id}"]`);
  await page.waitForSelector("#outputCaption:text-matches('Outputs of " + id + "')", { timeout: 30_000 });
  const shown = await page.$$eval("#outputTable tbody tr", (rows) => rows.map((r) => r.dataset.id));
  const listed = await s3.list("console-batch", `pages-check/stats/${id}/`);
  check(shown.length > 0 && JSON.stringify(shown) === JSON.stringify(listed), `statistical batch outputs: ${shown.length} objects (${shown.slice(0, 2).join(", ")}...) = the AWS SDK's listing`);
  await shots(page, "statbatch");
}

export const STEPS = { statistics, batch, statbatch, collections, clients, wmsmap };

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
  const rows = await page.$$eval("#catalogTable tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  const l2a = rows.find((r) => r[0] === "sentinel-2-l2a");
  const l2aBands = catalog.find((c) => c.id === "sentinel-2-l2a").summaries["eo:bands"].map((b) => b.name);
  const sample = rows.find((r) => r[1] === "BYOC");
  const sampleMeta = await api(base, token, `/api/v1/metadata/collection/${sample[0]}`);
  const links = await page.$$eval("#catalogTable a", (as) => as.map((a) => a.getAttribute("href")));
  check(JSON.stringify(rows.map((r) => r[0])) === JSON.stringify(catalog.map((c) => c.id)) && l2a[1] === "built-in" && l2a[3] === `${l2aBands.length}: ${l2aBands.join(", ")}` &&
    sampleMeta.bands.every((b) => sample[3].includes(`${b.name} (${b.sampleType})`)) && rows.some((r) => r[1] === "Zarr") && links.length === catalog.length && links.every((h, i) => h === `#request?collection=${catalog[i].id}`),
    `collections page: ${rows.length} collections as the catalog lists them, kinds [${[...new Set(rows.map((r) => r[1]))]}], S2 L2A bands ${l2a[3].slice(0, 30)}..., ${sample[0]} bands ${sample[3]}`);
  await page.click(`#catalogTable button[aria-label="Map ${sample[0]}"]`);
  await shots(page, "collections");

  await page.fill("#byocName", "pages check");
  await page.fill("#byocBucket", "Bad_Bucket");
  await page.click("#byocForm button[type=submit]");
  const bad = await page.waitForSelector("#byocBucket + .field-error", { timeout: 10_000 }).then((e) => e.textContent());
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
  check(states === "1 INGESTED" && tiles.length === 1 && tiles[0].status === "INGESTED" && /B04 \(UINT16\)/.test(row), `BYOC ${id} created, tile added from the form: page "${states}", API ${tiles[0]?.status}; catalog row ${row.slice(0, 120)}`);

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
  check(zrow === "INGESTED" && zstatus === "INGESTED", `Zarr store registered from the form: ${zstate}; page ${zrow}, API ${zstatus}`);
}

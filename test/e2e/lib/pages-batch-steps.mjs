// The batch page's steps of test/e2e/browser-check-pages.mjs (see ./pages-steps.mjs): Batch Processing and
// Statistical Batch tasks created, run and listed from the page, checked against the API and the AWS SDK's S3 client.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { api } from "./console-check.mjs";

/** The enabled action buttons of task `id`'s row in `table`, e.g. ["analyse", "start"]. */
const enabledActions = (page, table, id) =>
  page.$$eval(`#${table} tr[data-id="${id}"] button[data-action]`, (bs) =>
    bs.filter((b) => !b.disabled).map((b) => b.dataset.action),
  );

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
  const keys = JSON.parse(
    readFileSync(join(resolve(process.env.EO_EDGE_STATE ?? ".state"), "demo-s3-keys.json"), "utf8"),
  );
  const client = new S3Client({ endpoint: `${base}/s3`, region: "us-east-1", forcePathStyle: true, credentials: keys });
  return {
    list: async (Bucket, Prefix) =>
      ((await client.send(new ListObjectsV2Command({ Bucket, Prefix }))).Contents ?? []).map((c) => c.Key),
    get: async (Bucket, Key) =>
      Buffer.from(await (await client.send(new GetObjectCommand({ Bucket, Key }))).Body.transformToByteArray()),
    put: (Bucket, Key, Body) => client.send(new PutObjectCommand({ Bucket, Key, Body })),
  };
}

/** Expected enabled actions per status (Sentinel Hub's batch lifecycle, written out here as the oracle). */
const ACTIONS = { CREATED: ["analyse", "start"], ANALYSIS_DONE: ["start", "stop"], DONE: [], PARTIAL: [], FAILED: [] };

/**
 * Batch: a form with a URL that names no tile and west > east is refused in the page (nothing sent, messages at
 * both fields); the grid preview's tile count equals the service's analysis; actions follow the status (CREATED,
 * ANALYSIS_DONE, DONE); the progress bar reaches 100; the outputs listed through the S3 endpoint equal the AWS SDK's
 * listing and a downloaded file equals its GetObject bytes; the S3 keys the page signed with are gone afterwards.
 */
export async function batch({ page, base, token, check, shots }) {
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
  const notes = await page.$$eval("#batchForm .field-error", (es) =>
    es.map((e) => `${e.previousElementSibling?.id}: ${e.textContent}`),
  );
  check(
    posts.length === 0 &&
      notes.some((n) => n.startsWith("batchOutput:") && /tileName/.test(n)) &&
      notes.some((n) => n.startsWith("batchWest:")),
    `invalid form not sent (${posts.length} POSTs); messages: ${notes.join(" | ")}`,
  );
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
  check(
    JSON.stringify(created) === JSON.stringify(ACTIONS.CREATED) &&
      analysed === "ANALYSIS_DONE" &&
      JSON.stringify(afterAnalysis) === JSON.stringify(ACTIONS.ANALYSIS_DONE),
    `task ${id}: actions CREATED [${created}], ${analysed} [${afterAnalysis}]`,
  );
  await page.click(`#batchTable button[aria-label="Start ${id}"]`);
  const done = await waitStatus(page, "batchTable", id, /^(DONE|FAILED)$/);
  const bar = await page.$eval(`#batchTable tr[data-id="${id}"] progress`, (p) => p.value);
  const afterDone = await enabledActions(page, "batchTable", id);
  check(
    done === "DONE" && bar === 100 && afterDone.length === 0,
    `task ${id} ${done}, progress bar ${bar}, actions [${afterDone}]`,
  );
  const keysBefore = (await api(base, token, "/api/v1/accounts/me/s3keys")).data.length;
  await page.click(`#batchTable button[aria-label="Outputs ${id}"]`);
  await page.waitForSelector("#outputTable:not([hidden]) tbody tr", { timeout: 30_000 });
  const shown = await page.$$eval("#outputTable tbody tr", (rows) => rows.map((r) => r.dataset.id));
  const s3 = await s3Oracle(base);
  const listed = await s3.list("console-batch", `${id}/`);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.click(`#outputTable button[aria-label="Download ${shown[0]}"]`),
  ]);
  const bytes = readFileSync(await download.path());
  const ref = await s3.get("console-batch", shown[0]);
  const keysAfter = (await api(base, token, "/api/v1/accounts/me/s3keys")).data.length;
  const written = [...new Set(listed.map((k) => k.split("/")[1]))].sort();
  check(
    preview.length > 0 && drawn === preview.length && JSON.stringify([...preview].sort()) === JSON.stringify(written),
    `grid preview: ${preview.length} tiles [${preview}] (${drawn} drawn); the task wrote tiles [${written}]`,
  );
  check(
    shown.length > 0 &&
      JSON.stringify(shown) === JSON.stringify(listed) &&
      Buffer.compare(bytes, ref) === 0 &&
      keysAfter === keysBefore,
    `outputs through the S3 endpoint: ${shown.length} objects = the AWS SDK's listing; ${shown[0]} downloaded, ${bytes.length} bytes equal to GetObject; S3 keys of the account ${keysBefore} before, ${keysAfter} after (the page's own keys deleted)`,
  );
  await page.click("#gridPreview");
  await shots(page, "batch");
}

/**
 * Statistical batch: created from the form (the West Flanders fields GeoPackage uploaded from the page), analysed
 * and started with the buttons, it finishes (DONE or PARTIAL); its outputs listed through the S3 endpoint equal the
 * AWS SDK's listing.
 */
export async function statbatch({ page, base, token, check, shots }) {
  const s3 = await s3Oracle(base);
  await page.goto(`${base}/#batch`);
  await page.waitForSelector("body[data-batch-ready]", { timeout: 60_000 });
  await page.selectOption("#taskKind", "statbatch");
  await page.fill("#batchFrom", "2018-04-01");
  await page.fill("#batchTo", "2018-05-01");
  await page.fill("#batchOutput", "s3://console-batch/pages-check/stats/");
  // the GeoPackage uploaded from the page (S3 PutObject signed in the browser): the bucket holds the file's bytes
  const gpkg = "test/fixtures/vector/westflanders_fields.gpkg";
  await page.setInputFiles("#sbUpload", gpkg);
  await page.waitForFunction(() => /uploaded|error/i.test(document.getElementById("batchState").textContent), null, {
    timeout: 60_000,
  });
  const features = await page.inputValue("#sbFeatures");
  const stored = await s3.get("console-batch", "uploads/westflanders_fields.gpkg").catch(() => Buffer.alloc(0));
  check(
    features === "s3://console-batch/uploads/westflanders_fields.gpkg" &&
      Buffer.compare(stored, readFileSync(gpkg)) === 0,
    `GeoPackage uploaded from the batch page: Features ${features}; the object equals the file (${stored.length} bytes)`,
  );
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/api/v1/statistics/batch")),
    page.click("#batchCreate"),
  ]);
  if (response.status() !== 201) throw new Error(`create: ${response.status()} ${await response.text()}`);
  const { id } = await response.json();
  await page.waitForSelector(`#statBatchTable tr[data-id="${id}"]`);
  const created = await enabledActions(page, "statBatchTable", id);
  await page.click(`#statBatchTable button[aria-label="Start ${id}"]`);
  const done = await waitStatus(page, "statBatchTable", id, /^(DONE|PARTIAL|FAILED)$/);
  const task = await api(base, token, `/api/v1/statistics/batch/${id}`);
  check(
    JSON.stringify(created) === JSON.stringify(ACTIONS.CREATED) && /DONE|PARTIAL/.test(done) && task.status === done,
    `statistical batch ${id} from the form: actions CREATED [${created}], ${done} (API: ${task.status})`,
  );
  await page.click(`#statBatchTable button[aria-label="Details ${id}"]`);
  await page.waitForSelector("#taskDetails:not([hidden])");
  const details = JSON.parse(await page.textContent("#taskJson"));
  check(
    details.id === id && details.status === task.status && details.request.input.features.s3.url === features,
    `Details of ${id}: the task JSON the API gives (status ${details.status}, features ${details.request.input.features.s3.url})`,
  );
  await page.click(`#statBatchTable button[aria-label="Outputs ${id}"]`);
  await page.waitForSelector("#outputCaption:text-matches('Outputs of " + id + "')", { timeout: 30_000 });
  const shown = await page.$$eval("#outputTable tbody tr", (rows) => rows.map((r) => r.dataset.id));
  const listed = await s3.list("console-batch", `pages-check/stats/${id}/`);
  check(
    shown.length > 0 && JSON.stringify(shown) === JSON.stringify(listed),
    `statistical batch outputs: ${shown.length} objects (${shown.slice(0, 2).join(", ")}...) = the AWS SDK's listing`,
  );
  await shots(page, "statbatch");
}

const NDVI_1BAND = `//VERSION=3
function setup() { return { input: ["B04", "B08", "dataMask"], output: { id: "ndvi", bands: 1, sampleType: "FLOAT32" } }; }
function evaluatePixel(s) { return [s.dataMask ? (s.B08 - s.B04) / (s.B08 + s.B04) : NaN]; }`;

/**
 * A batch collection from the batch page: with "also a batch collection" the true-colour script (4 bands) is refused
 * in the page; a 1-band NDVI task started from CREATED ends DONE, and the collections page lists batch-<task id> as
 * kind batch with the band the collection metadata gives.
 */
export async function batchcollection({ page, base, token, check }) {
  await page.goto(`${base}/#batch`);
  await page.waitForSelector("body[data-batch-ready]", { timeout: 60_000 });
  await page.selectOption("#taskKind", "batch");
  await page.check("#batchMakeCollection");
  await page.click("#batchCreate");
  const note = await page
    .waitForSelector("#batchMakeCollection + .field-error", { timeout: 10_000 })
    .then((e) => e.textContent());
  await page.fill("#batchScript", NDVI_1BAND);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/api/v2/batch/process")),
    page.click("#batchCreate"),
  ]);
  const { id } = await response.json();
  check(
    /single-band/.test(note) && response.status() === 201,
    `batch collection: 4-band script refused at the checkbox ("${note}"); 1-band task ${id} created (${response.status()})`,
  );
  await page.waitForSelector(`#batchTable tr[data-id="${id}"]`);
  await page.click(`#batchTable button[aria-label="Start ${id}"]`);
  let status = "";
  for (let i = 0; i < 180 && !/^(DONE|FAILED)$/.test(status); i++) {
    await page.waitForTimeout(1000);
    await page.click("#batchRefresh");
    status = (await page.textContent(`#batchTable tr[data-id="${id}"] td:nth-child(3)`)) ?? "";
  }
  await page.goto(`${base}/#collections`);
  await page.waitForSelector(`#catalogTable tr[data-id="batch-${id}"]`, { timeout: 30_000 });
  const row = await page.$$eval(`#catalogTable tr[data-id="batch-${id}"] td`, (tds) => tds.map((td) => td.textContent));
  const meta = await api(base, token, `/api/v1/metadata/collection/batch-${id}`);
  const expected = `${meta.bands.length}: ${meta.bands.map((b) => `${b.name} (${b.sampleType})`).join(", ")}`;
  check(
    status === "DONE" && row[1] === "batch" && row[3] === expected && meta.bands[0].name === "ndvi",
    `task ${id} ${status}; collections page: batch-${id} kind ${row[1]}, bands "${row[3]}" (metadata: "${expected}")`,
  );
}

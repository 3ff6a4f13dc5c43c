// Browser check of the API reference page (`npm run test:docs`): starts `npm start` on a spare port, follows the STAC
// landing page's service-doc link in Debian's Chromium (playwright-core, headless), waits for web/docs.html to render
// the service-desc document, and checks that it shows one entry per operation of the document, that the Processing
// API entry shows the request body's JSON Schema (with `evalscript`), and that the page requested nothing from
// another origin (no CDN: it works offline). Prints the figures; exits 1 on any failure.
import { chromium } from "playwright-core";
import { startEoEdge } from "./lib/serve.mjs";

const fail = (msg) => {
  throw new Error(msg);
};

const server = await startEoEdge();
let browser;
try {
  const landing = await (await fetch(`${server.base}/api/v1/catalog/1.0.0/`)).json();
  const link = (rel) => landing.links.find((l) => l.rel === rel)?.href ?? fail(`no ${rel} link on the landing page`);
  const doc = await (await fetch(link("service-desc"))).json();
  const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage();
  const foreign = [];
  page.on("request", (r) => void (new URL(r.url()).origin !== new URL(server.base).origin && foreign.push(r.url())));
  await page.goto(link("service-doc"));
  await page.waitForFunction(() => /operations in|Error/.test(document.getElementById("state")?.textContent ?? ""), null, { timeout: 60_000 });
  const state = await page.textContent("#state");
  const rendered = await page.locator("details.op").count();
  await page.click("#post_api_v1_process summary");
  const schema = await page.textContent("#post_api_v1_process pre");
  console.log(JSON.stringify({ page: page.url(), state, rendered, documented: operations, foreign, processSchemaChars: schema?.length ?? 0 }));
  if (rendered !== operations) fail(`rendered ${rendered} operations, the document has ${operations}`);
  if (!schema || !schema.includes('"evalscript"') || !schema.includes('"input"')) fail("the Process entry does not show the request schema");
  if (foreign.length) fail(`requests to other origins: ${foreign.join(", ")}`);
  console.log("docs check passed");
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  await browser?.close();
  await server.stop();
}

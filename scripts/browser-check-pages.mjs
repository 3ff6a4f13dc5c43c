// Browser check of the console's statistics, batch, collections, OAuth clients and WMS map pages
// (`npm run test:browser:pages`; issue 30 items 6, 7 and 9): starts `npm start` on a spare port (or uses
// $CONSOLE_BASE), drives Debian's Chromium (playwright-core, headless) at 1280x720 and checks each flow against the
// API called directly from Node (the oracle). Each page is also shown 390 px wide (no horizontal scrolling).
// Screenshots: test-artifacts/browser/pages-<step>-{1280,390}.png. Any page error, console error (other than the
// browser's own line for a 4xx answer that a step provokes) or 5xx answer fails the check. STEPS=a,b runs some steps.
// Prints figures and the elapsed time; exits 1 on failure.
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { getToken } from "./lib/bench.mjs";
import { startEoEdge } from "./lib/serve.mjs";
import { STEPS } from "./lib/pages-steps.mjs";

const SHOTS = join("test-artifacts", "browser");
const failures = [];
const check = (ok, text) => (console.log(`${ok ? "OK  " : "FAIL"} ${text}`), ok || failures.push(text));

/** Screenshots of the current page at 1280x720 and 390 px wide; the narrow one must not scroll sideways. */
async function shots(page, name) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, `pages-${name}-1280.png`) });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.screenshot({ path: join(SHOTS, `pages-${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  check(overflow <= 0, `${name} page 390 px wide: horizontal overflow ${overflow} px`);
}

/** Logs in through the console's form (the token lands in this tab's sessionStorage). */
async function logIn(page, base, client) {
  await page.goto(`${base}/#login`);
  await page.fill("#clientId", client.client_id);
  await page.fill("#clientSecret", client.client_secret);
  await page.press("#clientSecret", "Enter");
  await page.waitForFunction(() => sessionStorage.getItem("eo-edge-token"));
}

const t0 = Date.now();
mkdirSync(SHOTS, { recursive: true });
const server = process.env.CONSOLE_BASE ? { base: process.env.CONSOLE_BASE, stop: async () => {} } : await startEoEdge();
const clientFile = join(resolve(process.env.EO_EDGE_STATE ?? ".state"), "demo-client.json");
const client = JSON.parse(readFileSync(clientFile, "utf8"));
const token = server.token ?? (await getToken(server.base, clientFile));
let browser;
try {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1, acceptDownloads: true });
  page.on("pageerror", (e) => check(false, `page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()) && check(false, `console error: ${m.text()}`));
  page.on("response", (r) => r.status() >= 500 && check(false, `${r.status()} from ${r.request().method()} ${r.url()}`));
  await logIn(page, server.base, client);
  const ctx = { page, base: server.base, token, client, check, shots };
  for (const [name, step] of Object.entries(STEPS).filter(([n]) => !process.env.STEPS || process.env.STEPS.split(",").includes(n))) {
    try {
      await step(ctx);
    } catch (e) {
      check(false, `${name}: ${e.message.split("\n")[0]}`);
      await page.screenshot({ path: join(SHOTS, `pages-${name}-error.png`), fullPage: true }).catch(() => {});
    }
  }
} finally {
  await browser?.close();
  await server.stop();
}
console.log(`pages browser check ${failures.length ? `FAILED (${failures.length})` : "passed"} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(failures.length ? 1 : 0);

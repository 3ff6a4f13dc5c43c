// Shared set-up of the console's browser checks (test/e2e/browser-check-console.mjs, browser-check-pages.mjs,
// docs-check.mjs): the server ($CONSOLE_BASE, else `npm start` on a spare port), the demo client and a token;
// failing on page errors and console errors; logging in through the console's form.
import { mkdirSync, readFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { join, resolve } from "node:path";
import { checkServer } from "../../../scripts/lib/serve.mjs";

/** Where the checks write their screenshots (git-ignored). */
export const SHOTS = join("test-artifacts", "browser");

/**
 * The server to check ($CONSOLE_BASE, or `npm start` on a spare port; stop() ends the latter), the demo client
 * ({client_id, client_secret} of $EO_EDGE_STATE/demo-client.json) and a token of it. Creates SHOTS.
 */
export async function consoleServer() {
  mkdirSync(SHOTS, { recursive: true });
  const server = await checkServer();
  const client = JSON.parse(
    readFileSync(join(resolve(process.env.EO_EDGE_STATE ?? ".state"), "demo-client.json"), "utf8"),
  );
  return { server, client, token: server.token };
}

/**
 * Reports through `check(false, text)` every page error and console error of `page`, except the browser's own line
 * for a 4xx answer (the checks provoke those on purpose; the page must show them itself).
 */
export function failOnErrors(page, check) {
  page.on("pageerror", (e) => check(false, `page error: ${e.message}`));
  page.on(
    "console",
    (m) =>
      m.type() === "error" &&
      !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()) &&
      check(false, `console error: ${m.text()}`),
  );
}

/** Logs in through the console's form at `base` (the token lands in this tab's sessionStorage). */
export async function logInForm(page, base, client) {
  await page.goto(`${base}/#login`);
  await page.fill("#clientId", client.client_id);
  await page.fill("#clientSecret", client.client_secret);
  await page.press("#clientSecret", "Enter");
  await page.waitForFunction(() => sessionStorage.getItem("eo-edge-token"));
}

/** fetch of the API at `base` with the token; resolves to the parsed JSON (throws on a non-2xx). */
export async function api(base, token, path, { method = "GET", body } = {}) {
  const r = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Runs a browser check: the server (consoleServer), Debian's Chromium with one 1280x720 page logged in through the
 * form, failing on page and console errors (and on `extra(page)`'s own listeners), then each of `steps` ({name:
 * async (ctx) => ...}; $STEPS=a,b picks some) with ctx = {page, base, token, client, check}; a step that throws is a
 * failure with a screenshot `<label>-<step>-error.png`. Prints the verdict and the elapsed time and exits (1 on a
 * failure). `check(ok, text)` is the check's own reporter (it keeps the failures in `failures`).
 */
export async function runChecks(label, steps, check, failures, extra = () => {}) {
  const t0 = Date.now();
  const { server, client, token } = await consoleServer();
  let browser;
  try {
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
    const page = await browser.newPage({
      viewport: { width: 1280, height: 720 },
      deviceScaleFactor: 1,
      acceptDownloads: true,
    });
    failOnErrors(page, check);
    extra(page);
    await logInForm(page, server.base, client);
    const ctx = { page, base: server.base, token, client, check };
    for (const [name, step] of Object.entries(steps).filter(
      ([n]) => !process.env.STEPS || process.env.STEPS.split(",").includes(n),
    )) {
      try {
        await step(ctx);
      } catch (e) {
        check(false, `${name}: ${e.message.split("\n")[0]}`);
        await page.screenshot({ path: join(SHOTS, `${label}-${name}-error.png`), fullPage: true }).catch(() => {});
      }
    }
  } finally {
    await browser?.close();
    await server.stop();
  }
  console.log(
    `${label} browser check ${failures.length ? `FAILED (${failures.length})` : "passed"} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  process.exit(failures.length ? 1 : 0);
}

// Browser check of the API reference page (`npm run test:docs` runs it with test/e2e/docs-examples.mjs): starts `npm start` on a spare port (or uses
// $CONSOLE_BASE), follows the STAC landing page's service-doc link in Debian's Chromium (playwright-core, headless),
// waits for web/docs.html to render the service-desc document, and checks:
//  - one entry per operation of the document, each with its description, and one table-of-contents link per entry;
//  - the descriptions' Markdown code spans shown as <code>, no raw backticks;
//  - the Processing API entry: its body fields as a table (with `evalscript`), the JSON Schema, an example curl
//    request and the error envelope of the example response;
//  - the search: "batch start" keeps exactly the operations whose text holds both words (computed here from the
//    document);
//  - "try it" with the console's token (logged in at / first): the STAC item search answers 200 with the items the
//    API lists for that body, a Process request with a bad width shows the 400 envelope;
//  - no request to another origin (no CDN: it works offline), no console error, usable 390 px wide (no horizontal
//    scroll). Screenshots: test-artifacts/browser/docs-*.png. Prints the figures; exits 1 on any failure.
import { join } from "node:path";
import { chromium } from "playwright-core";
import { consoleServer, failOnErrors, logInForm, SHOTS } from "./lib/console-check.mjs";

const failures = [];
const check = (ok, text) => (console.log(`${ok ? "OK  " : "FAIL"} ${text}`), ok || failures.push(text));

const { server, client, token } = await consoleServer();
let browser;
try {
  const landing = await (await fetch(`${server.base}/api/v1/catalog/1.0.0/`)).json();
  const link = (rel) => landing.links.find((l) => l.rel === rel)?.href ?? "";
  const doc = await (await fetch(link("service-desc"))).json();
  const ops = Object.entries(doc.paths).flatMap(([path, o]) =>
    Object.entries(o).map(([method, op]) => ({ path, method, op })),
  );
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
  const foreign = [];
  page.on("request", (r) => void (new URL(r.url()).origin !== new URL(server.base).origin && foreign.push(r.url())));
  failOnErrors(page, check);
  // the console's token: log in at / (sessionStorage of this tab), then follow the landing page's service-doc link
  await logInForm(page, server.base, client);
  await page.goto(link("service-doc"));
  await page.waitForFunction(
    () => /operations in|Error/.test(document.getElementById("state")?.textContent ?? ""),
    null,
    { timeout: 60_000 },
  );
  const rendered = await page.locator("details.op").count();
  const described = await page.locator("details.op > p.description").count();
  const tocLinks = await page.locator("#tocList li a").count();
  check(
    rendered === ops.length && described === ops.length && tocLinks === ops.length,
    `${rendered} operations rendered, ${described} with a description, ${tocLinks} in the table of contents; the document has ${ops.length}`,
  );
  // Markdown code spans of the descriptions (`...`) shown as code, not as raw backticks
  const spans = (doc.info.description ?? "").match(/`[^`]+`/g) ?? [];
  const md = await page.evaluate(() => ({
    ticks: [...document.querySelectorAll("#description, details.op > p.description")].filter((e) =>
      /`[^`]+`/.test(e.textContent),
    ).length,
    codes: document.querySelectorAll("#description code").length,
  }));
  check(
    md.ticks === 0 && md.codes === spans.length,
    `descriptions: ${md.codes} code spans shown as code (the document's intro has ${spans.length}), ${md.ticks} with raw backticks`,
  );
  await page.screenshot({ path: join(SHOTS, "docs-1280.png") });

  await page.click("#tocList a[href='#post_api_v1_process']");
  const proc = page.locator("#post_api_v1_process");
  const fieldsTable = await proc.locator("table").nth(0).textContent();
  const schema = await proc.locator("pre.schema").textContent();
  const example = await proc.locator("pre.example-request").textContent();
  const response = await proc.locator("pre.example-response").textContent();
  check(
    (await proc.evaluate((d) => d.open)) &&
      /evalscript/.test(fieldsTable) &&
      /input/.test(fieldsTable) &&
      schema.includes('"evalscript"') &&
      /curl -X POST .*\/api\/v1\/process/.test(example) &&
      example.includes("Bearer $TOKEN") &&
      response.includes('"error"'),
    `Process entry opened from the table of contents: fields table, JSON Schema (${schema.length} chars), example curl and response`,
  );
  await page.screenshot({ path: join(SHOTS, "docs-process.png") });

  await page.fill("#search", "batch start");
  const expected = ops
    .filter(({ path, method, op }) =>
      ["batch", "start"].every((w) =>
        `${method} ${path} ${op.summary ?? ""} ${op.description ?? ""} ${op.tags?.join(" ") ?? ""}`
          .toLowerCase()
          .includes(w),
      ),
    )
    .map((o) => o.op.operationId)
    .sort();
  const shown = (await page.$$eval("details.op:not([hidden])", (ds) => ds.map((d) => d.id))).sort();
  check(
    shown.length > 0 && JSON.stringify(shown) === JSON.stringify(expected),
    `search "batch start": ${shown.length} shown, ${expected.length} expected (${shown.slice(0, 4).join(", ")}...)`,
  );
  await page.fill("#search", "");

  // try it: the POST item search with its example body and the console's token, against the API called from here
  const search = page.locator("#post_api_v1_catalog_1_0_0_search");
  await page.click("#tocList a[href='#post_api_v1_catalog_1_0_0_search']");
  await search.locator("details.try-it > summary").click();
  const prefilled = await search.locator("input[name=token]").inputValue();
  const body = await search.locator("textarea[name=body]").inputValue();
  await search.locator("form.try button[type=submit]").click();
  await page.waitForSelector("#post_api_v1_catalog_1_0_0_search form.try[data-status]");
  const out = await search.locator("pre.try-result").textContent();
  const direct = await (
    await fetch(`${server.base}/api/v1/catalog/1.0.0/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    })
  ).json();
  const got = JSON.parse(out.slice(out.indexOf("\n\n") + 2));
  check(
    prefilled.length > 20 &&
      out.startsWith("HTTP 200") &&
      got.features.length > 0 &&
      JSON.stringify(got.features.map((f) => f.id)) === JSON.stringify(direct.features.map((f) => f.id)),
    `try it (item search, console token): ${out.split("\n")[0]}, ${got.features.length} items, as the API lists: [${direct.features.map((f) => f.id).join(", ")}]`,
  );
  await page.screenshot({ path: join(SHOTS, "docs-try-it.png") });

  await proc.locator("details.try-it > summary").click();
  const bad = JSON.parse(await proc.locator("textarea[name=body]").inputValue());
  bad.output.width = 99999;
  await proc.locator("textarea[name=body]").fill(JSON.stringify(bad));
  await proc.locator("form.try button[type=submit]").click();
  await page.waitForSelector("#post_api_v1_process form.try[data-status]");
  const err = await proc.locator("pre.try-result").textContent();
  check(
    err.startsWith("HTTP 400") && /"error"/.test(err) && /width/.test(err),
    `try it (Process, width 99999): ${err.split("\n")[0]}, envelope names the width`,
  );

  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(link("service-doc"));
  await page.waitForFunction(() => /operations in/.test(document.getElementById("state")?.textContent ?? ""));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.screenshot({ path: join(SHOTS, "docs-390.png") });
  check(overflow <= 0, `390 px wide: horizontal overflow ${overflow} px`);
  check(foreign.length === 0, `requests to other origins: [${foreign.join(", ")}]`);
} catch (e) {
  check(false, e.message.split("\n")[0]);
} finally {
  await browser?.close();
  await server.stop();
}
console.log(`docs check ${failures.length ? `FAILED (${failures.length})` : "passed"}`);
process.exit(failures.length ? 1 : 0);

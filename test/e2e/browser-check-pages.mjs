// Browser check of the console's statistics, batch, collections, OAuth clients and WMS map pages
// (`npm run test:browser:pages`): starts `npm start` on a spare port (or uses
// $CONSOLE_BASE), drives Debian's Chromium (playwright-core, headless) at 1280x720 and checks each flow against the
// API called directly from Node (the oracle). Each page is also shown 390 px wide (no horizontal scrolling).
// Screenshots: test-artifacts/browser/pages-<step>-{1280,390}.png. Any page error, console error (other than the
// browser's own line for a 4xx answer that a step provokes) or 5xx answer fails the check. STEPS=a,b runs some steps.
// Prints figures and the elapsed time; exits 1 on failure.
import { join } from "node:path";
import { runChecks, SHOTS } from "./lib/console-check.mjs";
import { STEPS } from "./lib/pages-steps.mjs";

const failures = [];
const check = (ok, text) => (console.log(`${ok ? "OK  " : "FAIL"} ${text}`), ok || failures.push(text));

/**
 * Screenshots of the current page at 1280x720 and 390 px wide; the narrow one must not scroll sideways; each small
 * map shown (#statsMap, #batchMap, #collMap) draws the offline basemap (> 100 country outlines in its basemap pane).
 */
async function shots(page, name) {
  for (const id of ["statsMap", "batchMap", "collMap"]) {
    if (!(await page.locator(`#${id}`).isVisible())) continue;
    await page.waitForFunction(
      (i) => document.getElementById(i).dataset.basemap || document.getElementById(i).dataset.basemapError,
      id,
      { timeout: 30_000 },
    );
    const outlines = await page.locator(`#${id} .leaflet-basemap-pane path`).count();
    check(outlines > 100, `${name} page: its map #${id} shows the basemap (${outlines} country outlines)`);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, `pages-${name}-1280.png`) });
  await page.setViewportSize({ width: 390, height: 844 });
  // the page lays out again on resize (its map and chart redraw at the new width): measure once that settled, not
  // after a fixed wait (300 ms left a 618 px overflow on a busy CI machine); an overflow that stays is measured as is
  await page
    .waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, null, { timeout: 5_000 })
    .catch(() => undefined);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.screenshot({ path: join(SHOTS, `pages-${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  check(overflow <= 0, `${name} page 390 px wide: horizontal overflow ${overflow} px`);
}

await runChecks(
  "pages",
  Object.fromEntries(Object.entries(STEPS).map(([n, step]) => [n, (ctx) => step({ ...ctx, shots })])),
  check,
  failures,
  (page) =>
    page.on(
      "response",
      (r) => r.status() >= 500 && check(false, `${r.status()} from ${r.request().method()} ${r.url()}`),
    ),
);

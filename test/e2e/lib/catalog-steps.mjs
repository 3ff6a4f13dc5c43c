// The console's Catalog page (#catalog) in the request builder's browser check: a search of the builder's AOI
// with a cloud cover limit and a small page size, paged to its end with Next, against the same search posted
// from Node (the oracle, following its `next` links); footprints on the map; the fields filter; a typed bbox and a
// drawn box; and the page's curl, sentinelhub-py and pystac-client snippets run verbatim (lib/snippet-run.mjs),
// whose items.json must hold the oracle's items (curl: its first page).
import { runClient } from "./snippet-run.mjs";

/** Every item of search `body` posted from Node, following the `next` links (merged bodies). */
async function oracle(base, token, body) {
  const pages = [];
  for (let b = body; b; ) {
    const r = await fetch(`${base}/api/v1/catalog/1.0.0/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(b),
    });
    if (!r.ok) throw new Error(`search: ${r.status} ${await r.text()}`);
    const page = await r.json();
    pages.push(page.features);
    const next = page.links?.find((l) => l.rel === "next");
    b = next ? { ...body, ...next.body } : null;
  }
  return pages;
}

/** The ids in the page's item table. */
const tableIds = (page) => page.$$eval("#catTable tbody tr", (rows) => rows.map((r) => r.dataset.id));

/** Clicks `selector` and waits for the catalog page's next search to end. */
async function searched(page, selector) {
  const before = await page.evaluate(() => document.body.dataset.catalogSearched);
  await page.click(selector);
  await page.waitForFunction((b) => document.body.dataset.catalogSearched !== b, before, { timeout: 60_000 });
}

/**
 * The Catalog page's checks on logged-in `page` (the request builder shown); `check(ok, text)` reports, `shot(page,
 * name)` takes a screenshot, `client` = the demo client.
 */
export async function catalogSteps({ page, base, token, client, check, shot }) {
  await page.evaluate(() => (location.hash = "#catalog"));
  await page.waitForSelector("body[data-catalog-ready]", { timeout: 30_000 });
  await page.selectOption("#catCollection", "sentinel-2-l2a");
  await page.fill("#catFrom", "2015-01-01");
  await page.fill("#catTo", "2025-12-31");
  await page.fill("#catCloud", "30");
  await page.fill("#catLimit", "5");
  // the Sentinel-2 L2A samples of tile 31UDS (19 dates, 15 with eo:cloud_cover <= 30), typed into the fields
  for (const [id, v] of Object.entries({ catWest: 3, catSouth: 50.8, catEast: 3.05, catNorth: 50.83 })) {
    await page.fill(`#${id}`, String(v));
    await page.dispatchEvent(`#${id}`, "change");
  }
  const body = JSON.parse(await page.textContent("#catJson"));
  const want = await oracle(base, token, body);
  const all = want.flat();
  const seen = [];
  await searched(page, "#catSearch");
  const paths = await page.locator("#catMap path.leaflet-interactive").count();
  seen.push(...(await tableIds(page)));
  await shot(page, "catalog-page1");
  for (let i = 0; i < 50 && !(await page.isDisabled("#catNext")); i++) {
    await searched(page, "#catNext");
    seen.push(...(await tableIds(page)));
  }
  const cloud = await page.$$eval("#catTable tbody tr td:nth-child(3)", (tds) =>
    tds.map((t) => parseFloat(t.textContent)),
  );
  check(
    body.filter?.args?.[0]?.property === "eo:cloud_cover" &&
      all.length > 5 &&
      JSON.stringify(seen) === JSON.stringify(all.map((f) => f.id)) &&
      all.every((f) => f.properties["eo:cloud_cover"] <= 30) &&
      cloud.every((c) => c <= 30),
    `catalog: ${want.length} pages of 5 with Next, ${seen.length} items in the table = the API's ${all.length} (eo:cloud_cover <= 30 as CQL2 JSON), last page: ${await page.textContent("#catState")}`,
  );
  check(paths === want[0].length + 1, `catalog: first page's footprints on the map (${paths - 1} + the AOI)`);
  await catalogSnippets(page, { client, check, want });
  await page.fill("#catInclude", "id, properties.datetime");
  await searched(page, "#catSearch");
  const item = await page.evaluate(async () => {
    document.querySelector("#catTable tbody button")?.click();
    return JSON.parse(document.querySelector("#catItem").textContent || "{}");
  });
  check(
    !("geometry" in item || "assets" in item) &&
      Object.keys(item.properties ?? {}).join() === "datetime" &&
      /no footprints/.test(await page.textContent("#catState")),
    `catalog fields: include id, properties.datetime gives items of ${Object.keys(item).join(", ")} (properties ${Object.keys(item.properties ?? {})}); "${await page.textContent("#catState")}"`,
  );
  await page.fill("#catInclude", "");
  await drawnBox(page, check);
  await shot(page, "catalog-drawn-box");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(500);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  const search = await page.locator("#catSearch").boundingBox();
  await shot(page, "catalog-390", true);
  check(
    wide <= 390 && search.x >= 0 && search.x + search.width <= 390,
    `catalog at 390 px: page ${wide} px wide, Search within the screen`,
  );
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.evaluate(() => (location.hash = "#request"));
}

/** Runs the three catalog snippets; their items.json must hold the oracle's items `want` (pages). */
async function catalogSnippets(page, { client, check, want }) {
  for (const [name, id, pages] of [
    ["curl", "#catCurl", want.slice(0, 1)],
    ["py", "#catPy", want],
    ["pystac", "#catPystac", want],
  ]) {
    const r = runClient(name, await page.textContent(id), { out: "items.json", client });
    if (r.skip) {
      console.log(`SKIP catalog ${r.label} snippet: ${r.skip}`);
      continue;
    }
    let got = [];
    try {
      got = JSON.parse(r.got.toString("utf8")).features ?? [];
    } catch {}
    const ids = (list) => JSON.stringify(list.map((f) => f.id));
    const expected = pages.flat();
    check(
      r.status === 0 && got.length > 0 && ids(got) === ids(expected),
      `catalog ${r.label} snippet, run verbatim: exit ${r.status}, items.json has ${got.length} items, the API's ${expected.length} in the same order: ${ids(got) === ids(expected)}${r.status ? ` ${r.stderr.split("\n").slice(-2).join(" ")}` : ""}`,
    );
  }
}

/** A box dragged on the page's map sets the bbox fields and the request's bbox. */
async function drawnBox(page, check) {
  await page.click("#catDrawBox");
  const m = await page.locator("#catMap").boundingBox();
  await page.mouse.move(m.x + m.width * 0.3, m.y + m.height * 0.3);
  await page.mouse.down();
  await page.mouse.move(m.x + m.width * 0.6, m.y + m.height * 0.7, { steps: 4 });
  await page.mouse.up();
  const fields = await page.$$eval("#catWest,#catSouth,#catEast,#catNorth", (els) => els.map((e) => Number(e.value)));
  const body = JSON.parse(await page.textContent("#catJson"));
  check(
    JSON.stringify(body.bbox) === JSON.stringify(fields) && fields[0] < fields[2] && fields[1] < fields[3],
    `catalog: a box drawn on the map is the search's bbox [${fields}]`,
  );
}

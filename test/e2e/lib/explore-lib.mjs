// Helpers of the exploration view's browser check (test/e2e/browser-check-explore.mjs): opening a view, waiting
// for its tiles, reading their pixels; the screenshots' folder and the sample places' views.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export const SHOTS = join("test-artifacts", "explore");
mkdirSync(SHOTS, { recursive: true });
export const shot = (page, name) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
export const WEST_FLANDERS = "lat=50.81596&lon=3.02385&zoom=16"; // 19 days of B02-B04, B08, SCL
export const SAHARA = "lat=24.8&lon=-11.425&zoom=13"; // MGRS 29RKH on 2020-02-19, every band
export const BYOC = "byoc-00000000-0000-4000-8000-00000000b70c";
export const BYOC_CREO = "byoc-00000000-0000-4000-8000-00000000c4e0";

/** Opens the view with URL parameters `query` and waits until it has drawn (all tiles of the view loaded). */
export async function open(page, base, query) {
  await page.goto(`${base}/explore.html?${query}`);
  await page.waitForSelector("body[data-ready]", { state: "attached", timeout: 120_000 });
  await drawn(page);
}

/** Waits until the current render's tiles are all loaded (and the compare layer's, when `compare`). */
export const drawn = (page, compare = false) =>
  page.waitForFunction(
    (c) => {
      const d = document.body.dataset;
      return d.renderKey && d.loaded === d.renderKey && (!c || d.compareLoaded === d.renderKey);
    },
    compare,
    { timeout: 120_000 },
  );

/** Pixel summary of the tiles `selector` matches: count, opaque pixels, mean R/G/B of the opaque ones. */
export const pixels = (page, selector) =>
  page.evaluate((sel) => {
    const imgs = [...document.querySelectorAll(sel)].filter((i) => i.complete && i.naturalWidth);
    const c = Object.assign(document.createElement("canvas"), { width: 256, height: 256 });
    const g = c.getContext("2d", { willReadFrequently: true });
    let opaque = 0;
    const sum = [0, 0, 0];
    for (const img of imgs) {
      g.clearRect(0, 0, 256, 256);
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, 256, 256).data;
      for (let i = 0; i < d.length; i += 4)
        if (d[i + 3] > 0) opaque++, (sum[0] += d[i]), (sum[1] += d[i + 1]), (sum[2] += d[i + 2]);
    }
    return { tiles: imgs.length, opaque, mean: sum.map((s) => +(s / Math.max(1, opaque)).toFixed(2)) };
  }, selector);

export const differ = (a, b) => a.mean.some((v, i) => Math.abs(v - b.mean[i]) > 1);
export const mainTiles = ".leaflet-tile-pane img.explore-tile";

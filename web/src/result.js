// The request builder's result: the Run button's busy state, the file offered for download, the image drawn on the
// map (PNG/JPEG as they are, a single-band float GeoTIFF over viridis with its legend), its date label, and dropping
// it all (no stale result after a failure, a new date or pin). The object URL made here is revoked on dropping.
import { rampElements } from "./legend.js";
import { VIRIDIS, tiffImage } from "./tiffview.js";

const $ = (id) => document.getElementById(id);
/** Object URLs of the current result (the file offered). */
const urls = [];

/** Offers `blob` as the download `name`; resolves to its object URL. */
export function offerResult(blob, name) {
  const url = URL.createObjectURL(blob);
  urls.push(url);
  Object.assign($("download"), { href: url, download: name, hidden: false });
  return url;
}

/** Drops the previous result of map controller `ctl`: overlay, download link and their object URLs (no stale result). */
export function clearResult(ctl) {
  ctl.clearImage();
  $("download").hidden = true;
  $("download").removeAttribute("href");
  for (const url of urls) URL.revokeObjectURL(url);
  urls.length = 0;
  $("resultLegend").replaceChildren();
  delete document.body.dataset.runDone;
}

/** How long a run goes before it shows Cancel, the progress bar and the elapsed time, and drops the old result. */
const SLOW_MS = 200;

/**
 * Run's busy state: the Run button disabled during a manual run only (`auto`: an automatic run, which a click on
 * Run replaces); once the run has taken SLOW_MS, `slow()` runs and Cancel, the progress bar and the elapsed time
 * are shown, ticking. A quicker run changes nothing else on the page (no flash of them, no re-layout: with them,
 * a run spent 5-9 ms more of the page's main thread on layout and paint).
 */
export function busy(on, t0, auto = false, slow = () => {}) {
  if ($("run").disabled !== (on && !auto)) $("run").disabled = on && !auto;
  clearInterval(busy.timer);
  clearTimeout(busy.late);
  for (const id of ["cancel", "progress"]) if (!on && !$(id).hidden) $(id).hidden = true;
  if (!on) return;
  const tick = () => ($("runState").textContent = `running... ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  busy.late = setTimeout(() => {
    slow();
    [$("cancel").hidden, $("progress").hidden] = [false, false];
    tick();
    busy.timer = setInterval(tick, SLOW_MS);
  }, SLOW_MS);
}

/**
 * Draws result `blob` over `bounds` on map controller `ctl` in place of the previous result (dropped when the new
 * one is ready: no blank map in between): a PNG/JPEG as it is (decoded off the main thread by createImageBitmap), a
 * single-band float GeoTIFF over the viridis ramp (its stretch in #resultLegend). Resolves to true when drawn, else
 * to the reason.
 */
export async function drawResult(ctl, blob, bounds) {
  const shown = await decodeResult(blob);
  clearResult(ctl);
  if (shown.reason) return shown.reason;
  ctl.showImage(shown.canvas, bounds);
  if (shown.stops)
    $("resultLegend").replaceChildren(...rampElements("Result (GeoTIFF values, 2-98 % stretch):", shown.stops));
  return true;
}

/** Result `blob` decoded: {canvas, stops (a GeoTIFF's legend)} or {reason} when it is not drawn. */
async function decodeResult(blob) {
  if (/image\/(png|jpeg)/.test(blob.type)) {
    const bitmap = await createImageBitmap(blob).catch((err) => ({ reason: `image not decoded: ${err.message}` }));
    if (bitmap.reason) return bitmap;
    const canvas = Object.assign(document.createElement("canvas"), { width: bitmap.width, height: bitmap.height });
    canvas.getContext("bitmaprenderer").transferFromImageBitmap(bitmap); // no copy
    return { canvas };
  }
  const tiff = await tiffImage(blob).catch((err) => ({ reason: `GeoTIFF not decoded: ${err.message}` }));
  if (tiff.reason) return tiff;
  const stops = VIRIDIS.map((color, i) => ({
    value: tiff.min + ((tiff.max - tiff.min) * i) / (VIRIDIS.length - 1),
    color,
  }));
  return { canvas: tiff.canvas, stops };
}

/**
 * Labels the drawn result with its collection and the dates of the scenes it shows, and hides the undated
 * true-colour base layer (most recent scenes of any date), which would pass for the result around it.
 */
export function showDrawn(ctl, st, days) {
  const shown =
    days.length > 2 ? `${days[0]} .. ${days.at(-1)} (${days.length} dates, ${st.mosaicking})` : days.join(", ");
  ctl.showLabel(`${st.collection}: ${shown}`);
  if ($("baseLayer").checked) ($("baseLayer").checked = false), ctl.showBase(false);
}

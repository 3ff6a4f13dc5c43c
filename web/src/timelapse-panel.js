// The request builder's "Time-lapse" dialog, a stand-in until the explore page hosts the export: the builder's
// collection, evalscript and AOI (its WGS84 bbox), a date range and a cloud limit -> the dates with scenes from the
// catalog (timeline.js) -> exportTimelapse (timelapse.js) as GIF, MP4 or WebM, offered as a download.
// Also exposes exportTimelapse as window.eoConsole.exportTimelapse (the browser check and the console's own use).
import { showError, showState, token } from "./api.js";
import { aoiBbox, cloudy } from "./form.js";
import { exportTimelapse, MAX_SIDE } from "./timelapse.js";
import { datesOf, searchItems, underClouds } from "./timeline.js";

const HTML = `<form method="dialog">
  <h2 id="tlTitle">Time-lapse</h2>
  <p class="note" id="tlWhat"></p>
  <div class="row">
    <label>From <input type="date" id="tlFrom" required></label>
    <label>To <input type="date" id="tlTo" required></label>
    <label>Max. cloud cover (%) <input type="number" id="tlMaxcc" min="0" max="100" value="30"></label>
    <button type="button" id="tlFind">Find dates</button>
  </div>
  <fieldset><legend>Dates with scenes: <span id="tlCount">none searched yet</span></legend>
    <div id="tlDates" class="dates" style="flex-wrap: wrap; max-height: 8em; overflow-y: auto"></div></fieldset>
  <div class="row">
    <label>Format <select id="tlFormat"><option value="gif">GIF</option><option value="mp4">MP4</option><option value="webm">WebM</option></select></label>
    <label>Width (px) <input type="number" id="tlWidth" min="16" max="${MAX_SIDE}" value="512"></label>
    <label>Frames per second <input type="number" id="tlFps" min="0.5" max="30" step="0.5" value="2"></label>
  </div>
  <div class="row">
    <button type="button" id="tlExport" disabled>Export</button>
    <progress id="tlProgress" hidden aria-label="Frames requested"></progress>
    <a id="tlDownload" hidden>Download the time-lapse</a>
    <button type="submit" id="tlClose">Close</button>
  </div>
  <span id="tlState" class="state" role="status"></span>
</form>`;

const $ = (id) => document.getElementById(id);
let subject = null; // {collection, evalscript, bbox} of the builder when the dialog opened

/** Output height for `width` px over WGS84 `bbox`, keeping the ground aspect (degrees of longitude shrink by cos lat). */
export function heightFor(width, [w, s, e, n]) {
  const h = (width * (n - s)) / ((e - w) * Math.cos((((s + n) / 2) * Math.PI) / 180));
  return Math.max(16, Math.min(MAX_SIDE, Math.round(h)));
}

/** Opens the dialog on the builder's current request: its collection, evalscript, AOI bbox, dates and cloud limit. */
function open() {
  const plain = window.eoConsole.request?.()?.plain;
  const aoi = window.eoConsole.aoi?.();
  if (!plain || !aoi) return;
  subject = { collection: plain.collection, evalscript: plain.evalscript, bbox: aoiBbox(aoi) };
  $("tlWhat").textContent =
    `${plain.collection} over the AOI's bbox ${subject.bbox.map((v) => v.toFixed(4)).join(", ")} (WGS84), ` +
    "with the builder's evalscript; one frame per date, the date burnt in.";
  [$("tlFrom").value, $("tlTo").value] = [plain.from.slice(0, 10), plain.to.slice(0, 10)];
  $("tlMaxcc").value = String(plain.maxcc ?? 100);
  $("tlMaxcc").disabled = !cloudy(plain.collection);
  $("timelapse").showModal();
}

/** Lists the dates with scenes of the catalog in the range under the cloud limit, each a checked checkbox. */
async function findDates() {
  const list = $("tlDates");
  list.replaceChildren();
  $("tlExport").disabled = true;
  showState($("tlState"), "searching the catalog...");
  try {
    const items = await searchItems(
      subject.collection,
      { bbox: subject.bbox },
      `${$("tlFrom").value}T00:00:00Z/${$("tlTo").value}T23:59:59Z`,
    );
    const days = datesOf(cloudy(subject.collection) ? underClouds(items, Number($("tlMaxcc").value)) : items);
    for (const d of days) {
      const label = Object.assign(document.createElement("label"), { style: "white-space: nowrap" });
      const box = Object.assign(document.createElement("input"), { type: "checkbox", checked: true, value: d.date });
      label.append(box, ` ${d.date}${d.cloud === null ? "" : ` (${Math.round(d.cloud)} %)`}`);
      list.append(label);
    }
    $("tlCount").textContent = String(days.length);
    $("tlExport").disabled = !days.length;
    showState($("tlState"), days.length ? "" : "No scenes in this range under the cloud limit.");
  } catch (e) {
    showError($("tlState"), e);
  }
}

/** Exports the checked dates and offers the file as a download. */
async function runExport() {
  const dates = [...$("tlDates").querySelectorAll("input:checked")].map((b) => b.value);
  const format = $("tlFormat").value;
  const width = Number($("tlWidth").value);
  const [progress, link] = [$("tlProgress"), $("tlDownload")];
  link.hidden = true;
  if (link.href) URL.revokeObjectURL(link.href);
  Object.assign(progress, { hidden: false, max: dates.length, value: 0 });
  $("tlExport").disabled = true;
  showState($("tlState"), `requesting ${dates.length} frames...`);
  try {
    const blob = await exportTimelapse({
      ...subject,
      token: token(),
      dates,
      width,
      height: heightFor(width, subject.bbox),
      format,
      fps: Number($("tlFps").value),
      onProgress: (done, total) => ((progress.value = done), showState($("tlState"), `frames ${done}/${total}`)),
    });
    const left = dates.length - blob.dates.length;
    Object.assign(link, {
      href: URL.createObjectURL(blob),
      download: `timelapse_${subject.collection}_${dates[0]}_${dates.at(-1)}.${format}`,
      hidden: false,
    });
    showState(
      $("tlState"),
      `${format.toUpperCase()} of ${blob.dates.length} frames, ${Math.round(blob.size / 1024)} kB` +
        (left ? ` (${left} dates without data left out)` : ""),
    );
  } catch (e) {
    showError($("tlState"), e);
  } finally {
    progress.hidden = true;
    $("tlExport").disabled = false;
  }
}

/** Adds the dialog and its "Time-lapse..." button (after the builder's download link). */
export function initTimelapsePanel() {
  window.eoConsole.exportTimelapse = exportTimelapse;
  const dialog = Object.assign(document.createElement("dialog"), { id: "timelapse", innerHTML: HTML });
  dialog.setAttribute("aria-labelledby", "tlTitle");
  Object.assign(dialog.style, { maxWidth: "min(44rem, 94vw)", boxSizing: "border-box" });
  document.body.append(dialog);
  const button = Object.assign(document.createElement("button"), {
    type: "button",
    id: "timelapseOpen",
    textContent: "Time-lapse...",
  });
  $("download").after(button);
  button.addEventListener("click", open);
  $("tlFind").addEventListener("click", findDates);
  $("tlExport").addEventListener("click", runExport);
}

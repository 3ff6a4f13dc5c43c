// The request builder page: the map and AOI (box, polygon, GeoJSON upload, place search), collection, dates with
// scenes and cloud filter, output CRS / size / format, the evalscript with presets, Run (with progress and cancel;
// the image on the map at its bbox and the file), the request JSON (edit, import), the client snippets, the
// permalink and pins. The form's state and its request: form.js; sending it and showing the result: runner.js and
// result.js; the side panels: panels.js; the legend: legend.js; a GeoTIFF result drawn: tiffview.js.
import { showError, showState } from "./api.js";
import { createMap } from "./map.js";
import { createEditor, setText } from "./editor.js";
import { curlSnippet, jsSnippet, pySnippet } from "./snippets.js";
import { DEFAULT_PRESET, dnOf, isFloat32, loadPresets } from "./presets.js";
import { aoiMeets, bandsOf, bandsReady, fillCollections, fitsNow } from "./collectionlist.js";
import { renderLegend } from "./legend.js";
import { clearResult } from "./result.js";
import { cancelRun, initRunner, resultName, runRequest, supersedeRun } from "./runner.js";
import { showOgcUrls, wireMapTools } from "./maptools.js";
import { MAX_ITEMS, datesOf, noScenes, searchDays, searchItems } from "./timeline.js";
import { aoiBbox, autoResolution, buildRequest, cloudy, readForm, showAoi, stateOfBody, writeForm } from "./form.js";
import { mapGeometry } from "./crs.js";
import { decodeState, encodeState, hashState, pageOfHash } from "./state.js";
import { showDates } from "./panels.js";
import { OPTION_FIELDS, initOptions, showOptions } from "./options.js";
import { openRequestLink, wireRequestIo } from "./requestio.js";

const $ = (id) => document.getElementById(id);
/** The collection selected first (the map opens over its 29RKH scene of 2020-02-19), when this location hosts it. */
const DEFAULT_COLLECTION = "sentinel-2-l2a";
const DEFAULT_AOI = { bbox: [-11.55, 24.72, -11.3, 24.88] };
const WIDE = "2014-01-01T00:00:00Z/2100-01-01T00:00:00Z"; // every date the samples (and Sentinel-1/2) can have
let resTyped = false,
  datesKey = ""; // typed resolution: a new AOI keeps it; [collection, AOI] of `dates`
let ctl,
  editor,
  preset,
  aoi = DEFAULT_AOI,
  jsonDirty = false,
  dates = [],
  ready = false,
  autoTiff = false;

const form = () => readForm(aoi, editor);
let marks = 0;
/** Marks the end of an asynchronous step on <body data-*> with a new number (the browser checks wait for it). */
const mark = (name) => (document.body.dataset[name] = String(++marks));
const offered = () => [...$("collection").options].map((o) => o.value);
const debounce = (f, ms) => {
  let t;
  return Object.assign(() => (clearTimeout(t), (t = setTimeout(f, ms))), { cancel: () => clearTimeout(t) });
};

/** After any change: sizes, snippets, request JSON (unless being edited), legend (legend.js), permalink (debounced), date marks. */
function changed() {
  if (!ready) return;
  const st = form();
  const { body, plain } = buildRequest(st, ctl.map);
  [$("width").value, $("height").value] = [body.output.width, body.output.height];
  // the Resolution field says what the request uses, whichever field sized it (CRS units per pixel across)
  if (st.sizeMode !== "res")
    $("res").value = String(Number(((plain.bbox[2] - plain.bbox[0]) / body.output.width).toPrecision(4)));
  const out = resultName(plain.format);
  $("snippetCurl").textContent = curlSnippet(location.origin, body, out);
  $("snippetPy").textContent = pySnippet(location.origin, body, out);
  $("snippetJs").textContent = jsSnippet(location.origin, plain, out);
  if (!jsonDirty) $("requestJson").value = JSON.stringify(body, null, 2);
  renderLegend($("legend"), st.evalscript);
  savePermalink();
  datesStatus(showDates(dates, st, pickDate));
}

/** The timeline's status: how many dates have scenes, how many are within the current cloud limit. */
function datesStatus(usable) {
  const collection = $("collection").value;
  if (refreshDates.failed) return;
  showState(
    $("timelineState"),
    dates.length
      ? `${dates.length} dates with ${collection} scenes over the AOI, ${usable.length} within the cloud limit (${$("maxcc").value} %)`
      : `no ${collection} scenes over this AOI: use "Zoom to data"`,
  );
}

/** A new date, collection or pinned state: the previous result, its status and download no longer apply. */
function dropResult() {
  supersedeRun();
  clearResult(ctl);
  showState($("runState"), "");
  ctl.showLabel("");
  autoRun();
}
/**
 * The builder's permalink into the address, only while the builder is shown and the address still names it: a
 * navigation to another page changes the address before its hashchange event shows that page, and writing the
 * permalink in between would send the user back to the builder.
 */
const savePermalink = debounce(() => {
  if (document.body.dataset.page !== "request" || pageOfHash() !== "request") return;
  history.replaceState(null, "", `#request?s=${encodeState(form())}`);
}, 250);

/** Degrees rounded to 6 decimals (0.1 m): the AOI is what its fields show, in the request and the permalink. */
const r6 = (x) => Number(x.toFixed(6));

/** New AOI (drawn, uploaded, searched, typed or restored): map, fields, dates, request. */
function setAoi(next, { fit = false, notify = true, keepRes = false } = {}) {
  aoi = next.geometry ? { geometry: mapGeometry(next.geometry, (p) => p.map(r6)) } : { bbox: next.bbox.map(r6) };
  ctl.setAoi(aoi, false);
  showAoi(aoi);
  // a resolution that suits the new AOI, unless one was typed or restored
  if (!keepRes && !resTyped && $("sizeMode").value === "res") $("res").value = String(autoResolution(form(), ctl.map));
  if (fit) ctl.fit(aoiBbox(aoi));
  if (notify) refreshDates(), changed(), autoRun();
}

/** Sets the time range to one day with scenes. */
function pickDate(date) {
  [$("from").value, $("to").value] = [date, date];
  dropResult();
  changed();
}

/** Reloads the dates with scenes of the collection over the AOI (catalog search, all dates). */
const refreshDates = debounce(async () => {
  const collection = $("collection").value,
    searched = aoi,
    seq = ++refreshDates.seq;
  showState($("timelineState"), "searching the catalog...");
  try {
    const items = await searchItems(collection, searched, WIDE);
    if (seq !== refreshDates.seq) return; // a newer search (other AOI or collection) is under way
    // complete dates (not cut at MAX_ITEMS) also tell a run which scenes it will use
    [dates, datesKey] = [datesOf(items), items.length < MAX_ITEMS ? keyOf({ collection, aoi: searched }) : ""];
    refreshDates.failed = false;
    datesStatus(showDates(dates, form(), pickDate));
  } catch (err) {
    refreshDates.failed = true;
    showError($("timelineState"), err);
  }
  document.body.dataset.datesReady = String(Date.now());
}, 200);
refreshDates.seq = 0;

/** Moves the AOI and dates to the most recent scene of `collection` and shows the collection's footprints. */
async function zoomToData(collection) {
  const items = await searchItems(collection, { bbox: [-180, -90, 180, 90] }, WIDE);
  if (!items.length)
    return (showState($("mapState"), `the catalog lists no ${collection} scenes`), mark("zoomed"), false);
  const last = items.reduce((a, b) => (a.properties.datetime > b.properties.datetime ? a : b));
  ctl.showFootprints(items, showItem);
  pickDate(last.properties.datetime.slice(0, 10));
  setAoi({ bbox: last.bbox }, { fit: true });
  showState($("mapState"), `${collection}: ${items.length} scenes; AOI and dates set to the most recent, ${last.id}`);
  mark("zoomed");
  return true;
}

const showItem = (f) => Object.assign($("itemJson"), { hidden: false, textContent: JSON.stringify(f, null, 2) });

/**
 * Loads preset `value` into the editor and makes it runnable: a preset of another collection switches the
 * collection (and the AOI and dates to its data when the AOI is away from them); a FLOAT32 script switches the
 * format to GeoTIFF; a preset that cannot run on the samples says why.
 */
async function applyPreset(value) {
  const p = preset(value);
  if (!p) return mark("presetApplied");
  const notes = [];
  // BYOC / Zarr bands decide the fit and the scaling: wait for them when they matter
  if (/^(byoc|zarr)-/.test($("collection").value) || !fitsNow(p, $("collection").value)) await bandsReady();
  if (!fitsNow(p, $("collection").value)) {
    const target = offered().find((c) => fitsNow(p, c));
    if (!target) notes.push(`This preset is written for ${p.group}, which this location does not host.`);
    else {
      $("collection").value = target;
      notes.push(`Collection switched to ${target}: the preset reads its bands.`);
      if (!aoiMeets(target, aoi) && (await zoomToData(target))) notes.push(`AOI and dates moved to its data.`);
      else refreshDates();
    }
  }
  const script = await p.load(dnOf(bandsOf($("collection").value))); // scaled to the collection's values
  setText(editor, script);
  if (isFloat32(script) && $("format").value !== "image/tiff") notes.push(toTiff());
  else if (!isFloat32(script) && autoTiff && $("format").value === "image/tiff") {
    ($("format").value = "image/png"), (autoTiff = false);
    notes.push("Format back to PNG (drawn on the map).");
  }
  if (p.cannotRun) notes.push(`Cannot run on the sample data: ${p.cannotRun}.`);
  $("presetNote").textContent = notes.join(" ");
  changed();
  // a preset that cannot run on the data here is not run by itself (its 400 is certain); Run still sends it
  if (!p.cannotRun) autoRun();
  mark("presetApplied");
}

/** When the collection changes to one the preset does not fit: the true colour of its own group, else the first fit. */
async function collectionChanged() {
  await bandsReady();
  const c = $("collection").value,
    p = preset($("preset").value);
  showOptions(c);
  dropResult();
  if (p && !fitsNow(p, c)) {
    const home = /^(byoc|zarr|batch)-/.test(c) ? "byoc/zarr" : c; // the collection's own group first
    const ok = [...$("preset").options]
      .filter((o) => preset(o.value) && fitsNow(preset(o.value), c))
      .sort((a, b) => (preset(a.value).group !== home) - (preset(b.value).group !== home));
    const first = ok.find((o) => /true[_-]colou?r/.test(o.value)) ?? ok[0];
    if (first) ($("preset").value = first.value), await applyPreset(first.value);
  }
  refreshDates();
  changed();
  mark("collectionApplied");
}

/**
 * The days with scenes the request would use ([{date, count}], under the cloud limit): the timeline's dates when
 * they are those of its collection and AOI (no second catalog search per run), else a promise of searchDays.
 */
function scenesOf(st, signal) {
  const under = (d) => !cloudy(st.collection) || (d.cloud ?? 0) <= st.maxcc;
  if (datesKey === keyOf(st)) return dates.filter((d) => d.date >= st.from && d.date <= st.to && under(d));
  return searchDays(st, signal);
}
const keyOf = (st) => JSON.stringify([st.collection, st.aoi]);
/** Switches the format to GeoTIFF for a FLOAT32 script; returns the note saying so. */
function toTiff() {
  ($("format").value = "image/tiff"), (autoTiff = true);
  return "Format switched to GeoTIFF: the script writes FLOAT32, which PNG and JPEG cannot carry.";
}

/** #autoRender: a new date, layer, collection or AOI runs by itself (500 ms after); Run replaces such a run. */
const autoRun = debounce(
  () => $("autoRender").checked && ready && document.body.dataset.page === "request" && run(null, true),
  500,
);

/** Runs the request (runner.js); `auto`: an automatic run, which Run replaces. */
function run(e, auto = false) {
  e?.preventDefault();
  autoRun.cancel();
  return runRequest(auto);
}

/** The request to run (runner.js): a FLOAT32 script switches the format to GeoTIFF first. */
function prepareRun() {
  if (isFloat32(editor.state.doc.toString()) && $("format").value !== "image/tiff")
    ($("presetNote").textContent = toTiff()), changed();
  const st = form();
  return { st, ...buildRequest(st, ctl.map) };
}

/** Applies a whole state (permalink, pin, imported request). */
function restore(st) {
  dropResult();
  writeForm(st, editor);
  setAoi(st.aoi, { fit: true, keepRes: true });
  $("presetNote").textContent = "";
}

/** Catalog search of the collection over the AOI and dates; footprints open their item JSON. */
async function footprints() {
  const st = form();
  try {
    const items = await searchItems(st.collection, aoi, `${st.from}T00:00:00Z/${st.to}T23:59:59Z`);
    ctl.showFootprints(items, showItem);
    showState($("mapState"), `${items.length} items`);
  } catch (err) {
    showError($("mapState"), err, $("page-request"));
  }
}

/** The form's events (and requestio.js's: the JSON view, pins, permalink, request link). */
function wireForm() {
  for (const k of ["from", "to", "mosaicking", "width", "height", "res", "format", "crs", "sizeMode"])
    $(k).addEventListener("change", changed);
  for (const k of ["from", "to"]) $(k).addEventListener("change", dropResult);
  for (const k of OPTION_FIELDS)
    $(k).addEventListener("change", () => (showOptions($("collection").value), dropResult(), changed()));
  $("format").addEventListener("change", () => (autoTiff = false));
  for (const k of ["width", "height"]) $(k).addEventListener("input", () => ($("sizeMode").value = "size"));
  $("res").addEventListener("input", () => (($("sizeMode").value = "res"), (resTyped = true)));
  $("maxcc").addEventListener("input", () => (($("maxccValue").textContent = `${$("maxcc").value} %`), changed()));
  $("collection").addEventListener("change", collectionChanged);
  $("preset").addEventListener("change", () => applyPreset($("preset").value));
  // Run's click runs at once: the form's submission (Enter in a field still submits) spent 1-2 ms in Chromium
  // before its submit event; reportValidity checks the fields as that submission would
  $("run").addEventListener("click", (e) => (e.preventDefault(), $("builder").reportValidity() && run()));
  $("builder").addEventListener("submit", run);
  $("cancel").addEventListener("click", cancelRun);
  wireRequestIo(io);
}

/** What requestio.js needs of the page. */
const io = {
  form: () => form(),
  body: () => buildRequest(form(), ctl.map).body,
  restore: (st) => restore(st),
  changed: () => changed(),
  offered: () => offered(),
  mark: (name) => mark(name),
  savePermalink: () => savePermalink(),
  setJsonDirty: (dirty) => (jsonDirty = dirty),
};

/**
 * "Open in the builder" (#request?collection=<id>, the collections page's links): that collection, a preset that
 * fits it and, when the AOI is away from its data, its newest scene. Resolves to false when the hash names none.
 */
async function openCollection() {
  const id = new URLSearchParams(location.hash.split("?")[1] ?? "").get("collection");
  if (!id) return false;
  if (!offered().includes(id))
    return (showError($("runState"), new Error(`Collection ${id} is not hosted at this location.`)), false);
  $("collection").value = id;
  await collectionChanged(); // its preset may have moved the AOI to the collection's data already
  if (!aoiMeets(id, aoi)) await zoomToData(id).catch((err) => showError($("mapState"), err));
  mark("collectionOpened");
  return true;
}

/** Each show of the request page: a collection to open, then the URL gets the permalink of the state again. */
export function showRequest() {
  if (!ready) return;
  ctl.map.invalidateSize(); // the window may have been resized while the page was hidden (its map was 0 x 0)
  if (!openRequestLink(io)) openCollection().then(savePermalink);
}

/** First show of the request page: map, editor, presets, collections, events, then the permalink's state. */
export async function initRequest() {
  ctl = window.eoConsole.map = createMap($("map"), { lat: 24.8, lon: -11.43, zoom: 10 }, (a) => setAoi(a));
  window.eoConsole.request = () => buildRequest(form(), ctl.map);
  window.eoConsole.aoi = () => aoi; // the statistics page takes the drawn polygon itself

  editor = window.eoConsole.editor = createEditor($("editor"), "evalscriptLabel", changed);
  initRunner({ ctl, editor, prepare: prepareRun, scenes: scenesOf, noScenes: (st) => noScenes(st, dates) });
  ctl.showBasemap(true).catch((err) => showError($("mapState"), err));
  setAoi(DEFAULT_AOI, { notify: false, fit: true });
  wireMapTools(ctl, { setAoi, zoomToData, footprints, changed });
  initOptions();
  wireForm();
  // the presets' index and the collections side by side (one after the other, they were 2 round trips)
  [preset] = await Promise.all([loadPresets($("preset")), fillCollections($("collection"), DEFAULT_COLLECTION)]);
  const saved = hashState();
  let st = null;
  try {
    st = saved && decodeState(saved);
  } catch {
    showError($("runState"), new Error("The permalink's state could not be read: the defaults are shown."));
  }
  if (st && !offered().includes(st.collection))
    showError($("runState"), new Error(`The permalink's collection ${st.collection} is not hosted here.`)), (st = null);
  ready = true;
  const linked = openRequestLink(io); // a request link wins over the permalink's state and the defaults
  if (!linked && st) restore(st);
  else if (!linked) {
    $("preset").value = DEFAULT_PRESET;
    await (fitsNow(preset($("preset").value), $("collection").value)
      ? applyPreset($("preset").value)
      : collectionChanged());
    // another location's first collection has its data elsewhere than the default AOI: start on its newest scene
    if (!(await openCollection()) && !aoiMeets($("collection").value, aoi))
      await zoomToData($("collection").value).catch((err) => showError($("mapState"), err));
    refreshDates();
  }
  changed();
  // the first view renders by itself, at once, before the base layer: its tiles (Processing API requests too)
  // would compete with the run, and a drawn result hides the base layer anyway (result.js showDrawn)
  if ($("autoRender").checked) await run(null, true);
  const instance = await ctl.showBase($("baseLayer").checked).catch((err) => showError($("mapState"), err));
  if (instance) showOgcUrls(instance);
  document.body.dataset.requestReady = "1";
}

// The request builder page: map + AOI, collection/time/mosaicking/size/format, the evalscript editor with presets,
// Run (image on the map at its bbox + the file), catalog footprints and the equivalent client snippets.
import L from "leaflet";
import { call, json, showError, showState } from "./api.js";
import { createMap } from "./map.js";
import { createEditor, loadPresets, setText } from "./editor.js";
import { curlSnippet, jsSnippet, pySnippet } from "./snippets.js";

const $ = (id) => document.getElementById(id);
const EPSG3857 = "http://www.opengis.net/def/crs/EPSG/0/3857";
/** The collection selected first (the map opens over its 29RKH scene), when this location hosts it. */
const DEFAULT_COLLECTION = "sentinel-2-l2a";
const EXT = { "image/png": "png", "image/jpeg": "jpg", "image/tiff": "tif" };
let ctl, editor;

/** The AOI from the bbox fields as LatLngBounds (null when incomplete). */
function aoiBounds() {
  const v = ["south", "west", "north", "east"].map((k) => Number($(k).value));
  if (v.some((x) => !Number.isFinite(x)) || ["south", "west"].some((k) => $(k).value === "")) return null;
  return L.latLngBounds([v[0], v[1]], [v[2], v[3]]);
}

/** Writes `b` (LatLngBounds) into the bbox fields. */
function setFields(b) {
  const r = (x) => Number(x.toFixed(6));
  [$("west").value, $("south").value, $("east").value, $("north").value] = [r(b.getWest()), r(b.getSouth()), r(b.getEast()), r(b.getNorth())];
}

/** The AOI in EPSG:3857 metres [minx, miny, maxx, maxy] (the result overlays the map without resampling). */
function mercatorBbox(b) {
  const [sw, ne] = [L.CRS.EPSG3857.project(b.getSouthWest()), L.CRS.EPSG3857.project(b.getNorthEast())];
  return [sw.x, sw.y, ne.x, ne.y];
}

/** Output size: the AOI's size in map pixels at the current zoom (when "match" is ticked) or the fields. */
function outputSize(b) {
  if (!$("matchScreen").checked) return [Number($("width").value), Number($("height").value)];
  const [a, c] = [ctl.map.latLngToContainerPoint(b.getNorthWest()), ctl.map.latLngToContainerPoint(b.getSouthEast())];
  const size = [Math.max(1, Math.round(c.x - a.x)), Math.max(1, Math.round(c.y - a.y))];
  [$("width").value, $("height").value] = size;
  return size;
}

/** The Processing API request of the form, plus the plain parameters the snippets use. */
function currentRequest() {
  const b = aoiBounds() ?? ctl.map.getBounds();
  const [width, height] = outputSize(b);
  const from = `${$("from").value}T00:00:00Z`, to = `${$("to").value}T23:59:59Z`;
  const bbox = mercatorBbox(b), format = $("format").value, evalscript = editor.state.doc.toString();
  const dataFilter = { timeRange: { from, to }, mosaickingOrder: $("mosaicking").value };
  const body = {
    input: { bounds: { bbox, properties: { crs: EPSG3857 } }, data: [{ type: $("collection").value, dataFilter }] },
    output: { width, height, responses: [{ identifier: "default", format: { type: format } }] },
    evalscript,
  };
  return { body, bounds: b, plain: { collection: $("collection").value, bbox, epsg: 3857, from, to, width, height, format, mosaickingOrder: dataFilter.mosaickingOrder, evalscript } };
}

/** Refreshes the curl / sentinelhub-py / sentinelhub-js snippets. */
function updateSnippets() {
  if (!editor) return;
  const { body, plain } = currentRequest();
  const out = `result.${EXT[plain.format]}`;
  $("snippetCurl").textContent = curlSnippet(location.origin, body, out);
  $("snippetPy").textContent = pySnippet(location.origin, body, out);
  $("snippetJs").textContent = jsSnippet(location.origin, plain, out);
}

/** Sends the request; shows a PNG/JPEG on the map over the AOI and offers the file. */
async function run(e) {
  e.preventDefault();
  const { body, bounds } = currentRequest();
  showState($("runState"), "running...");
  try {
    const r = await call("/api/v1/process", { method: "POST", body });
    const blob = await r.blob();
    const url = URL.createObjectURL(blob);
    Object.assign($("download"), { href: url, download: `result.${EXT[body.output.responses[0].format.type]}`, hidden: false });
    if (/image\/(png|jpeg)/.test(blob.type)) await ctl.showImage(url, bounds);
    showState($("runState"), `${r.status}: ${body.output.width} x ${body.output.height} px, ${r.headers.get("x-processingunits-spent") ?? "?"} PU`);
    document.body.dataset.runDone = String(Date.now());
  } catch (err) {
    showError($("runState"), err, $("page-request"));
  }
}

/** Catalog search of the collection over the AOI (or view) and dates; footprints open their item JSON. */
async function footprints() {
  const b = aoiBounds() ?? ctl.map.getBounds();
  const body = { collections: [$("collection").value], bbox: [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()], datetime: `${$("from").value}T00:00:00Z/${$("to").value}T23:59:59Z`, limit: 100 };
  try {
    const res = await json("/api/v1/catalog/1.0.0/search", { method: "POST", body });
    ctl.showFootprints(res.features, (f) => Object.assign($("itemJson"), { hidden: false, textContent: JSON.stringify(f, null, 2) }));
    showState($("mapState"), `${res.features.length} items`);
  } catch (err) {
    showError($("mapState"), err, $("page-request"));
  }
}

/**
 * The collections this location hosts, from its catalog (which lists only those, src/locations/hosting.ts): the
 * built-ins by id, the account's BYOC, batch and Zarr collections (byoc-<id>, ...) by kind and title. A collection
 * of another location (e.g. a BYOC collection of a CREODIAS bucket on the primary) is not offered.
 */
async function fillCollections() {
  const list = await json("/api/v1/catalog/1.0.0/collections").catch(() => ({ collections: [] }));
  for (const c of list.collections ?? []) {
    const kind = /^(byoc|batch|zarr)-/.exec(c.id)?.[1];
    $("collection").append(new Option(kind ? `${kind}: ${c.title ?? c.id}` : c.id, c.id, false, c.id === DEFAULT_COLLECTION));
  }
}

/**
 * Shows the GetCapabilities URLs of the base layer's WMS instance `{id, origin}` (at the address of the location
 * hosting its collection), as QGIS, GDAL and OWSLib take them (WMS and WMTS; src/wms/routes.ts).
 */
function showOgcUrls({ id: instance, origin }) {
  for (const [id, service] of [["wmsCaps", "wms"], ["wmtsCaps", "wmts"]]) {
    const url = `${origin}/ogc/${service}/${encodeURIComponent(instance)}?SERVICE=${service.toUpperCase()}&REQUEST=GetCapabilities`;
    Object.assign($(id), { href: url, textContent: url });
  }
  $("ogcUrls").hidden = false;
}

/** First show of the request page: map, editor, presets, collections, events. */
export async function initRequest() {
  ctl = window.eoConsole.map = createMap($("map"), { lat: 24.8, lon: -11.43, zoom: 10 }, (b) => (setFields(b), updateSnippets()));
  window.eoConsole.request = currentRequest;
  editor = window.eoConsole.editor = createEditor($("editor"), "evalscriptLabel", updateSnippets);
  ctl.setAoi(L.latLngBounds([24.72, -11.55], [24.88, -11.3]));
  $("drawAoi").addEventListener("click", () => {
    const on = $("drawAoi").getAttribute("aria-pressed") !== "true";
    $("drawAoi").setAttribute("aria-pressed", String(on));
    ctl.setDrawing(on);
  });
  for (const k of ["west", "south", "east", "north"]) $(k).addEventListener("change", () => aoiBounds() && (ctl.setAoi(aoiBounds(), false), updateSnippets()));
  for (const k of ["collection", "from", "to", "mosaicking", "width", "height", "format", "matchScreen"]) $(k).addEventListener("change", updateSnippets);
  ctl.map.on("zoomend", updateSnippets);
  $("baseLayer").addEventListener("change", () => ctl.showBase($("baseLayer").checked).then((id) => id && showOgcUrls(id), (err) => showError($("mapState"), err)));
  $("footprints").addEventListener("click", footprints);
  $("builder").addEventListener("submit", run);
  const load = await loadPresets($("preset"));
  $("preset").addEventListener("change", async () => setText(editor, await load($("preset").value)));
  $("preset").value = "sentinel-2__true_color__script.js";
  setText(editor, await load($("preset").value));
  await fillCollections();
  const instance = await ctl.showBase(true).catch((err) => showError($("mapState"), err));
  if (instance) showOgcUrls(instance);
  document.body.dataset.requestReady = "1";
}

// EO Edge's exploration view (web/explore.html, bundled by scripts/build-web.mjs into web/vendor/explore.js), as
// EO Browser's: a full-screen map with a folding panel; a place (gazetteer of the data's places and the user's
// collections, "lat, lon" or a bbox), a collection (the built-in ones and the account's BYOC collections), a day
// from the calendar of the Catalog API's scenes over the view under a cloud limit, and a layer of the collection's
// set with its legend. The map renders by itself whenever one of them changes (Process API tiles, tiles.js),
// labelled with the day shown. The view lives in the URL's parameters (collection, layer, date, maxcc, lat, lon,
// zoom, compare): the share link; the token stays in this tab's sessionStorage (../api.js), never in the URL.
import L from "leaflet";
import { json, login, showError, showState, takeNotice, token } from "../api.js";
import { wireActions } from "./actions.js";
import { addOwnCollections, collections, places, searchPlace } from "./catalog.js";
import { countriesLayer } from "../basemap.js";
import { renderLegend, rampElements } from "../legend.js";
import { availableDates, drawMonth, shiftMonth } from "./calendar.js";
import { swipe } from "./compare.js";
import { cloudy, scriptOf, timeless } from "./layers.js";
import { hasIndex, shareUrl } from "./outputs.js";
import { processLayer } from "./tiles.js";
import { wireTools } from "./tools.js";

const $ = (id) => document.getElementById(id);
const DEFAULT = { collection: "sentinel-2-l2a", lat: 50.81596, lon: 3.02385, zoom: 16, maxcc: 100 };
const params = Object.fromEntries(new URLSearchParams(location.search));
/** The view: collection, layer id, date, cloud limit, compare date; layers: the collection's layer set. */
const view = { collection: params.collection ?? DEFAULT.collection, layer: params.layer, date: params.date ?? null };
view.maxcc = Number(params.maxcc ?? DEFAULT.maxcc);
let map,
  label,
  compare,
  mainLayer,
  dates = [],
  bounds = {},
  month = null,
  searching = null;
let firstTileSeen;
const firstTile = new Promise((done) => (firstTileSeen = done));
let loginAt = 0,
  renders = 0,
  drawnAs = null;
window.eoExplore = { view };

/** The cloud limit sent with the collection's requests: none for a collection without cloud cover (S1, DEM, BYOC). */
const maxccOf = () => (cloudy(view.collection) ? view.maxcc : null);

/** The address of the location hosting the current collection ("": this one). */
const origin = () => collections.get(view.collection)?.origin ?? "";

/** The layer set entry of the current collection and layer. */
const current = () => {
  const c = collections.get(view.collection);
  return c.layers.find((l) => l.id === view.layer) ?? c.layers[0];
};

/** Writes the view into the address (replaceState): what the share link carries. */
function saveView() {
  const c = map.getCenter();
  const p = { collection: view.collection, layer: current().id, maxcc: view.maxcc };
  if (view.date) p.date = view.date;
  Object.assign(p, { lat: c.lat.toFixed(5), lon: c.lng.toFixed(5), zoom: map.getZoom() });
  if (view.compare) p.compare = view.compare;
  history.replaceState(null, "", shareUrl(p));
  return location.href;
}

/** The label over the map: collection, layer and the day(s) shown. */
function setLabel() {
  const l = current();
  const day = timeless(view.collection) ? "no date (elevation model)" : (view.date ?? "no date with scenes here");
  const cmp = view.compare ? ` | left of the divider: ${view.compare}` : "";
  label.getContainer().textContent = `${collections.get(view.collection).title} · ${l.title} · ${day}${cmp}`;
  label.getContainer().dataset.date = view.date ?? "";
}

/** The tile layer of the view at `date` in `pane`. */
async function layerAt(date, pane) {
  const l = current();
  const v = {
    collection: view.collection,
    layer: l,
    script: await scriptOf(l),
    date,
    maxcc: maxccOf(),
    origin: origin(),
  };
  const b = bounds[date];
  return processLayer(timeless(view.collection) ? { ...v, date: null, maxcc: null } : v, {
    pane,
    bounds: b && L.latLngBounds([b[1], b[0]], [b[3], b[2]]),
    onTile: () => {
      document.body.dataset.tiles = String(Number(document.body.dataset.tiles ?? 0) + 1);
      if (!document.body.dataset.firstTileMs)
        document.body.dataset.firstTileMs = String(Math.round(performance.now() - loginAt));
      firstTileSeen();
    },
    onError: (e) => showError($("datesState"), e),
  });
}

/** Draws the view (and the compare date, when on): new tile layers replace the old ones; updates label and URL. */
async function render() {
  const l = current();
  const key = `${view.collection}/${l.id}/${view.date}/${view.compare ?? ""}`;
  // a pan that finds the same scenes keeps the layers (Leaflet loads the tiles coming into view)
  const as = JSON.stringify([key, view.maxcc, bounds[view.date], bounds[view.compare]]);
  if (as === drawnAs) return void saveView();
  const seq = ++renders; // a later render wins over one still awaiting its scripts
  const script = await scriptOf(l);
  const main = view.date || timeless(view.collection) ? await layerAt(view.date, "tilePane") : null;
  const second = view.compare && view.date ? await layerAt(view.compare, "compare") : null;
  if (seq !== renders) return;
  window.eoExplore.script = script;
  mainLayer?.remove();
  document.body.dataset.tiles = "0";
  const loaded = (what) => () => (document.body.dataset[what] = key); // all tiles in view drawn (checks wait on it)
  mainLayer = main?.on("load", loaded("loaded")).addTo(map) ?? null;
  if (second) compare.show(second.on("load", loaded("compareLoaded")));
  else compare.hide();
  setLabel();
  saveView();
  document.body.dataset.renderKey = key;
  drawnAs = as;
}

/** The layer radio buttons of the collection and the legend of the chosen layer. */
async function showLayers() {
  const c = collections.get(view.collection);
  $("maxcc").closest("label").hidden = !cloudy(view.collection);
  if (!c.layers.some((l) => l.id === view.layer)) view.layer = c.layers[0]?.id;
  $("layers").replaceChildren(
    ...c.layers.map((l) => {
      const input = Object.assign(document.createElement("input"), { type: "radio", name: "layer", value: l.id });
      input.checked = l.id === view.layer;
      input.addEventListener("change", () => ((view.layer = l.id), showLegend(), render()));
      const lab = document.createElement("label");
      lab.append(input, l.title);
      return lab;
    }),
  );
  await showLegend();
}

/** The legend of the current layer: its script's colour stops, else what it shows. */
async function showLegend() {
  const l = current();
  const el = $("legend");
  if (l.hillshade) {
    const stops = [
      { value: 0, color: "#000000" },
      { value: 255, color: "#ffffff" },
    ];
    el.replaceChildren(...rampElements("Legend (shade: sun 315°, altitude 45°):", stops));
    return void (el.dataset.kind = "ramp");
  }
  const script = await scriptOf(l);
  const index = $("dlFormat").querySelector('option[value="index"]');
  index.disabled = !hasIndex(script);
  if (index.disabled && index.selected) $("dlFormat").value = "image/png";
  renderLegend(el, script);
  if (el.dataset.kind === "none" && l.bands)
    el.firstChild.textContent = `Legend: a composite of ${l.bands} (no colour map).`;
}

/** Searches the dates with scenes over the view; keeps the day when it still has scenes, else takes the latest. */
async function refreshDates() {
  searching?.abort();
  const ctl = (searching = new AbortController());
  if (timeless(view.collection)) {
    Object.assign(view, { date: null, compare: null });
    $("dates").hidden = true;
    return render();
  }
  $("dates").hidden = false;
  const b = map.getBounds();
  showState($("datesState"), "searching the catalog…");
  try {
    ({ dates, bounds } = await availableDates(
      view.collection,
      [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()],
      view.maxcc,
      ctl.signal,
      origin(),
    ));
  } catch (e) {
    if (e.name !== "AbortError") showError($("datesState"), e);
    return;
  }
  if (!dates.some((d) => d.date === view.date)) view.date = dates.at(-1)?.date ?? null;
  if (view.compare && !dates.some((d) => d.date === view.compare)) view.compare = null;
  month = (view.date ?? new Date().toISOString()).slice(0, 7);
  showState(
    $("datesState"),
    dates.length
      ? `${dates.length} day${dates.length > 1 ? "s" : ""} with scenes here (${dates[0].date} to ${dates.at(-1).date})`
      : "no scenes of this collection in the view: search a place, or go to its data",
  );
  $("toData").hidden = dates.length > 0 || timeless(view.collection);
  drawCalendar();
  $("compareDate").replaceChildren(...dates.map((d) => new Option(d.date, d.date)).reverse());
  if (view.compare) $("compareDate").value = view.compare;
  await render();
}

const drawCalendar = () => {
  $("calMonth").textContent = month;
  drawMonth($("calendar"), month, dates, view.date, (date) => ((view.date = date), drawCalendar(), render()));
};

/** Moves the map to the newest scene of the collection anywhere (Catalog API search, one item). */
async function toData() {
  const page = await json(`${origin()}/api/v1/catalog/1.0.0/search`, {
    method: "POST",
    body: { collections: [view.collection], limit: 1, sortby: [{ field: "properties.datetime", direction: "desc" }] },
  }).catch((e) => (showError($("datesState"), e), null));
  const item = page?.features?.[0];
  if (item?.bbox) goTo({ bbox: item.bbox });
  else if (page) showState($("datesState"), "the catalog lists no scenes of this collection");
}

/** Moves the map to a found place ({bbox} or {point}). */
function goTo(found) {
  if (found.point) map.setView([found.point[1], found.point[0]], 14);
  else
    map.fitBounds([
      [found.bbox[1], found.bbox[0]],
      [found.bbox[3], found.bbox[2]],
    ]);
}

/** Fills the collection list and the places' suggestions. */
function listCollections() {
  $("collection").replaceChildren(...[...collections.values()].map((c) => new Option(c.title, c.id)));
  $("collection").value = view.collection;
  $("placeList").replaceChildren(...places.map((p) => new Option(p.name)));
}

function wirePanel() {
  $("panelToggle").addEventListener("click", () => {
    const open = $("panel").hidden;
    $("panel").hidden = !open;
    $("panelToggle").setAttribute("aria-expanded", String(open));
  });
  $("placeForm").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("place").value;
    const found = searchPlace(text);
    if (!found)
      return showError(
        $("placeState"),
        new Error(`"${text}" is not one of the data's places, nor "lat, lon" or a bbox.`),
      );
    showState(
      $("placeState"),
      found.name ?? (found.bbox ? `bbox ${found.bbox.join(", ")}` : `${found.point[1]}, ${found.point[0]}`),
    );
    goTo(found);
  });
  $("collection").addEventListener("change", async () => {
    view.collection = $("collection").value;
    await showLayers();
    refreshDates();
  });
  $("maxcc").value = String(view.maxcc);
  $("maxccOut").textContent = `${view.maxcc} %`;
  $("maxcc").addEventListener("input", () => ($("maxccOut").textContent = `${$("maxcc").value} %`));
  $("maxcc").addEventListener("change", () => ((view.maxcc = Number($("maxcc").value)), refreshDates()));
  $("toData").addEventListener("click", toData);
  $("calPrev").addEventListener("click", () => ((month = shiftMonth(month, -1)), drawCalendar()));
  $("calNext").addEventListener("click", () => ((month = shiftMonth(month, 1)), drawCalendar()));
  $("compareToggle").addEventListener("click", () => {
    const on = $("compareToggle").getAttribute("aria-pressed") !== "true";
    $("compareToggle").setAttribute("aria-pressed", String(on));
    view.compare = on ? $("compareDate").value || null : null;
    showState($("compareState"), on ? `left of the divider: ${view.compare}; right: ${view.date}` : "");
    render();
  });
  $("compareDate").addEventListener(
    "change",
    () => view.compare && ((view.compare = $("compareDate").value), render()),
  );
  wireActions({ map: () => map, drawn, saveView, dates: () => dates });
}

/** The view as tiles.js / outputs.js take it. */
const drawn = () => ({
  origin: origin(),
  collection: view.collection,
  layer: current(),
  script: window.eoExplore.script,
  date: timeless(view.collection) ? null : view.date,
  maxcc: maxccOf(),
});

/** Builds the map and the panel once logged in; renders the view of the URL. */
async function start() {
  $("loginForm").hidden = true;
  $("explore").hidden = false;
  map = L.map("map", { zoomControl: false }).setView(
    [Number(params.lat ?? DEFAULT.lat), Number(params.lon ?? DEFAULT.lon)],
    Number(params.zoom ?? DEFAULT.zoom),
  );
  window.eoExplore.map = map;
  L.control.zoom({ position: "bottomright" }).addTo(map);
  L.control.scale({ imperial: false, position: "bottomright" }).addTo(map);
  const Label = L.Control.extend({
    onAdd: () => Object.assign(L.DomUtil.create("div", "view-label"), { id: "viewLabel", role: "status" }),
  });
  label = new Label({ position: "topright" }).addTo(map);
  compare = swipe(map);
  // a BYOC collection in the URL is needed first; else the account's list (and the basemap) wait for the first
  // tile, so that their requests do not delay it
  const byoc = view.collection.startsWith("byoc-");
  if (byoc) await addOwnCollections();
  const missing = !collections.has(view.collection) && view.collection;
  if (missing) view.collection = DEFAULT.collection;
  listCollections();
  view.compare = params.compare ?? null;
  $("compareToggle").setAttribute("aria-pressed", String(Boolean(view.compare)));
  wirePanel();
  wireTools(map, {
    view,
    dates: () => dates,
    bands: () => Object.keys(collections.get(view.collection).bandsInfo ?? {}),
    origin,
  });
  await showLayers();
  let timer = null;
  map.on("moveend", () => (clearTimeout(timer), (timer = setTimeout(refreshDates, 300)), saveView()));
  await refreshDates();
  if (missing)
    showError(
      $("placeState"),
      new Error(`Collection ${missing} is not one this account can see: showing ${view.collection}.`),
    );
  await Promise.race([firstTile, new Promise((done) => setTimeout(done, 3000))]);
  countriesLayer(map).then(
    (l) => l.addTo(map),
    () => {},
  );
  if (!byoc) await addOwnCollections(), listCollections();
  document.body.dataset.ready = "1";
}

$("loginForm").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    loginAt = performance.now();
    await login($("clientId").value.trim(), $("clientSecret").value.trim());
    if (!map) return void (await start());
    $("loginForm").hidden = true;
    $("explore").hidden = false;
    drawnAs = null; // tiles refused with the old token are drawn again
    await refreshDates();
  } catch (err) {
    showError($("loginState"), err, $("loginForm"));
  }
});
// an expired or refused token (../api.js): the log-in form again, with why; the view stays as it was
window.addEventListener("eo-session-ended", () => {
  Object.assign($("loginForm"), { hidden: false });
  $("explore").hidden = true;
  showState($("loginState"), takeNotice() ?? "Log in again.");
});
if (window.matchMedia("(max-width: 600px)").matches) {
  $("panel").hidden = true; // a phone shows the map first; ☰ Panel opens the panel
  $("panelToggle").setAttribute("aria-expanded", "false");
}
if (token()) start();
else $("loginForm").hidden = false;

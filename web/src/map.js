// The request builder's Leaflet map: a true-colour base layer (WMTS of a WMS instance the console creates for the
// account on first use, named CONSOLE_INSTANCE), an AOI rectangle drawn by dragging (own small tool, no plugin),
// catalog footprints clickable to their STAC item JSON, and the Process API result as an image overlay.
import L from "leaflet";
import { json } from "./api.js";

const CONSOLE_INSTANCE = "EO Edge console base layer";
const TRUE_COLOR = `//VERSION=3
function setup() { return { input: ["B02", "B03", "B04", "dataMask"], output: { bands: 4 } }; }
function evaluatePixel(s) { return [2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask]; }`;

/** Id of the account's console WMS instance (true-colour Sentinel-2 L2A layer TRUE_COLOR), created when missing. */
async function consoleInstance() {
  const list = await json("/configuration/v1/wms/instances");
  const found = (Array.isArray(list) ? list : list?.data ?? []).find((i) => i.name === CONSOLE_INSTANCE);
  if (found) return found.id;
  const layer = { id: "TRUE_COLOR", title: "True colour", styles: [{ name: "default", evalScript: TRUE_COLOR }], datasourceDefaults: { type: "sentinel-2-l2a", mosaickingOrder: "mostRecent" } };
  return (await json("/configuration/v1/wms/instances", { method: "POST", body: { name: CONSOLE_INSTANCE, layers: [layer] } })).id;
}

/**
 * The address of the location hosting the base layer's Sentinel-2 L2A: the primary location, the first one
 * GET /api/v1/metadata/location lists (the console may be served by another location, which does not host it).
 */
async function primaryOrigin() {
  const list = await json("/api/v1/metadata/location").catch(() => []);
  return list[0]?.url ?? location.origin;
}

/** Leaflet tile layer of the instance's TRUE_COLOR layer as WMTS GetTile (PopularWebMercator256) at `origin`. */
function baseLayer({ id, origin }) {
  const q = new URLSearchParams({ SERVICE: "WMTS", REQUEST: "GetTile", LAYER: "TRUE_COLOR", TILEMATRIXSET: "PopularWebMercator256", FORMAT: "image/png" });
  return L.tileLayer(`${origin}/ogc/wmts/${encodeURIComponent(id)}?${q}&TILEMATRIX={z}&TILECOL={x}&TILEROW={y}`, { maxZoom: 18, attribution: "EO Edge, Copernicus Sentinel data" });
}

/**
 * Creates the map in element `el` at `view` {lat, lon, zoom}; `onAoi(bounds)` is called with a Leaflet LatLngBounds
 * whenever the AOI changes. Returns the map controller used by the request page.
 */
export function createMap(el, view, onAoi) {
  const map = L.map(el, { keyboard: true }).setView([view.lat, view.lon], view.zoom);
  const aoi = L.rectangle([[0, 0], [0, 0]], { color: "#ff7800", weight: 2, fill: false, interactive: false });
  let base = null, overlay = null, footprints = null, drawing = false, start = null, instance;

  const setAoi = (bounds, notify = true) => {
    aoi.setBounds(bounds).addTo(map);
    if (notify) onAoi(bounds);
  };
  map.on("mousedown", (e) => {
    if (!drawing) return;
    start = e.latlng;
    map.dragging.disable();
  });
  map.on("mousemove", (e) => start && setAoi(L.latLngBounds(start, e.latlng), false));
  map.on("mouseup", (e) => {
    if (!start) return;
    setAoi(L.latLngBounds(start, e.latlng));
    start = null;
    map.dragging.enable();
  });

  return {
    map,
    setAoi,
    /** Turns the drag-to-draw AOI mode on or off. */
    setDrawing(on) {
      drawing = on;
      el.classList.toggle("drawing", on);
    },
    /**
     * Shows (creating the instance when needed) or hides the true-colour base layer; resolves to the instance
     * `{id, origin}` (origin: the address of the location serving its maps).
     */
    async showBase(on) {
      instance ??= on ? { id: await consoleInstance(), origin: await primaryOrigin() } : undefined;
      if (on && !base) base = baseLayer(instance);
      if (on) base.addTo(map).bringToBack();
      else base?.remove();
      return instance;
    },
    /** Puts the image `url` over `bounds` (LatLngBounds), replacing the previous result. */
    showImage(url, bounds) {
      overlay?.remove();
      overlay = L.imageOverlay(url, bounds, { className: "result-overlay", alt: "Processing API result" }).addTo(map);
      return new Promise((done) => overlay.once("load", done));
    },
    /** Shows GeoJSON features as footprints; `onClick(feature)` on a click or Enter. */
    showFootprints(features, onClick) {
      footprints?.remove();
      footprints = L.geoJSON({ type: "FeatureCollection", features }, {
        style: { color: "#3388ff", weight: 1, fillOpacity: 0.05 },
        onEachFeature: (f, layer) => {
          layer.bindTooltip(`${f.id} ${f.properties.datetime}`);
          layer.on("click", () => onClick(f));
        },
      }).addTo(map);
    },
  };
}

// The request builder's Leaflet map: an offline country basemap (basemap.js), a true-colour base layer (WMTS of a
// WMS instance the console creates for the account on first use, named CONSOLE_INSTANCE), the AOI (a box dragged or
// a polygon clicked with small own tools, or set from outside), a scale bar and the cursor's coordinates, catalog
// footprints clickable to their STAC item JSON, and the Process API result as an image overlay (opacity, toggle).
import L from "leaflet";
import { json } from "./api.js";
import { countriesLayer } from "./basemap.js";

const CONSOLE_INSTANCE = "EO Edge console base layer";
const TRUE_COLOR = `//VERSION=3
function setup() { return { input: ["B02", "B03", "B04", "dataMask"], output: { bands: 4 } }; }
function evaluatePixel(s) { return [2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask]; }`;
const AOI_STYLE = { color: "#ff7800", weight: 2, fill: false, interactive: false };
/** An image overlay of a given element (a canvas), placed as Leaflet places an SVG overlay's element. */
const CanvasOverlay = L.ImageOverlay.extend({ _initImage: L.SVGOverlay.prototype._initImage });

/** Id of the account's console WMS instance (true-colour Sentinel-2 L2A layer TRUE_COLOR), created when missing. */
async function consoleInstance() {
  const list = await json("/configuration/v1/wms/instances");
  const found = (Array.isArray(list) ? list : (list?.data ?? [])).find((i) => i.name === CONSOLE_INSTANCE);
  if (found) return found.id;
  const layer = {
    id: "TRUE_COLOR",
    title: "True colour",
    styles: [{ name: "default", evalScript: TRUE_COLOR }],
    datasourceDefaults: { type: "sentinel-2-l2a", mosaickingOrder: "mostRecent" },
  };
  return (
    await json("/configuration/v1/wms/instances", { method: "POST", body: { name: CONSOLE_INSTANCE, layers: [layer] } })
  ).id;
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
  const q = new URLSearchParams({
    SERVICE: "WMTS",
    REQUEST: "GetTile",
    LAYER: "TRUE_COLOR",
    TILEMATRIXSET: "PopularWebMercator256",
    FORMAT: "image/png",
  });
  return L.tileLayer(`${origin}/ogc/wmts/${encodeURIComponent(id)}?${q}&TILEMATRIX={z}&TILECOL={x}&TILEROW={y}`, {
    maxZoom: 18,
    attribution: "EO Edge, Copernicus Sentinel data",
  });
}

/** GeoJSON Polygon of a WGS84 bbox [w, s, e, n]. */
export const bboxPolygon = ([w, s, e, n]) => ({
  type: "Polygon",
  coordinates: [
    [
      [w, s],
      [e, s],
      [e, n],
      [w, n],
      [w, s],
    ],
  ],
});

/** A control in the bottom-left corner showing the cursor's latitude and longitude (degrees, 5 decimals). */
function cursorControl(map) {
  const Ctl = L.Control.extend({
    onAdd() {
      const div = L.DomUtil.create("div", "leaflet-control cursor-coords");
      div.id = "cursorCoords";
      div.textContent = "lat, lon";
      map.on("mousemove", (e) => (div.textContent = `${e.latlng.lat.toFixed(5)}, ${e.latlng.wrap().lng.toFixed(5)}`));
      return div;
    },
  });
  return new Ctl({ position: "bottomleft" });
}

/** A control in the top-right corner labelling what the result shows (#resultDate); set("") hides it. */
function dateLabel() {
  const div = L.DomUtil.create("div", "leaflet-control result-date");
  Object.assign(div, { id: "resultDate", hidden: true });
  div.setAttribute("role", "status");
  const Ctl = L.Control.extend({ onAdd: () => div });
  return Object.assign(new Ctl({ position: "topright" }), {
    set: (text) => Object.assign(div, { textContent: text, hidden: !text }),
  });
}

/**
 * The box tool: a drag draws a box; `preview(aoi)` while dragging, `done(aoi)` on release, aoi = {bbox: [w, s, e,
 * n]} (degrees). on() / off() switch it (map dragging is off during a drag).
 */
export function boxTool(map, preview, done) {
  let start = null,
    active = false;
  const boxOf = (a, b) => {
    const r = L.latLngBounds(a, b);
    return { bbox: [r.getWest(), r.getSouth(), r.getEast(), r.getNorth()] };
  };
  map.on("mousedown", (e) => active && ((start = e.latlng), map.dragging.disable()));
  map.on("mousemove", (e) => start && preview(boxOf(start, e.latlng)));
  map.on("mouseup", (e) => {
    if (!start) return;
    const aoi = boxOf(start, e.latlng);
    start = null;
    map.dragging.enable();
    done(aoi);
  });
  return { on: () => (active = true), off: () => ((active = false), (start = null), map.dragging.enable()) };
}

/**
 * The polygon tool: each click adds a vertex, a double click, Enter or a click on the first vertex closes the
 * ring (3 vertices at least), Escape drops it. `done(geometry)` gets a GeoJSON Polygon in lon/lat.
 */
export function polygonTool(map, done) {
  let verts = [],
    line = null;
  const redraw = (extra) => {
    line?.remove();
    line = verts.length
      ? L.polyline(extra ? [...verts, extra] : verts, { ...AOI_STYLE, dashArray: "4 4" }).addTo(map)
      : null;
  };
  const finish = () => {
    const ring = verts.filter((p, i) => i === 0 || !p.equals(verts[i - 1], 1e-9));
    verts = [];
    redraw();
    if (ring.length >= 3) done({ type: "Polygon", coordinates: [[...ring, ring[0]].map((p) => [p.lng, p.lat])] });
  };
  const close = (px) => verts.length >= 3 && map.latLngToContainerPoint(verts[0]).distanceTo(px) < 8;
  const handlers = {
    click: (e) => (close(e.containerPoint) ? finish() : (verts.push(e.latlng), redraw())),
    mousemove: (e) => verts.length && redraw(e.latlng),
    dblclick: (e) => (L.DomEvent.stop(e), finish()),
    keydown: (e) =>
      e.originalEvent.key === "Enter" ? finish() : e.originalEvent.key === "Escape" && ((verts = []), redraw()),
  };
  return {
    on: () => (map.doubleClickZoom.disable(), map.on(handlers)),
    off: () => (map.off(handlers), map.doubleClickZoom.enable(), (verts = []), redraw()),
  };
}

/**
 * Creates the map in element `el` at `view` {lat, lon, zoom}; `onAoi(aoi)` is called with {bbox: [w, s, e, n]} or
 * {geometry} (GeoJSON Polygon, lon/lat) whenever the user draws an AOI. Returns the controller of the request page.
 */
export function createMap(el, view, onAoi) {
  const map = L.map(el, { keyboard: true }).setView([view.lat, view.lon], view.zoom);
  L.control.scale({ imperial: false, maxWidth: 150 }).addTo(map);
  cursorControl(map).addTo(map);
  const aoiLayer = L.geoJSON(null, { style: AOI_STYLE, interactive: false }).addTo(map);
  let base = null,
    overlay = null,
    footprints = null,
    countries = null,
    mode = null,
    instance;
  let opacity = 1,
    resultOn = true;
  const label = dateLabel().addTo(map);

  const setAoi = (aoi, notify = true) => {
    aoiLayer.clearLayers().addData(aoi.geometry ?? bboxPolygon(aoi.bbox));
    if (notify) onAoi(aoi);
  };
  const tools = {
    box: boxTool(
      map,
      (aoi) => setAoi(aoi, false),
      (aoi) => setAoi(aoi),
    ),
    polygon: polygonTool(map, (geometry) => setAoi({ geometry })),
  };

  return {
    map,
    setAoi,
    /** Drawing mode: "box" (drag), "polygon" (click vertices) or null (pan). */
    setDrawing(next) {
      tools[mode]?.off();
      mode = next;
      tools[mode]?.on();
      el.classList.toggle("drawing", Boolean(mode));
    },
    /** Fits the view to a WGS84 bbox [w, s, e, n]. */
    fit: ([w, s, e, n]) =>
      map.fitBounds(
        [
          [s, w],
          [n, e],
        ],
        { padding: [20, 20], maxZoom: 16 },
      ),
    /** Shows or hides the country outlines (loaded on first show). */
    async showBasemap(on) {
      if (on) (countries ??= await countriesLayer(map)).addTo(map);
      else countries?.remove();
    },
    /**
     * Shows (creating the instance when needed) or hides the true-colour base layer; resolves to the instance
     * `{id, origin}` (origin: the address of the location serving its maps).
     */
    async showBase(on) {
      // one lookup (or creation) for every call, also when off (its OGC URLs): calls may overlap
      instance ??= (async () => ({ id: await consoleInstance(), origin: await primaryOrigin() }))();
      const found = await instance.catch((err) => ((instance = undefined), Promise.reject(err)));
      if (on && !base) base = baseLayer(found);
      if (on) base.addTo(map).bringToBack();
      else base?.remove();
      return found;
    },
    /**
     * Puts `canvas` (the decoded result, result.js) over `bounds` (LatLngBounds), replacing the previous result.
     * A canvas rather than an <img> of the file's object URL: loading that URL took 3-5 ms more per run.
     */
    showImage(canvas, bounds) {
      overlay?.remove();
      canvas.setAttribute("role", "img");
      canvas.setAttribute("aria-label", "Processing API result");
      overlay = new CanvasOverlay(canvas, bounds, { className: "result-overlay", opacity });
      if (resultOn) overlay.addTo(map);
    },
    /** Shows `text` (the collection and dates of the drawn result) in the map's label; "" hides the label. */
    showLabel: (text) => label.set(text),
    /** Removes the result overlay (a failed or cancelled run leaves no old result on the map). */
    clearImage: () => (overlay?.remove(), (overlay = null)),
    /** Result overlay opacity 0..1. */
    setOpacity: (v) => ((opacity = v), overlay?.setOpacity(v)),
    /** Shows or hides the result overlay. */
    showResult: (on) => ((resultOn = on), overlay && (on ? overlay.addTo(map) : overlay.remove())),
    /** Shows GeoJSON features as footprints; `onClick(feature)` on a click. */
    showFootprints(features, onClick) {
      footprints?.remove();
      footprints = L.geoJSON(
        { type: "FeatureCollection", features },
        {
          style: { color: "#3388ff", weight: 1, fillOpacity: 0 }, // outlines only: a tile's stacked fills tinted results
          onEachFeature: (f, layer) => {
            layer.bindTooltip(`${f.id} ${f.properties.datetime}`);
            layer.on("click", () => onClick(f));
          },
        },
      ).addTo(map);
    },
  };
}

// Small Leaflet maps of the statistics, batch and collections pages: one overlay group whose content a page
// replaces (AOI rectangle, tiling-grid tiles, collection extents) and a view fitted to it, over the builder's offline
// basemap (Natural Earth country outlines, ./basemap.js) so the overlays show where on Earth they are.
import L from "leaflet";
import { countriesLayer } from "./basemap.js";

/**
 * A map in element `el` (created once) with the country outlines (loaded in the background; a failed load leaves
 * the overlays on a blank map and sets `el.dataset.basemapError`); `show(layers)` replaces the overlays and fits the
 * view to them.
 */
export function miniMap(el) {
  const map = L.map(el, { zoomSnap: 0.25, attributionControl: false }).setView([30, 0], 2);
  L.control.scale({ imperial: false }).addTo(map);
  countriesLayer(map).then(
    (l) => (l.addTo(map), (el.dataset.basemap = "1")),
    (err) => (el.dataset.basemapError = err.message),
  );
  const group = L.featureGroup().addTo(map);
  const fit = () => {
    const b = group.getBounds();
    if (b.isValid()) map.fitBounds(b, { padding: [12, 12], maxZoom: 16, animate: false });
  };
  map.on("resize", fit); // a phone turned or a window resized: the overlays stay in view
  return {
    map,
    /** Replaces the overlays by `layers` (Leaflet layers) and fits the view to them (when there are any). */
    show(layers) {
      group.clearLayers();
      for (const l of layers) group.addLayer(l);
      map.invalidateSize();
      fit();
    },
  };
}

/** A Leaflet rectangle of a WGS84 bbox [west, south, east, north] (degrees). */
export const bboxLayer = ([w, s, e, n], style = {}) =>
  L.rectangle(
    [
      [s, w],
      [n, e],
    ],
    { weight: 2, fillOpacity: 0.1, ...style },
  );

/**
 * The request builder's AOI as [w, s, e, n] degrees: the Leaflet bounds its request gives (any output CRS, box or
 * polygon), else its request's bbox in CRS84/EPSG:4326 or EPSG:3857; null before the builder was opened.
 */
export function builderAoi() {
  const req = window.eoConsole.request?.();
  if (req?.bounds?.getWest)
    return [req.bounds.getWest(), req.bounds.getSouth(), req.bounds.getEast(), req.bounds.getNorth()];
  const bounds = req?.body?.input?.bounds;
  const bbox = bounds?.bbox;
  if (!bbox) return null;
  if (!/3857/.test(bounds.properties?.crs ?? "")) return bbox;
  const [a, b] = [
    L.CRS.EPSG3857.unproject(L.point(bbox[0], bbox[1])),
    L.CRS.EPSG3857.unproject(L.point(bbox[2], bbox[3])),
  ];
  return [a.lng, a.lat, b.lng, b.lat];
}

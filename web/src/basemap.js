// The offline basemap of the request builder: Natural Earth's country outlines (npm world-atlas, 1:50m TopoJSON,
// copied to web/vendor/basemap/ by scripts/build-web.mjs) drawn as vector polygons in their own pane under the tiles,
// so the map shows where it is everywhere, also away from the sample data and without internet access.
import L from "leaflet";
import { feature } from "topojson-client";

let topology = null;
/** The countries' TopoJSON, fetched once (prefetchBasemap starts it early: the log-in page, off the first render's path). */
export const prefetchBasemap = () =>
  (topology ??= fetch("/vendor/basemap/countries-50m.json")
    .then((r) => r.json())
    .catch((err) => ((topology = null), Promise.reject(err))));

/** Resolves to a non-interactive Leaflet GeoJSON layer of the world's countries in pane `basemap` of `map`. */
export async function countriesLayer(map) {
  if (!map.getPane("basemap")) map.createPane("basemap").style.zIndex = "150"; // under the tile pane (200)
  const topo = await prefetchBasemap();
  return L.geoJSON(feature(topo, topo.objects.countries), {
    pane: "basemap",
    interactive: false,
    style: { color: "#8a9ba3", weight: 1, fillColor: "#eef0e8", fillOpacity: 1 },
  });
}

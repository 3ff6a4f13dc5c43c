// The offline basemap of the request builder: Natural Earth's country outlines (npm world-atlas, 1:50m TopoJSON,
// copied to web/vendor/basemap/ by scripts/build-web.mjs) drawn as vector polygons in their own pane under the tiles,
// so the map shows where it is everywhere, also away from the sample data and without internet access.
import L from "leaflet";
import { feature } from "topojson-client";

/** Resolves to a non-interactive Leaflet GeoJSON layer of the world's countries in pane `basemap` of `map`. */
export async function countriesLayer(map) {
  if (!map.getPane("basemap")) map.createPane("basemap").style.zIndex = "150"; // under the tile pane (200)
  const topo = await (await fetch("/vendor/basemap/countries-50m.json")).json();
  return L.geoJSON(feature(topo, topo.objects.countries), {
    pane: "basemap",
    interactive: false,
    style: { color: "#8a9ba3", weight: 1, fillColor: "#eef0e8", fillOpacity: 1 },
  });
}

// The request builder's map tools: drawing modes, layers (basemap, true-colour base, result opacity and toggle),
// footprints, zoom to data, place and coordinate search (places.js), GeoJSON upload and the typed bbox fields.
import { showError, showState } from "./api.js";
import { aoiOfGeoJson } from "./panels.js";
import { findPlace, PLACES } from "./places.js";

const $ = (id) => document.getElementById(id);
/** localStorage key of the "Render on change" choice. */
export const AUTO_RENDER = "eo-edge-auto-render";

/**
 * Wires the map tools of the request page to the map controller `ctl` (map.js) and the page's actions `page`:
 * {setAoi(aoi, {fit}), zoomToData(collection), footprints(), changed()}.
 */
export function wireMapTools(ctl, { setAoi, zoomToData, footprints, changed }) {
  const tools = { drawAoi: "box", drawPolygon: "polygon" };
  for (const [id, mode] of Object.entries(tools)) {
    $(id).addEventListener("click", () => {
      const on = $(id).getAttribute("aria-pressed") !== "true";
      for (const other of Object.keys(tools)) $(other).setAttribute("aria-pressed", String(on && other === id));
      ctl.setDrawing(on ? mode : null);
    });
  }
  $("basemap").addEventListener("change", () => ctl.showBasemap($("basemap").checked));
  $("baseLayer").addEventListener("change", () =>
    ctl.showBase($("baseLayer").checked).then(
      (i) => i && showOgcUrls(i),
      (err) => showError($("mapState"), err),
    ),
  );
  $("showResult").addEventListener("change", () => ctl.showResult($("showResult").checked));
  // automatic rendering (request.js autoRun): on unless turned off, the choice kept in this browser
  $("autoRender").checked = localStorage.getItem(AUTO_RENDER) !== "0";
  $("autoRender").addEventListener("change", () =>
    localStorage.setItem(AUTO_RENDER, $("autoRender").checked ? "1" : "0"),
  );
  $("opacity").addEventListener("input", () => ctl.setOpacity(Number($("opacity").value) / 100));
  $("footprints").addEventListener("click", footprints);
  $("zoomData").addEventListener("click", () =>
    zoomToData($("collection").value).catch((err) => showError($("mapState"), err)),
  );
  $("placeList").replaceChildren(...PLACES.map((p) => new Option(p.name)));
  $("placeForm").addEventListener("submit", (e) => {
    e.preventDefault();
    const found = findPlace($("placeSearch").value);
    if (!found)
      return showError(
        $("mapState"),
        new Error(
          `"${$("placeSearch").value}": not a "lat, lon", a bbox "w, s, e, n" or a sample place (offline gazetteer: ${PLACES.length} places, listed in the field)`,
        ),
      );
    if (found.point)
      ctl.map.setView([found.point[1], found.point[0]], Math.max(ctl.map.getZoom(), 12), { animate: false });
    else setAoi({ bbox: found.bbox }, { fit: true });
    showState(
      $("mapState"),
      found.name ?? (found.point ? `centred on ${found.point[1]}, ${found.point[0]}` : "AOI set to the bbox"),
    );
  });
  $("aoiFile").addEventListener("change", async () => {
    const file = $("aoiFile").files[0];
    if (!file) return;
    try {
      setAoi(aoiOfGeoJson(await file.text()), { fit: true });
      showState($("mapState"), `AOI from ${file.name}`);
    } catch (err) {
      showError($("mapState"), new Error(`${file.name}: ${err.message}`));
    }
    $("aoiFile").value = "";
  });
  for (const k of ["west", "south", "east", "north"]) {
    $(k).addEventListener("change", () => {
      const v = ["west", "south", "east", "north"].map((f) => Number($(f).value));
      if (v.every(Number.isFinite) && v[0] < v[2] && v[1] < v[3]) setAoi({ bbox: v }, { fit: true });
    });
  }
  ctl.map.on("zoomend moveend", () => $("sizeMode").value === "map" && changed());
}

/** Shows the GetCapabilities URLs of the base layer's WMS instance `{id, origin}` (QGIS, GDAL, OWSLib take them). */
export function showOgcUrls({ id: instance, origin }) {
  for (const [id, service] of [
    ["wmsCaps", "wms"],
    ["wmtsCaps", "wmts"],
  ]) {
    const url = `${origin}/ogc/${service}/${encodeURIComponent(instance)}?SERVICE=${service.toUpperCase()}&REQUEST=GetCapabilities`;
    Object.assign($(id), { href: url, textContent: url });
  }
  $("ogcUrls").hidden = false;
}

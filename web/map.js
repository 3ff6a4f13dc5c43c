// web/map.html: Leaflet showing a WMS instance layer as XYZ tiles (WMTS GetTile, the default) or WMS GetMap.
// It uses the console's session (the token in sessionStorage `eo-edge-token`, set by logging in at /): the
// account's instances and their layers are listed, a true-colour instance can be created, and the GetCapabilities
// URLs of the shown instance (for QGIS, GDAL, OWSLib) can be copied. Without a session it links to the console.
// URL parameters: instance, layer, time, lat, lon, zoom, mode=xyz|wms (the browser checks open it with them).
/* global L */
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const map = (window.eoMap = L.map("map")).setView(
  [Number(params.get("lat") ?? 24.65), Number(params.get("lon") ?? -11.4)],
  Number(params.get("zoom") ?? 10),
);
L.control.scale({ imperial: false }).addTo(map);
const token = sessionStorage.getItem("eo-edge-token");
let layers = [];
let control;
let listed = [];

/** JSON of a Configuration API call with the console's token; throws with the error envelope's message. */
async function api(path, init = {}) {
  const r = await fetch(path, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });
  const body = await r.json().catch(() => null);
  if (!r.ok) throw new Error(`${r.status}: ${body?.error?.message ?? r.statusText}`);
  return body;
}

/** Tile URL template of the XYZ layer: WMTS KVP GetTile, z/x/y = TILEMATRIX/TILECOL/TILEROW. */
function xyzUrl(instance, layer, time) {
  const q = new URLSearchParams({
    SERVICE: "WMTS",
    REQUEST: "GetTile",
    LAYER: layer,
    TILEMATRIXSET: "PopularWebMercator256",
    FORMAT: "image/png",
  });
  if (time) q.set("TIME", time);
  return `/ogc/wmts/${encodeURIComponent(instance)}?${q}&TILEMATRIX={z}&TILECOL={x}&TILEROW={y}`;
}

/** Shows the instance's WMS and WMTS GetCapabilities URLs with their copy buttons. */
function showCaps(instance) {
  for (const [service, id] of [
    ["wms", "Wms"],
    ["wmts", "Wmts"],
  ]) {
    $(`${service}CapsUrl`).textContent =
      `${location.origin}/ogc/${service}/${encodeURIComponent(instance)}?SERVICE=${service.toUpperCase()}&REQUEST=GetCapabilities`;
    $(`caps${id}`).hidden = false;
  }
}

/** Shows `layer` of `instance` as XYZ tiles and (switchable) WMS; counts tile loads and errors in #mapState. */
function show(instance, layer, time, mode) {
  for (const l of layers) map.removeLayer(l);
  if (control) map.removeControl(control);
  const xyz = L.tileLayer(xyzUrl(instance, layer, time), {
    tileSize: 256,
    maxZoom: 18,
    attribution: "EO Edge, Copernicus Sentinel data",
  });
  const wms = L.tileLayer.wms(`/ogc/wms/${encodeURIComponent(instance)}`, {
    layers: layer,
    format: "image/png",
    transparent: true,
    version: "1.3.0",
    ...(time ? { time } : {}),
  });
  layers = [xyz, wms];
  let loaded = 0;
  let failed = 0;
  const report = () => ($("mapState").textContent = `${loaded} tiles loaded, ${failed} failed`);
  for (const l of layers) {
    l.on("tileload", () => (loaded++, report()));
    l.on("tileerror", () => (failed++, report()));
    l.on("load", () => document.body.setAttribute("data-map-loaded", String(loaded)));
  }
  (mode === "wms" ? wms : xyz).addTo(map);
  control = L.control.layers({ "XYZ tiles (WMTS GetTile)": xyz, "WMS 1.3.0 GetMap": wms }).addTo(map);
  showCaps(instance);
}

/** Fills the layer list with the layers of the chosen instance (ids: the last word of each layer's @id). */
function fillLayers(keep) {
  const inst = listed.find((i) => i.id === $("instance").value.trim());
  const ids = inst ? inst.layers.map((l) => l["@id"]?.split("/").pop() ?? l.id) : [keep || "TRUE_COLOR"];
  $("layerList").replaceChildren(...ids.map((id) => new Option(id, id)));
  if (keep && ids.includes(keep)) $("layerList").value = keep;
}

/** Lists the account's instances (with the console's token). */
async function listInstances(select) {
  listed = await api("/configuration/v1/wms/instances");
  $("instances").replaceChildren(
    new Option(`(${listed.length} instances)`, ""),
    ...listed.map((i) => new Option(`${i.name} (${i.id.slice(0, 8)})`, i.id)),
  );
  if (select) $("instances").value = select;
}

const TRUE_COLOR = `//VERSION=3
function setup() { return { input: ["B02", "B03", "B04", "dataMask"], output: { bands: 4 } }; }
function evaluatePixel(s) { return [2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask]; }`;

/** Creates an instance with a true-colour Sentinel-2 L2A layer and shows it. */
async function createTrueColour() {
  const layer = {
    id: "TRUE_COLOR",
    title: "True colour",
    styles: [{ name: "default", evalScript: TRUE_COLOR }],
    datasourceDefaults: { type: "sentinel-2-l2a", mosaickingOrder: "mostRecent" },
  };
  const { id } = await api("/configuration/v1/wms/instances", {
    method: "POST",
    body: JSON.stringify({ name: "map page", layers: [layer] }),
  });
  await listInstances(id);
  $("instance").value = id;
  fillLayers("TRUE_COLOR");
  $("session").textContent = `created instance ${id}`;
  show(id, "TRUE_COLOR", $("time").value.trim(), "xyz");
}

$("show").addEventListener("submit", (e) => {
  e.preventDefault();
  show($("instance").value.trim(), $("layerList").value, $("time").value.trim(), "xyz");
});
$("instances").addEventListener("change", () => (($("instance").value = $("instances").value), fillLayers()));
$("instance").addEventListener("change", () => fillLayers());
$("createTrueColour").addEventListener("click", () =>
  createTrueColour().catch((err) => ($("session").textContent = String(err.message))),
);
for (const [button, code] of [
  ["copyWms", "wmsCapsUrl"],
  ["copyWmts", "wmtsCapsUrl"],
]) {
  $(button).addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($(code).textContent);
      $(button).textContent = "Copied";
    } catch {
      getSelection().selectAllChildren($(code)); // no clipboard access: selected for Ctrl+C
      $(button).textContent = "Selected: press Ctrl+C";
    }
    setTimeout(() => ($(button).textContent = "Copy"), 2000);
  });
}

/** Writes `before`, a link to the console's log-in page labelled `link`, and `after` into #session. */
function note(before, link, after = ".") {
  const a = Object.assign(document.createElement("a"), { href: "/#login", textContent: link });
  $("session").replaceChildren(before, a, after);
}

(async () => {
  const wanted = params.get("instance");
  if (wanted) $("instance").value = wanted;
  $("time").value = params.get("time") ?? "";
  if (token) {
    $("createTrueColour").hidden = false;
    try {
      await listInstances(wanted);
      $("session").textContent = "Using the console's session.";
    } catch (err) {
      note(`The console's session could not list the instances (${err.message}): `, "log in again");
    }
  } else {
    note(
      "Not logged in: ",
      "log in at the console",
      " to list and create instances, or paste an instance id (it is the credential of the OGC URLs).",
    );
  }
  fillLayers(params.get("layer") ?? "TRUE_COLOR");
  if (wanted) show(wanted, $("layerList").value, $("time").value, params.get("mode") ?? "xyz");
})();

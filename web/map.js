// web/map.html: Leaflet showing a WMS instance layer as XYZ tiles (WMTS GetTile, the default) or WMS GetMap.
// URL parameters: instance, layer, time, lat, lon, zoom, mode=xyz|wms (the browser check opens it with them).
/* global L */
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const map = (window.eoMap = L.map("map")).setView([Number(params.get("lat") ?? 24.65), Number(params.get("lon") ?? -11.4)], Number(params.get("zoom") ?? 10));
let layers = [];
let control;

/** Tile URL template of the XYZ layer: WMTS KVP GetTile, z/x/y = TILEMATRIX/TILECOL/TILEROW. */
function xyzUrl(instance, layer, time) {
  const q = new URLSearchParams({ SERVICE: "WMTS", REQUEST: "GetTile", LAYER: layer, TILEMATRIXSET: "PopularWebMercator256", FORMAT: "image/png" });
  if (time) q.set("TIME", time);
  return `/ogc/wmts/${encodeURIComponent(instance)}?${q}&TILEMATRIX={z}&TILECOL={x}&TILEROW={y}`;
}

/** Shows `layer` of `instance` as XYZ tiles and (switchable) WMS; counts tile loads and errors in #mapState. */
function show(instance, layer, time, mode) {
  for (const l of layers) map.removeLayer(l);
  if (control) map.removeControl(control);
  const xyz = L.tileLayer(xyzUrl(instance, layer, time), { tileSize: 256, maxZoom: 18, attribution: "EO Edge, Copernicus Sentinel data" });
  const wms = L.tileLayer.wms(`/ogc/wms/${encodeURIComponent(instance)}`, { layers: layer, format: "image/png", transparent: true, version: "1.3.0", ...(time ? { time } : {}) });
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
}

$("show").addEventListener("submit", (e) => {
  e.preventDefault();
  show($("instance").value.trim(), $("layer").value.trim(), $("time").value.trim(), "xyz");
});

const TRUE_COLOR = `//VERSION=3
function setup() { return { input: ["B02", "B03", "B04", "dataMask"], output: { bands: 4 } }; }
function evaluatePixel(s) { return [2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask]; }`;

$("create").addEventListener("submit", async (e) => {
  e.preventDefault();
  const state = $("createState");
  try {
    const form = new URLSearchParams({ grant_type: "client_credentials", client_id: $("clientId").value, client_secret: $("clientSecret").value });
    const t = await fetch("/auth/realms/main/protocol/openid-connect/token", { method: "POST", body: form });
    if (!t.ok) throw new Error(`token: ${t.status}`);
    const { access_token } = await t.json();
    const layer = { id: "TRUE_COLOR", title: "True colour", styles: [{ name: "default", evalScript: TRUE_COLOR }], datasourceDefaults: { type: "sentinel-2-l2a", mosaickingOrder: "mostRecent" } };
    const r = await fetch("/configuration/v1/wms/instances", {
      method: "POST",
      headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "map page", layers: [layer] }),
    });
    if (r.status !== 201) throw new Error(`create: ${r.status} ${await r.text()}`);
    const { id } = await r.json();
    $("instance").value = id;
    state.textContent = `instance ${id}`;
    show(id, "TRUE_COLOR", $("time").value.trim(), "xyz");
  } catch (err) {
    state.textContent = String(err);
  }
});

if (params.get("instance")) {
  $("instance").value = params.get("instance");
  $("layer").value = params.get("layer") ?? "TRUE_COLOR";
  $("time").value = params.get("time") ?? "";
  show(params.get("instance"), $("layer").value, $("time").value, params.get("mode") ?? "xyz");
}

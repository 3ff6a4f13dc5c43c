// Map tiles of the exploration view from the service's Process API: a Leaflet GridLayer whose every 256 px tile is
// one POST /api/v1/process over the tile's EPSG:3857 bbox (the map's grid: tiles sit on it exactly), for the view's
// collection, evalscript and day (timeRange of that UTC day, lowest cloud cover first under maxCloudCoverage).
// The DEM hillshade asks the elevations (FLOAT32 GeoTIFF) of the tile grown by one pixel each side and shades them
// here (hillshade.js). Tiles are <img class="explore-tile"> (data-date, data-layer, data-bbox) for the checks.
import L from "leaflet";
import { fromArrayBuffer } from "geotiff";
import { call } from "../api.js";
import { hillshade } from "./hillshade.js";

export const CRS3857 = "http://www.opengis.net/def/crs/EPSG/0/3857";

/**
 * The Process API request body of `view` = {collection, script, date ("YYYY-MM-DD" or null: no time filter),
 * maxcc (0..100, or null)} over `bbox` (EPSG:3857 metres [minx, miny, maxx, maxy]) at width x height px in `format`
 * (a MIME type). Sentinel Hub's request shape (input.bounds + data[].dataFilter, output.responses).
 */
export function processBody(view, bbox, width, height, format = "image/png") {
  const dataFilter = {};
  if (view.date) dataFilter.timeRange = { from: `${view.date}T00:00:00Z`, to: `${view.date}T23:59:59Z` };
  if (view.maxcc != null) dataFilter.maxCloudCoverage = view.maxcc;
  if (view.date) dataFilter.mosaickingOrder = "leastCC";
  return {
    input: {
      bounds: { bbox: bbox.map((v) => +v.toFixed(3)), properties: { crs: CRS3857 } },
      data: [{ type: view.collection, dataFilter }],
    },
    output: { width, height, responses: [{ identifier: "default", format: { type: format } }] },
    evalscript: view.script,
  };
}

/** EPSG:3857 bbox of tile `coords` ({x, y, z}) of the map's 256 px grid, grown by `pad` pixels each side. */
function tileBbox(map, coords, pad = 0) {
  const nw = L.point(coords.x * 256 - pad, coords.y * 256 - pad);
  const se = L.point((coords.x + 1) * 256 + pad, (coords.y + 1) * 256 + pad);
  const [a, b] = [map.unproject(nw, coords.z), map.unproject(se, coords.z)].map((ll) => L.CRS.EPSG3857.project(ll));
  return [a.x, b.y, b.x, a.y];
}

/** PNG blob of the hillshade of the elevations of the tile grown by one pixel (FLOAT32 GeoTIFF `tiff`). */
async function shadedTile(tiff, bbox) {
  const image = await (await fromArrayBuffer(tiff)).getImage();
  const [dem] = await image.readRasters();
  const lat = L.CRS.EPSG3857.unproject(L.point(0, (bbox[1] + bbox[3]) / 2)).lat;
  const cell = ((bbox[2] - bbox[0]) / 258) * Math.cos((lat * Math.PI) / 180); // ground metres per pixel
  const shade = hillshade(dem, 258, 258, cell);
  const canvas = Object.assign(document.createElement("canvas"), { width: 256, height: 256 });
  const g = canvas.getContext("2d");
  const img = g.createImageData(256, 256);
  for (let i = 0; i < shade.length; i++) {
    const v = shade[i];
    img.data.set(Number.isNaN(v) ? [0, 0, 0, 0] : [v, v, v, 255], i * 4);
  }
  g.putImageData(img, 0, 0);
  return new Promise((done) => canvas.toBlob(done, "image/png"));
}

/**
 * A GridLayer of `view` ({collection, layer: {id, hillshade?}, script, date, maxcc, origin: the address of the
 * location hosting the collection, "" or undefined for this one}) on the map's grid, limited
 * to `bounds` (L.LatLngBounds of the data, or undefined), in `pane`. `onTile(img)` is called as each tile is drawn,
 * `onError(err)` when one fails.
 */
export function processLayer(view, { bounds, pane = "tilePane", onTile = () => {}, onError = () => {} } = {}) {
  const aborts = new AbortController();
  const Layer = L.GridLayer.extend({
    createTile(coords, done) {
      const img = Object.assign(document.createElement("img"), { className: "explore-tile", alt: "" });
      Object.assign(img.dataset, { date: view.date ?? "", layer: view.layer.id, collection: view.collection });
      const map = this._map;
      const shaded = view.layer.hillshade;
      const bbox = tileBbox(map, coords, shaded ? 1 : 0);
      const size = shaded ? 258 : 256;
      const body = processBody(view, bbox, size, size, shaded ? "image/tiff" : "image/png");
      img.dataset.bbox = body.input.bounds.bbox.join(","); // the request's EPSG:3857 bbox (grown by 1 px: hillshade)
      call(`${view.origin ?? ""}/api/v1/process`, { method: "POST", body, signal: aborts.signal })
        .then(async (r) => (shaded ? shadedTile(await r.arrayBuffer(), bbox) : r.blob()))
        .then((blob) => {
          img.onload = () => (URL.revokeObjectURL(img.src), onTile(img), done(null, img));
          img.src = URL.createObjectURL(blob);
        })
        .catch((e) => {
          if (e.name !== "AbortError") onError(e);
          done(e, img);
        });
      return img;
    },
  });
  const layer = new Layer({
    bounds,
    pane,
    maxZoom: 18,
    attribution: "EO Edge: Copernicus Sentinel, USGS Landsat, Copernicus DEM",
  });
  layer.on("remove", () => aborts.abort());
  return layer;
}

// What the exploration view hands on: a download of the view (Process API, chosen resolution and format), the
// share link (the view's URL parameters, never the token), the view as a request of the request builder
// (/#builder?request=<base64url of the Process API body>) and a time-lapse (exportTimelapse of ../timelapse.js).
import L from "leaflet";
import { call } from "../api.js";
import { exportTimelapse } from "../timelapse.js";
import { processBody } from "./tiles.js";

/** Most pixels a side of a download (the Process API's own limit is 2500). */
export const MAX_SIDE = 2500;
const EXT = { "image/png": "png", "image/jpeg": "jpg", "image/tiff": "tif", index: "tif" };

/** True when `script` declares an output "index" (EO Browser's scripts: the index values as FLOAT32). */
export const hasIndex = (script) => /\bid\s*:\s*(["'])index\1/.test(script ?? "");

/** EPSG:3857 bbox [minx, miny, maxx, maxy] (metres) of what `map` shows. */
export function viewBbox(map) {
  const b = map.getBounds();
  const [sw, ne] = [b.getSouthWest(), b.getNorthEast()].map((ll) => L.CRS.EPSG3857.project(ll));
  return [sw.x, sw.y, ne.x, ne.y];
}

/**
 * {width, height, res} of a download of `bbox` (EPSG:3857 m) at `res` m/px, or throws when a side would exceed
 * MAX_SIDE px (the message says the coarsest resolution that fits).
 */
export function downloadSize(bbox, res) {
  if (!(res > 0)) throw new Error("The resolution must be a positive number of metres per pixel.");
  const [w, h] = [(bbox[2] - bbox[0]) / res, (bbox[3] - bbox[1]) / res].map(Math.round);
  if (Math.max(w, h) > MAX_SIDE)
    throw new Error(
      `At ${res} m/px the view is ${w} x ${h} px, more than ${MAX_SIDE} px a side: use ${Math.ceil(Math.max(bbox[2] - bbox[0], bbox[3] - bbox[1]) / MAX_SIDE)} m/px or more, or zoom in.`,
    );
  return { width: Math.max(1, w), height: Math.max(1, h), res };
}

/**
 * Downloads `view` over the map's view at `res` m/px in `format`: a MIME type (the drawn image), or "index" (the
 * script's FLOAT32 output "index" as GeoTIFF, EO Browser's analytical download); resolves to {name, bytes, width,
 * height}.
 */
export async function downloadView(map, view, res, format) {
  const bbox = viewBbox(map);
  const { width, height } = downloadSize(bbox, res);
  const type = format === "index" ? "image/tiff" : format;
  const body = processBody(view, bbox, width, height, type);
  if (format === "index") body.output.responses[0].identifier = "index";
  const blob = await (await call(`${view.origin ?? ""}/api/v1/process`, { method: "POST", body, accept: type })).blob();
  const kind = format === "index" ? "_index" : "";
  const name = `${view.collection}_${view.layer.id}${kind}_${view.date ?? "dem"}_${res}m.${EXT[format]}`;
  const a = Object.assign(document.createElement("a"), { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
  return { name, bytes: blob.size, width, height };
}

/** base64url of the UTF-8 bytes of `text` (RFC 4648 section 5, no padding). */
export function base64url(text) {
  let bin = "";
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The request builder's address of the Process API request of the view (as drawn: the map's size in pixels). */
export function builderUrl(map, view) {
  const size = map.getSize();
  const body = processBody(view, viewBbox(map), size.x, size.y, "image/png");
  return `${location.origin}/#builder?request=${base64url(JSON.stringify(body))}`;
}

/** The share link of `params` (URLSearchParams-able: collection, layer, date, lat, lon, zoom, maxcc, ...). */
export const shareUrl = (params) => `${location.origin}${location.pathname}?${new URLSearchParams(params)}`;

/**
 * Exports a time-lapse of `view` over the map's view for `dates` (YYYY-MM-DD) as `format` (gif | mp4 | webm) with
 * ../timelapse.js (400 px on the longer side; the bbox clamped to the world, since a zoomed-out Leaflet view reaches
 * past +-180 degrees); saves the file; `onProgress(done, total)` is passed on.
 */
export async function exportView(map, view, dates, format, token, onProgress) {
  const b = map.getBounds();
  const size = map.getSize();
  const scale = 400 / Math.max(size.x, size.y);
  const blob = await exportTimelapse({
    token,
    collection: view.collection,
    evalscript: view.script,
    bbox: [
      Math.max(b.getWest(), -180),
      Math.max(b.getSouth(), -90),
      Math.min(b.getEast(), 180),
      Math.min(b.getNorth(), 90),
    ],
    dates,
    width: Math.round(size.x * scale),
    height: Math.round(size.y * scale),
    format,
    onProgress,
  });
  const a = Object.assign(document.createElement("a"), {
    href: URL.createObjectURL(blob),
    download: `${view.collection}_${view.layer.id}_timelapse.${format}`,
  });
  document.body.append(a);
  a.click();
  a.remove();
  return blob;
}

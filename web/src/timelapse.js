// Time-lapse export of the console: one Processing API PNG per date over a WGS84 bbox, the dates without data
// skipped, the date and an "EO Edge" attribution burnt into each frame on a canvas, encoded as an animated GIF
// (gifenc) or a video (WebCodecs VideoEncoder with mp4-muxer / webm-muxer: timelapse-encode.js). Used by the
// explore page and by the request builder's Time-lapse dialog (timelapse-panel.js).
import { ApiError } from "./api.js";
import { gifWriter, videoWriter } from "./timelapse-encode.js";

/** Processing API requests of one export in flight at once (each frame is one synchronous request). */
export const PARALLEL = 3;
/** Largest frame side: the synchronous Processing API's limit (src/pipeline/plan.ts MAX_SYNC_SIZE). */
export const MAX_SIDE = 2500;
/** The Processing API's CRS URL of EPSG:4326 (bbox in longitude, latitude order, as Sentinel Hub reads it). */
const CRS_4326 = "http://www.opengis.net/def/crs/EPSG/0/4326";
const FORMATS = ["gif", "mp4", "webm"];

/**
 * Height of the label band at the bottom of a frame of `width` x `height` px (the date on the left, "EO Edge" on the
 * right, white on a translucent black band): 1/12 of the shorter side, at least 14 px, at most 40 px and 1/4 of
 * the height. Pixels above it are the Processing API's image unchanged.
 */
export const labelBand = (width, height) =>
  Math.min(Math.floor(height / 4), Math.max(14, Math.min(40, Math.round(Math.min(width, height) / 12))));

/**
 * The Processing API request of one frame: `evalscript` on `collection` (its data type, as input.data[].type) over
 * `bbox` (EPSG:4326, [minLon, minLat, maxLon, maxLat]) for the UTC day `date` ("YYYY-MM-DD"), mosaicking leastCC
 * (the day's least cloudy scene on top), `width` x `height` px, one PNG response.
 */
export function frameRequest({ collection, evalscript, bbox, width, height }, date) {
  return {
    input: {
      bounds: { bbox, properties: { crs: CRS_4326 } },
      data: [
        {
          type: collection,
          dataFilter: {
            timeRange: { from: `${date}T00:00:00Z`, to: `${date}T23:59:59Z` },
            mosaickingOrder: "leastCC",
          },
        },
      ],
    },
    output: { width, height, responses: [{ identifier: "default", format: { type: "image/png" } }] },
    evalscript,
  };
}

/**
 * True when RGBA pixels `rgba` hold no data: every pixel fully transparent (dataMask 0 as alpha) or, for an
 * evalscript without an alpha channel, every channel 0 (no scene on the day renders black).
 */
export function noData(rgba) {
  let transparent = true,
    black = true;
  for (let i = 0; i < rgba.length && (transparent || black); i += 4) {
    if (rgba[i + 3] !== 0) transparent = false;
    if (rgba[i] || rgba[i + 1] || rgba[i + 2] || rgba[i + 3] !== 255) black = false;
  }
  return transparent || black;
}

/** Checks the options of exportTimelapse; throws a RangeError naming the bad one. */
function checkOptions(o) {
  const bad = (what) => {
    throw new RangeError(`exportTimelapse: ${what}`);
  };
  if (!o.token) bad("a token is required (log in first)");
  if (!o.collection || typeof o.evalscript !== "string" || !o.evalscript.trim())
    bad("collection and evalscript are required");
  const b = o.bbox;
  if (!Array.isArray(b) || b.length !== 4 || !b.every(Number.isFinite) || b[0] >= b[2] || b[1] >= b[3])
    bad("bbox must be [minLon, minLat, maxLon, maxLat] (EPSG:4326) with min < max");
  if (b[1] < -90 || b[3] > 90 || b[0] < -180 || b[2] > 180) bad("bbox lies outside -180..180, -90..90");
  if (!Array.isArray(o.dates) || !o.dates.length) bad("dates must list at least one YYYY-MM-DD date");
  for (const d of o.dates) if (!/^\d{4}-\d{2}-\d{2}$/.test(d) || Number.isNaN(Date.parse(d))) bad(`bad date "${d}"`);
  for (const k of ["width", "height"])
    if (!Number.isInteger(o[k]) || o[k] < 16 || o[k] > MAX_SIDE) bad(`${k} must be an integer 16-${MAX_SIDE}`);
  if (!FORMATS.includes(o.format)) bad(`format must be one of ${FORMATS.join(", ")}`);
  if (!(o.fps > 0 && o.fps <= 60)) bad("fps must be > 0 and <= 60");
}

/**
 * The PNG of `date` from the Processing API (this page's origin), decoded to an ImageBitmap
 * with its pixels as sent (no colour conversion, no premultiplied alpha); null when it holds no data (noData).
 * Throws ApiError with the service's envelope message (prefixed by the date) on a non-2xx answer.
 */
async function fetchFrame(options, date) {
  const r = await fetch("/api/v1/process", {
    method: "POST",
    headers: { authorization: `Bearer ${options.token}`, "content-type": "application/json", accept: "image/png" },
    body: JSON.stringify(frameRequest(options, date)),
  });
  if (!r.ok) {
    const err = new ApiError(r.status, await r.json().catch(() => null));
    err.message = `${date}: ${err.message}`;
    throw err;
  }
  const bitmap = await createImageBitmap(await r.blob(), { premultiplyAlpha: "none", colorSpaceConversion: "none" });
  const c = new OffscreenCanvas(bitmap.width, bitmap.height);
  const g = c.getContext("2d", { willReadFrequently: true });
  g.drawImage(bitmap, 0, 0);
  if (noData(g.getImageData(0, 0, c.width, c.height).data)) return (bitmap.close(), null);
  return bitmap;
}

/**
 * Runs `task(i)` for i = 0..count-1 with at most `limit` in flight; stops starting new ones after one fails (its
 * error rejects the returned promise once the running ones have ended).
 */
async function pool(count, limit, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await task(i).catch((e) => {
        next = count;
        throw e;
      });
    }
  };
  const ran = await Promise.allSettled(Array.from({ length: Math.min(limit, count) }, worker));
  const failed = ran.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * Draws frame `bitmap` (the API's image, on black where it is transparent) on canvas context `g` of `width` x
 * `height` px and burns in the label band (labelBand): `date` on the left, "EO Edge" on the right.
 */
export function drawFrame(g, bitmap, date, width, height) {
  g.globalCompositeOperation = "source-over";
  g.fillStyle = "#000";
  g.fillRect(0, 0, g.canvas.width, g.canvas.height);
  g.drawImage(bitmap, 0, 0, width, height);
  const band = labelBand(width, height);
  g.fillStyle = "rgba(0, 0, 0, 0.6)";
  g.fillRect(0, height - band, width, band);
  const pad = Math.round(band / 4);
  g.fillStyle = "#fff";
  g.textBaseline = "middle";
  g.font = `bold ${Math.round(band * 0.62)}px sans-serif`;
  g.textAlign = "left";
  g.fillText(date, pad, height - band / 2, width / 2);
  g.font = `${Math.round(band * 0.5)}px sans-serif`;
  g.textAlign = "right";
  g.fillText("EO Edge", width - pad, height - band / 2, width / 2 - 2 * pad);
}

/**
 * Exports a time-lapse of `collection` over `bbox` (EPSG:4326 [minLon, minLat, maxLon, maxLat]): one Processing API
 * PNG of `evalscript` per date of `dates` ("YYYY-MM-DD", UTC days, rendered in this order; the page's origin is the
 * service, `token` its bearer token), at most PARALLEL requests at once; dates whose image holds no data (noData)
 * are left out. Each frame is `width` x `height` px with the date and "EO Edge" burnt in at the bottom
 * (labelBand), shown 1/`fps` s. `format` "gif": animated GIF looping forever (gifenc, a 256-colour palette per
 * frame); "mp4": H.264 (VP9 where the browser has no H.264 encoder) in MP4; "webm": VP9 (else VP8) in WebM; video
 * frames are padded with black to even sides. `onProgress(done, total)` is called after each frame request (total
 * = dates.length). Resolves to the file as a Blob (type image/gif, video/mp4 or video/webm) whose `dates` lists
 * the dates it shows. Throws RangeError on bad options, an Error when the browser cannot encode the format (before
 * any request), ApiError (message "<date>: <the service's envelope message>", status) when a request fails (no
 * further one is started), an Error when no date has data.
 */
export async function exportTimelapse({
  token,
  collection,
  evalscript,
  bbox,
  dates,
  width,
  height,
  format,
  fps = 2,
  onProgress,
}) {
  const options = { token, collection, evalscript, bbox, dates, width, height, format, fps };
  checkOptions(options);
  const video = format !== "gif";
  // H.264 and VP9 (4:2:0) take even sides: a video frame gets a black column or row where a side is odd
  const canvas = new OffscreenCanvas(video ? width + (width & 1) : width, video ? height + (height & 1) : height);
  const g = canvas.getContext("2d", { willReadFrequently: true });
  const writer = video ? await videoWriter(canvas, fps, format) : gifWriter(g, fps);
  // frames arrive in any order and are encoded in date order as soon as their predecessors are in: at most a few
  // decoded images are held at once
  const ready = new Map();
  const shown = [];
  let next = 0,
    done = 0;
  const take = (i, bitmap) => {
    for (ready.set(i, bitmap); ready.has(next); next++) {
      const b = ready.get(next);
      ready.delete(next);
      if (!b) continue;
      drawFrame(g, b, dates[next], width, height);
      b.close();
      writer.add();
      shown.push(dates[next]);
    }
  };
  try {
    await pool(dates.length, PARALLEL, async (i) => {
      take(i, await fetchFrame(options, dates[i]));
      onProgress?.(++done, dates.length);
    });
    if (!shown.length)
      throw new Error(`None of the ${dates.length} dates has data over the bbox in ${collection}: nothing to export.`);
  } catch (e) {
    writer.abort();
    for (const b of ready.values()) b?.close();
    throw e;
  }
  return Object.assign(await writer.finish(), { dates: shown });
}

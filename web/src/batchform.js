// The create form of the batch page: a Batch Processing v2 task (processRequest over a tiling grid, GeoTIFF per
// tile to an S3 URL) or a Statistical Batch task (the Statistical API's aggregation for every feature of a
// GeoPackage), built from the form's fields and checked before it is sent (field -> message, shown next to the
// field). The tiling grids' resolutions come from GET /api/v2/batch/tilinggrids.
import { builderAoi } from "./minimap.js";
import { statsScript } from "./statscripts.js";

const $ = (id) => document.getElementById(id);
const CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
export const TRUE_COLOR_TIFF = `//VERSION=3
function setup() {
  return { input: ["B02", "B03", "B04", "dataMask"], output: { id: "default", bands: 4, sampleType: "UINT8" } };
}
function evaluatePixel(s) { return [255 * 2.5 * s.B04, 255 * 2.5 * s.B03, 255 * 2.5 * s.B02, 255 * s.dataMask]; }`;

/** The kind of task the form creates: "batch" or "statbatch". */
export const kind = () => $("taskKind").value;

/** The AOI fields as [west, south, east, north] (degrees). */
export const batchAoi = () => ["batchWest", "batchSouth", "batchEast", "batchNorth"].map((k) => Number($(k).value));

/** The chosen tiling grid id and resolution (numbers). */
export const gridChoice = () => ({ id: Number($("batchGrid").value), resolution: Number($("batchRes").value) });

/** The output ids of a script's setup() (`output` object or array; "default" when unnamed). */
function outputIds(script) {
  const ids = [...script.matchAll(/\bid\s*:\s*["']([^"']+)["']/g)].map((m) => m[1]);
  return ids.length ? ids.filter((id) => id !== "dataMask" || ids.length === 1) : ["default"];
}

/** The request body of the form (no checks). */
export function formBody() {
  const data = [
    {
      type: $("batchCollection").value,
      dataFilter: { timeRange: { from: `${$("batchFrom").value}T00:00:00Z`, to: `${$("batchTo").value}T23:59:59Z` } },
    },
  ];
  const script = $("batchScript").value;
  if (kind() === "statbatch") {
    const res = Number($("sbRes").value);
    return {
      input: { features: { s3: { url: $("sbFeatures").value.trim() } }, data: [{ type: data[0].type }] },
      aggregation: {
        timeRange: data[0].dataFilter.timeRange,
        aggregationInterval: { of: $("sbInterval").value.trim() },
        resx: res,
        resy: res,
        evalscript: script,
      },
      output: { s3: { url: $("batchOutput").value.trim() } },
    };
  }
  return {
    processRequest: {
      input: { bounds: { bbox: batchAoi(), properties: { crs: CRS84 } }, data },
      output: { responses: outputIds(script).map((identifier) => ({ identifier, format: { type: "image/tiff" } })) },
      evalscript: script,
    },
    input: { type: "tiling-grid", ...gridChoice() },
    output: {
      type: "raster",
      delivery: { s3: { url: $("batchOutput").value.trim() } },
      ...($("batchMakeCollection").checked ? { cogOutput: true, createCollection: true } : {}),
    },
    description: $("batchDescription").value.trim(),
  };
}

/** Problems of the form as {data-field: message}; empty when it can be sent. */
export function formErrors() {
  const errors = {};
  const [w, s, e, n] = batchAoi();
  const url = $("batchOutput").value.trim();
  const [from, to] = [$("batchFrom").value, $("batchTo").value];
  if (!$("batchCollection").value) errors["processRequest.input.data"] = "choose a collection";
  if (!from || !to || from > to) errors.timeRange = "From and To are needed, From not after To";
  if (!/\/\/VERSION=3/.test($("batchScript").value) || !/function\s+evaluatePixel/.test($("batchScript").value))
    errors["processRequest.evalscript"] = "a //VERSION=3 script with setup() and evaluatePixel()";
  if (!/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/./.test(url)) errors.output = "an S3 URL: s3://<bucket>/<path>";
  if (kind() === "statbatch") {
    if (!/^s3:\/\/[^/]+\/.+\.gpkg$/i.test($("sbFeatures").value.trim()))
      errors["input.features"] = "the GeoPackage of the features: s3://<bucket>/<path>.gpkg";
    if (!/^P\d+[DWMY]$/.test($("sbInterval").value.trim()))
      errors["aggregation.aggregationInterval"] =
        "an ISO 8601 period of days, weeks, months or years, e.g. P1D, P10D, P1M";
    if (!(Number($("sbRes").value) > 0)) errors["aggregation.resx"] = "a resolution in metres, > 0";
    return errors;
  }
  if (![w, s, e, n].every(Number.isFinite) || w >= e || s >= n || s < -90 || n > 90)
    errors["processRequest.input.bounds"] = "west < east and south < north, in degrees";
  if (!url.includes("<tileName>") && !url.includes("<tileId>"))
    errors.output =
      "the URL must name each tile: put <tileName> in it, e.g. s3://bucket/<requestId>/<tileName>/<outputId>.<format>";
  if (!$("batchRes").value) errors["input.resolution"] = "choose a resolution the grid offers";
  const bands = [...$("batchScript").value.matchAll(/\bbands\s*:\s*(\d+)/g)].map((m) => Number(m[1]));
  if ($("batchMakeCollection").checked && bands.some((n) => n !== 1))
    errors["output.createCollection"] =
      "a batch collection needs single-band outputs: this script has an output of several bands";
  return errors;
}

/** Shows the fields of the chosen kind of task and its default script. */
export function showKind() {
  const stat = kind() === "statbatch";
  for (const el of document.querySelectorAll("#batchForm .batch-only")) el.hidden = stat;
  for (const el of document.querySelectorAll("#batchForm .statbatch-only")) el.hidden = !stat;
  $("batchScript").value = stat ? statsScript("ndvi", "clouds") : TRUE_COLOR_TIFF;
  $("batchOutput").value = stat
    ? "s3://console-batch/statistics/"
    : "s3://console-batch/<requestId>/<tileName>/<outputId>.<format>";
}

/** Fills the grid list; the resolution list follows the chosen grid (60 m on the 20 km grid by default). */
export function fillGrids(grids) {
  $("batchGrid").replaceChildren(...grids.map((g) => new Option(`${g.id}: ${g.name}`, String(g.id))));
  const resolutions = () => {
    const g = grids.find((x) => String(x.id) === $("batchGrid").value);
    const unit = g?.properties.unit === "DEGREE" ? "°" : " m";
    $("batchRes").replaceChildren(
      ...[...(g?.properties.resolutions ?? [])].sort((a, b) => a - b).map((r) => new Option(`${r}${unit}`, String(r))),
    );
    if (g?.id === 0) $("batchRes").value = "60";
  };
  $("batchGrid").onchange = resolutions;
  resolutions();
}

/** Copies the request builder's collection, AOI, dates and script into the form (false when it has none). */
export function fillFromBuilder() {
  const body = window.eoConsole.request?.()?.body;
  if (!body) return false;
  const src = body.input.data[0];
  if ([...$("batchCollection").options].some((o) => o.value === src.type)) $("batchCollection").value = src.type;
  const range = src.dataFilter?.timeRange;
  if (range) ($("batchFrom").value = range.from.slice(0, 10)), ($("batchTo").value = range.to.slice(0, 10));
  const bbox = builderAoi();
  if (bbox)
    ["batchWest", "batchSouth", "batchEast", "batchNorth"].forEach(
      (k, i) => ($(k).value = String(+bbox[i].toFixed(6))),
    );
  if (kind() === "batch" && body.evalscript) $("batchScript").value = body.evalscript;
  return true;
}

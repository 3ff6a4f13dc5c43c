// Statistics of a polygon drawn on the exploration view: one Statistical API request whose bounds are the polygon
// itself (in EPSG:3857, as the Statistics page, ../stats.js, sends it, at its resolution rule), for the view's
// collection over the calendar's days, one interval per day; an index per collection (../statscripts.js: NDVI for
// Sentinel-2, VV in dB for Sentinel-1; NDVI of B05/B04 for Landsat; elevation for the DEM; the first band of a BYOC
// collection). Shown as a Chart.js series of mean ± stDev and a table of each day's numbers.
import { Chart, registerables } from "chart.js";
import L from "leaflet";
import { json } from "../api.js";
import { mapGeometry, project } from "../crs.js";
import { resolution } from "../stats.js";
import { statsScript } from "../statscripts.js";
import { CRS3857 } from "./tiles.js";

Chart.register(...registerables);
let chart = null;

/** A one-band statistics script of `expr` over `bands` (output `id`, FLOAT32, and dataMask). */
const plainScript = (id, bands, expr) => `//VERSION=3
function setup() {
  return { input: [{ bands: ${JSON.stringify([...bands, "dataMask"])} }],
    output: [{ id: "${id}", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] };
}
function evaluatePixel(s) {
  return { ${id}: [${expr}], dataMask: [s.dataMask] };
}`;

/** {script, label, res (m)} of the statistics of `collection` (`bands`: a BYOC collection's band names). */
export function statsOf(collection, bands = []) {
  if (/^sentinel-2/.test(collection)) return { script: statsScript("ndvi", "none"), label: "NDVI", res: 10 };
  if (collection === "sentinel-1-grd") return { script: statsScript("vv_db", "none"), label: "VV (dB)", res: 10 };
  if (collection === "landsat-ot-l2")
    return { script: plainScript("ndvi", ["B04", "B05"], "(s.B05 - s.B04) / (s.B05 + s.B04)"), label: "NDVI", res: 30 };
  if (collection === "dem")
    return { script: plainScript("elevation", ["DEM"], "s.DEM"), label: "Elevation (m)", res: 30 };
  const b = bands[0] ?? "B04";
  return { script: plainScript("value", [b], `s.${b}`), label: b, res: 10 };
}

/**
 * The Statistical API request of `polygon` (GeoJSON Polygon, WGS84) for `collection` from day `from` to day `to`
 * (YYYY-MM-DD; ignored for the DEM) under cloud cover `maxcc`, at the collection's resolution raised as the
 * Statistics page raises it (../stats.js resolution: 2500 px a side at most).
 */
export function statsRequest(polygon, collection, { from, to, maxcc, bands }) {
  const { script, res } = statsOf(collection, bands);
  const geometry = mapGeometry(polygon, (p) => project(3857, p));
  const xs = geometry.coordinates[0].map((p) => p[0]),
    ys = geometry.coordinates[0].map((p) => p[1]);
  const r = resolution([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)], res);
  const dataFilter = maxcc != null ? { maxCloudCoverage: maxcc } : {};
  return {
    input: { bounds: { geometry, properties: { crs: CRS3857 } }, data: [{ type: collection, dataFilter }] },
    aggregation: {
      timeRange: { from: `${from}T00:00:00Z`, to: `${to}T23:59:59Z` },
      aggregationInterval: { of: "P1D" },
      resx: r,
      resy: r,
      evalscript: script,
    },
    calculations: { default: { statistics: { default: { percentiles: { k: [50] } } } } },
  };
}

/** Rows {date, mean, stDev, min, max, p50, sampleCount, noDataCount} of a Statistical API answer's first band. */
export function statsRows(answer) {
  return (answer.data ?? [])
    .map((d) => {
      const [out] = Object.entries(d.outputs ?? {}).filter(([o]) => o !== "dataMask");
      const band = out && Object.values(out[1].bands ?? {})[0];
      const s = band?.stats;
      return s && { date: d.interval.from.slice(0, 10), ...s, p50: s.percentiles?.["50.0"] };
    })
    .filter((r) => r && r.sampleCount > r.noDataCount);
}

/**
 * Sends `body` (statsRequest) to the location at `origin` ("": this one), draws the chart into `canvas` and the
 * table into `tableEl`; resolves to the rows.
 */
export async function showStats(body, label, canvas, tableEl, origin = "") {
  const rows = statsRows(await json(`${origin}/api/v1/statistics`, { method: "POST", body }));
  chart?.destroy();
  canvas.hidden = rows.length === 0;
  chart = rows.length
    ? new Chart(canvas, {
        type: "line",
        data: {
          labels: rows.map((r) => r.date),
          datasets: [
            { label: `${label} mean`, data: rows.map((r) => r.mean), borderColor: "#2e7d32" },
            {
              label: "mean − stDev",
              data: rows.map((r) => r.mean - r.stDev),
              borderColor: "#a5d6a7",
              borderDash: [4, 4],
            },
            {
              label: "mean + stDev",
              data: rows.map((r) => r.mean + r.stDev),
              borderColor: "#a5d6a7",
              borderDash: [4, 4],
            },
          ],
        },
        options: { animation: false, plugins: { legend: { labels: { boxWidth: 10 } } } },
      })
    : null;
  const table = document.createElement("table");
  table.innerHTML = `<tr><th>date</th><th>mean</th><th>stDev</th><th>min</th><th>max</th><th>pixels</th></tr>`;
  for (const r of rows) {
    const tr = table.insertRow();
    tr.dataset.date = r.date;
    for (const v of [r.date, r.mean, r.stDev, r.min, r.max, r.sampleCount - r.noDataCount])
      tr.insertCell().textContent = typeof v === "number" ? String(+v.toPrecision(6)) : v;
  }
  tableEl.replaceChildren(rows.length ? table : `No ${label} values over the polygon at these dates.`);
  return rows;
}

/** Draws `polygon` on `group` (an L.LayerGroup), replacing what it held. */
export const showPolygon = (group, polygon) =>
  group.clearLayers().addLayer(L.geoJSON(polygon, { style: { color: "#ff7800", weight: 2, fillOpacity: 0.08 } }));

// The statistics page: Statistical API over the request builder's AOI and collection; a Chart.js time series of
// NDVI mean ± stDev and the 10/50/90th percentiles per interval, and the histogram of a chosen interval.
import { Chart, registerables } from "chart.js";
import L from "leaflet";
import { json, showError, showState } from "./api.js";

Chart.register(...registerables);
const $ = (id) => document.getElementById(id);
const NDVI = `//VERSION=3
function setup() {
  return { input: [{ bands: ["B04", "B08", "dataMask"] }], output: [{ id: "ndvi", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] };
}
function evaluatePixel(s) { return { ndvi: [(s.B08 - s.B04) / (s.B08 + s.B04)], dataMask: [s.dataMask] }; }`;
let series, histogram, entries = [];

/** The statistical request for the AOI fields of the request builder (EPSG:3857 bbox, resolution in metres). */
function statsRequest() {
  const [w, s, e, n] = ["west", "south", "east", "north"].map((k) => Number($(k).value));
  const [sw, ne] = [L.CRS.EPSG3857.project(L.latLng(s, w)), L.CRS.EPSG3857.project(L.latLng(n, e))];
  const res = Number($("statsRes").value);
  return {
    input: { bounds: { bbox: [sw.x, sw.y, ne.x, ne.y], properties: { crs: "http://www.opengis.net/def/crs/EPSG/0/3857" } }, data: [{ type: $("collection").value || "sentinel-2-l2a" }] },
    aggregation: {
      timeRange: { from: `${$("statsFrom").value}T00:00:00Z`, to: `${$("statsTo").value}T23:59:59Z` },
      aggregationInterval: { of: $("statsInterval").value.trim() },
      resx: res, resy: res, evalscript: NDVI,
    },
    calculations: { default: { statistics: { default: { percentiles: { k: [10, 50, 90] } } }, histograms: { default: { binWidth: 0.05, lowEdge: -1, highEdge: 1 } } } },
  };
}

const band = (entry) => entry.outputs?.ndvi?.bands?.B0;
const line = (label, data, extra = {}) => ({ label, data, borderWidth: 1.5, pointRadius: 2, ...extra });

/** Draws the series chart from the response entries that have statistics. */
function drawSeries() {
  const ok = entries.filter((d) => band(d)?.stats);
  const st = ok.map((d) => band(d).stats);
  const pct = (k) => st.map((s) => s.percentiles?.[`${k}.0`] ?? s.percentiles?.[k] ?? null);
  const data = {
    labels: ok.map((d) => d.interval.from.slice(0, 10)),
    datasets: [
      line("mean + stDev", st.map((s) => s.mean + s.stDev), { borderColor: "#9ecae1", fill: "+1", backgroundColor: "rgba(158,202,225,0.3)", pointRadius: 0 }),
      line("mean - stDev", st.map((s) => s.mean - s.stDev), { borderColor: "#9ecae1", pointRadius: 0 }),
      line("mean", st.map((s) => s.mean), { borderColor: "#08519c" }),
      line("p10", pct(10), { borderColor: "#e6550d", borderDash: [4, 3] }),
      line("p50", pct(50), { borderColor: "#31a354" }),
      line("p90", pct(90), { borderColor: "#756bb1", borderDash: [4, 3] }),
    ],
  };
  series?.destroy();
  series = window.eoConsole.series = new Chart($("statsChart"), { type: "line", data, options: { animation: false, scales: { y: { title: { display: true, text: "NDVI" } } } } });
  $("histInterval").replaceChildren(...ok.map((d, i) => new Option(d.interval.from.slice(0, 10), String(i))));
  drawHistogram(ok);
}

/** Draws the histogram of the interval chosen in #histInterval. */
function drawHistogram(ok = entries.filter((d) => band(d)?.stats)) {
  const bins = band(ok[Number($("histInterval").value)] ?? {})?.histogram?.bins ?? [];
  histogram?.destroy();
  histogram = window.eoConsole.histogram = new Chart($("histChart"), {
    type: "bar",
    data: { labels: bins.map((b) => b.lowEdge.toFixed(2)), datasets: [{ label: "pixels per NDVI bin", data: bins.map((b) => b.count), backgroundColor: "#31a354" }] },
    options: { animation: false },
  });
}

/** First show of the statistics page: its form and the histogram selector. */
export function initStatistics() {
  $("statsForm").addEventListener("submit", async (e) => {
    e.preventDefault();
    showState($("statsState"), "computing...");
    try {
      const res = await json("/api/v1/statistics", { method: "POST", body: statsRequest() });
      entries = res.data;
      drawSeries();
      showState($("statsState"), `${res.status}: ${entries.length} intervals, ${res.geometryPixelCount} px`);
      document.body.dataset.statsDone = String(entries.length);
    } catch (err) {
      showError($("statsState"), err, $("statsForm"));
    }
  });
  $("histInterval").addEventListener("change", () => drawHistogram());
}

// The statistics page: Statistical API over an AOI (a box or polygon drawn on its map, typed bbox, or the request
// builder's box or polygon: a polygon is sent as the request's geometry, not its bbox) for any evalscript: index
// presets with SCL cloud masks (./statscripts.js) or the user's script. Dates default to the catalog's scenes over
// the AOI; the resolution is raised when the AOI would exceed 2500 px. Results: a Chart.js time series on a real
// time axis (interval start dates, not evenly spaced) of mean ± stDev and percentiles of a chosen output band, the
// histogram of a chosen interval, CSV and JSON downloads, and the AOI on a map.
import { Chart, registerables } from "chart.js";
import L from "leaflet";
import { json, showError, showState } from "./api.js";
import { bboxLayer, builderAoi, miniMap } from "./minimap.js";
import { boxTool, polygonTool } from "./map.js";
import { geometryBbox, mapGeometry, project } from "./crs.js";
import { INDICES, MASKS, statsScript } from "./statscripts.js";

Chart.register(...registerables);
const $ = (id) => document.getElementById(id);
const MAX_PX = 2500;
const DAY = 86_400_000;
const CRS3857 = "http://www.opengis.net/def/crs/EPSG/0/3857";
let series,
  histogram,
  map,
  result = { data: [] };
/** The polygon AOI (GeoJSON Polygon / MultiPolygon, WGS84), or null for the bbox of the fields. */
let geometry = null;

/** The AOI fields as [west, south, east, north] (degrees). */
const aoi = () => ["statsWest", "statsSouth", "statsEast", "statsNorth"].map((k) => Number($(k).value));

/** EPSG:3857 bbox (metres) of the AOI. */
function mercator([w, s, e, n]) {
  const [a, b] = [L.CRS.EPSG3857.project(L.latLng(s, w)), L.CRS.EPSG3857.project(L.latLng(n, e))];
  return [a.x, a.y, b.x, b.y];
}

/** The resolution (m) to use: `asked`, raised to a multiple of 10 m when the AOI would exceed MAX_PX a side. */
export function resolution(bbox, asked) {
  const needed = Math.max(bbox[2] - bbox[0], bbox[3] - bbox[1]) / MAX_PX;
  return asked >= needed ? asked : Math.ceil(needed / 10) * 10;
}

/** Puts AOI `b` ([w, s, e, n]) or `poly` (its polygon, WGS84) into the AOI fields (its bbox) and onto the map. */
function setAoi(b, poly = null) {
  geometry = poly;
  if (poly) b = geometryBbox(poly);
  ["statsWest", "statsSouth", "statsEast", "statsNorth"].forEach((k, i) => ($(k).value = String(+b[i].toFixed(6))));
  $("statsAoiKind").textContent = poly
    ? "polygon (the fields show its bbox; the statistics cover the polygon only)"
    : "box";
  map?.show([poly ? L.geoJSON(poly, { style: { weight: 2, fillOpacity: 0.1 } }) : bboxLayer(b)]);
}

/** The drawing buttons of the statistics map: a box (drag) or a polygon (click the vertices). */
function wireDrawing() {
  let drag = null; // the box being dragged (the map is not refitted until it is done)
  const preview = (a) => (drag?.remove(), (drag = bboxLayer(a.bbox).addTo(map.map)));
  const tools = {
    statsDrawBox: boxTool(map.map, preview, (a) => (drag?.remove(), setAoi(a.bbox), stop())),
    statsDrawPolygon: polygonTool(map.map, (g) => (setAoi(null, g), stop())),
  };
  const stop = () => Object.entries(tools).forEach(([id, t]) => ($(id).setAttribute("aria-pressed", "false"), t.off()));
  for (const [id, tool] of Object.entries(tools)) {
    $(id).addEventListener("click", () => {
      const on = $(id).getAttribute("aria-pressed") !== "true";
      stop();
      if (on) $(id).setAttribute("aria-pressed", "true"), tool.on();
    });
  }
}

/** Sets From/To around the dates of the catalog's scenes of the collection over the AOI (15 days either side). */
async function datesFromCatalog() {
  const body = { collections: [$("statsCollection").value], bbox: aoi(), limit: 100 };
  const items = await json("/api/v1/catalog/1.0.0/search", { method: "POST", body });
  const times = (items.features ?? []).map((f) => Date.parse(f.properties.datetime)).filter(Number.isFinite);
  if (!times.length) return showState($("statsState"), "the catalog lists no scenes of this collection over the AOI");
  $("statsFrom").value = day(Math.min(...times) - 15 * DAY);
  $("statsTo").value = day(Math.max(...times) + 15 * DAY);
  showState(
    $("statsState"),
    `${times.length} scenes in the catalog from ${day(Math.min(...times))} to ${day(Math.max(...times))}`,
  );
}

/** The Statistical API request of the form; also shows the resolution used (and why, when raised). */
function statsRequest() {
  const bbox = mercator(aoi());
  const bounds = geometry ? { geometry: mapGeometry(geometry, (p) => project(3857, p)) } : { bbox };
  const asked = Number($("statsRes").value) || 10;
  const res = resolution(bbox, asked);
  const size = `${Math.ceil((bbox[2] - bbox[0]) / res)} x ${Math.ceil((bbox[3] - bbox[1]) / res)} px`;
  $("statsResUsed").textContent =
    res === asked
      ? `${res} m: ${size}`
      : `computed at ${res} m (${size}): at ${asked} m the AOI would exceed ${MAX_PX} px a side`;
  return {
    input: { bounds: { ...bounds, properties: { crs: CRS3857 } }, data: [{ type: $("statsCollection").value }] },
    aggregation: {
      timeRange: { from: `${$("statsFrom").value}T00:00:00Z`, to: `${$("statsTo").value}T23:59:59Z` },
      aggregationInterval: { of: $("statsInterval").value.trim() },
      resx: res,
      resy: res,
      evalscript: $("statsScript").value,
    },
    calculations: {
      default: {
        statistics: { default: { percentiles: { k: [10, 50, 90] } } },
        histograms: { default: { nBins: 20 } },
      },
    },
  };
}

/** "output/band" keys of the response's outputs (dataMask excluded), in order of appearance. */
const bandKeys = (data) => [
  ...new Set(
    data.flatMap((d) =>
      Object.entries(d.outputs ?? {})
        .filter(([o]) => o !== "dataMask")
        .flatMap(([o, v]) => Object.keys(v.bands ?? {}).map((b) => `${o}/${b}`)),
    ),
  ),
];
/** The statistics block of `entry` for key "output/band". */
const bandOf = (entry, key) => {
  const [o, b] = key.split("/");
  return entry.outputs?.[o]?.bands?.[b];
};
const day = (t) => new Date(t).toISOString().slice(0, 10);
/** True when a band block has statistics of at least one pixel (a fully masked interval's mean is "NaN"). */
const hasData = (band) => Number.isFinite(band?.stats?.mean);

/** Draws the series chart of the chosen band: one point per interval with statistics, at its start date. */
function drawSeries() {
  const key = $("statsBand").value;
  const ok = result.data.filter((d) => hasData(bandOf(d, key)));
  const pts = (f) => ok.map((d) => ({ x: Date.parse(d.interval.from), y: f(bandOf(d, key).stats) }));
  const pct = (k) => (s) => s.percentiles?.[`${k}.0`] ?? s.percentiles?.[k] ?? null;
  const line = (label, data, extra = {}) => ({ label, data, borderWidth: 1.5, pointRadius: 3, ...extra });
  const datasets = [
    line(
      "mean + stDev",
      pts((s) => s.mean + s.stDev),
      { borderColor: "#9ecae1", fill: "+1", backgroundColor: "rgba(158,202,225,0.3)", pointRadius: 0 },
    ),
    line(
      "mean - stDev",
      pts((s) => s.mean - s.stDev),
      { borderColor: "#9ecae1", pointRadius: 0 },
    ),
    line(
      "mean",
      pts((s) => s.mean),
      { borderColor: "#08519c" },
    ),
    line("p10", pts(pct(10)), { borderColor: "#e6550d", borderDash: [4, 3] }),
    line("p50", pts(pct(50)), { borderColor: "#31a354" }),
    line("p90", pts(pct(90)), { borderColor: "#756bb1", borderDash: [4, 3] }),
  ];
  const [from, to] = [Date.parse(`${$("statsFrom").value}T00:00:00Z`), Date.parse(`${$("statsTo").value}T00:00:00Z`)];
  series?.destroy();
  series = window.eoConsole.series = new Chart($("statsChart"), {
    type: "line",
    data: { datasets },
    options: {
      animation: false,
      maintainAspectRatio: false,
      parsing: false,
      scales: {
        x: {
          type: "linear",
          min: from,
          max: to,
          ticks: { callback: (v) => day(v), maxRotation: 0, autoSkipPadding: 12 },
          title: { display: true, text: "interval start (UTC)" },
        },
        y: { title: { display: true, text: key } },
      },
      plugins: { tooltip: { callbacks: { title: (items) => day(items[0].parsed.x) } } },
    },
  });
  $("histInterval").replaceChildren(...ok.map((d) => new Option(d.interval.from.slice(0, 10), d.interval.from)));
  drawHistogram();
}

/** Draws the histogram of the chosen band in the interval chosen in #histInterval. */
function drawHistogram() {
  const entry = result.data.find((d) => d.interval.from === $("histInterval").value);
  const bins = (entry && bandOf(entry, $("statsBand").value)?.histogram?.bins) ?? [];
  histogram?.destroy();
  histogram = window.eoConsole.histogram = new Chart($("histChart"), {
    type: "bar",
    data: {
      labels: bins.map((b) => b.lowEdge.toFixed(3)),
      datasets: [{ label: "pixels per bin (low edge)", data: bins.map((b) => b.count), backgroundColor: "#31a354" }],
    },
    options: { animation: false, maintainAspectRatio: false },
  });
}

/** CSV of the result: one row per interval and output band (empty statistics for intervals without data). */
function csv() {
  const head = [
    "from",
    "to",
    "output",
    "band",
    "min",
    "max",
    "mean",
    "stDev",
    "sampleCount",
    "noDataCount",
    "p10",
    "p50",
    "p90",
    "error",
  ];
  const rows = result.data.flatMap((d) => {
    const keys = bandKeys([d]);
    if (!keys.length)
      return [
        [
          d.interval.from,
          d.interval.to,
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          d.error?.message ?? d.error?.type ?? "no data",
        ],
      ];
    return keys.map((k) => {
      const s = bandOf(d, k).stats ?? {};
      const p = (n) => s.percentiles?.[`${n}.0`] ?? s.percentiles?.[n] ?? "";
      return [
        d.interval.from,
        d.interval.to,
        ...k.split("/"),
        s.min,
        s.max,
        s.mean,
        s.stDev,
        s.sampleCount,
        s.noDataCount,
        p(10),
        p(50),
        p(90),
        "",
      ];
    });
  });
  return (
    [head, ...rows]
      .map((r) =>
        r
          .map((v) => (/[",\n]/.test(String(v ?? "")) ? `"${String(v).replaceAll('"', '""')}"` : String(v ?? "")))
          .join(","),
      )
      .join("\n") + "\n"
  );
}

/** Points the download links at the current result (CSV and JSON). */
function exports() {
  for (const [id, type, text] of [
    ["statsCsv", "text/csv", csv()],
    ["statsJson", "application/json", JSON.stringify(result, null, 2)],
  ]) {
    const a = $(id);
    if (a.href) URL.revokeObjectURL(a.href);
    a.href = URL.createObjectURL(new Blob([text], { type }));
    a.hidden = false;
  }
}

/** Runs the form's request and draws the result. */
async function compute() {
  showState($("statsState"), "computing...");
  $("statsRun").disabled = true;
  try {
    result = await json("/api/v1/statistics", { method: "POST", body: statsRequest() });
    const keys = bandKeys(result.data);
    $("statsBand").replaceChildren(...keys.map((k) => new Option(k, k)));
    drawSeries();
    exports();
    const withData = result.data.filter((d) => keys.some((k) => hasData(bandOf(d, k)))).length;
    showState(
      $("statsState"),
      `${result.data.length} intervals, ${withData} with data${withData ? "" : ": no scenes in this range (see the dates of the catalog)"}`,
    );
    document.body.dataset.statsDone = String(withData);
  } catch (err) {
    showError($("statsState"), err, $("statsForm"));
    document.body.dataset.statsDone = "error";
  } finally {
    $("statsRun").disabled = false;
  }
}

/** First show of the statistics page: presets, collections, AOI (the builder's, else the fields'), dates, map. */
export async function initStatistics() {
  $("statsIndex").replaceChildren(
    ...INDICES.map((i) => new Option(i.label, i.id)),
    new Option("Custom (edit the script)", "custom"),
  );
  $("statsMask").replaceChildren(...MASKS.map((m) => new Option(m.label, m.id)));
  const preset = () =>
    $("statsIndex").value !== "custom" &&
    ($("statsScript").value = statsScript($("statsIndex").value, $("statsMask").value));
  $("statsIndex").addEventListener("change", preset);
  $("statsMask").addEventListener("change", preset);
  $("statsScript").addEventListener("input", () => ($("statsIndex").value = "custom"));
  preset();
  map = miniMap($("statsMap"));
  wireDrawing();
  for (const k of ["statsWest", "statsSouth", "statsEast", "statsNorth"])
    $(k).addEventListener("change", () => setAoi(aoi()));
  $("statsUseBuilder").addEventListener("click", () => {
    const b = builderAoi(),
      poly = window.eoConsole.aoi?.()?.geometry;
    if (b) setAoi(b, poly ?? null);
    else showState($("statsState"), "open the request builder first");
  });
  $("statsDates").addEventListener("click", () => datesFromCatalog().catch((err) => showError($("statsState"), err)));
  $("statsForm").addEventListener("submit", (e) => (e.preventDefault(), compute()));
  $("statsBand").addEventListener("change", drawSeries);
  $("histInterval").addEventListener("change", drawHistogram);
  setAoi(builderAoi() ?? aoi(), window.eoConsole.aoi?.()?.geometry ?? null);
  try {
    const { collections } = await json("/api/v1/catalog/1.0.0/collections");
    const ids = collections.map((c) => c.id);
    $("statsCollection").replaceChildren(...ids.map((id) => new Option(id, id)));
    $("statsCollection").value = ids.includes("sentinel-2-l2a") ? "sentinel-2-l2a" : ids[0];
    await datesFromCatalog();
  } catch (err) {
    showError($("statsState"), err);
  }
  document.body.dataset.statsReady = "1";
}

// The exploration view's drawing tools: distance (a line), area (a polygon) and statistics of a polygon, one at a
// time; what they measure goes to #measureOut (data-metres, data-m2) and the statistics to #statsOut.
import L from "leaflet";
import { showError, showState } from "../api.js";
import { polygonTool } from "../map.js";
import { areaText, lengthText, lineLength, lineTool, polygonMeasure } from "./measure.js";
import { showPolygon, showStats, statsOf, statsRequest } from "./stats.js";
import { cloudy } from "./layers.js";

const $ = (id) => document.getElementById(id);

/** On a phone (the panel over the map), folds the panel while a tool draws (`hide`) and opens it for the result. */
function fold(hide) {
  if (window.matchMedia("(max-width: 600px)").matches && $("panel").hidden !== hide) $("panelToggle").click();
}

/**
 * The statistics' day range: the `dates` (YYYY-MM-DD, ascending) around `date` (up to 10 either side); the day of
 * today for a collection without dates.
 */
function statsRange(dates, date) {
  if (!dates.length) {
    const today = new Date().toISOString().slice(0, 10);
    return { from: today, to: today };
  }
  const i = Math.max(0, dates.indexOf(date));
  const near = dates.slice(Math.max(0, i - 10), i + 11);
  return { from: near[0], to: near.at(-1) };
}

/**
 * Wires the tool buttons on `map`. `ctx`: {view (collection, date, maxcc), dates() -> [{date}], bands() -> the BYOC
 * collection's band names, origin() -> the address of the location hosting it ("": this one)}. The last statistics request and rows are kept in window.eoExplore.stats.
 */
export function wireTools(map, ctx) {
  const out = $("measureOut");
  const drawnGroup = L.layerGroup().addTo(map);
  const say = (text, data) => (showState(out, text), Object.assign(out.dataset, data));
  const tools = {
    measureLine: lineTool(
      map,
      (coords) => {
        drawnGroup.clearLayers().addLayer(
          L.polyline(
            coords.map(([x, y]) => [y, x]),
            { color: "#ff7800" },
          ),
        );
        const m = lineLength(coords);
        say(`Distance: ${lengthText(m)} (geodesic, WGS84)`, { metres: String(m) });
        finish();
      },
      (coords) => say(`Distance: ${lengthText(lineLength(coords))}…`, {}),
    ),
    measureArea: polygonTool(map, (polygon) => {
      showPolygon(drawnGroup, polygon);
      const { area, perimeter } = polygonMeasure(polygon);
      say(`Area: ${areaText(area)}, perimeter ${lengthText(perimeter)} (geodesic, WGS84)`, { m2: String(area) });
      window.eoExplore.polygon = polygon;
      finish();
    }),
    statsPolygon: polygonTool(map, async (polygon) => {
      showPolygon(drawnGroup, polygon);
      finish();
      const { view } = ctx;
      const range = statsRange(
        ctx.dates().map((d) => d.date),
        view.date,
      );
      const body = statsRequest(polygon, view.collection, {
        ...range,
        maxcc: cloudy(view.collection) ? view.maxcc : null,
        bands: ctx.bands(),
      });
      window.eoExplore.stats = { polygon, body };
      say(`Statistics of the polygon from ${range.from} to ${range.to}…`, {});
      try {
        const label = statsOf(view.collection).label;
        const rows = await showStats(body, label, $("statsChart"), $("statsTable"), ctx.origin());
        window.eoExplore.stats.rows = rows;
        say(`Statistics of the polygon (${statsOf(view.collection).label}): ${rows.length} days with data`, {
          statsDays: String(rows.length),
        });
      } catch (e) {
        showError(out, e);
      }
    }),
  };
  const stop = () => Object.entries(tools).forEach(([id, t]) => ($(id).setAttribute("aria-pressed", "false"), t.off()));
  const finish = () => (stop(), fold(false));
  for (const [id, tool] of Object.entries(tools))
    $(id).addEventListener("click", () => {
      const on = $(id).getAttribute("aria-pressed") !== "true";
      stop();
      if (on)
        $(id).setAttribute("aria-pressed", "true"),
          tool.on(),
          fold(true),
          say("Click the vertices on the map; double-click (or Enter) ends.", {});
    });
  $("clearDrawn").addEventListener("click", () => (stop(), drawnGroup.clearLayers(), say("", {})));
}
